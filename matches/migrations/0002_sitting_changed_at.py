import django.utils.timezone
from django.db import migrations, models
from django.db.models import Max
from django.db.models.functions import Coalesce


def last_change_of_each_sitting(apps, schema_editor):
    """Existing sittings were last touched by their newest hand, their end or their start."""
    Sitting = apps.get_model("matches", "Sitting")
    for sitting in Sitting.objects.annotate(
        last_hand=Coalesce(Max("hands__recorded_at"), "started_at"),
        last_fix=Coalesce(Max("hands__corrected_at"), "started_at"),
    ).iterator():
        moments = [sitting.started_at, sitting.last_hand, sitting.last_fix, sitting.finished_at]
        Sitting.objects.filter(pk=sitting.pk).update(changed_at=max(m for m in moments if m))


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="sitting",
            name="changed_at",
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
        migrations.RunPython(last_change_of_each_sitting, migrations.RunPython.noop),
    ]
