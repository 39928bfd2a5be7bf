"""Models and their verbs: constraints, recording, undo, end early, rematch, match end, and the kept
totals checked against the ledger (by `manage.py check_totals` too)."""

import io
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from matches.domain.errors import AlreadyRecorded, BadInput, Conflict
from matches.models import Hand, Player, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import WORKED, play, snapshot
from tests.refusing import refused

pytestmark = pytest.mark.django_db


def test_start_seats_players_in_order_with_unicode_names(sitting):
    assert [seat.name for seat in sitting.table().seats] == WORKED
    assert Player.objects.filter(name="Aïcha").exists()
    assert len(sitting.token) >= 22  # 16 random bytes, URL-safe


def test_tokens_are_unique_and_unguessable(sitting):
    other = Sitting.start("agram", ["A", "B"])
    assert other.token != sitting.token
    assert not sitting.token.isdigit()


def test_worked_sitting_chaibou_wins_hand_one_and_deals_next(sitting):
    hand = sitting.record_hand(1, winner=2).hand
    table = sitting.table()
    assert hand.points == [0, 0, 1, 0]
    assert [(s.name, s.total, s.hands_won) for s in table.seats][2] == ("Chaibou", 1, 1)
    assert table.open_number == 2
    assert table.dealer_seat.name == "Chaibou"
    assert table.leader_seat.name == "Djibo"


def test_first_seat_deals_hand_one(sitting):
    table = sitting.table()
    assert (table.open_number, table.dealer_seat.name, table.leader_seat.name) == (1, "Aïcha", "Boubacar")


def test_one_row_per_sitting_and_hand_number_is_enforced_by_the_database(sitting):
    play(sitting, [0])
    seat = sitting.seats.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(sitting=sitting, number=1, winner=seat, dealer_position=0, points=[1, 0, 0, 0])


def test_a_won_hand_without_winner_is_refused_by_the_database(sitting):
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(sitting=sitting, number=1, status="won", winner=None, dealer_position=0)


def test_hand_zero_is_refused_by_the_database(sitting):
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(sitting=sitting, number=0, status="abandoned", dealer_position=0)


def test_a_winner_seated_elsewhere_fails_validation(sitting):
    stranger = Sitting.start("agram", ["X", "Y"]).seats.first()
    hand = Hand(sitting=sitting, number=1, winner=stranger, dealer_position=0)
    with pytest.raises(ValidationError, match="seated at this table"):
        hand.clean()


def test_recording_the_same_hand_twice_writes_one_row_and_names_the_winner(sitting):
    play(sitting, [2])
    with refused(AlreadyRecorded, "Hand 1 is already recorded: <bdi>Chaibou</bdi>"):
        sitting.record_hand(1, winner=0)
    assert sitting.hands.count() == 1


def test_a_tap_for_a_past_hand_never_lands_on_the_open_one(sitting):
    play(sitting, [0, 1, 2])
    before = snapshot(sitting)
    with refused(AlreadyRecorded, "Hand 2 is already recorded: <bdi>Boubacar</bdi>"):
        sitting.record_hand(2, winner=3)
    assert snapshot(sitting) == before


def test_a_tap_for_a_future_hand_is_refused(sitting):
    before = snapshot(sitting)
    with refused(Conflict, "Hand 3 has not started"):
        sitting.record_hand(3, winner=0)
    assert snapshot(sitting) == before


def test_a_winner_not_seated_here_is_refused(sitting):
    with refused(BadInput, "Seat 5 is not at this table"):
        sitting.record_hand(1, winner=4)
    assert sitting.hands.count() == 0


def test_undo_removes_only_the_named_last_hand_and_its_points(sitting):
    play(sitting, [2, 2, 0])
    with refused(Conflict, "not the last hand"):
        sitting.undo_hand(2)
    sitting.undo_hand(3)
    table = sitting.table()
    assert [s.total for s in table.seats] == [0, 0, 2, 0]
    assert table.open_number == 3
    assert sitting.check_totals() == []


@pytest.mark.parametrize("recorded", [[2, 1], [2]])
def test_a_second_phone_undoing_the_same_hand_is_told_another_phone_undid_it(sitting, recorded):
    play(sitting, recorded)
    number = len(recorded)
    stamp = sitting.hands.get(number=number).stamp  # what both phones' Undo forms carry
    sitting.undo_hand(number, stamp)
    with refused(Conflict, f"Hand {number} was already undone on another phone"):
        sitting.undo_hand(number, stamp)
    with refused(Conflict, "has not been recorded" if number > 1 else "no hand to undo"):
        sitting.undo_hand(number)  # no stamp: nothing says this phone ever saw it
    assert sitting.hands.count() == number - 1


def test_undo_with_no_hand_is_refused(sitting):
    with refused(Conflict, "no hand to undo"):
        sitting.undo_hand(1)


def test_end_match_abandons_the_open_hand_and_freezes_the_sitting(sitting):
    play(sitting, [2, 1])
    sitting.end_match()
    abandoned = sitting.hands.get(number=3)
    assert (abandoned.status, abandoned.winner, abandoned.points) == ("abandoned", None, [0, 0, 0, 0])
    assert sitting.is_finished and sitting.ended_how == "ended-early"
    frozen = snapshot(sitting)
    with refused(Conflict, "match is over"):
        sitting.record_hand(4, winner=0)
    with refused(Conflict, "no longer change"):
        sitting.undo_hand(3)
    with refused(Conflict, "already over"):
        sitting.end_match()
    assert snapshot(sitting) == frozen


def test_standings_name_a_shared_first_place(sitting):
    play(sitting, [0, 1])
    sitting.end_match()
    assert [seat.name for seat in sitting.table().leaders] == ["Aïcha", "Boubacar"]


def test_first_to_n_wins_ends_the_match_and_undo_reopens_it(db):
    sitting = Sitting.start("sink-sink", ["A", "B", "C"], MatchEnd(MatchEndKind.WINS, 2))
    play(sitting, [0, 1, 1])
    assert sitting.is_finished and sitting.ended_how == "match-end"
    assert [seat.name for seat in sitting.table().leaders] == ["B"]
    with pytest.raises(Conflict):
        sitting.record_hand(4, winner=0)
    sitting.undo_hand(3)
    assert not sitting.is_finished
    play(sitting, [2])  # C wins hand 3 instead: A 1, B 1, C 1
    assert not sitting.is_finished
    play(sitting, [0])
    assert sitting.is_finished and [seat.name for seat in sitting.table().leaders] == ["A"]


def test_n_hands_ends_the_match_after_the_nth_hand(db):
    sitting = Sitting.start("agram-mali", ["A", "B"], MatchEnd(MatchEndKind.HANDS, 3))
    play(sitting, [0, 1])
    assert not sitting.is_finished
    play(sitting, [1])
    assert sitting.is_finished


def test_a_match_end_the_game_does_not_offer_is_refused(db):
    with refused(BadInput, "Agram cannot end that way: open"):
        Sitting.start("agram", ["A", "B"], MatchEnd(MatchEndKind.POINTS, 10))


@pytest.mark.parametrize(
    "names, reason",
    [(["Solo"], "Agram needs at least 2 players"), (["A", "B", "C", "D", "E", "F"], "Agram is for 2 to 5 players")],
)
def test_a_player_count_outside_the_range_is_refused_with_the_reason(db, names, reason):
    with refused(BadInput, reason):
        Sitting.start("agram", names)
    assert Sitting.objects.count() == 0


def test_rematch_keeps_game_players_seats_and_match_end(db):
    sitting = Sitting.start("sink-sink", ["Zé", "Ömer", "Ấn"], MatchEnd(MatchEndKind.HANDS, 7))
    play(sitting, [1])
    again = sitting.rematch()
    assert again.token != sitting.token
    assert (again.game, again.end_kind, again.end_target) == ("sink-sink", "hands", 7)
    before = [s.player_id for s in sitting.table().seats]
    assert [s.player_id for s in again.table().seats] == before[1:] + before[:1]  # Ömer won: Ömer deals
    assert again.table().open_number == 1


def test_the_last_hand_of_a_match_its_rule_ended_is_not_undone_once_a_rematch_followed(db):
    """Undone, the match would play on beside the rematch its ending began (its dealer, its seating)."""
    ended = Sitting.start("agram", ["Ana", "Ben"], MatchEnd(MatchEndKind.HANDS, 2))
    play(ended, [0, 1])
    ended.rematch()
    ended.refresh_from_db()
    assert not ended.table().can_undo
    with refused(Conflict, "A rematch followed the end of this match: hand 2 can no longer be undone, only corrected."):
        ended.undo_hand(2)
    assert ended.is_finished and ended.hands.count() == 2
    points = Sitting.start("agram", ["Ana", "Ben"], MatchEnd(MatchEndKind.WINS, 2))  # a correction too
    play(points, [0, 0])
    points.rematch()
    points.refresh_from_db()
    with refused(Conflict, "corrected so, hand 2 would reopen it"):
        points.correct_hand(2, 1)
    assert points.is_finished
    playing = Sitting.start("agram", ["Ana", "Ben"])  # a rematch beside a match still played: its undo stands
    play(playing, [0])
    playing.rematch()
    playing.refresh_from_db()
    assert playing.table().can_undo and playing.undo_hand(1).number == 1


def test_kept_totals_agree_with_the_ledger(sitting):
    play(sitting, [0, 2, 2, 3, 2])
    sitting.undo_hand(5)
    assert sitting.check_totals() == []
    sitting.seats.filter(position=0).update(total=99)
    assert sitting.check_totals() == ["Aïcha: kept 99 points and 1 wins, ledger says 1 and 1"]


def test_links_never_start_with_a_dash_that_a_command_line_takes_for_an_option(monkeypatch):
    from matches.models import tokens

    made = iter(["-abcdefghijklmnopqrstu", "Zabcdefghijklmnopqrstu"])
    # The module's own name for secrets: the process's other threads keep the real one.
    monkeypatch.setattr(tokens, "secrets", SimpleNamespace(token_urlsafe=lambda n: next(made)))
    assert tokens.new_token() == "Zabcdefghijklmnopqrstu"


@pytest.mark.parametrize(
    "steps, abandoned",
    [
        (["tap", "tap", "tap", "undo"], []),  # hand 3 undone, then End: it is gone, nothing abandoned
        (["tap", "tap", "tap", "undo", "undo"], []),
        (["tap", "tap", "tap"], [4]),  # End during hand 4: it was being played
        (["tap", "tap", "tap", "undo", "tap"], [4]),  # hand 3 tapped again: hand 4 is the one stopped
        (["tap", "tap", "tap", "undo", "correct"], []),  # a correction of hand 1 keeps hand 3 undone
        ([], [1]),
    ],
)
def test_ending_the_match_abandons_the_hand_being_played_never_an_undone_one(steps, abandoned):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    recorded = 0
    for step in steps:
        if step == "tap":
            recorded += 1
            sitting.record_hand(recorded, recorded % 3)
        elif step == "undo":
            sitting.undo_hand(recorded)
            recorded -= 1
        else:
            sitting.correct_hand(1, 2)
    sitting.end_match()
    hands = list(sitting.hands.order_by("number").values_list("number", "status"))
    assert hands == [(n, Hand.Status.WON) for n in range(1, recorded + 1)] + [
        (n, Hand.Status.ABANDONED) for n in abandoned
    ]
    assert sitting.ended_how == Sitting.EndedHow.ENDED_EARLY and sitting.check_totals() == []


def test_check_totals_command_passes_then_names_a_seat_that_drifted(sitting):
    play(sitting, [2, 2])
    out = io.StringIO()
    call_command("check_totals", stdout=out)
    assert "All totals agree" in out.getvalue()
    sitting.seats.filter(position=2).update(total=7)
    with pytest.raises(CommandError, match="1 seat"):
        call_command("check_totals", stdout=out)
    assert "Chaibou: kept 7 points" in out.getvalue()
