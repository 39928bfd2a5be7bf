"""A sitting's game settings (starting chips, stake and its currency) kept by name in one JSON field."""

from django.db import migrations, models

NAMES = ("starting_chips", "stake_amount", "stake_label")


def into_options(apps, schema_editor):
    Sitting = apps.get_model("matches", "Sitting")
    changed = []
    for sitting in Sitting.objects.only("pk", *NAMES).iterator():
        sitting.options = {name: getattr(sitting, name) for name in NAMES if getattr(sitting, name) not in (None, "")}
        changed.append(sitting)
    Sitting.objects.bulk_update(changed, ["options"], batch_size=500)


def out_of_options(apps, schema_editor):
    Sitting = apps.get_model("matches", "Sitting")
    changed = []
    for sitting in Sitting.objects.only("pk", "options").iterator():
        sitting.starting_chips = sitting.options.get("starting_chips")
        sitting.stake_amount = sitting.options.get("stake_amount")
        sitting.stake_label = sitting.options.get("stake_label", "")
        changed.append(sitting)
    Sitting.objects.bulk_update(changed, list(NAMES), batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("matches", "0007_game_is_a_registry_slug")]

    operations = [
        migrations.AddField(model_name="sitting", name="options", field=models.JSONField(blank=True, default=dict)),
        migrations.RunPython(into_options, out_of_options),
        migrations.RemoveField(model_name="sitting", name="stake_amount"),
        migrations.RemoveField(model_name="sitting", name="stake_label"),
        migrations.RemoveField(model_name="sitting", name="starting_chips"),
    ]
