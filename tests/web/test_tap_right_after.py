"""Two people tap the same hand's winner on two phones: the second phone, whose table moved to the next
hand a moment before the finger landed, is told instead of recording that hand twice."""

import pytest
from django.test import Client

from matches.models import Sitting

from tests.pages import HX, NAMES, url, words

pytestmark = pytest.mark.django_db


def test_the_second_phone_is_told_and_its_next_tap_records_the_next_hand():
    sitting = Sitting.start("agram", NAMES[:3])
    first, second = Client(), Client()
    first.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "key": "first"}, **HX)
    seen = Sitting.objects.get(pk=sitting.pk).version  # the second phone's table showed hand 2 open
    held = second.post(url(sitting, "tap/"), {"number": 2, "winner": 3, "key": "second", "seen": seen}, **HX)
    assert held.status_code == 409 and sitting.hands.count() == 1
    assert f"Another phone recorded hand 1 for {NAMES[2]} just before this tap" in words(held)
    assert "If it was for hand 2, tap again." in words(held) and "Correct hand 1" in words(held)  # or they disagree
    region = held.content.decode()
    assert region.count('name="again" value="1"') == 1  # this phone's tap form, its answer alone
    again = {"number": 2, "winner": 3, "key": "second-again", "seen": seen, "again": "1"}
    assert second.post(url(sitting, "tap/"), again, **HX).status_code == 200
    assert list(sitting.hands.values_list("number", flat=True).order_by("number")) == [1, 2]
    pushed = first.get(url(sitting, f"poll/?v={seen}"), **HX).content.decode()  # what the other phones get
    assert 'name="again"' not in pushed


def test_a_tap_naming_a_version_no_page_showed_is_refused_not_let_past_the_hold():
    """`seen` beyond the table's version came from no page: trusted, it would skip the hold above."""
    sitting = Sitting.start("agram", NAMES[:3])
    Client().post(url(sitting, "tap/"), {"number": 1, "winner": 3, "key": "first"}, **HX)
    ahead = Sitting.objects.get(pk=sitting.pk).version + 1
    forged = Client().post(url(sitting, "tap/"), {"number": 2, "winner": 3, "key": "second", "seen": ahead}, **HX)
    assert forged.status_code == 400 and "a change of the table that was never made" in words(forged)
    assert sitting.hands.count() == 1
