"""Undo: it asks first, saying what it takes back in the game's own terms; it removes the last hand only,
the one the phone showed, and nothing when that hand changed since."""

import re

import pytest

from matches.models import Sitting

from tests.conftest import play, shown, snapshot
from tests.pages import HX, NAMES, stamped, tapped, url, words

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def test_undo_asks_first_and_says_what_it_takes_back(client):
    sitting = Sitting.start("fapfap", NAMES[:3])
    sitting.record_hand(1, 1, {"multiplier": "2"})
    page = client.get(url(sitting)).content.decode()
    undo = re.search(r'<details class="undo">(.*?)</details>', page, re.S)[1]
    assert re.search(r"<summary[^>]*>Undo hand 1</summary>", undo)  # a tap opens the question...
    assert "<button" not in undo.split("</summary>")[0]  # ...it is no button that undoes by itself
    said = words(undo)
    assert "Hand 1: Ben won it (with a 3, last trick only: 2 stakes from each other player). Undo it?" in said
    assert "Yes, undo hand 1" in said and 'action="' + url(sitting, "undo/") + '"' in undo


@pytest.mark.parametrize(
    "game, taps, words",
    [
        ("agram", [(1, {})], "Hand 1: Ana won it. Undo it? The win comes off the score"),  # hands won are the score
        ("sipa", [(1, {"sevens": "none"})], "Undo it? What it won comes off the score"),  # points
        ("fapfap", [(1, {"multiplier": "2"})], "Undo it? What it won comes off the score"),  # stakes
        ("cat-te", [(1, {"how": "last"})], "Undo it? What it won comes off the score"),  # chips
    ],
)
def test_the_undo_confirmation_says_what_comes_off_in_the_games_own_terms(client, game, taps, words):
    """Never a unit the game does not count in (Fapfap's stakes are no points)."""
    chips = {"starting_chips": 3} if game == "cat-te" else {}
    sitting = Sitting.start(game, NAMES[: 3 if chips else 2], **chips)
    for number, (winner, answers) in enumerate(taps, start=1):
        tapped(client, sitting, number, winner, **answers)
    undo = shown(re.search(r'<details class="undo">(.*?)</details>', client.get(url(sitting)).content.decode(), re.S)[1])
    assert words in undo and ("points" not in undo or sitting.rules.unit == "points"), undo


@pytest.mark.parametrize("headers, status", [({}, 302), (HX, 200)], ids=["plain", "htmx"])
def test_undo_removes_the_named_last_hand(client, sitting, headers, status):
    play(sitting, [2, 0])
    response = client.post(url(sitting, "undo/"), stamped(sitting, 2), **headers)
    assert response.status_code == status
    assert list(sitting.hands.values_list("number", flat=True)) == [1]
    assert [s.total for s in sitting.table().seats] == [0, 0, 1, 0]
    if headers:
        assert "Hand 2 undone" in response.content.decode()


@pytest.mark.parametrize(
    "data, status, message",
    [
        ({"number": 1, "stamp": "AAAAAAAA"}, 409, "Hand 1 is not the last hand any more"),
        ({"stamp": "AAAAAAAA"}, 400, "Say which hand this is about."),
        ({"number": 2}, 400, "This button is from an older page"),  # no stamp: a stale screen
        ({"number": 2, "stamp": ""}, 400, "This button is from an older page"),
        *(({"number": 2, "stamp": stamp}, 400, "This button is from an older page") for stamp in ("junk!", "a.0", "é")),
        ({"number": "x"}, 400, "Hand numbers are whole numbers"),
    ],
)
def test_stale_or_bad_undo_removes_nothing(client, sitting, data, status, message):
    play(sitting, [2, 0])
    before = snapshot(sitting)
    response = client.post(url(sitting, "undo/"), data, **HX)
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot(sitting) == before


def test_a_stale_undo_never_removes_a_hand_recorded_again_since(client, sitting):
    """Phone Y saw hand 2 won by Boubacar; phone X undid it and recorded Chaibou instead."""
    play(sitting, [0, 1])
    seen = sitting.hands.get(number=2).stamp
    sitting.undo_hand(2)
    play(sitting, [2])
    before = snapshot(sitting)
    response = client.post(url(sitting, "undo/"), {"number": 2, "stamp": seen}, **HX)
    assert response.status_code == 409
    assert "Hand 2 changed since your screen showed it (now Chaibou)" in shown(response.content.decode())
    assert snapshot(sitting) == before
