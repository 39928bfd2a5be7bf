"""Every change keeps a receipt: which phone (and the seat it said it holds), when, at which hand, and
for a hand what it was before and what it became, so that nothing that moved the score goes untraced."""

import pytest

from matches.models import Receipt, Recorder, Sitting

pytestmark = pytest.mark.django_db
AICHA = Recorder(phone="phoneA", seat=0)


def receipt(sitting: Sitting, verb: str) -> Receipt:
    return sitting.receipts.filter(verb=verb).get()


def kept(winner: int, multiplier: str, points: list[int]) -> dict:
    return {"winner": winner, "extras": {"multiplier": multiplier}, "points": points}


def test_a_tap_keeps_the_hand_it_recorded_and_whose_phone_made_it():
    sitting = Sitting.start("fapfap", ["Aïcha", "Ben", "Cleo"], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 1, {"multiplier": "2"}, by=AICHA, key="k1")
    tap = receipt(sitting, "tap")
    assert (tap.number, tap.by_phone, tap.by_seat, tap.key) == (1, "phoneA", 0, "k1")
    assert tap.before == {} and tap.after == kept(1, "2", [0, 2, 0])


def test_a_correction_keeps_what_the_hand_was_and_what_it_became():
    sitting = Sitting.start("fapfap", ["Aïcha", "Ben", "Cleo"], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 1, {"multiplier": "2"})
    sitting.record_hand(2, 0, {"multiplier": "1"})
    sitting.correct_hand(1, 2, {"multiplier": "4"}, by=AICHA)
    corrected = receipt(sitting, "correct")
    assert (corrected.number, corrected.last, corrected.by_seat) == (1, 2, 0)
    assert corrected.before == kept(1, "2", [0, 2, 0]) and corrected.after == kept(2, "4", [0, 0, 4])


def test_an_undo_keeps_the_hand_it_took_back():
    sitting = Sitting.start("fapfap", ["Aïcha", "Ben"])
    sitting.record_hand(1, 1, {"multiplier": "4"})
    sitting.undo_hand(1, by=AICHA)
    undone = receipt(sitting, "undo")
    assert undone.before == kept(1, "4", [0, 4]) and undone.after == {} and undone.by_phone == "phoneA"


def test_an_end_keeps_the_hand_that_was_open_and_the_last_one_played():
    sitting = Sitting.start("fapfap", ["Aïcha", "Ben"])
    sitting.record_hand(1, 1, {"multiplier": "1"})
    sitting.end_match(2, by=AICHA, key="end1")
    ended = receipt(sitting, "end")
    assert (ended.number, ended.last, ended.by_phone, ended.key) == (2, 1, "phoneA", "end1")


def test_new_stacks_of_chips_keep_before_which_hand_and_on_whose_phone():
    sitting = Sitting.start("cat-te", ["Lan", "Minh", "Đức"], starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})  # Minh and Đức run out
    sitting.reissue_chips(0, by=AICHA, key="c1")
    chips = receipt(sitting, "chips")
    assert (chips.number, chips.last, chips.by_seat, chips.key) == (2, 1, 0, "c1")


def test_a_rematch_keeps_a_receipt_on_the_match_it_follows_and_a_second_phone_makes_none():
    sitting = Sitting.start("fapfap", ["Aïcha", "Ben"])
    sitting.record_hand(1, 1, {"multiplier": "1"})
    sitting.end_match(2)
    first = sitting.rematch(by=AICHA)
    assert Sitting.objects.get(pk=sitting.pk).rematch(by=Recorder(phone="phoneB")) == first
    rematched = receipt(sitting, "rematch")
    assert (rematched.by_phone, rematched.by_seat, rematched.number) == ("phoneA", 0, None)
    assert not first.receipts.exists()
