"""Starting a match from the start page: the list of games, a game's form (its help, its name rows, its
match ends), the match it starts, and what the form refuses, next to the field, writing nothing.
(Blank rows, each game's player range and the match ends' numbers: tests/web/test_start_form.py.)"""

import pytest

from matches.domain import rules
from matches.models import Group, Sitting

from tests.conftest import shown
from tests.pages import HX, NAMES, start_data, url
from tests.web.test_start_form import form_data

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


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


@pytest.mark.parametrize("language", ["en", "fr", "de", "vi"])
def test_each_game_says_where_it_is_played_unless_its_name_says_it(client, language):
    group = Group.create("Vendredi", NAMES)
    for path in ("/start/", f"/g/{group.token}/new/"):
        page = shown(client.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode())
        assert page.count("(Niger)") == 2 and "Mali</strong>" in page and "(Mali)" not in page, path


def test_a_games_start_form_shows_its_help_and_four_name_rows(client):
    page = client.get("/start/agram/").content.decode()
    assert page.count('name="player_') == 4
    assert "How to play Agram" in page and "Kings, Queens, Jacks, Twos and the Ace of Spades" in page


def test_the_separator_before_another_game_stays_on_its_line(client):
    """A line break may fall before the "·", never between it and the link it introduces."""
    page = client.get("/start/agram/").content.decode()
    assert '·&nbsp;<a href="/start/">' in page


def test_unknown_game_start_answers_404_with_a_message(client):
    response = client.get("/start/poker/")
    assert response.status_code == 404 and "no such game" in response.content.decode()


def test_start_page_htmx_gets_the_form_partial(client):
    response = client.get("/start/agram/", **HX)
    assert response.content.lstrip().startswith(b'<form id="start-form"')
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("slug", [slug for slug, game in rules.GAMES.items() if len(game.match_ends) == 1])
def test_a_single_match_end_is_plain_text_with_a_hidden_choice(client, slug):
    game = rules.GAMES[slug]
    page = client.get(f"/start/{slug}/").content.decode()
    assert 'type="radio"' not in page
    kind = game.match_ends[0].value
    assert f'<input type="hidden" name="end_kind" value="{kind}">' in page
    names = {f"player_{row}": name for row, name in enumerate(NAMES[: game.min_players], start=1)}
    response = client.post(f"/start/{slug}/", form_data(page, action="start", **names))  # the page's own choice
    assert response.status_code == 302 and Sitting.objects.get().end_kind == kind


def test_several_match_ends_stay_radio_buttons(client):
    page = client.get("/start/agram/").content.decode()
    assert page.count('type="radio" name="end_kind"') == len(rules.GAMES["agram"].match_ends)
    assert 'type="hidden" name="end_kind"' not in page


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_add_and_remove_player_rows_keep_what_was_typed(client, headers):
    added = client.post("/start/agram/", start_data(["A", "B"], action="add"), **headers).content.decode()
    assert added.count('name="player_') == 3 and 'value="A"' in added and 'value="B"' in added
    removed = client.post("/start/agram/", start_data(["A", "B", "C"], action="remove-2"), **headers).content.decode()
    assert removed.count('name="player_') == 2
    assert 'name="player_1" id="id_player_1" value="A"' in removed
    assert 'name="player_2" id="id_player_2" value="C"' in removed
    assert Sitting.objects.count() == 0


# --- starting -------------------------------------------------------------------------------------


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


def test_a_name_of_exactly_40_characters_is_accepted(client):
    client.post("/start/agram/", start_data(["é" * 40, "B"]))
    assert Sitting.objects.get().table().seats[0].name == "é" * 40


def test_control_characters_are_dropped_but_emoji_joiners_stay(client):
    client.post("/start/agram/", start_data(["A\x1b[31mB\u202e", "👨\u200d👩\u200d👧"]))
    assert [s.name for s in Sitting.objects.get().table().seats] == ["A[31mB", "👨\u200d👩\u200d👧"]


def test_a_leftover_number_does_not_block_an_open_match(client):
    response = client.post("/start/agram/", start_data(["A", "B"], end_kind="open", end_target="-1"))
    assert response.status_code == 302
    assert Sitting.objects.get().end_target is None


# --- refused --------------------------------------------------------------------------------------


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
            "Agram is for 2 to 5 players: six players of six cards each need 36, the pack has 35.",
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
        ("fapfap", ["A", "B"], {"stake_amount": "-100", "stake_label": "FCFA"}, "Type the amount in figures only, like 100."),
        ("fapfap", ["A", "B"], {"stake_amount": "100", "stake_label": "F" * 13}, "Keep the currency to 12"),
        ("cat-te", ["A", "B", "C"], {"stake_amount": "1" + "0" * 40}, "Type an amount from 1 to 10"),  # not "like 100"
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


@pytest.mark.parametrize("rows", [8, 200])
def test_too_many_rows_are_refused_not_cut(client, rows):
    response = client.post("/start/sink-sink/", start_data([f"P{i}" for i in range(rows)]))
    assert response.status_code == 400
    assert "Sink-Sink is for 2 to 7 players" in response.content.decode()
    assert Sitting.objects.count() == 0


@pytest.mark.parametrize("name", ["\u200b", "\u200b\u200b", "\x07", "\u202e", "\u2066\u2069"])
def test_invisible_names_are_refused(client, name):
    response = client.post("/start/agram/", start_data(["Aïcha", name]))
    assert response.status_code == 400 and "Type a name, or remove this row." in response.content.decode()


def test_a_very_long_name_gets_the_40_character_message(client):
    response = client.post("/start/agram/", start_data(["A", "b" * 5000]))
    assert "Keep names to 40 characters (this one has 5000)." in response.content.decode()


@pytest.mark.parametrize("action", ["ADD", "add ", "launch"])
def test_an_unknown_action_starts_nothing(client, action):
    response = client.post("/start/agram/", start_data(["A", "B"], action=action))
    assert response.status_code == 400
    assert "That button is not on this form" in response.content.decode()
    assert Sitting.objects.count() == 0


@pytest.mark.parametrize("action", ["remove-²", "remove-" + "9" * 5000, "remove-0", "remove-99", "remove-"])
def test_odd_remove_actions_leave_the_form_as_it_was(client, action):
    response = client.post("/start/agram/", start_data(["A", "B", "C"], action=action))
    assert response.status_code in (200, 400)
    assert Sitting.objects.count() == 0


@pytest.mark.parametrize("action", ["add", "start"])
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_player_row_numbered_with_other_digits_is_ignored(client, action, headers):
    data = {**start_data(["A", "B", "C"], action=action), "player_²": "Zoé", "player_٣": "Yao"}
    response = client.post("/start/agram/", data, **headers)
    assert response.status_code in (200, 302, 400)
