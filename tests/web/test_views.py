"""Every view, for plain requests (no JavaScript) and htmx requests."""

import csv
import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.models import HANDS_ON_TABLE, Hand, Seat, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import WORKED, play, shown, snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
HX = {"HTTP_HX_REQUEST": "true"}
HISTORY_RESTORE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}


def url(sitting, name=""):
    return f"/s/{sitting.token}/{name}"


def is_full_page(response) -> bool:
    return response.content.lstrip().startswith(b"<!doctype html>")


# --- match table: page vs partial ------------------------------------------


def test_table_plain_request_gets_the_full_page(client, sitting):
    response = client.get(url(sitting))
    assert response.status_code == 200
    assert is_full_page(response)
    assert "HX-Request" in response["Vary"]


def test_table_htmx_request_gets_only_the_table_region(client, sitting):
    response = client.get(url(sitting), **HX)
    assert response.status_code == 200
    assert not is_full_page(response)
    assert response.content.lstrip().startswith(b'<section id="table"')
    assert "HX-Request" in response["Vary"]


def test_htmx_history_restore_gets_the_full_page(client, sitting):
    response = client.get(url(sitting), **HISTORY_RESTORE)
    assert is_full_page(response)


def test_table_shows_one_button_per_seat_tally_and_next_dealer(client, sitting):
    play(sitting, [2])
    page = client.get(url(sitting)).content.decode()
    for position, name in enumerate(WORKED, start=1):
        assert re.search(f'name="winner" value="{position}"[^>]*><span class="name">{name}</span>', page)
    assert '<input type="hidden" name="number" value="2">' in page
    assert '<table class="tally">' in page and "Hands won" in page
    assert "Chaibou deals, Djibo leads." in shown(page)


# --- tapping -----------------------------------------------------------------


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


def test_double_tap_gives_one_row_and_says_it_was_saved(client, sitting):
    first = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    retry = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)  # the first answer was lost
    assert first.status_code == retry.status_code == 200
    for answer in (first, retry):
        body = shown(answer.content.decode())
        assert "Hand 1 recorded: Chaibou." in body and "already" not in body and 'class="notice error"' not in body
    assert sitting.hands.count() == 1 and sitting.check_totals() == []


def test_a_tap_that_disagrees_with_the_recorded_hand_is_refused_with_a_notice(client, sitting):
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    before = snapshot(sitting)
    other_phone = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    assert other_phone.status_code == 409
    assert "Hand 1 is already recorded: Chaibou." in shown(other_phone.content.decode())
    assert is_full_page(other_phone)  # a plain request sees the whole table with the notice
    assert snapshot(sitting) == before


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
        ({"number": 10**30, "winner": 1}, 409, "has not started"),
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_bad_taps_answer_4xx_with_a_message_and_change_nothing(client, sitting, data, status, message, headers):
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), data, **headers)
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot(sitting) == before


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_unknown_token_answers_404_with_a_message(client, headers):
    before = Hand.objects.count()
    response = client.post("/s/not-a-real-token/tap/", {"number": 1, "winner": 1}, **headers)
    assert response.status_code == 404
    assert "No match at this link" in response.content.decode()
    assert Hand.objects.count() == before
    if headers:
        assert response["HX-Retarget"] == "#notice"


def test_unknown_address_answers_404_with_a_message(client):
    response = client.get("/nowhere/")
    assert response.status_code == 404
    assert "nothing at this address" in response.content.decode()


def test_a_get_on_an_action_address_goes_back_to_the_table(client, sitting):
    response = client.get(url(sitting, "tap/"))
    assert response.status_code == 302 and response["Location"] == url(sitting)
    assert sitting.hands.count() == 0


def test_csrf_is_enforced_and_htmx_sends_the_token_from_body_hx_headers(sitting):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    refused = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    assert refused.status_code == 403 and sitting.hands.count() == 0
    assert "Reload the page" in refused.content.decode()
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    accepted = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX)
    assert accepted.status_code == 200 and sitting.hands.count() == 1


def test_a_plain_form_refused_for_its_csrf_token_leads_back_to_its_page_not_to_a_reload_that_posts_again(sitting):
    phone = Client(enforce_csrf_checks=True)
    phone.get(url(sitting))
    refused = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    page = refused.content.decode()
    assert refused.status_code == 403 and sitting.hands.count() == 0
    assert "nothing was done" in page and "Reload" not in page
    assert f'href="{url(sitting)}"' in page  # the table itself, where the tap can be made again


def test_the_table_region_htmx_swaps_in_carries_no_csrf_token_while_a_plain_page_keeps_them(sitting):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 2  # the tap form and the share panel's, for no JavaScript
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    answer = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX)
    region = answer.content.decode()
    assert answer.status_code == 200 and 'name="number" value="2"' in region
    assert "csrfmiddlewaretoken" not in region  # htmx sends the header of <body hx-headers> instead
    again = phone.post(url(sitting, "tap/"), {"number": 2, "winner": 2}, HTTP_X_CSRFTOKEN=token, **HX)
    assert again.status_code == 200 and sitting.hands.count() == 2
    assert "csrfmiddlewaretoken" not in phone.get(url(sitting, "poll/"), {"v": 0}, **HX).content.decode()


def test_the_rematch_form_of_a_match_ended_by_an_htmx_tap_carries_its_csrf_token(db):
    """The rematch button is a plain form (it loads a new page), not an htmx one: it needs its token."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"], MatchEnd(MatchEndKind.WINS, 1))
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    region = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX).content.decode()
    assert "Match over" in region
    form_token = re.search(
        r'action="[^"]*/rematch/"><input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"', region
    )
    assert form_token, region
    rematch = phone.post(url(sitting, "rematch/"), {"csrfmiddlewaretoken": form_token[1]})
    assert rematch.status_code == 302 and Sitting.objects.count() == 2


@pytest.mark.parametrize("hands", [0, 3])
def test_the_table_region_is_sent_without_blank_lines_or_indents(client, sitting, hands):
    play(sitting, [0, 1, 2][:hands])
    region = client.get(url(sitting), **HX).content.decode()
    assert ('<figure class="chart">' in region) == bool(hands)
    outside_chart = re.sub(r'<figure class="chart">.*?</figure>\n', "", region, flags=re.DOTALL)
    assert "\n\n" not in outside_chart and "\n " not in outside_chart


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


# --- undo --------------------------------------------------------------------


@pytest.mark.parametrize("headers, status", [({}, 302), (HX, 200)], ids=["plain", "htmx"])
def test_undo_removes_the_named_last_hand(client, sitting, headers, status):
    play(sitting, [2, 0])
    response = client.post(url(sitting, "undo/"), {"number": 2}, **headers)
    assert response.status_code == status
    assert list(sitting.hands.values_list("number", flat=True)) == [1]
    assert [s.total for s in sitting.table().seats] == [0, 0, 1, 0]
    if headers:
        assert "Hand 2 undone" in response.content.decode()


@pytest.mark.parametrize(
    "data, status, message",
    [
        ({"number": 1}, 409, "Hand 1 is not the last hand any more"),
        ({}, 400, "Say which hand this is about."),
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


# --- end match -----------------------------------------------------------------


def test_end_match_asks_for_confirmation_first(client, sitting):
    response = client.get(url(sitting, "end/"))
    assert response.status_code == 200
    assert "Hand 1 will not count, even if it has started." in response.content.decode()
    assert not Sitting.objects.get(pk=sitting.pk).is_finished


@pytest.mark.parametrize("headers, status", [({}, 302), (HX, 200)], ids=["plain", "htmx"])
def test_end_early_abandons_the_open_hand_and_refuses_later_taps(client, sitting, headers, status):
    play(sitting, [2, 2, 1])
    response = client.post(url(sitting, "end/"), {"number": 4}, **headers)
    assert response.status_code == status
    sitting.refresh_from_db()
    assert sitting.is_finished
    assert sitting.hands.get(number=4).status == "abandoned"
    page = client.get(url(sitting)).content.decode()
    assert "<strong>Chaibou</strong> wins the match with 2 hands won." in page
    assert 'name="winner"' not in page and "Undo hand" not in page
    before = snapshot(sitting)
    refused = client.post(url(sitting, "tap/"), {"number": 4, "winner": 1}, **HX)
    assert refused.status_code == 409 and "This match is over" in refused.content.decode()
    again = client.post(url(sitting, "end/"), {"number": 4}, **HX)
    assert again.status_code == 409 and "already over" in again.content.decode()
    assert client.post(url(sitting, "undo/"), {"number": 3}).status_code == 409
    assert snapshot(sitting) == before


def test_a_stale_end_confirmation_ends_nothing(client, sitting):
    play(sitting, [2])
    before = snapshot(sitting)
    response = client.post(url(sitting, "end/"), {"number": 1}, **HX)  # the phone confirmed while hand 1 was open
    assert response.status_code == 409
    assert "Hand 2 is open now, not hand 1" in response.content.decode()
    assert snapshot(sitting) == before
    assert client.post(url(sitting, "end/"), {}, **HX).status_code == 400


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


def test_final_standings_name_a_shared_first_place(client, sitting):
    play(sitting, [0, 3])
    sitting.end_match()
    page = client.get(url(sitting)).content.decode()
    assert "Shared first place: <strong>Aïcha</strong> and <strong>Djibo</strong>, with 1 hand won each." in page


# --- start -------------------------------------------------------------------


def start_data(names, **extra):
    data = {"end_kind": "open", "end_target": "", "action": "start"}
    data.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    data.update(extra)
    return data


def test_start_lists_every_game_with_its_one_line(client):
    page = client.get("/start/").content.decode()
    assert "35-card pack · 6 cards each · 2–5 players" in page
    for slug in (
        "agram",
        "sink-sink",
        "agram-mali",
        "fapfap",
        "spar",
        "sipa",
        "cat-te",
        "eighty-three",
        "letzter-stich",
    ):
        assert f'href="/start/{slug}/"' in page


def test_a_games_start_form_shows_its_help_and_four_name_rows(client):
    page = client.get("/start/agram/").content.decode()
    assert page.count('name="player_') == 4
    assert "How to play Agram" in page and "Kings, Queens, Jacks, Twos and the Ace of Spades" in page


def test_unknown_game_start_answers_404_with_a_message(client):
    response = client.get("/start/poker/")
    assert response.status_code == 404 and "no such game" in response.content.decode()


def test_start_page_htmx_gets_the_form_partial(client):
    response = client.get("/start/agram/", **HX)
    assert response.content.lstrip().startswith(b'<form id="start-form"')
    assert "HX-Request" in response["Vary"]


def test_starting_a_sitting_seats_trimmed_unicode_names_in_order(client):
    response = client.post("/start/agram/", start_data(["  Aïcha ", "Boubacar", "Chaibou  Maïga", "Djibo"]))
    sitting = Sitting.objects.get()
    assert response.status_code == 302 and response["Location"] == url(sitting)
    assert [s.name for s in sitting.table().seats] == ["Aïcha", "Boubacar", "Chaibou Maïga", "Djibo"]
    assert "Aïcha" in client.get(url(sitting)).content.decode()
    assert client.session["sittings"] == [sitting.token]


def test_htmx_start_redirects_the_whole_page_to_the_table(client):
    response = client.post("/start/agram/", start_data(["A", "B"]), **HX)
    assert response["HX-Redirect"] == url(Sitting.objects.get())


def test_start_with_a_match_end(client):
    client.post("/start/agram/", start_data(["A", "B"], end_kind="wins", end_target="3"))
    sitting = Sitting.objects.get()
    assert (sitting.end_kind, sitting.end_target) == ("wins", 3)


@pytest.mark.parametrize(
    "game, names, extra, message",
    [
        ("agram", ["Aïcha", "\u200b", "Chaibou"], {}, "Type a name, or remove this row."),
        ("agram", ["Aïcha", "AÏCHA"], {}, "Aïcha is already at the table (player 1)."),
        ("agram", ["Aïcha", "x" * 41], {}, "Keep names to 40 characters (this one has 41)."),
        (
            "agram",
            ["A", "B", "C", "D", "E", "F"],
            {},
            "Agram is for 2 to 5 players: six hands of six need 36 cards, the pack has 35.",
        ),
        ("agram", ["A"], {}, "Agram needs at least 2 players"),
        ("cat-te", ["A", "B"], {"end_kind": "hands", "end_target": "12"}, "Cat Tê needs at least 3 players"),
        ("agram", ["A", "B"], {"end_kind": "wins", "end_target": ""}, "Type N, the number this match ends at."),
        ("agram", ["A", "B"], {"end_kind": "wins", "end_target": "-2"}, "N must be at least 1."),
        ("agram", ["A", "B"], {"end_kind": "hands", "end_target": "lots"}, "Type N as a whole number, like 10."),
        ("agram", ["A", "B"], {"end_kind": "hands", "end_target": "99999999999"}, "N must be at most 10,000."),
        ("agram", ["A", "B"], {"end_kind": "forever"}, "Choose how the match ends."),
        ("agram", ["A", "B"], {"end_kind": "points", "end_target": "5"}, "Choose how the match ends."),
        ("sipa", ["A", "B"], {"end_kind": "open"}, "Choose how the match ends."),
        ("fapfap", ["A", "B"], {"stake_amount": "-100", "stake_label": "FCFA"}, "Stake must be at least 1."),
        ("fapfap", ["A", "B"], {"stake_amount": "100", "stake_label": "F" * 13}, "Keep the currency to 12"),
        ("fapfap", ["A", "B"], {"stake_label": "FCFA"}, "Type the stake for one hand"),
        (
            "cat-te",
            ["A", "B", "C"],
            {"end_kind": "hands", "end_target": "9", "starting_chips": "0"},
            "Chips each must be at least 1.",
        ),
    ],
)
def test_bad_start_forms_are_refused_next_to_the_field(client, game, names, extra, message):
    response = client.post(f"/start/{game}/", start_data(names, **extra))
    assert response.status_code == 400
    assert message in shown(response.content.decode()).replace("&#x27;", "'")
    assert Sitting.objects.count() == 0


def test_a_name_of_exactly_40_characters_is_accepted(client):
    client.post("/start/agram/", start_data(["é" * 40, "B"]))
    assert Sitting.objects.get().table().seats[0].name == "é" * 40


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_add_and_remove_player_rows_keep_what_was_typed(client, headers):
    added = client.post("/start/agram/", start_data(["A", "B"], action="add"), **headers).content.decode()
    assert added.count('name="player_') == 3 and 'value="A"' in added and 'value="B"' in added
    removed = client.post("/start/agram/", start_data(["A", "B", "C"], action="remove-2"), **headers).content.decode()
    assert removed.count('name="player_') == 2
    assert 'name="player_1" id="id_player_1" value="A"' in removed
    assert 'name="player_2" id="id_player_2" value="C"' in removed
    assert Sitting.objects.count() == 0


# --- home, demo, rematch, export -------------------------------------------------


def test_home_lists_only_this_phones_sittings_in_progress_first(client, sitting):
    finished = Sitting.start("sink-sink", ["Fatou", "Moussa"])
    finished.end_match()
    client.get(url(finished))
    client.get(url(sitting))
    client.get(url(finished))  # most recently opened, but finished: listed after
    Sitting.start("agram", ["Someone", "Else"])  # another phone's sitting
    page = Client().get("/").content.decode()
    assert "Someone" not in page  # a new phone sees nothing
    page = client.get("/").content.decode()
    assert "Someone" not in page
    assert page.index("Aïcha") < page.index("Fatou")
    assert page.count("Rematch") == 1  # the finished one: a match in progress offers only to go on


def test_demo_button_opens_the_worked_sitting(client):
    response = client.post("/demo/")
    sitting = Sitting.objects.get(finished_at__isnull=True)
    assert response["Location"] == url(sitting)
    table = sitting.table()
    assert [s.name for s in table.seats] == WORKED
    assert [(s.name, s.total) for s in table.seats if s.total] == [("Chaibou", 1)]
    assert table.dealer_seat.name == "Chaibou"


def test_the_demo_says_it_is_a_demo_and_what_to_try_once(client):
    page = client.get(client.post("/demo/")["Location"]).content.decode()
    assert "A demo match, in a demo group with three finished matches: tap who won each hand" in page
    assert "A demo match" not in client.get(url(Sitting.objects.get(finished_at__isnull=True))).content.decode()


def test_load_demo_command_prints_the_table_address(db):
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert url(Sitting.objects.get(finished_at__isnull=True)) in out.getvalue()


def test_the_demo_comes_in_a_group_with_finished_matches_statistics_and_a_chart(client):
    table = client.get(client.post("/demo/")["Location"]).content.decode()
    sitting = Sitting.objects.get(finished_at__isnull=True)
    assert '<figure class="chart">' in table and sitting.group is not None
    assert sitting.group.sittings.filter(finished_at__isnull=False).count() == 3
    home = client.get("/").content.decode()
    assert sitting.group.get_absolute_url() in home  # the phone remembers the demo group
    figures = client.get(sitting.group.get_absolute_url() + "stats/").content.decode()
    assert "Aïcha" in figures and "CFA" in figures  # a Fapfap night to settle


def test_rematch_opens_a_new_sitting_with_the_same_seats(client, sitting):
    play(sitting, [1])
    response = client.post(url(sitting, "rematch/"), {"open": "1"})  # (still being played: confirmed)
    new = Sitting.objects.exclude(pk=sitting.pk).get()
    assert response["Location"] == url(new)
    assert [s.name for s in new.table().seats] == WORKED[1:] + WORKED[:1]  # Boubacar won: he deals first
    assert client.session["sittings"][0] == new.token


def test_csv_export_has_one_row_per_hand_with_points_and_running_totals(client, sitting):
    play(sitting, [2, 0, 2])
    sitting.end_match()
    response = client.get(url(sitting, "hands.csv"))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0] == [
        "hand",
        "status",
        "dealer",
        "winner",
        "how",
        *(f"{n}: wins this hand" for n in WORKED),
        *(f"{n}: Hands won" for n in WORKED),
    ]
    assert rows[1] == ["1", "won", "Aïcha", "Chaibou", "", "0", "0", "1", "0", "0", "0", "1", "0"]
    assert rows[3] == ["3", "won", "Aïcha", "Chaibou", "", "0", "0", "1", "0", "1", "0", "2", "0"]
    assert rows[4] == ["4", "abandoned", "Chaibou", "", "", "0", "0", "0", "0", "1", "0", "2", "0"]


def test_csv_export_defuses_formulas_in_names(client, db):
    sitting = Sitting.start("agram", ["=1+2", "B"])
    play(sitting, [0])
    body = b"".join(client.get(url(sitting, "hands.csv")).streaming_content).decode("utf-8-sig")
    assert ",=1+2" not in body and "=1+2" in body


def test_history_page_lists_every_hand_of_a_short_match(client, sitting):
    play(sitting, [0] * 9)
    page = client.get(url(sitting, "hands/")).content.decode()
    assert page.count('<tr><td class="num">') == 9
    assert page.count("Correct</a>") == 9 and "Older hands" not in page
    assert f'href="/s/{sitting.token}/hands.csv" download>Every hand (CSV)' in page  # the export sits with the hands
    assert "hands.csv" not in client.get(url(sitting)).content.decode()  # not on the table, sent on every tap
    table_page = client.get(url(sitting)).content.decode()
    assert table_page.count('<tr><td class="num">') == HANDS_ON_TABLE  # the match table keeps only the newest


# --- constant cost -------------------------------------------------------------


def fill(sitting, count):
    """`count` won hands written in bulk, totals kept in step."""
    seats = list(sitting.seats.order_by("position"))
    hands = []
    for number in range(1, count + 1):
        winner = number % len(seats)
        points = [1 if p == winner else 0 for p in range(len(seats))]
        hands.append(Hand(sitting=sitting, number=number, winner=seats[winner], dealer_position=0, points=points))
    Hand.objects.bulk_create(hands)
    for seat in seats:
        seat.total = seat.hands_won = sum(1 for h in hands if h.winner == seat)
    Seat.objects.bulk_update(seats, ["total", "hands_won"])
    assert sitting.check_totals() == []


def count_queries(callable_):
    with CaptureQueriesContext(connection) as captured:
        callable_()
    return len(captured)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_rendering_tapping_and_polling_cost_the_same_queries_at_50_and_500_hands(client, headers):
    counts = []
    for size in (5, 50, 500):
        sitting = Sitting.start("agram", WORKED)
        fill(sitting, size)
        render = count_queries(lambda: client.get(url(sitting), **headers))
        tap = count_queries(lambda: client.post(url(sitting, "tap/"), {"number": size + 1, "winner": 1}, **HX))
        sitting.refresh_from_db()
        poll = count_queries(lambda: client.get(url(sitting, "poll/"), {"v": sitting.version}, **HX))
        assert sitting.hands.count() == size + 1
        counts.append((render, tap, poll))
    assert counts[1] == counts[2], counts  # beyond the newest hands the table shows, the chart's hands
    assert all(small <= large for small, large in zip(counts[0], counts[1])), counts  # ...read apart
    render, tap, poll = counts[2]
    # The verb's transaction (lock, seats, newest hand, three writes), then the table read again in one
    # snapshot; transaction statements included.
    assert tap <= 14 and poll <= 2, counts


def test_check_totals_command_passes_then_names_a_seat_that_drifted(sitting):
    play(sitting, [2, 2])
    out = io.StringIO()
    call_command("check_totals", stdout=out)
    assert "All totals agree" in out.getvalue()
    sitting.seats.filter(position=2).update(total=7)
    with pytest.raises(CommandError, match="1 seat"):
        call_command("check_totals", stdout=out)
    assert "Chaibou: kept 7 points" in out.getvalue()


@pytest.mark.parametrize("origin, status", [("http://testserver", 302), ("https://elsewhere.example", 403)])
def test_plain_form_posts_pass_only_from_this_site(sitting, origin, status):
    """Pages send Referrer-Policy: same-origin, so browsers send this site's Origin on its form POSTs."""
    phone = Client(enforce_csrf_checks=True)
    assert phone.get(url(sitting))["Referrer-Policy"] == "same-origin"
    token = phone.cookies["csrftoken"].value
    response = phone.post(
        url(sitting, "tap/"),
        {"number": 1, "winner": 1, "csrfmiddlewaretoken": token},
        HTTP_ORIGIN=origin,
    )
    assert response.status_code == status
    assert sitting.hands.count() == (1 if status == 302 else 0)


# --- odd requests found by trying to break the app -----------------------------------


@pytest.mark.parametrize("action", ["add", "start"])
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_player_row_numbered_with_other_digits_is_ignored(client, action, headers):
    data = {**start_data(["A", "B", "C"], action=action), "player_²": "Zoé", "player_٣": "Yao"}
    response = client.post("/start/agram/", data, **headers)
    assert response.status_code in (200, 302, 400)


@pytest.mark.parametrize("action", ["remove-²", "remove-" + "9" * 5000, "remove-0", "remove-99", "remove-"])
def test_odd_remove_actions_leave_the_form_as_it_was(client, action):
    response = client.post("/start/agram/", start_data(["A", "B", "C"], action=action))
    assert response.status_code in (200, 400)
    assert Sitting.objects.count() == 0


@pytest.mark.parametrize("action", ["ADD", "add ", "launch"])
def test_an_unknown_action_starts_nothing(client, action):
    response = client.post("/start/agram/", start_data(["A", "B"], action=action))
    assert response.status_code == 400
    assert "That button is not on this form" in response.content.decode()
    assert Sitting.objects.count() == 0


@pytest.mark.parametrize("rows", [8, 200])
def test_too_many_rows_are_refused_not_cut(client, rows):
    response = client.post("/start/sink-sink/", start_data([f"P{i}" for i in range(rows)]))
    assert response.status_code == 400
    assert "Sink-Sink is for 2 to 7 players" in response.content.decode()
    assert Sitting.objects.count() == 0


def test_too_few_players_get_their_own_reason(client):
    response = client.post("/start/agram/", start_data(["Aïcha"]))
    assert "Agram needs at least 2 players: add a name." in response.content.decode()


@pytest.mark.parametrize("name", ["\u200b", "\u200b\u200b", "\x07", "\u202e", "\u2066\u2069"])
def test_invisible_names_are_refused(client, name):
    response = client.post("/start/agram/", start_data(["Aïcha", name]))
    assert response.status_code == 400 and "Type a name, or remove this row." in response.content.decode()


def test_control_characters_are_dropped_but_emoji_joiners_stay(client):
    client.post("/start/agram/", start_data(["A\x1b[31mB\u202e", "👨\u200d👩\u200d👧"]))
    assert [s.name for s in Sitting.objects.get().table().seats] == ["A[31mB", "👨\u200d👩\u200d👧"]


def test_a_very_long_name_gets_the_40_character_message(client):
    response = client.post("/start/agram/", start_data(["A", "b" * 5000]))
    assert "Keep names to 40 characters (this one has 5000)." in response.content.decode()


def test_a_leftover_number_does_not_block_an_open_match(client):
    response = client.post("/start/agram/", start_data(["A", "B"], end_kind="open", end_target="-1"))
    assert response.status_code == 302
    assert Sitting.objects.get().end_target is None


@pytest.mark.parametrize("token", ["a%00b", "%00", "x" * 5000, "%ff"])
def test_malformed_tokens_answer_404_without_touching_the_database(client, token):
    response = client.get(f"/s/{token}/")
    assert response.status_code == 404 and "No match at this link" in response.content.decode()


@pytest.mark.parametrize("method, path", [("put", "/start/agram/"), ("delete", "s/"), ("get", "/demo/")])
def test_wrong_methods_get_a_message_not_a_blank_page(client, sitting, method, path):
    path = url(sitting) if path == "s/" else path
    response = getattr(client, method)(path)
    assert response.status_code == 405
    assert "does not take that kind of request" in response.content.decode()


def test_head_requests_work_on_pages(client, sitting):
    assert client.head(url(sitting)).status_code == 200
    assert client.head(url(sitting, "hands.csv")).status_code == 200


def test_a_plain_tap_shows_its_notice_after_the_redirect(client, sitting):
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, follow=True)
    assert "Hand 1 recorded: Chaibou." in shown(response.content.decode())


def test_two_phones_tapping_rematch_get_the_same_new_sitting(client, sitting):
    sitting.end_match()
    first = client.post(url(sitting, "rematch/"))["Location"]
    second = Client().post(url(sitting, "rematch/"))["Location"]
    assert first == second
    assert Sitting.objects.count() == 2
    assert "Go to the rematch" in client.get(url(sitting)).content.decode()


# --- the history, a page at a time ----------------------------------------------------------------


def test_the_history_shows_a_page_of_hands_newest_first_and_reaches_any_hand(client, sitting):
    from matches.web.views.table import HISTORY_PAGE as size

    last = 2 * size + 5
    fill(sitting, last)
    numbers = re.compile(r'<tr><td class="num">(\d+)</td>')
    first = client.get(url(sitting, "hands/")).content.decode()
    assert [int(n) for n in numbers.findall(first)] == list(range(last, last - size, -1))
    assert f'href="?from={last - size}"' in first and "Newer hands" not in first  # older ones a tap away
    page = client.get(url(sitting, "hands/"), {"from": 3}).content.decode()
    assert [int(n) for n in numbers.findall(page)] == [5, 4, 3, 2, 1]  # the oldest page, holding hand 3
    assert f'href="?from={5 + size}"' in page and "Older hands" not in page
    assert f'href="/s/{sitting.token}/hands/3/"' in page  # its correction
    middle = client.get(url(sitting, "hands/"), {"from": size + 4}).content.decode()
    assert [int(n) for n in numbers.findall(middle)] == list(range(size + 5, 5, -1))
    assert f'href="?from={last}"' in middle and 'href="?from=5"' in middle


def test_paging_the_history_back_and_forth_lands_on_the_same_pages(client, sitting):
    fill(sitting, 27)
    links = re.compile(r'href="\?from=(\d+)">(Newer|Older) hands<')
    numbers = re.compile(r'<tr><td class="num">(\d+)</td>')
    page, visited = None, []
    for step in ["Older", "Older", "Newer", "Newer"]:
        body = client.get(url(sitting, "hands/"), {"from": page} if page else {}).content.decode()
        shown = [int(n) for n in numbers.findall(body)]
        visited.append((shown[0], shown[-1]))
        page = dict((word, number) for number, word in links.findall(body))[step]
    body = client.get(url(sitting, "hands/"), {"from": page}).content.decode()
    visited.append((int(numbers.findall(body)[0]), int(numbers.findall(body)[-1])))
    assert visited == [(27, 18), (17, 8), (7, 1), (17, 8), (27, 18)]


@pytest.mark.parametrize("asked, first", [("00000000012", 17), ("٣", 7), ("0012", 17)])
def test_a_hand_number_with_leading_zeros_or_other_digits_finds_its_page(client, sitting, asked, first):
    fill(sitting, 27)
    body = client.get(url(sitting, "hands/"), {"from": asked})
    assert body.status_code == 200
    assert re.findall(r'<tr><td class="num">(\d+)</td>', body.content.decode())[0] == str(first)


@pytest.mark.parametrize("asked", ["0", "999", "abc", "-3", "1e9", "9" * 40, "²", "12\x00"])
def test_asking_the_history_for_a_hand_that_is_not_there_says_which_numbers_are(client, sitting, asked):
    fill(sitting, 12)
    response = client.get(url(sitting, "hands/"), {"from": asked})
    assert response.status_code == 400
    body = shown(response.content.decode())
    assert "type a hand number from 1 to 12" in body and body.count('<tr><td class="num">') == 10  # the newest page
    assert "\x00" not in response.content.decode()


def test_the_history_costs_the_same_queries_rows_and_bytes_at_10_and_5000_hands(client):
    from matches.web.views.table import HISTORY_PAGE

    counts, sizes, lengths = [], [], []
    for size in (10, 5000):
        sitting = Sitting.start("agram", WORKED)
        fill(sitting, size)
        with CaptureQueriesContext(connection) as captured:
            body = client.get(url(sitting, "hands/")).content
        counts.append(len(captured))
        sizes.append(body.count(b'<tr><td class="num">'))
        lengths.append(len(body))
    assert counts[0] == counts[1] and sizes == [HISTORY_PAGE, HISTORY_PAGE]
    assert lengths[1] <= 1.2 * lengths[0]  # the same rows, longer numbers and the links to other pages


def test_reloading_the_table_this_phone_has_first_sends_no_new_session_cookie(client, sitting):
    first = client.get(url(sitting))
    assert "sessionid" in first.cookies  # the phone's id and its list of matches
    again = client.get(url(sitting))
    assert "sessionid" not in again.cookies and again.status_code == 200
    other = Sitting.start("agram", ["X", "Y"])
    assert "sessionid" in client.get(url(other)).cookies  # a new first match: the list changes
    assert client.session["sittings"][:2] == [other.token, sitting.token]


def test_a_plain_tap_posted_again_before_its_answer_shows_its_notice_once(client, sitting):
    for _ in range(3):  # no JavaScript, a slow network: the same form posted three times
        assert client.post(url(sitting, "tap/"), {"number": 1, "winner": 2}).status_code == 302
    page = shown(client.get(url(sitting)).content.decode())
    assert page.count("Hand 1 recorded: Boubacar.") == 1
    assert sitting.hands.count() == 1


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["tap/", "undo/", "end/", "chips/"])
def test_an_action_asked_by_a_method_no_page_sends_is_not_allowed_and_changes_nothing(client, sitting, method, path):
    play(sitting, [0])
    before = snapshot(sitting)
    answer = client.generic(method, url(sitting, path), "number=1&winner=2", "application/x-www-form-urlencoded")
    assert answer.status_code == 405 and "POST" in answer["Allow"]
    assert snapshot(sitting) == before


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


@pytest.mark.parametrize("path", ["/start/agram/", "end/", "hands/1/", "group/", "/groups/new/", "/groups/import/"])
def test_a_head_request_on_a_page_that_takes_a_form_answers_as_a_get_and_changes_nothing(client, sitting, path):
    play(sitting, [0])
    before = snapshot(sitting)
    address = path if path.startswith("/") else url(sitting, path)
    assert client.head(address).status_code == client.get(address).status_code == 200
    assert snapshot(sitting) == before


def test_an_undone_hand_is_gone_from_every_list_once_the_match_is_ended(client, sitting):
    play(sitting, [0, 1, 2])
    assert client.post(url(sitting, "undo/"), {"number": 3}, **HX).status_code == 200
    assert client.post(url(sitting, "end/"), {"number": 3}, **HX).status_code == 200
    pages = [client.get(url(sitting, path)).content.decode() for path in ("", "hands/")]
    body = b"".join(client.get(url(sitting, "hands.csv")).streaming_content).decode("utf-8-sig")
    for text in (*pages, body):
        assert "abandoned" not in text
    assert [row.split(",")[0] for row in body.splitlines()[1:]] == ["1", "2", ""]  # two hands, then the nets
    assert "Ended after hand 2." in pages[0]  # not "hand 3 was not played": it was undone
