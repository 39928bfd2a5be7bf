"""No money moves silently: a correction of an earlier hand in a match for money or chips shows on
every phone what changed and by how much for whom, until that phone says it saw it."""

import re

import pytest
from django.test import Client

from matches.models import Receipt, Recorder, Sitting

from tests.pages import HX, stamped, url, watch_url, words

pytestmark = pytest.mark.django_db
NAMES = ["Ngono", "Boubacar", "Aïcha"]


def fapfap() -> Sitting:
    sitting = Sitting.start("fapfap", NAMES, stake_amount=200, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 2, {"multiplier": "1"})
    return sitting


def test_a_receipt_keeps_what_a_hand_was_before_and_after_each_change():
    sitting = fapfap()
    sitting.correct_hand(1, 1, {"multiplier": "1"}, by=Recorder("phoneB", 1))
    sitting.undo_hand(2)
    tap, _, correct, undo = Receipt.objects.filter(sitting=sitting).order_by("version")
    assert tap.after == {"winner": 0, "extras": {"multiplier": "2"}, "points": [2, 0, 0]} and tap.before == {}
    assert (correct.before["winner"], correct.after["winner"], correct.by_seat, correct.last) == (0, 1, 1, 2)
    assert undo.before["winner"] == 2 and undo.after == {}


def test_a_correction_of_an_earlier_hand_shows_on_every_phone_what_moved(client):
    sitting = fapfap()
    sitting.correct_hand(1, 1, {"multiplier": "1"}, by=Recorder("phoneB", 1))
    # Before: Ngono x2 paid by two (+800, the others -400 each); after: Boubacar x1 (+400, the others -200).
    for page in (client.get(url(sitting)), Client().get(watch_url(sitting))):
        said = words(page)
        assert re.search(
            r"Hand 1 changed on Boubacar’s phone at \d\d:\d\d: Ngono \(with a 3, last trick only\) → "
            r"Boubacar \(with a 4 or higher\): Aïcha \+200 FCFA, Boubacar \+800 FCFA, Ngono −1,000 FCFA\.",
            said,
        )


def test_the_line_stays_until_this_phone_says_it_saw_it_and_only_for_that_phone(client):
    sitting = fapfap()
    sitting.correct_hand(1, 1, {"multiplier": "1"})
    change = Receipt.objects.get(verb="correct").pk
    assert client.post(url(sitting, "seen/"), {"change": str(change)}).status_code == 302
    assert "Hand 1 changed" not in words(client.get(url(sitting)))
    assert "Hand 1 changed" in words(Client().get(url(sitting)))
    answer = client.post(url(sitting, "tap/"), {"number": 3, "winner": 1, "multiplier": "1"}, **HX)
    assert "Hand 1 changed" not in words(answer)  # this phone's answer too; the push to the others has it
    assert "Hand 1 changed" in words(Client().get(url(sitting, "poll/"), {"v": 0}, **HX))


def test_a_watch_screen_shows_a_correction_until_the_next_hand_as_nobody_there_taps_seen(client):
    sitting = fapfap()
    sitting.correct_hand(1, 1, {"multiplier": "1"})
    assert "Hand 1 changed" in words(client.get(watch_url(sitting)))
    sitting.record_hand(3, 1, {"multiplier": "1"})
    assert "Hand 1 changed" not in words(client.get(watch_url(sitting)))
    assert "Hand 1 changed" in words(Client().get(url(sitting)))  # a member's phone: until it says it saw it


def test_the_phone_that_corrected_an_earlier_hand_is_not_told_another_phone_did_and_keeps_it_seen(client):
    sitting = fapfap()
    client.get(url(sitting))  # this phone gets its id
    form = stamped(sitting, 1, winner=2, multiplier="1", key="fix1")
    assert client.post(url(sitting, "hands/1/"), form).status_code == 302
    page = client.get(url(sitting)).content.decode()
    change = Receipt.objects.get(verb="correct").pk
    assert "Hand 1 changed" not in words(page) and f'data-seen-changes="{change}"' in page  # app.js keeps it seen
    assert "Hand 1 changed on another phone" in words(Client().get(url(sitting)))


@pytest.mark.parametrize("htmx", [True, False])
def test_the_phone_that_corrected_a_hand_for_money_is_told_what_moved_in_its_notice(client, htmx):
    sitting = fapfap()
    client.get(url(sitting))
    form = stamped(sitting, 1, winner=2, multiplier="1", key="fix1")
    answer = client.post(url(sitting, "hands/1/"), form, **(HX if htmx else {}), follow=not htmx)
    # Ngono x2 (+800, the others -400 each) became Boubacar x1 (+400, the others -200 each)
    assert re.search(
        r"Hand 1 corrected: Boubacar \(with a 4 or higher[^)]*\)\. It moved: Aïcha \+200 FCFA, Boubacar \+800 FCFA, "
        r"Ngono −1,000 FCFA\.",
        words(answer),
    )


@pytest.mark.parametrize("game, setup", [("agram", {}), ("fapfap", {})])  # no money: Agram; no stake: Fapfap
def test_no_line_where_no_money_or_chips_moved_or_for_the_last_hand(client, game, setup):
    sitting = Sitting.start(game, NAMES, **setup)
    extras = {"multiplier": "1"} if game == "fapfap" else {}
    sitting.record_hand(1, 0, extras)
    sitting.record_hand(2, 1, extras)
    sitting.correct_hand(1, 2, extras)
    assert "changed on" not in words(client.get(url(sitting)))
    stake = fapfap()
    stake.correct_hand(2, 1, {"multiplier": "1"})  # the last hand: the table shows it change
    assert "changed on" not in words(client.get(url(stake)))


def test_the_all_hands_page_says_what_a_corrected_hand_was_first(client):
    sitting = fapfap()
    sitting.correct_hand(1, 1, {"multiplier": "1"})
    sitting.correct_hand(1, 2, {"multiplier": "1"})
    said = words(client.get(url(sitting, "hands/")))
    assert "first recorded as Ngono (with a 3, last trick only)" in said
    assert re.search(  # the first correction too, not only the last one's time
        r"corrected before: \d\d:\d\d on another phone: Ngono \(with a 3, last trick only\) → Boubacar \(with a 4", said
    )


def test_an_undone_hand_leaves_a_trace_on_the_all_hands_page(client):
    sitting = fapfap()
    sitting.undo_hand(2, by=Recorder("phoneC", 2))
    said = words(client.get(url(sitting, "hands/")))
    assert re.search(r"Hands taken back Hand 2, Aïcha \(with a 4 or higher\): undone at \d\d:\d\d on Aïcha’s phone\.", said)
    french = words(client.get(url(sitting, "hands/"), HTTP_ACCEPT_LANGUAGE="fr"))
    assert "sur le téléphone d’Aïcha" in french  # "de" elided before a vowel, as French writes it


def test_the_all_hands_page_says_who_ended_the_match_handed_out_chips_and_started_the_rematch(client):
    sitting = Sitting.start("cat-te", NAMES, starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})  # Boubacar and Aïcha run out
    sitting.reissue_chips(0, by=Recorder("phoneC", 2))
    sitting.end_match(2, by=Recorder("phoneB", 1))
    sitting.rematch(by=Recorder("phoneA", 0))
    for page in (url(sitting, "hands/"),):
        said = words(client.get(page))
        assert re.search(
            r"Other changes Rematch started at \d\d:\d\d on Ngono’s phone\. "
            r"Match ended before hand 2, at \d\d:\d\d on Boubacar’s phone\. "
            r"New stacks for everyone before hand 2, at \d\d:\d\d on Aïcha’s phone\.",
            said,
        ), said


def test_the_csv_says_who_tapped_and_corrected_each_hand_and_what_it_was_first(client):
    from tests.csv_files import of_kind, read

    sitting = Sitting.start("fapfap", NAMES, stake_amount=200, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"}, by=Recorder("phoneA", 0))
    sitting.correct_hand(1, 1, {"multiplier": "1"}, by=Recorder("phoneB", 1))
    row = of_kind(read(client, url(sitting, "hands.csv")), "hand")[0]
    assert (row["recorded_by"], row["corrected_by"], row["first_recorded_as"]) == ("Ngono", "Boubacar", "Ngono (with a 3, last trick only)")
    assert row["corrected_at"].startswith(row["time"][:4]) and row["corrected_at"] >= row["time"]
