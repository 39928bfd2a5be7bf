"""The start form: blank rows ignored, each game's player range on the form, Add stopping at the game's
maximum (with the reason), and one number field per match end, each with its own default."""

import re
from html.parser import HTMLParser

import pytest
from django.utils import translation

from matches.models import Sitting
from matches.domain.rules import GAMES, MatchEndKind, RuleError
from matches.web.texts import rule_message

HX = {"HTTP_HX_REQUEST": "true"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9"}
NUMBER_FIELDS = {"points": "end_target_points", "hands": "end_target_hands", "wins": "end_target_wins"}


class Inputs(HTMLParser):
    """The page's <input> elements (name -> value, in page order) and its buttons' (name, value) pairs."""

    def __init__(self, page: str):
        super().__init__()
        self.values: dict[str, str] = {}
        self.buttons: list[tuple[str, str]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "input" and attributes.get("type") != "radio":
            self.values[attributes.get("name") or ""] = attributes.get("value") or ""
        if tag == "button":
            self.buttons.append((attributes.get("name") or "", attributes.get("value") or ""))


def player_rows(page: str) -> int:
    return sum(1 for name in Inputs(page).values if name.startswith("player_"))


def form_data(page: str, **changes) -> dict:
    """What a browser would post from this page's form (no radio chosen unless given), with changes."""
    data = {name: value for name, value in Inputs(page).values.items() if name}
    data.update(changes)
    return data


def start_data(names, **extra) -> dict:
    data = {"action": "start", "end_kind": "open"}
    data.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    data.update(extra)
    return data


# --- A: no busywork before the first hand --------------------------------------------


@pytest.mark.django_db
def test_blank_rows_are_ignored_and_the_names_keep_their_order(client):
    response = client.post("/start/agram/", start_data(["", "Aïcha", "  ", "Chaibou", ""]))
    assert response.status_code == 302, response.content.decode()
    assert [seat.name for seat in Sitting.objects.get().table().seats] == ["Aïcha", "Chaibou"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game, names, message",
    [
        ("agram", ["Aïcha", "", "", ""], "Agram needs at least 2 players: add a name."),
        ("cat-te", ["Aïcha", "", " ", ""], "Cat Tê needs at least 3 players: add 2 names."),
        ("letzter-stich", ["", "", "", ""], "Letzter Stich needs at least 3 players: add 3 names."),
    ],
)
def test_too_few_names_get_one_message_naming_the_minimum(client, game, names, message):
    page = client.get(f"/start/{game}/").content.decode()
    typed = {f"player_{row}": name for row, name in enumerate(names, start=1)}
    data = form_data(page, action="start", end_kind=GAMES[game].match_ends[0].value, **typed)
    response = client.post(f"/start/{game}/", data)
    page = response.content.decode()
    assert response.status_code == 400 and Sitting.objects.count() == 0
    assert page.count(message) == 1 and "Type a name" not in page
    players = page[page.index("Players, in seating order") : page.index("</fieldset>")]
    assert message in players  # said with the names, not far below them above Start


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_each_games_player_range_is_on_the_form_before_anyone_types(client, game):
    page = client.get(f"/start/{game.slug}/").content.decode()
    assert f"{game.name}: {game.min_players} to {game.max_players} players" in page


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_add_stops_at_the_games_maximum_and_says_why_in_its_place(client, headers, game):
    page = client.get(f"/start/{game.slug}/").content.decode()
    while ("action", "add") in Inputs(page).buttons:
        rows = player_rows(page)
        page = client.post(f"/start/{game.slug}/", form_data(page, action="add"), **headers).content.decode()
        assert player_rows(page) == rows + 1
    assert player_rows(page) == game.max_players
    assert f"{game.name} is played by at most {game.max_players}" in page
    again = client.post(f"/start/{game.slug}/", form_data(page, action="add"), **headers).content.decode()
    assert player_rows(again) == game.max_players and ("action", "add") not in Inputs(again).buttons


def test_the_reason_for_the_maximum_is_the_packs_when_there_is_one(client, db):
    page = client.post("/start/agram/", start_data(["A", "B", "C", "D", "E"], action="add")).content.decode()
    assert "Agram is played by at most 5 players: six players of six cards each need 36, the pack has 35." in page
    sipa = client.post("/start/sipa/", start_data(list("ABCDE"), action="add")).content.decode()
    assert "Sipa is played by at most 5 players." in sipa


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_the_rows_shown_never_exceed_the_games_maximum(client, game):
    assert player_rows(client.get(f"/start/{game.slug}/").content.decode()) <= game.max_players
    posted = start_data(["A", "A"] + [""] * 12, end_kind=game.match_ends[0].value)  # a refusal: same name twice
    page = client.post(f"/start/{game.slug}/", posted).content.decode()
    assert "is already at the table" in page and player_rows(page) == game.max_players


@pytest.mark.django_db
def test_the_range_and_the_maximum_are_said_in_french(client):
    page = client.get("/start/agram/", **FR).content.decode()
    assert "Agram\u00a0: de 2 à 5 joueurs" in page
    full = client.post("/start/agram/", start_data(list("ABCDE"), action="add"), **FR).content.decode()
    assert "Agram se joue à 5 joueurs au plus\u00a0: six joueurs à six cartes chacun en demandent 36" in full


# --- C: a default belongs to its own match end -------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game, defaults",
    [
        ("letzter-stich", {"points": "500", "hands": "12"}),
        ("agram", {"wins": "5", "hands": "10"}),
        ("sink-sink", {"wins": "5", "hands": "10"}),
        ("fapfap", {"points": "10", "hands": "10"}),
        ("sipa", {"points": "10"}),
        ("cat-te", {"hands": "12"}),
        ("eighty-three", {}),
    ],
)
def test_each_match_end_that_takes_a_number_has_its_own_labelled_field_and_default(client, game, defaults):
    page = client.get(f"/start/{game}/").content.decode()
    values = Inputs(page).values
    shown = {kind: values[field] for kind, field in NUMBER_FIELDS.items() if field in values}
    assert shown == defaults
    for kind in defaults:
        assert f'for="id_{NUMBER_FIELDS[kind]}"' in page
    assert 'name="end_target"' not in page


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_switching_letzter_stich_to_after_n_hands_does_not_keep_500(client, headers):
    page = client.get("/start/letzter-stich/").content.decode()
    data = form_data(page, action="start", end_kind="hands", player_1="A", player_2="B", player_3="C", player_4="D")
    response = client.post("/start/letzter-stich/", data, **headers)
    assert response.status_code == 302 or response.has_header("HX-Redirect"), response.content.decode()
    assert Sitting.objects.get().match_end.kind is MatchEndKind.HANDS
    assert Sitting.objects.get().end_target == 12


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game, chosen, fields, target",
    [
        ("letzter-stich", "points", {"end_target_points": "300", "end_target_hands": "999"}, 300),
        ("letzter-stich", "hands", {"end_target_points": "300", "end_target_hands": "9"}, 9),
        ("agram", "wins", {"end_target_wins": "3", "end_target_hands": "lots"}, 3),
        ("agram", "hands", {"end_target_wins": "-1", "end_target_hands": "7"}, 7),
        ("agram", "open", {"end_target_wins": "x", "end_target_hands": "0.5"}, None),
    ],
)
def test_the_server_applies_only_the_chosen_match_ends_number(client, game, chosen, fields, target):
    response = client.post(f"/start/{game}/", start_data(["A", "B", "C"], end_kind=chosen, **fields))
    assert response.status_code == 302, response.content.decode()
    assert Sitting.objects.get().end_target == target


@pytest.mark.django_db
def test_a_number_left_in_another_match_ends_field_does_not_stand_in_for_an_empty_one(client):
    data = start_data(["A", "B", "C"], end_kind="hands", end_target_points="500", end_target_hands="")
    response = client.post("/start/letzter-stich/", data)
    assert response.status_code == 400 and Sitting.objects.count() == 0
    assert "Type N, the number this match ends at." in response.content.decode()


@pytest.mark.django_db
def test_the_old_single_number_field_still_counts_for_the_chosen_match_end(client):
    response = client.post("/start/letzter-stich/", start_data(["A", "B", "C"], end_kind="hands", end_target="6"))
    assert response.status_code == 302
    assert Sitting.objects.get().end_target == 6


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_letzter_stich_hands_default_follows_the_rows_unless_typed(client, headers):
    page = client.get("/start/letzter-stich/").content.decode()
    added = client.post("/start/letzter-stich/", form_data(page, action="add"), **headers).content.decode()
    assert Inputs(added).values["end_target_hands"] == "15" and Inputs(added).values["end_target_points"] == "500"
    removed = client.post("/start/letzter-stich/", form_data(added, action="remove-1"), **headers).content.decode()
    assert Inputs(removed).values["end_target_hands"] == "12"
    typed = form_data(removed, action="add", end_target_hands="20", end_target_points="400")
    kept = client.post("/start/letzter-stich/", typed, **headers).content.decode()
    assert Inputs(kept).values["end_target_hands"] == "20" and Inputs(kept).values["end_target_points"] == "400"


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_every_match_end_that_takes_a_number_has_a_default_in_range(game):
    for kind in game.match_ends:
        for seats in range(game.min_players, game.max_players + 1):
            target = game.target_for(kind, seats)
            if kind in (MatchEndKind.OPEN, MatchEndKind.THRESHOLDS):
                assert target is None
            else:
                assert target is not None and 1 <= target <= 10_000


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_letzter_stich_hands_default_lets_everyone_deal_equally_often(seats):
    target = GAMES["letzter-stich"].target_for(MatchEndKind.HANDS, seats)
    assert target % seats == 0 and target == 3 * seats


# In a phone's browser (the chosen match end's number alone on screen, axe): tests/browser/test_start_form.py;
# the form posted without JavaScript: tests/web/test_without_javascript.py.


@pytest.mark.django_db
def test_the_start_form_offers_the_match_this_phone_is_still_playing(client):
    """A phone that goes back from its table lands on the start form: it says a match is being played
    and leads back to it, rather than inviting a second one. A finished match is not offered."""
    assert "Match in progress" not in client.get("/start/agram/").content.decode()
    started = client.post(
        "/start/fapfap/", {"action": "start", "end_kind": "open", "player_1": "Ana", "player_2": "Ben"}
    )
    table = started["Location"]
    page = client.get("/start/agram/").content.decode()
    assert "Match in progress on this phone: Fapfap." in page
    assert f'href="{table}"' in page
    Sitting.objects.get(token=table.split("/")[2]).end_match()
    assert "Match in progress" not in client.get("/start/agram/").content.decode()


@pytest.mark.django_db
def test_a_bound_in_a_form_message_is_written_as_the_language_groups_numbers(client):
    from django.utils import translation

    from matches.web.presenters.numbers import grouped

    data = {"action": "start", "end_kind": "hands", "end_target": "99999999999", "player_1": "A", "player_2": "B"}
    page = client.post("/start/agram/", data, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    with translation.override("fr"):
        ten_thousand = grouped(10_000)
    assert ten_thousand != "10000" and f"Le nombre «\u00a0N\u00a0» doit être d’au plus {ten_thousand}." in page


@pytest.mark.django_db
@pytest.mark.parametrize("game", [slug for slug, g in GAMES.items() if MatchEndKind.HANDS in g.match_ends])
def test_a_match_of_n_hands_says_a_multiple_of_the_players_deals_evenly_where_the_deal_rotates(client, game):
    """Source: RULES.md, Letzter Stich ("ideally a multiple of the number of players, so everyone deals
    equally often"); where the winner deals next, no number of hands makes the deal even."""
    page = client.get(f"/start/{game}/").content.decode()
    said = "a multiple of the number of players lets everyone deal as often" in page
    assert said == (GAMES[game].next_dealer == "rotate")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, said",
    [
        ("vi", "Nội dung này có ký tự rỗng (null) không nhìn thấy: hãy gõ lại."),
        ("fr", "Ce texte contient un caractère nul invisible\u00a0: retapez-le."),
        ("en", "Null characters are not allowed."),
    ],
)
def test_a_name_holding_a_null_character_is_refused_in_the_phones_language_and_still_counts_as_typed(
    client, language, said
):
    answer = client.post("/start/fapfap/", {"player_1": "a\x00b", "player_2": "Bintou"}, HTTP_ACCEPT_LANGUAGE=language)
    page = answer.content.decode()
    assert answer.status_code == 400 and said in page
    assert not Sitting.objects.exists()
    with pytest.raises(RuleError) as one_name_only, translation.override(language):
        GAMES["fapfap"].check_player_count(1)
    with translation.override(language):
        assert rule_message(one_name_only.value) not in page  # two names were typed


LONG_NAME = "Marie-Éloïse de la Fontaine-Ndiaye Ouédraogo-Kaboré Diabaté"  # 59 characters


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/start/agram/", "/groups/new/"],
)
def test_no_name_field_cuts_what_is_typed_the_server_says_the_limit_instead(client, path):
    """A browser's maxlength cuts a pasted name without a word; the refusal says the limit and keeps it."""
    page = client.get(path).content.decode()
    assert "maxlength" not in page
    if path.startswith("/start/"):
        response = client.post(path, start_data([LONG_NAME, "Boubacar"]))
    else:
        response = client.post(path, {"name": "Jeudi", "players": f"{LONG_NAME}\nBoubacar"})
    answer = response.content.decode()
    assert response.status_code == 400 and Sitting.objects.count() == 0
    assert "Keep names to 40 characters (this one has 59)." in answer
    assert LONG_NAME in answer  # still typed, to be shortened


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_letzter_stich_match_of_hands_no_multiple_of_the_players_starts_with_a_note_saying_so(client, headers):
    """RULES.md says "ideally" a multiple: the match starts, and the table says what the count does."""
    names = {"player_1": "Ana", "player_2": "Ben", "player_3": "Cal", "player_4": "Dia"}
    data = {"action": "start", "end_kind": "hands", "end_target_hands": "10", **names}
    response = client.post("/start/letzter-stich/", data, **headers)
    table = response["Location"] if not headers else response["HX-Redirect"]
    page = client.get(table).content.decode()
    assert (
        "10 hands for 4 players: some players deal once more than the others. "
        "8 or 12 hands let everyone deal as often." in page
    )
    even = client.post("/start/letzter-stich/", {**data, "end_target_hands": "12"}, **headers)
    table = even["Location"] if not headers else even["HX-Redirect"]
    assert "deal once more" not in client.get(table).content.decode()


@pytest.mark.django_db
def test_a_group_match_of_hands_no_multiple_of_the_players_starts_with_the_same_note(client):
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Cal"])
    seats = [f"m{player.pk}" for player in group.members()]
    data = {"seat": seats, "action": "start", "end_kind": "hands", "end_target_hands": "2"}
    response = client.post(f"/g/{group.token}/new/letzter-stich/", data)
    assert response.status_code == 302, response.content.decode()
    page = client.get(response["Location"]).content.decode()
    assert "2 hands for 3 players: some players deal once more than the others. 3 hands let everyone deal as often." in page


def focused(page: str) -> list[str]:
    """The elements a page or a swapped form puts the focus on (autofocus): each start tag."""
    return re.findall(r"<[a-z]+\b[^>]*\bautofocus\b[^>]*>", page)


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
@pytest.mark.parametrize(
    "data, first",
    [
        (start_data(["Ana", "Ben", "ana"], end_kind="hands", end_target_hands="x"), 'name="player_3"'),
        (start_data(["Ana", "Ben"], end_kind="hands", end_target_hands="x"), 'name="end_target_hands"'),
        (start_data(["Ana"]), 'id="player-count-error"'),
    ],
    ids=["a name", "the number", "too few names"],
)
def test_a_refused_start_form_takes_the_phone_to_its_first_error(client, headers, data, first):
    """The form is long on a phone: the first error, beside what it is about, gets the focus (autofocus:
    the browser loading the page and htmx swapping the form both move to it and scroll it into view)."""
    response = client.post("/start/agram/", data, **headers)
    assert response.status_code == 400
    [element] = focused(response.content.decode())
    assert first in element
    assert "input" in element or 'tabindex="-1"' in element  # a message takes the focus only when it can


@pytest.mark.django_db
def test_a_start_form_shown_or_rearranged_takes_no_focus(client):
    page = client.get("/start/agram/").content.decode()
    added = client.post("/start/agram/", form_data(page, action="add"), **HX).content.decode()
    assert focused(page) == focused(added) == []


@pytest.mark.django_db
def test_a_refused_group_start_takes_the_phone_to_its_message(client):
    """The group's form says why it did not start at its top, far above the Start button: it takes the focus."""
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben"])
    [ana] = [f"m{p.pk}" for p in group.members() if p.name == "Ana"]
    response = client.post(f"/g/{group.token}/new/agram/", {"seat": [ana], "action": "start", "end_kind": "open"}, **HX)
    assert response.status_code == 400
    [element] = focused(response.content.decode())
    assert 'class="notice error"' in element and 'tabindex="-1"' in element

