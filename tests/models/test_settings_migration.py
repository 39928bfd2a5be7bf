"""Migration 0008 moves a sitting's chips and stake into its `options`, and back."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE, AFTER = [("matches", "0007_game_is_a_registry_slug")], [("matches", "0008_game_settings_by_name")]


def migrate(to=None):
    """To `to`, or (None) to the latest migration: the schema every later test expects (0009's trigger)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    to = to or executor.loader.graph.leaf_nodes()
    executor.migrate(to)
    return executor.loader.project_state(to).apps


def test_the_settings_of_existing_sittings_move_into_options_and_back():
    try:
        old = migrate(BEFORE)
        Sitting = old.get_model("matches", "Sitting")
        fapfap = Sitting.objects.create(game="fapfap", stake_amount=100, stake_label="FCFA")
        cat_te = Sitting.objects.create(game="cat-te", starting_chips=20)
        agram = Sitting.objects.create(game="agram")
        new = migrate(AFTER)
        options = dict(new.get_model("matches", "Sitting").objects.values_list("pk", "options"))
        assert options == {
            fapfap.pk: {"stake_amount": 100, "stake_label": "FCFA"},
            cat_te.pk: {"starting_chips": 20},
            agram.pk: {},
        }
        back = migrate(BEFORE).get_model("matches", "Sitting")
        assert back.objects.get(pk=fapfap.pk).stake_label == "FCFA"
        assert back.objects.get(pk=cat_te.pk).starting_chips == 20
    finally:
        migrate()


def test_stakes_and_payments_in_a_currency_with_cents_are_scaled_to_cents_and_back():
    before, after = [("matches", "0016_receipts_in_order_made")], [("matches", "0017_money_in_smallest_units")]
    try:
        old = migrate(before)
        Sitting, Group, Player = (old.get_model("matches", name) for name in ("Sitting", "Group", "Player"))
        euros = Sitting.objects.create(game="fapfap", options={"stake_amount": 2, "stake_label": "€"})
        francs = Sitting.objects.create(game="fapfap", options={"stake_amount": 100, "stake_label": "FCFA"})
        group = Group.objects.create(name="Jeudi", token="t" * 22, watch_token="w" * 22)
        ana, ben = (Player.objects.create(group=group, name=name) for name in ("Ana", "Ben"))
        Payment = old.get_model("matches", "Payment")
        paid = Payment.objects.create(group=group, payer=ana, payee=ben, amount=3, currency="EUR")
        new = migrate(after)
        options = dict(new.get_model("matches", "Sitting").objects.values_list("pk", "options"))
        assert options[euros.pk]["stake_amount"] == 200 and options[francs.pk]["stake_amount"] == 100
        assert new.get_model("matches", "Payment").objects.get(pk=paid.pk).amount == 300
        back = migrate(before)
        assert back.get_model("matches", "Sitting").objects.get(pk=euros.pk).options["stake_amount"] == 2
    finally:
        migrate()
