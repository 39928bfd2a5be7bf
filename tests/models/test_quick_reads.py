"""The table's quick reads (matches/models/quick_reads.py) answer as the querysets they stand for: the same
rows, every field converted as the ORM converts it (JSON answers, times, flags), on either engine."""

import pytest
from django.db import connection, transaction

from matches.domain.chart import sampled
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Hand, Seat, Sitting, quick_reads

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def fields(row) -> dict:
    """Each field's value and its type (SQLite gives 0 for False: equal, but not what the ORM gives)."""
    values = {field.attname: getattr(row, field.attname) for field in type(row)._meta.concrete_fields}
    return {name: (value, type(value)) for name, value in values.items()}


@pytest.fixture
def fapfap() -> Sitting:
    """A grouped Fapfap match at a stake: answers in each hand's JSON, a corrected hand, a latecomer, a
    player who left (flags), a hand abandoned when a member ended it."""
    group = Group.create("Jeudi", ["Aïcha", "Boubacar", "Chaibou"])
    seating = [player.pk for player in group.members()]
    sitting = group.start_match("fapfap", seating, stake_amount=100, stake_label="CFA")
    for number, multiplier in enumerate(["1", "2", "4", "1", "2"], start=1):
        sitting.record_hand(number, number % 3, {"multiplier": multiplier})
    sitting.correct_hand(2, 0, {"multiplier": "4"})
    sitting.seat_player("Djibo")
    sitting.record_hand(6, 3, {"multiplier": "1"})
    sitting.unseat_player(1)
    sitting.end_match(7)
    return Sitting.objects.get(pk=sitting.pk)


def test_newest_hands_are_the_querysets_rows_in_its_order(fapfap):
    for after in (0, 3, 7):
        expected = Hand.objects.filter(sitting_id=fapfap.pk, number__gt=after).order_by("-number")
        read = quick_reads.newest_hands(fapfap.pk, after)
        assert [fields(hand) for hand in read] == [fields(hand) for hand in expected]
    assert quick_reads.newest_hands(fapfap.pk, 0)[-1].extras == {"multiplier": "1"}  # JSON, not its text


def test_chart_points_are_the_querysets_values():
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"], MatchEnd(MatchEndKind.OPEN, None))
    for number in range(1, 61):
        sitting.record_hand(number, number % 3)
    numbers = sampled(61, 12)
    expected = Hand.objects.filter(sitting_id=sitting.pk, number__in=numbers)
    assert sorted(quick_reads.chart_points(sitting.pk, numbers)) == sorted(
        expected.values_list("number", "running", "threshold_after")
    )
    assert quick_reads.chart_points(sitting.pk, []) == []


def test_seats_with_their_sitting_and_players_are_the_querysets(fapfap):
    for link in ("token", "watch_token"):
        read = Seat.objects.filter(**{f"sitting__{link}": getattr(fapfap, link)}).select_related("sitting", "player")
        expected = list(read.order_by("position"))
        seats = quick_reads.seated(link, getattr(fapfap, link))
        assert [fields(seat) for seat in seats] == [fields(seat) for seat in expected]
        assert [fields(seat.player) for seat in seats] == [fields(seat.player) for seat in expected]
        assert [fields(seat.sitting) for seat in seats] == [fields(seat.sitting) for seat in expected]
        assert {id(seat.sitting) for seat in seats} == {id(seats[0].sitting)}  # one Sitting, shared
    assert [seat.left for seat in seats] == [None, 7, None, None]
    assert quick_reads.seated("token", "no-such-link-at-all") == []


def test_a_row_reached_by_a_link_is_the_querysets(fapfap):
    group = fapfap.group
    for model, row in ((Sitting, fapfap), (Group, group)):
        for link in ("token", "watch_token"):
            found = quick_reads.linked(model, link, getattr(row, link))
            assert fields(found) == fields(model.objects.filter(**{link: getattr(row, link)}).first())
        assert quick_reads.linked(model, "token", "no-such-link-at-all") is None


def test_seats_of_a_sitting_with_their_players_are_the_querysets(fapfap):
    expected = list(fapfap.seats.select_related("player").order_by("position"))
    seats = quick_reads.seats_of(fapfap)
    assert [fields(seat) for seat in seats] == [fields(seat) for seat in expected]
    assert [fields(seat.player) for seat in seats] == [fields(seat.player) for seat in expected]
    assert all(seat.sitting is fapfap for seat in seats)


def test_the_locked_row_is_the_querysets(fapfap):
    if connection.vendor != "postgresql":
        pytest.skip("a row lock of PostgreSQL's (SQLite's transaction locks the whole file)")
    with transaction.atomic():
        found = quick_reads.locked(Sitting, fapfap.token)
        assert fields(found) == fields(Sitting.objects.select_for_update().filter(token=fapfap.token).first())
        assert quick_reads.locked(Sitting, "no-such-link-at-all") is None
