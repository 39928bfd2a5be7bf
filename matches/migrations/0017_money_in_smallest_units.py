"""Stakes and payments were whole units of their currency; they are now its smallest units (cents for a
currency that has them: matches.domain.money), so each amount kept in such a currency is scaled up."""

from django.db import migrations

from matches.domain.money import decimals


def scaled(apps, schema_editor, up: bool) -> None:
    Sitting, Payment = apps.get_model("matches", "Sitting"), apps.get_model("matches", "Payment")
    for sitting in Sitting.objects.filter(options__has_key="stake_amount").only("pk", "options").iterator():
        places = decimals(sitting.options.get("stake_label", ""))
        if places and sitting.options.get("stake_amount"):
            factor = 10**places
            amount = sitting.options["stake_amount"]
            sitting.options["stake_amount"] = amount * factor if up else max(1, amount // factor)
            sitting.save(update_fields=["options"])
    for currency in Payment.objects.values_list("currency", flat=True).distinct():
        if places := decimals(currency):
            for payment in Payment.objects.filter(currency=currency).only("pk", "amount").iterator():
                payment.amount = payment.amount * 10**places if up else max(1, payment.amount // 10**places)
                payment.save(update_fields=["amount"])


class Migration(migrations.Migration):
    dependencies = [("matches", "0016_receipts_in_order_made")]

    operations = [
        migrations.RunPython(
            lambda apps, editor: scaled(apps, editor, up=True), lambda apps, editor: scaled(apps, editor, up=False)
        )
    ]
