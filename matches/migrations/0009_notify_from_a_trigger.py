"""PostgreSQL: a change of a sitting's or a group's version NOTIFYs the app processes from a trigger, in
the changing transaction (delivered on commit), so the app needs no statement of its own for it
(matches.models.announce). The payloads are announce's: `s<id>:<version>:<group id>` and `g<id>`.
Other databases: nothing."""

from django.db import migrations

CHANNEL = "last_trick"  # matches.models.announce.CHANNEL, written here as it was when this ran

CREATE = f"""
CREATE FUNCTION matches_sitting_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', 's' || NEW.id || ':' || NEW.version || ':' || coalesce(NEW.group_id::text, ''));
    RETURN NULL;
END $$;
CREATE TRIGGER matches_sitting_notify AFTER UPDATE OF version ON matches_sitting
    FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version) EXECUTE FUNCTION matches_sitting_notify();
CREATE FUNCTION matches_group_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', 'g' || NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER matches_group_notify AFTER UPDATE OF version ON matches_group
    FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version) EXECUTE FUNCTION matches_group_notify();
"""

DROP = """
DROP TRIGGER IF EXISTS matches_sitting_notify ON matches_sitting;
DROP FUNCTION IF EXISTS matches_sitting_notify();
DROP TRIGGER IF EXISTS matches_group_notify ON matches_group;
DROP FUNCTION IF EXISTS matches_group_notify();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("matches", "0008_game_settings_by_name")]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP), elidable=False)]
