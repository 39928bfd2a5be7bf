from django.db import migrations, models
from django.db.models import Max


def batches_after_the_last_hand(apps, schema_editor):
    """Date the chip batches of older sittings, which kept only their count (Cat Tê).

    When each was handed out is not known: each is dated by the hand after the sitting's last row,
    as if handed out at the end. So no hand row of an older export gains chips it may not have had,
    and the export's last row still shows the chips the table shows. Rows whose list already
    matches their count are left as they are. Source: RULES.md, Cat Te.
    """
    Sitting = apps.get_model("matches", "Sitting")
    for sitting in Sitting.objects.filter(chips_reissued__gt=0).annotate(last=Max("hands__number")).iterator():
        if len(sitting.reissued_before) != sitting.chips_reissued:
            after_last = (sitting.last or 0) + 1
            Sitting.objects.filter(pk=sitting.pk).update(reissued_before=[after_last] * sitting.chips_reissued)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0002_sitting_changed_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="sitting",
            name="reissued_before",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(batches_after_the_last_hand, migrations.RunPython.noop),
    ]
