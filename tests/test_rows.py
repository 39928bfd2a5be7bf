"""The fixed statements' rows (matches.models.rows) are the instances and values the ORM would give."""

import pytest
from django.db import connection, transaction

from matches.domain.chart import CHART_POINTS
from matches.models import Hand, Player, Seat, Sitting
from matches.models.rows import build, columns
from matches.models.sittings import HANDS_ON_TABLE, running_totals

pytestmark = pytest.mark.django_db

FIELDS = {model: [field.attname for field in model._meta.concrete_fields] for model in (Hand, Seat, Player, Sitting)}


def read_rows(model, where: str, values: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns(model, 'x')} FROM {model._meta.db_table} x WHERE {where} ORDER BY x.id", values
        )
        return cursor.fetchall()


def fapfap_with_a_correction() -> Sitting:
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"], stake_amount=100, stake_label="CFA")
    for number, (winner, multiplier) in enumerate([(0, "2"), (1, "1"), (2, "4"), (0, "1")], start=1):
        sitting.record_hand(number, winner, {"multiplier": multiplier})
    sitting.correct_hand(2, 2, {"multiplier": "2"})  # a corrected_at and a new stamp
    return sitting


def test_a_built_row_has_every_value_and_the_state_of_the_orms_instance():
    sitting = fapfap_with_a_correction()
    for model, where, value in [
        (Hand, "x.sitting_id = %s", sitting.pk),
        (Seat, "x.sitting_id = %s", sitting.pk),
        (Player, "x.id IN (SELECT player_id FROM matches_seat WHERE sitting_id = %s)", sitting.pk),
        (Sitting, "x.id = %s", sitting.pk),
    ]:
        built = [build(model, row) for row in read_rows(model, where, [value])]
        expected = list(model.objects.filter(pk__in=[instance.pk for instance in built]).order_by("pk"))
        assert len(built) == len(expected) > 0
        for mine, theirs in zip(built, expected):
            assert type(mine) is model
            assert {name: getattr(mine, name) for name in FIELDS[model]} == {
                name: getattr(theirs, name) for name in FIELDS[model]
            }
            assert (mine._state.adding, mine._state.db) == (False, theirs._state.db)
            assert mine == theirs


def test_a_built_hand_follows_its_foreign_keys_and_saves_as_an_update():
    sitting = fapfap_with_a_correction()
    hand = build(Hand, read_rows(Hand, "x.sitting_id = %s AND x.number = 2", [sitting.pk])[0])
    assert hand.winner.player.name == "Chaibou"
    hand.save(update_fields=["recorded_by_phone"])  # an UPDATE of the row read, not an INSERT
    assert Hand.objects.filter(sitting=sitting).count() == 4


def test_the_charts_sampled_hands_carry_the_running_totals_the_orm_reads():
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    for number in range(1, CHART_POINTS + HANDS_ON_TABLE + 30):
        sitting.record_hand(number, number % 4)
    with transaction.atomic():
        locked, seats = sitting._lock()
        newest, drawn = locked._read_hands(seats, HANDS_ON_TABLE)
    sampled = {number: point for number, point in drawn.items() if number not in {hand.number for hand in newest}}
    assert len(sampled) > 10
    expected = dict(Hand.objects.filter(sitting=sitting, number__in=sampled).values_list("number", "running"))
    assert {number: point.running for number, point in sampled.items()} == expected


@pytest.mark.parametrize(
    "values, expected",
    [
        (["[1, 2]", "[3, -4]"], [[1, 2], [3, -4]]),
        (["[1, 2]", None], [[1, 2], None]),  # a NULL among them: each converted alone
        ([], []),
    ],
)
def test_running_totals_decode_all_at_once_as_one_by_one(values, expected):
    assert running_totals(values) == expected
