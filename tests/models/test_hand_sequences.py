"""Property tests: random hand sequences for every game, checked against the ledger and a small
independent reference of the match-end rules written here."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.domain import rules
from matches.domain.errors import BadInput, Conflict
from matches.models import Hand, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import examples

pytestmark = pytest.mark.django_db

GAME_ENDS = {
    "agram": [MatchEnd(), MatchEnd(MatchEndKind.WINS, 4), MatchEnd(MatchEndKind.HANDS, 6)],
    "sink-sink": [MatchEnd(MatchEndKind.WINS, 3)],
    "agram-mali": [MatchEnd(MatchEndKind.HANDS, 5)],
    "fapfap": [MatchEnd(), MatchEnd(MatchEndKind.POINTS, 9)],
    "spar": [MatchEnd(MatchEndKind.POINTS, 8), MatchEnd(MatchEndKind.HANDS, 7)],
    "sipa": [MatchEnd(MatchEndKind.POINTS, 10)],
    "cat-te": [MatchEnd(MatchEndKind.HANDS, 8)],
    "eighty-three": [MatchEnd(MatchEndKind.THRESHOLDS)],
    "letzter-stich": [MatchEnd(MatchEndKind.POINTS, 300), MatchEnd(MatchEndKind.HANDS, 6)],
}
CASES = [(slug, end) for slug, ends in GAME_ENDS.items() for end in ends]
SETTINGS = settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def draw_extras(data, game: rules.Game, n_seats: int, winner: int) -> dict:
    """Random answers a real tap could post."""
    extras: dict = {}
    for question in game.questions:
        if question.when and extras.get(question.when[0]) != question.when[1]:
            continue
        if question.kind == "choice":
            extras[question.key] = data.draw(st.sampled_from([c.value for c in question.choices]))
        elif question.kind == "flag":
            extras[question.key] = data.draw(st.sampled_from(["1", ""]))
        else:
            seats = [s for s in range(1, n_seats + 1) if not (question.others_only and s == winner + 1)]
            extras[question.key] = [str(s) for s in data.draw(st.lists(st.sampled_from(seats), unique=True))]
    return extras


def reference_over(end: MatchEnd, rows: list[tuple[int, list[int]]], n_seats: int) -> tuple[bool, int | None]:
    """Independent reading of RULES.md's match ends over (winner, points) rows: (over, threshold)."""
    totals, wins, threshold = [0] * n_seats, [0] * n_seats, 10
    over = False
    for played, (winner, points) in enumerate(rows, start=1):
        totals = [a + b for a, b in zip(totals, points)]
        wins[winner] += 1
        best = max(totals)
        if end.kind == "thresholds":
            over = False
            if best >= threshold:
                if totals.count(best) > 1:
                    threshold += 5
                else:
                    over = True
        elif end.kind == "wins":
            over = max(wins) >= end.target
        elif end.kind == "hands":
            over = played >= end.target
        elif end.kind == "points":
            over = best >= end.target
    return over, threshold if end.kind == "thresholds" else None


def state(sitting: Sitting) -> tuple:
    sitting.refresh_from_db()
    table = sitting.table(recent=None)
    return (
        [(s.total, s.hands_won) for s in table.seats],
        sitting.threshold,
        sitting.tied_at,
        sitting.is_finished,
        sitting.chips_reissued,
        [(h.number, h.winner_id, h.points, h.extras) for h in table.recent_hands],
    )


def check_invariants(sitting: Sitting, end: MatchEnd) -> None:
    assert sitting.check_totals() == []  # totals equal the sum of hand points
    table = sitting.table(recent=None)
    n = len(table.seats)
    if sitting.rules.uses_chips:
        assert sum(table.balances()) == n * sitting.starting_chips * (1 + sitting.chips_reissued)
    position = {s.pk: s.position for s in table.seats}
    rows = [(position[h.winner_id], h.points) for h in reversed(table.recent_hands) if h.winner_id]
    over, threshold = reference_over(end, rows, n)
    sitting.refresh_from_db()
    assert sitting.is_finished is over
    assert sitting.threshold == threshold


@pytest.mark.parametrize("slug, end", CASES, ids=[f"{s}-{e.kind}" for s, e in CASES])
@SETTINGS
@given(data=st.data())
def test_random_hand_sequences_keep_every_invariant(db, slug, end, data):
    game = rules.GAMES[slug]
    n_seats = data.draw(st.integers(game.min_players, game.max_players), label="seats")
    sitting = Sitting.start(slug, [f"P{i}" for i in range(n_seats)], end)
    for _ in range(data.draw(st.integers(1, 25), label="steps")):
        action = data.draw(st.sampled_from(["record", "record", "record", "undo", "correct", "reissue"]))
        table = sitting.table(recent=1)
        winner = data.draw(st.integers(0, n_seats - 1))
        extras = draw_extras(data, game, n_seats, winner)
        if action == "record":
            if sitting.is_finished:
                before = state(sitting)
                with pytest.raises(Conflict):
                    sitting.record_hand(table.open_number, winner, extras)
                assert state(sitting) == before
            else:
                sitting.record_hand(table.open_number, winner, extras)
        elif action == "undo" and table.last_hand:
            sitting.undo_hand(table.last_hand.number)
        elif action == "correct" and table.last_hand:
            number = data.draw(st.integers(1, table.last_hand.number))
            before = state(sitting)
            try:
                sitting.correct_hand(number, winner, extras)
            except Conflict as refused:  # it would end the match before hands played after it
                assert refused.code in ("ends_before_later_hands", "ends_before_changed_table")
                assert number < table.last_hand.number
                assert state(sitting) == before
            except BadInput as unchanged:  # the hand says this already
                assert unchanged.code == "correct_unchanged" and state(sitting) == before
        elif action == "reissue" and table.someone_ran_out and not sitting.is_finished:
            sitting.reissue_chips(sitting.chips_reissued)
        check_invariants(sitting, end)


@pytest.mark.parametrize("slug", GAME_ENDS)
@SETTINGS
@given(data=st.data())
def test_undo_then_record_again_restores_the_exact_state(db, slug, data):
    game = rules.GAMES[slug]
    n_seats = data.draw(st.integers(game.min_players, game.max_players))
    sitting = Sitting.start(slug, [f"P{i}" for i in range(n_seats)], GAME_ENDS[slug][0])
    for number in range(1, data.draw(st.integers(1, 12)) + 1):
        if sitting.is_finished:
            break
        winner = data.draw(st.integers(0, n_seats - 1))
        extras = draw_extras(data, game, n_seats, winner)
        sitting.record_hand(number, winner, extras)
        recorded = state(sitting)
        sitting.undo_hand(number)
        sitting.record_hand(number, winner, extras)
        assert state(sitting)[:5] == recorded[:5]
        assert state(sitting)[5][0][1:] == recorded[5][0][1:]  # same winner, points and answers
    assert Hand.objects.filter(sitting=sitting).count() == sitting.table(recent=1).open_number - 1
