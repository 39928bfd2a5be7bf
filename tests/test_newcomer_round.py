"""What two newcomers (one reading English, one French) tripped on in the second round, each as the
kind it belongs to: the screen says what happened, what it is about, and what still applies."""

import re

import pytest

from matches import rules
from matches.models import Sitting

from .conftest import play, shown
from .test_views import HX, url

pytestmark = pytest.mark.django_db
NAMES = ["Ana", "Ben", "Chloé", "Dia"]


def tap(client, sitting, number, winner, **answers):
    return client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers}, **HX).content.decode()


def test_a_raised_threshold_is_said_in_the_notice_of_the_tap_that_raised_it(client):
    sitting = Sitting.start("eighty-three", ["A", "B", "C"])
    taps = [(1, {}), (2, {}), (1, {}), (2, {"ace": "1"}), (2, {"ace": "1", "last": "1"})]
    for number, (winner, answers) in enumerate(taps, start=1):
        assert "Tie at" not in tap(client, sitting, number, winner, **answers)
    tying = tap(client, sitting, 6, 1, ace="1", last="1", bonus="2")  # A 10, B 10: tie at 10
    assert "Tie at 10: now playing to 15." in tying


def test_the_notice_echoes_the_answer_tapped(client):
    sitting = Sitting.start("fapfap", NAMES[:3])
    assert "Hand 1 recorded: Ben (with a 3, last trick only: 2 stakes from each other player)." in shown(
        tap(client, sitting, 1, 2, multiplier="2")
    )
    corrected = client.post(url(sitting, "hands/1/"), {"number": 1, "winner": 2, "multiplier": "4"}, **HX)
    assert "Hand 1 corrected: Ben (with 3s, the last two tricks: 4 stakes from each other player)." in shown(
        corrected.content.decode()
    )


def test_a_correction_that_reopens_a_finished_match_says_so(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.WINS, 2))
    play(sitting, [0, 0])
    assert Sitting.objects.get(pk=sitting.pk).is_finished
    body = shown(client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 2}, **HX).content.decode())
    assert "Hand 2 corrected: Ben." in body and "The match is open again." in body


def test_a_finished_match_no_longer_states_how_it_will_end(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.HANDS, 2))
    assert "The match ends after 2 hands." in client.get(url(sitting)).content.decode()
    play(sitting, [0, 1])
    page = client.get(url(sitting)).content.decode()
    assert "Match over" in page and "The match ends after" not in page


def test_the_table_says_how_many_earlier_hands_the_history_holds(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [0, 1, 2, 3, 0, 1, 2, 3, 0])
    page = client.get(url(sitting)).content.decode()
    assert "and 3 earlier hands" in page and "All hands · corrections" in page


def test_the_correction_page_opens_no_answer_for_the_player(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [1])
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert '<details class="ask" open' not in page and '<details class="ask">' in page


def test_the_watch_screen_follows_the_rematch(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.end_match()
    rematch = sitting.rematch()
    poll = client.get(f"/w/{sitting.watch_token}/poll/", {"v": 1}, **HX)
    assert poll["HX-Redirect"] == f"/w/{rematch.watch_token}/" and rematch.token not in poll.content.decode()
    page = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert f'href="/w/{rematch.watch_token}/"' in page and rematch.token not in page


def test_making_new_links_asks_first_and_says_what_it_did(client):
    sitting = Sitting.start("agram", NAMES)
    page = client.get(url(sitting)).content.decode()
    assert re.search(r"<summary>A link leaked: make new links</summary>.*Yes, make new links", page, re.S)
    client.post(url(sitting, "links/"))
    sitting.refresh_from_db()
    assert "New links made: the old ones no longer work." in client.get(url(sitting)).content.decode()


def test_the_tap_panel_says_which_trick_decides_the_hand(client):
    page = client.get(url(Sitting.start("eighty-three", NAMES))).content.decode()
    assert "Whoever wins the 5th trick (not the last) wins the hand." in page
