"""Each group keeps the number of hands over its matches, so a tap need not count them."""

from django.db import migrations, models
from django.db.models import Count


def count_hands(apps, schema_editor):
    Group = apps.get_model("matches", "Group")
    Hand = apps.get_model("matches", "Hand")
    per_group = Hand.objects.filter(sitting__group__isnull=False).values("sitting__group")
    for group, hands in per_group.annotate(n=Count("*")).order_by().values_list("sitting__group", "n"):
        Group.objects.filter(pk=group).update(hands=hands)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0010_undo_reopens_no_abandoned_hand"),
    ]

    operations = [
        migrations.AddField(
            model_name="group",
            name="hands",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(count_hands, migrations.RunPython.noop),
    ]
