"""The tap cut short that `make bench` measures as the floors of a tap (bench/unanswered_urls.py):
it must do what the real tap does up to where it stops, or its figures say nothing."""

import pytest
from django.test import override_settings

from matches.models import Sitting

from tests.conftest import WORKED, play
from tests.web.test_views import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.urls("bench.unanswered_urls")]


def hands_of(sitting):
    return list(
        sitting.hands.order_by("number").values_list(
            "number", "status", "winner__position", "dealer_position", "points", "running"
        )
    )


def test_a_tap_stopped_once_recorded_records_the_hand_as_the_real_tap_does_and_answers_nothing(
    client, sitting, monkeypatch
):
    from bench import unanswered_urls

    monkeypatch.setattr(unanswered_urls, "STOP", "recorded")
    play(sitting, [0])
    client.get(url(sitting))
    answer = client.post(url(sitting, "tap/"), {"number": 2, "winner": 3}, **HX)
    assert answer.status_code == 200 and answer.content == b""
    with override_settings(ROOT_URLCONF="scorekeeper.urls"):  # the same hand through the real tap
        twin = Sitting.start("agram", WORKED)
        play(twin, [0])
        assert client.post(url(twin, "tap/"), {"number": 2, "winner": 3}, **HX).status_code == 200
    assert len(hands_of(sitting)) == 2 and hands_of(sitting) == hands_of(twin)
    sitting.refresh_from_db()
    assert sitting.check_totals() == []


def test_a_tap_stopped_at_its_start_records_nothing(client, sitting, monkeypatch):
    from bench import unanswered_urls

    monkeypatch.setattr(unanswered_urls, "STOP", "entry")
    client.get(url(sitting))
    answer = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    assert answer.status_code == 200 and answer.content == b""
    assert hands_of(sitting) == []


def test_the_rest_of_the_app_is_served_as_it_is(client, sitting):
    assert client.get(url(sitting), **HX).content.lstrip().startswith(b'<section id="table"')
