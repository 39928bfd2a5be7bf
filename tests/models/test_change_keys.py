"""Every change a phone sends carries a key made when the person acted: a copy of it (a resend whose
answer was lost, a waiting tap sent again), whenever it arrives, does nothing a second time."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.domain.errors import Conflict, TableError
from matches.models import Recorder, Repeated, Sitting, UndoneSince

pytestmark = pytest.mark.django_db
A, B = Recorder(phone="phoneA"), Recorder(phone="phoneB")


def make(sitting: Sitting, verb: str, key: str, by: Recorder) -> None:
    table = sitting.table()
    last = table.last_hand.number if table.last_hand else 1
    if verb == "tap":
        sitting.record_hand(table.open_number, table.open_number % 3, by=by, key=key)
    elif verb == "undo":
        sitting.undo_hand(last, key=key, by=by)
    elif verb == "correct":
        sitting.correct_hand(last, 2, by=by, key=key)
    elif verb == "end":
        sitting.end_match(key=key, by=by)
    elif verb == "chips":
        sitting.reissue_chips(sitting.chips_reissued, key=key, by=by)


def state(sitting: Sitting) -> tuple:
    sitting.refresh_from_db()
    hands = list(sitting.hands.order_by("number").values_list("number", "status", "winner_id", "stamp"))
    return hands, [(seat.total, seat.hands_won) for seat in sitting.seated()], sitting.ended_how, sitting.version


@pytest.mark.parametrize("between_by", [A, B], ids=["then-this-phone", "then-another-phone"])
@pytest.mark.parametrize("between", [None, "tap", "undo", "correct", "end"])
@pytest.mark.parametrize("first", ["tap", "undo", "correct", "end"])
def test_a_copy_of_a_change_sent_after_any_other_change_does_nothing_again(first, between, between_by):
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)
    make(sitting, first, "first-key", A)
    if between is not None:
        try:
            make(sitting, between, "other-key", between_by)
        except TableError:
            pass  # (the match may be over, the hand gone: that change is refused, not the copy's business)
    before = state(sitting)
    with pytest.raises(Repeated) as copy:
        make(sitting, first, "first-key", A)
    assert copy.value.receipt.verb == first
    assert state(sitting) == before


def test_a_tap_that_waited_while_its_hand_was_undone_is_refused_with_that_undo():
    """Phone B tapped hand 2 offline; meanwhile phone A recorded it and undid it: B's tap is no new one."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    seen = Sitting.objects.get(pk=sitting.pk).version
    sitting.record_hand(2, 1, by=A, key="a-tap")
    sitting.undo_hand(2, by=A, key="a-undo")
    with pytest.raises(UndoneSince) as late:
        sitting.record_hand(2, 2, by=B, key="b-tap", seen=seen)
    assert (late.value.receipt.number, late.value.receipt.by_phone) == (2, "phoneA")
    assert sitting.hands.count() == 1
    fresh = Sitting.objects.get(pk=sitting.pk).version
    assert sitting.record_hand(2, 2, by=B, key="b-again", seen=fresh).hand.number == 2  # a tap made after it counts


def test_a_tap_for_the_hand_after_one_undone_since_it_was_seen_is_refused_with_that_undo():
    """Phone B showed hand 3 open; phone A undid hand 2 meanwhile: B's tap for hand 3 says why it went nowhere."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1, by=A)
    seen = Sitting.objects.get(pk=sitting.pk).version
    sitting.undo_hand(2, by=A, key="a-undo")
    with pytest.raises(UndoneSince) as late:
        sitting.record_hand(3, 2, by=B, key="b-tap", seen=seen)
    assert (late.value.receipt.number, late.value.receipt.by_phone) == (2, "phoneA")
    with pytest.raises(Conflict):  # a tap that had seen the undo: simply not the open hand
        sitting.record_hand(3, 2, by=B, key="b-again", seen=Sitting.objects.get(pk=sitting.pk).version)
    assert sitting.hands.count() == 1


@pytest.mark.parametrize("behind, reads", [(1, 1), (0, 0)], ids=["phone-behind-one-read", "phone-current-no-read"])
def test_a_tap_reads_the_receipts_once_unless_its_phone_showed_the_current_version(behind, reads):
    """A phone behind the table may send a copy or tap a hand undone since: one read for its key and the
    undos. A phone that showed the current version made its tap after every change kept: nothing to read."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    seen = Sitting.objects.get(pk=sitting.pk).version
    if behind:
        sitting.correct_hand(1, 2, by=A)
    with CaptureQueriesContext(connection) as tap:
        sitting.record_hand(2, 1, by=B, key="b-tap", seen=seen)
    found = [q["sql"] for q in tap.captured_queries if q["sql"].lstrip("(").startswith("SELECT") and '"matches_receipt"' in q["sql"]]
    assert len(found) == reads


def test_a_key_sent_again_with_the_current_version_is_still_a_copy():
    """Only a phone that broke the rules sends a key used before with the version now shown: the key's
    index refuses the second row, and the change stands once."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0, by=A, key="a-tap")
    before = state(sitting)
    with pytest.raises(Repeated) as copy:
        sitting.record_hand(2, 1, by=A, key="a-tap", seen=before[-1])
    assert (copy.value.receipt.verb, copy.value.receipt.number) == ("tap", 1)
    assert state(sitting) == before


def test_the_same_key_at_another_table_is_another_change():
    one, two = Sitting.start("agram", ["Ana", "Ben"]), Sitting.start("agram", ["Ana", "Ben"])
    one.record_hand(1, 0, key="same")
    two.record_hand(1, 1, key="same")
    assert two.hands.count() == 1


def test_a_phones_own_undo_and_its_tap_after_it_both_waiting_offline_are_made_in_order():
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    seen = Sitting.objects.get(pk=sitting.pk).version
    sitting.undo_hand(1, by=A, key="a-undo")
    assert sitting.record_hand(1, 2, by=A, key="a-tap", seen=seen).hand.winner.name == "Chloé"


def test_an_undo_of_a_hand_never_recorded_says_so_not_that_another_phone_undid_it():
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 0)
    stamp = sitting.hands.get().stamp
    with pytest.raises(TableError) as never:
        sitting.undo_hand(99, stamp=stamp)
    assert never.value.code == "undo_unrecorded"
    sitting.undo_hand(1, stamp=stamp, by=B)
    with pytest.raises(TableError) as elsewhere:
        sitting.undo_hand(1, stamp=stamp, by=A)
    assert elsewhere.value.code == "undo_done_elsewhere"
    with pytest.raises(TableError) as here:  # the phone that undid it, from a screen still showing it (another tab)
        sitting.undo_hand(1, stamp=stamp, by=B, key="b-again")
    assert here.value.code == "undo_done_here"


def test_chips_handed_out_since_the_screen_say_which_phone_did_it():
    sitting = Sitting.start("cat-te", ["Ana", "Ben", "Chloé"], starting_chips=2)
    sitting.record_hand(1, 0, extras={"how": "flush"})  # Ben and Chloé: no chip left
    sitting.reissue_chips(0, key="b-chips", by=B)
    for phone, code in ((A, "chips_reissued_elsewhere"), (B, "chips_reissued_here")):
        with pytest.raises(TableError) as told:
            sitting.reissue_chips(0, key=f"{phone.phone}-later", by=phone)
        assert told.value.code == code
    assert sitting.chips_reissued == 1


def test_a_tap_for_the_next_hand_right_after_another_phone_recorded_the_last_is_held_until_tapped_again():
    """Two people tap the same hand's winner; the first tap's table reached the second phone before the
    finger landed, so the second tap is for the next hand: held back, recorded once its phone taps again."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 2, by=A, key="a-tap")
    seen = Sitting.objects.get(pk=sitting.pk).version
    with pytest.raises(Conflict) as held:
        sitting.record_hand(2, 2, by=B, key="b-tap", seen=seen)
    assert (held.value.code, held.value.params) == ("tap_right_after", {"number": 1, "winner": "Chloé", "open": 2})
    assert sitting.hands.count() == 1
    assert sitting.record_hand(2, 2, by=B, key="b-again", seen=seen, sure=True).hand.number == 2


@pytest.mark.parametrize("case", ["same-phone", "seconds-later", "phone-behind"])
def test_a_tap_for_the_next_hand_is_not_held_when_it_cannot_be_the_same_hand(case):
    from datetime import timedelta

    from django.utils import timezone

    from matches.models.verbs import RIGHT_AFTER

    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé"])
    sitting.record_hand(1, 2, by=A, key="a-tap")
    seen = Sitting.objects.get(pk=sitting.pk).version
    if case == "seconds-later":
        sitting.hands.update(recorded_at=timezone.now() - RIGHT_AFTER - timedelta(seconds=1))
    if case == "phone-behind":  # its table showed hand 1 open: a tap for hand 2 is not this race
        seen -= 1
    sitting.record_hand(2, 0, by=A if case == "same-phone" else B, key="next", seen=seen)
    assert sitting.hands.count() == 2
