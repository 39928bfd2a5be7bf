"""What a phone is told when a copy of its change arrives: the first answer, or what became of it."""

import re

import pytest
from django.test import Client

from matches.models import Sitting

from tests.pages import HX, NAMES, url, words

pytestmark = pytest.mark.django_db


def test_a_copy_of_a_tap_gets_the_first_answer_and_records_nothing_more(client):
    sitting = Sitting.start("agram", NAMES[:3])
    tap = {"number": 1, "winner": 2, "key": "tap-1-key"}
    first = client.post(url(sitting, "tap/"), tap, **HX)
    copy = client.post(url(sitting, "tap/"), tap, **HX)
    assert first.status_code == copy.status_code == 200
    assert "Hand 1 recorded: Ben" in words(first) and "Hand 1 recorded: Ben" in words(copy)
    assert sitting.hands.count() == 1


def test_a_copy_of_a_tap_that_arrives_after_its_undo_says_so_and_does_not_bring_the_hand_back(client):
    sitting = Sitting.start("agram", NAMES[:3])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "tap-1-key"}, **HX)
    stamp = sitting.hands.get().stamp
    client.post(url(sitting, "undo/"), {"number": 1, "stamp": stamp, "key": "undo-1-key"}, **HX)
    copy = client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "tap-1-key"}, **HX)
    assert copy.status_code == 409 and sitting.hands.count() == 0
    said = words(copy)
    assert re.search(r"Hand 1 was recorded from this tap, then undone at \d\d:\d\d on this phone: it is open again", said)


def test_another_phones_tap_that_waited_through_an_undo_is_refused_with_when_and_where(client):
    sitting = Sitting.start("agram", NAMES[:3])
    seen = sitting.version
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "a-tap"}, **HX)
    client.post(url(sitting, "undo/"), {"number": 1, "stamp": sitting.hands.get().stamp, "key": "a-undo"}, **HX)
    late = Client().post(url(sitting, "tap/"), {"number": 1, "winner": 3, "key": "b-tap", "seen": seen}, **HX)
    assert late.status_code == 409 and sitting.hands.count() == 0
    assert "on another phone, before this phone showed that undo: nothing was recorded" in words(late)


def test_a_tap_refused_for_an_undo_it_had_not_seen_names_the_phone_that_undid_it_by_its_owner(client):
    sitting = Sitting.start("agram", NAMES[:3])
    client.post(url(sitting, "me/"), {"seat": 2})  # "this phone belongs to" the second player
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "a-tap"}, **HX)
    seen = Sitting.objects.get(pk=sitting.pk).version
    client.post(url(sitting, "undo/"), {"number": 1, "stamp": sitting.hands.get().stamp, "key": "a-undo"}, **HX)
    late = Client().post(url(sitting, "tap/"), {"number": 2, "winner": 3, "key": "b-tap", "seen": seen}, **HX)
    assert late.status_code == 409
    assert "Hand 1 was undone at" in words(late) and f"on {NAMES[1]}’s phone, before this phone showed that undo" in words(late)


def test_a_copy_of_a_tap_after_its_hand_was_undone_and_recorded_again_says_who_won_it_since(client):
    """Tapping again would be for the next hand: the copy is told who holds its hand now."""
    sitting = Sitting.start("agram", NAMES[:3])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "tap-1-key"}, **HX)
    client.post(url(sitting, "undo/"), {"number": 1, "stamp": sitting.hands.get().stamp, "key": "undo-1-key"}, **HX)
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "key": "tap-1-again"}, **HX)
    copy = client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "tap-1-key"}, **HX)
    assert copy.status_code == 409 and list(sitting.hands.values_list("winner__player__name", flat=True)) == [NAMES[2]]
    said = words(copy)
    assert "was recorded from this tap, then undone at" in said and f"and recorded again: {NAMES[2]}" in said
    assert "Tap the winner again" not in said


def test_a_copy_of_an_undo_says_how_its_hand_stands_now(client):
    """A copy of an undo changes nothing; once the hand was tapped again, it names who holds it."""
    sitting = Sitting.start("agram", NAMES[:3])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "key": "tap-1-key"}, **HX)
    undo = {"number": 1, "stamp": sitting.hands.get().stamp, "key": "undo-1-key"}
    client.post(url(sitting, "undo/"), undo, **HX)
    assert "Hand 1 undone: tap its winner again." in words(client.post(url(sitting, "undo/"), undo, **HX))
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "key": "tap-1-again"}, **HX)
    version = Sitting.objects.get(pk=sitting.pk).version
    copy = client.post(url(sitting, "undo/"), undo, **HX)
    assert copy.status_code == 200 and Sitting.objects.get(pk=sitting.pk).version == version
    assert f"Hand 1 was undone, then recorded again: {NAMES[2]}" in words(copy)
    assert "tap its winner again" not in words(copy)


def test_the_pages_for_one_phone_key_each_change_and_the_pushed_region_leaves_it_to_the_phone(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    page = client.get(url(sitting)).content.decode()
    keys = re.findall(r'name="key" value="([^"]+)"', page)
    assert len(keys) == len(set(keys)) >= 2  # each form its own: the tap and the undo
    region = client.post(url(sitting, "tap/"), {"number": 2, "winner": 1}, **HX).content.decode()
    assert 'name="key"' not in region and f'name="seen" value="{Sitting.objects.get(pk=sitting.pk).version}"' in region
    for path in ("end/", "hands/1/", "seats/"):
        assert 'name="key" value="' in client.get(url(sitting, path)).content.decode()


@pytest.mark.parametrize("key", ["x" * 33, "not a key!"])
def test_a_key_no_page_makes_is_refused_with_a_reload(client, key):
    sitting = Sitting.start("agram", NAMES[:3])
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "key": key}, **HX)
    assert response.status_code == 400 and "reload the page" in words(response) and not sitting.hands.exists()
