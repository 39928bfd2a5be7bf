"""Chips handed out while hand N+1 was open, then hand N undone: the batch stayed dated N+1, after the
open hand, which the group archive then refused. Such batches are dated at the open hand, as undo
now dates them (Sitting.undo_hand)."""

from django.db import migrations
from django.db.models import Max


def date_batches_no_later_than_the_open_hand(apps, schema_editor):
    Sitting = apps.get_model("matches", "Sitting")
    for sitting in Sitting.objects.filter(chips_reissued__gt=0).annotate(last=Max("hands__number")).iterator():
        open_number = (sitting.last or 0) + 1
        dated = [min(batch, open_number) for batch in sitting.reissued_before]
        if dated != sitting.reissued_before:
            Sitting.objects.filter(pk=sitting.pk).update(reissued_before=dated)


class Migration(migrations.Migration):
    dependencies = [("matches", "0005_time_zones")]

    operations = [migrations.RunPython(date_batches_no_later_than_the_open_hand, migrations.RunPython.noop)]
