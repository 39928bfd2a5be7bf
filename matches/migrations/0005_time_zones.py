"""Each sitting and each group keeps the time zone of the phone that started it (issue 12). Existing
rows get "": the server's TIME_ZONE, which is how they were shown until now."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_groups_and_figures"),
    ]

    operations = [
        migrations.AddField(
            model_name="group",
            name="time_zone",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="sitting",
            name="time_zone",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
