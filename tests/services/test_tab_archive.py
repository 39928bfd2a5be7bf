"""A group's tab in its archive: payments (taken back ones too) and forgiveness go and come back; an
older archive without them still imports, with an empty tab."""

import json

import pytest

from matches.models import Group
from matches.services.archive import ArchiveError, dumps, export_group, import_group, read_archive
from matches.services.tab import forgive, read_tab

from tests.groups import same_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def tabbed() -> Group:
    group = Group.create("Jeudi", ["Ana", "Ben", "Cleo"])
    ana, ben, cleo = (p.pk for p in group.members())
    sitting = group.start_match("fapfap", [ana, ben, cleo], stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    group.mark_paid(ben, ana, 50, "CFA", by="ph1")
    group.take_back(group.mark_paid(cleo, ana, 70, "CFA", by="ph2").pk, by="ph2")
    forgive(group, by="ph3")
    group.mark_paid(cleo, ana, 30, "CFA", by="ph1")
    return group


def test_payments_and_forgiveness_round_trip_through_the_archive(tabbed):
    data = read_archive(dumps(export_group(tabbed)).encode())
    assert [p["amount"] for p in data["payments"]] == [50, 70, 30]
    assert data["payments"][1]["taken_back_by_phone"] == "ph2" and data["forgiven"][0]["by_phone"] == "ph3"
    copy = import_group(data)
    assert same_document(export_group(copy), data)
    assert read_tab(copy).balances == read_tab(tabbed).balances


def test_the_balances_a_forgiveness_wiped_off_round_trip_so_a_match_played_across_it_still_owes(tabbed):
    sitting = tabbed.sittings.get()
    sitting.record_hand(2, 1, {"multiplier": "1"})  # Ben +200 after the forgiveness
    data = read_archive(dumps(export_group(tabbed)).encode())
    assert {b["balance"] for b in data["forgiven"][0]["balances"]} == {350, -150, -200}
    copy = import_group(data)
    assert read_tab(copy).balances == read_tab(tabbed).balances and read_tab(copy).owed != []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"player": 7}, r"forgiven\[0\]\.balances\[0\]\.player"),
        ({"balance": 5}, r"do not add up to 0"),
        ({"balance": "x"}, r"forgiven\[0\]\.balances\[0\]\.balance"),
        ({"extra": 1}, r"does not know"),
    ],
)
def test_broken_forgiven_balances_are_refused_naming_them_and_nothing_is_written(tabbed, change, message):
    data = json.loads(json.dumps(export_group(tabbed)))
    data["forgiven"][0]["balances"][0].update(change)
    before = Group.objects.count()
    with pytest.raises(ArchiveError, match=message):
        import_group(data)
    assert Group.objects.count() == before


def test_an_older_archive_without_payments_imports_with_an_empty_tab(tabbed):
    data = export_group(tabbed)
    del data["payments"], data["forgiven"]
    copy = import_group(data)
    assert not copy.payments.exists() and not copy.forgivenesses.exists()
    assert "payments" not in export_group(copy)


@pytest.mark.parametrize(
    ("field", "value"), [("payer", 9), ("payee", 1), ("amount", 0), ("at", "yesterday"), ("currency", 5)]
)
def test_a_broken_payment_is_refused_naming_it_and_nothing_is_written(tabbed, field, value):
    data = json.loads(json.dumps(export_group(tabbed)))
    data["payments"][0][field] = value  # (payee 1 is the payer itself: Ben pays Ben)
    before = Group.objects.count()
    with pytest.raises(ArchiveError, match=r"payments\[0\]"):
        import_group(data)
    assert Group.objects.count() == before


def test_amounts_in_cents_round_trip_and_an_older_archives_whole_units_come_in_as_cents():
    group = Group.create("Skat", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members())
    group.start_match("fapfap", [ana, ben], stake_amount=150, stake_label="€").record_hand(1, 0, {"multiplier": "1"})
    group.mark_paid(ben, ana, 75, "€", by="ph1")
    data = read_archive(dumps(export_group(group)).encode())
    assert data["money"] == "smallest units" and data["payments"][0]["amount"] == 75
    copy = import_group(data)
    assert copy.sittings.get().stake_amount == 150 and read_tab(copy).balances == read_tab(group).balances
    del data["money"]  # made before amounts had cents: 2 € a stake, 1 € paid
    data["sittings"][0]["stake_amount"], data["payments"][0]["amount"] = 2, 1
    older = import_group(data)
    assert older.sittings.get().stake_amount == 200 and older.payments.get().amount == 100


def test_an_archive_whose_money_is_not_in_smallest_units_is_refused(tabbed):
    data = export_group(tabbed)
    data["money"] = "florins"
    with pytest.raises(ArchiveError, match='"money" should be "smallest units"'):
        import_group(data)
