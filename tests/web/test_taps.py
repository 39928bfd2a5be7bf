"""A tap, plain (a redirect to the table) or htmx (the table region in one round trip): recorded once
however often it is sent, refused with what to fix when it names no seat or no open hand, refused
with the hand as it stands when it disagrees with the recorded one, and its notice shown once."""

import pytest

from matches.domain.capacity import MATCH_HANDS
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import HANDS_ON_TABLE, Sitting

from tests.conftest import play, shown, snapshot
from tests.pages import HX, is_full_page, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def test_plain_tap_records_the_hand_and_redirects_to_the_table(client, sitting):
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3})
    assert response.status_code == 302 and response["Location"] == url(sitting)
    hand = sitting.hands.get()
    assert (hand.number, hand.winner.name, hand.points) == (1, "Chaibou", [0, 0, 1, 0])


def test_htmx_tap_answers_the_updated_region_in_one_round_trip(client, sitting):
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    assert response.status_code == 200
    body = shown(response.content.decode())
    assert not is_full_page(response)
    assert "Hand 1 recorded: Chaibou." in body
    assert '<input type="hidden" name="number" value="2">' in body  # the next hand opened by itself
    assert "HX-Request" in response["Vary"]


def test_a_plain_tap_shows_its_notice_after_the_redirect(client, sitting):
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, follow=True)
    assert "Hand 1 recorded: Chaibou." in shown(response.content.decode())


# --- sent again -----------------------------------------------------------------------------------


def test_double_tap_gives_one_row_and_says_it_was_saved(client, sitting):
    first = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    retry = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)  # the first answer was lost
    assert first.status_code == retry.status_code == 200
    for answer in (first, retry):
        body = shown(answer.content.decode())
        assert "Hand 1 recorded: Chaibou." in body and "already" not in body and 'class="notice error"' not in body
    assert sitting.hands.count() == 1 and sitting.check_totals() == []


@pytest.mark.parametrize(
    "game, answers",
    [("cat-te", {"how": "sweep", "aces": ["3"]}), ("eighty-three", {"ace": "1", "last": "1", "bonus": ["1", "3"]})],
)
def test_a_retry_that_names_players_is_taken_for_the_recorded_hand(client, game, answers):
    sitting = Sitting.start(game, ["A", "B", "C"])  # the answers name seats: kept as a list, posted as fields
    tap = {"number": 1, "winner": 2, **answers}
    first = client.post(url(sitting, "tap/"), tap, **HX)
    retry = client.post(url(sitting, "tap/"), tap, **HX)  # the first answer was lost
    assert first.status_code == retry.status_code == 200
    assert "already" not in retry.content.decode() and sitting.hands.count() == 1


def test_a_retry_with_other_answers_is_not_taken_for_the_recorded_hand(client):
    sitting = Sitting.start("fapfap", ["A", "B", "C"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "multiplier": "2"}, **HX)
    other = client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "multiplier": "4"}, **HX)
    assert other.status_code == 409 and "already recorded" in other.content.decode()
    assert sitting.hands.get().extras == {"multiplier": "2"}


def test_an_answer_posted_twice_counts_once_when_alike_and_is_refused_when_not(client):
    sitting = Sitting.start("fapfap", ["A", "B", "C"])
    tap = url(sitting, "tap/")
    body = "number=1&winner=2&multiplier=4&multiplier=4"
    kind = "application/x-www-form-urlencoded"
    assert client.post(tap, body, content_type=kind, **HX).status_code == 200
    assert client.post(tap, body, content_type=kind, **HX).status_code == 200  # the retry: the same hand
    assert sitting.hands.get().extras == {"multiplier": "4"}
    before = snapshot(sitting)
    mixed = client.post(tap, "number=2&winner=1&multiplier=1&multiplier=4", content_type=kind, **HX)
    assert mixed.status_code == 400 and "Give one answer, not several." in shown(mixed.content.decode())
    assert snapshot(sitting) == before


def test_a_plain_tap_posted_again_before_its_answer_shows_its_notice_once(client, sitting):
    for _ in range(3):  # no JavaScript, a slow network: the same form posted three times
        assert client.post(url(sitting, "tap/"), {"number": 1, "winner": 2}).status_code == 302
    page = shown(client.get(url(sitting)).content.decode())
    assert page.count("Hand 1 recorded: Boubacar.") == 1
    assert sitting.hands.count() == 1


def test_notices_posted_again_each_show_once_where_they_were_said_last(client, sitting):
    play(sitting, [0])  # hand 1; then, without JavaScript and without waiting for the answers:
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 2})
    stamp = sitting.hands.get(number=2).stamp
    client.post(url(sitting, "undo/"), {"number": 2, "stamp": stamp})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 2})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 2})
    notice = shown(client.get(url(sitting)).content.decode())
    undone, recorded = notice.index("Hand 2 undone"), notice.index("Hand 2 recorded: Boubacar.")
    assert undone < recorded and notice.count("Hand 2 recorded: Boubacar.") == 1


# --- refused --------------------------------------------------------------------------------------


def test_a_tap_that_disagrees_with_the_recorded_hand_is_refused_with_a_notice(client, sitting):
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    before = snapshot(sitting)
    other_phone = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    assert other_phone.status_code == 409
    assert "Hand 1 is already recorded: Chaibou." in shown(other_phone.content.decode())
    assert is_full_page(other_phone)  # a plain request sees the whole table with the notice
    assert snapshot(sitting) == before


def test_a_conflicting_tap_offers_to_correct_the_recorded_hand(client, sitting):
    sitting.record_hand(1, 2)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    body = shown(response.content.decode())
    assert "Hand 1 is already recorded: Chaibou." in body
    assert f'href="{url(sitting, "hands/1/")}">Correct hand 1</a>' in body


def test_a_tap_refused_for_a_hand_recorded_with_other_answers_says_the_answers_that_stood(client):
    """Two phones agreed on the winner, not on how: the phone whose tap did not stand reads both."""
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    sitting.record_hand(1, 2, {"multiplier": "2"})
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "multiplier": "1"}, **HX)
    body = shown(response.content.decode())
    assert response.status_code == 409
    assert "Hand 1 is already recorded: Chaibou (with a 3, last trick only: 2 stakes from each other player)." in body
    assert f'href="{url(sitting, "hands/1/")}">Correct hand 1</a>' in body


def test_a_tap_refused_for_a_hand_older_than_the_tables_newest_says_its_answers_too(client):
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    for number in range(1, HANDS_ON_TABLE + 3):
        sitting.record_hand(number, 2, {"multiplier": "2" if number == 1 else "1"})
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "multiplier": "1"}, **HX)
    assert "Hand 1 is already recorded: Chaibou (with a 3, last trick only: 2 stakes" in shown(response.content.decode())


def test_stale_tap_for_a_past_hand_never_lands_on_the_open_hand(client, sitting):
    play(sitting, [0, 1])
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 4}, **HX)
    assert response.status_code == 409
    assert "Hand 1 is already recorded: Aïcha." in shown(response.content.decode())
    assert snapshot(sitting) == before


@pytest.mark.parametrize(
    "data, status, message",
    [
        ({"number": 1, "winner": 5}, 400, "Seat 5 is not at this table"),
        ({"number": 1, "winner": 0}, 400, "There is no such seat at this table"),
        ({"number": 1, "winner": 99}, 400, "There is no such seat at this table"),
        ({"number": 1}, 400, "Tap a player&#x27;s name."),
        ({"winner": 1}, 400, "The tap did not say which hand it was for."),
        ({"number": "seven", "winner": 1}, 400, "Hand numbers are whole numbers: reload the page, then tap again."),
        ({"number": 1, "winner": "Chaibou"}, 400, "There is no such seat at this table: tap one of the names shown."),
        ({"number": -3, "winner": 1}, 400, "Hands are numbered from 1."),
        ({"number": 9, "winner": 1}, 409, "Hand 9 has not started: hand 1 is being played."),
        ({"number": MATCH_HANDS + 1, "winner": 1}, 409, "has not started"),  # the hand after a full match: a hand
        ({"number": 10**30, "winner": 1}, 400, "There is no hand of that number: reload the page"),  # (not echoed)
        # A number no page writes: other scripts' digits, a sign, spaces, a decimal point, Python's underscores.
        *(({"number": number, "winner": 1}, 400, "Hand numbers are whole numbers") for number in ("１", "١", "+1", " 1 ", "1_0")),
        *(({"number": 1, "winner": winner}, 400, "There is no such seat at this table") for winner in ("1.0", "２", " 2", "-0")),
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_bad_taps_answer_4xx_with_a_message_and_change_nothing(client, sitting, data, status, message, headers):
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), data, **headers)
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot(sitting) == before


@pytest.mark.parametrize("headers, status", [({}, 400), (HX, 400)], ids=["plain", "htmx"])
@pytest.mark.parametrize("winner", ["0", "9", "x", ""])
def test_a_tap_naming_no_seat_answers_the_table_with_what_to_fix(client, sitting, headers, status, winner):
    play(sitting, [1])
    for _ in range(2):  # the second from the region the first one kept
        response = client.post(url(sitting, "tap/"), {"number": 2, "winner": winner}, **headers)
        body = response.content.decode()
        assert response.status_code == status and 'class="notice error"' in body
        assert 'name="winner" value="1"' in body and "Undo hand 1" in body
    assert sitting.hands.count() == 1


# --- refused once the match is over ---------------------------------------------------------------


def test_a_tap_for_the_hand_that_ended_the_match_says_whose_tap_stood_and_offers_to_correct_it(client):
    """A waiting tap sent after another phone's tap of the same hand ended the match by its rule."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"], MatchEnd(MatchEndKind.WINS, 1))
    sitting.record_hand(1, 2)
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    body = shown(response.content.decode())
    assert response.status_code == 409
    assert "Hand 1 is already recorded: Chaibou. This match is over: no more hands can be recorded." in body
    assert f'href="{url(sitting, "hands/1/")}">Correct hand 1</a>' in body
    assert snapshot(sitting) == before


def test_a_tap_for_a_hand_recorded_before_a_member_ended_the_match_says_whose_tap_stood(client, sitting):
    play(sitting, [0, 2])
    sitting.end_match()
    response = client.post(url(sitting, "tap/"), {"number": 2, "winner": 1}, **HX)
    body = shown(response.content.decode())
    assert response.status_code == 409
    assert "Hand 2 is already recorded: Chaibou. This match is over: no more hands can be recorded." in body
    assert "Correct hand" not in body  # a member's end is final: nothing can be corrected


def test_a_tap_for_the_hand_a_member_ended_the_match_on_says_it_was_not_played(client, sitting):
    play(sitting, [0])
    sitting.end_match()
    response = client.post(url(sitting, "tap/"), {"number": 2, "winner": 1}, **HX)
    body = shown(response.content.decode())
    assert response.status_code == 409
    assert "Hand 2 was not played: the match was ended. This match is over: no more hands can be recorded." in body


@pytest.mark.parametrize(
    "path, fields",
    [
        ("tap/", [("number", "1"), ("winner", "1"), ("winner", "2")]),
        ("tap/", [("number", "1"), ("number", "2"), ("winner", "1")]),
        ("undo/", [("number", "1"), ("number", "2"), ("stamp", "AAAAAAAA")]),
        ("end/", [("number", "1"), ("number", "2")]),
        ("seats/", [("change", "leave"), ("seat", "1"), ("seat", "2")]),
    ],
)
def test_a_field_posted_twice_with_two_values_is_refused_not_read_as_its_last(client, path, fields):
    """A page edited by hand, or two forms' fields mixed: which value was meant is unknown, so nothing is done."""
    sitting = Sitting.start("agram", ["Ana", "Ben", "Chloé", "Dan"])
    if path == "undo/":
        sitting.record_hand(1, 0)
    before = snapshot(sitting)
    body = "&".join(f"{name}={value}" for name, value in fields)
    response = client.post(url(sitting, path), body, content_type="application/x-www-form-urlencoded", **HX)
    assert response.status_code == 400 and snapshot(sitting) == before
    assert "two different values for one field: reload the page" in shown(response.content.decode())


def test_a_field_posted_twice_with_one_value_is_read_once(client):
    sitting = Sitting.start("agram", ["Ana", "Ben"])
    response = client.post(url(sitting, "tap/"), "number=1&winner=2&winner=2", content_type="application/x-www-form-urlencoded", **HX)
    assert response.status_code == 200 and list(sitting.hands.values_list("winner__position", flat=True)) == [1]


@pytest.mark.parametrize("path, field", [("me/", "seat"), ("group/", "group")])
def test_a_field_read_without_a_form_posted_twice_with_two_values_is_refused(client, path, field):
    sitting = Sitting.start("agram", ["Ana", "Ben"])
    sitting.end_match()
    before = snapshot(sitting)
    body = f"{field}=1&{field}=2" if field == "seat" else "group=new&group=xyz&name=Jeudi"
    response = client.post(url(sitting, path), body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400 and snapshot(sitting) == before
    assert "two different values for one field" in shown(response.content.decode())
