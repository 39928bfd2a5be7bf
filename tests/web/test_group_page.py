"""A group's pages: its page (plain, or its region for htmx) with its matches newest first, its name in
the top bar and links to its figures and files by the link it was opened with; its players (a newcomer
added, a player renamed, taken off the group while their matches stay, brought back or erased after a
question); its read-only watch twin; a new group from the home page; the header link from a match to
its group; every group screen in French. A bad change answers 4xx with its reason and changes nothing."""

import html
import re

import pytest

from matches.models import Group, Player, Sitting

from tests.conftest import WORKED, shown
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import finished, ids, members, post_form, state
from tests.pages import FR, HX, g, is_full_page, words
from tests.web.test_i18n import ENGLISH, visible_text

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
TOP_BAR = re.compile(r'<header class="bar">.*?class="brand">Last Trick</a>(.*?)<form', re.DOTALL)


def test_group_page_plain_is_the_whole_page_and_htmx_its_region_both_with_vary(client, group):
    sitting = group.start_match("agram", [ids(group)["Djibo"], ids(group)["Aïcha"]])
    sitting.record_hand(1, 1)
    page = client.get(g(group))
    assert page.status_code == 200 and is_full_page(page) and "HX-Request" in page["Vary"]
    body = page.content.decode()
    assert "<h1><bdi>Vendredi</bdi></h1>" in body
    for name in WORKED:
        assert f'<span class="name">{name}</span>' in body
    assert f'href="/s/{sitting.token}/"' in body and "Aïcha 1 · Djibo 0" in shown(body)  # standings, best first
    assert page["Cache-Control"] == "private, no-cache, max-age=0, must-revalidate"  # no proxy keeps it
    assert f"/g/{group.token}/share/" in body and group.watch_token not in body  # the links come when opened
    assert group.watch_token in client.get(f"/g/{group.token}/share/", **HX).content.decode()
    region = client.get(g(group), **HX)
    assert region.status_code == 200 and not is_full_page(region) and "HX-Request" in region["Vary"]
    assert "no-store" in region["Cache-Control"]  # a region is never a page to keep
    assert region.content.lstrip().startswith(b'<section id="group"') and b"<svg" not in region.content


def test_group_matches_are_listed_newest_first_with_date_game_and_standings(client, group):
    people = [ids(group)["Aïcha"], ids(group)["Boubacar"]]
    older = group.start_match("agram", people)
    newer = group.start_match("fapfap", people)
    body = client.get(g(group)).content.decode()
    assert body.index(f"/s/{newer.token}/") < body.index(f"/s/{older.token}/")
    assert "Fapfap" in body and "Agram" in body and "in progress" in body


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_the_group_page_top_bar_shows_the_groups_name(client, headers):
    group = Group.create("Les Amis", ["Aïcha", "Boubacar"])
    bar = TOP_BAR.search(client.get(g(group), **headers).content.decode())[1]
    assert "<bdi>Les Amis</bdi>" in bar and words(bar) == "Les Amis"
    watching = TOP_BAR.search(client.get(f"/gw/{group.watch_token}/", **headers).content.decode())[1]
    assert "<bdi>Les Amis</bdi>" in watching
    assert words(watching) == ("Les Amis · spectateur" if headers else "Les Amis · watching")
    unnamed = Group.objects.create()  # a group made before names were asked for
    bar = TOP_BAR.search(client.get(g(unnamed), **headers).content.decode())[1]
    assert words(bar) == ("Votre groupe" if headers else "Your group")


def test_the_group_page_leads_to_the_figures_and_files_only_by_the_links_it_was_opened_with(client, group):
    body = client.get(g(group)).content.decode()
    for name in ("stats/", "hands.csv", "group.json"):
        assert f'href="{g(group, name)}"' in body
    watch = client.get(f"/gw/{group.watch_token}/").content.decode()
    assert f'href="/gw/{group.watch_token}/stats/"' in watch and "hands.csv" not in watch and "group.json" not in watch


def test_an_unknown_or_malformed_group_link_answers_404_with_a_message(client):
    for path in ("/g/not-a-real-token-at-all/", "/g/%3Cscript%3E/", "/gw/not-a-real-token-at-all/"):
        response = client.get(path)
        assert response.status_code == 404 and "No group at this link" in response.content.decode()


def test_the_group_link_include_for_the_table_header(group):
    """What `{% include "matches/_group_link.html" with place="header" %}` shows in the table's header."""
    from django.template.loader import render_to_string

    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    header = render_to_string("matches/_group_link.html", {"sitting": sitting, "place": "header"})
    assert f'href="{g(group)}"' in header and "><bdi>Vendredi</bdi></a>" in header
    alone = Sitting.start("agram", ["A", "B"])
    assert render_to_string("matches/_group_link.html", {"sitting": alone, "place": "header"}).strip() == ""


def test_new_group_from_home_with_a_name_and_players(client):
    assert client.get("/groups/new/").status_code == 200
    response = client.post("/groups/new/", {"name": "Vendredi", "players": "Aïcha\r\n\r\n  Boubacar \nChaibou"})
    group = Group.objects.get()
    assert response.status_code == 302 and response["Location"] == g(group)
    assert members(group) == ["Aïcha", "Boubacar", "Chaibou"]
    assert client.session["groups"] == [group.token]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "  ", "players": "Aïcha"}, "Type the group&#x27;s name."),
        ({"players": "Aïcha"}, "Type the group&#x27;s name."),
        ({"name": "x" * 41}, "Keep the group&#x27;s name to 40 characters."),
        ({"name": "V", "players": "Aïcha\naïcha"}, "Aïcha is on the list twice: type each player once."),
        ({"name": "V", "players": "x" * 41}, "Keep names to 40 characters (this one has 41)."),
        ({"name": "V", "players": "\n".join(f"P{n}" for n in range(31))}, "at most 30 names"),
    ],
)
def test_a_bad_new_group_answers_400_with_the_reason_and_makes_nothing(client, data, message):
    response = client.post("/groups/new/", data)
    assert response.status_code == 400 and message in shown(response.content.decode())
    assert Group.objects.count() == 0 and Player.objects.count() == 0


def test_group_screens_come_in_french(client, group):
    sitting = group.start_match("fapfap", [ids(group)["Aïcha"], ids(group)["Djibo"]], stake_amount=100)
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.end_match()
    group.remove_player(ids(group)["Chaibou"])
    unsaved = finished()
    client.get(g(group), **FR)
    pages = [
        g(group),
        g(group, "new/"),
        g(group, "new/fapfap/"),
        g(group, "new/cat-te/"),
        g(group, f"players/{ids(group)['Aïcha']}/"),
        g(group, f"players/{ids(group)['Aïcha']}/erase/"),
        f"/gw/{group.watch_token}/",
        "/groups/new/",
        "/",
        f"/s/{unsaved.token}/group/",
    ]
    for path in pages:
        text = visible_text(client.get(path, **FR).content.decode())
        assert not ENGLISH.findall(text), (path, ENGLISH.findall(text), text[:3000])
    assert "Retour au groupe\u00a0: Vendredi" in shown(client.get(sitting.get_absolute_url(), **FR).content.decode())
    assert "Enregistrer dans un groupe" in client.get(unsaved.get_absolute_url(), **FR).content.decode()
    refused = shown(client.post(g(group, "players/"), {"name": "djibo"}, **FR).content.decode())
    assert "Djibo est déjà dans ce groupe." in refused
    started = post_form(client, group, [f"m{ids(group)['Aïcha']}"], "start", FR)
    assert "Agram demande au moins 2 joueurs\u00a0:" in started.content.decode()


# --- players --------------------------------------------------------------------------------------


def test_add_player_plain_redirects_and_htmx_answers_the_players_region(client, group):
    plain = client.post(g(group, "players/"), {"name": "Ousmane"})
    assert plain.status_code == 302 and plain["Location"] == g(group) and "HX-Request" in plain["Vary"]
    assert "Ousmane is in the group." in shown(client.get(g(group)).content.decode())  # the message followed
    htmx = client.post(g(group, "players/"), {"name": "Zeinab"}, **HX)
    body = shown(htmx.content.decode())
    assert htmx.status_code == 200 and not is_full_page(htmx) and "HX-Request" in htmx["Vary"]
    assert body.lstrip().startswith('<div id="members"') and "Zeinab is in the group." in body
    assert members(group) == ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Ousmane", "Zeinab"]


@pytest.mark.parametrize(
    "name, message",
    [
        ("", "Type the player&#x27;s name."),
        ("\u200b ", "Type the player&#x27;s name."),
        ("DJIBO", "Djibo is in this group already."),
        ("x" * 41, "Keep names to 40 characters (this one has 41)."),
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_bad_new_player_answers_400_with_the_reason_and_changes_nothing(client, group, name, message, headers):
    before = state(group)
    response = client.post(g(group, "players/"), {"name": name}, **headers)
    page = shown(response.content.decode())
    assert response.status_code == 400 and message in page
    assert is_full_page(response) != bool(headers)
    assert state(group) == before
    # Said under the box (a group's list of players can be long), and read with it by a screen reader.
    box, said = page.index('id="new-player"'), page.index(f'id="new-player-error" role="status">{message}')
    assert box < said < page.index("</form>", box) and 'aria-describedby="new-player-error"' in page[box:said]


def test_the_player_page_renames_removes_brings_back_and_erases(client, group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    sitting.record_hand(1, 1)
    djibo = ids(group)["Djibo"]
    page = shown(client.get(g(group, f"players/{djibo}/")).content.decode())
    assert "Rename" in page and "Take Djibo off the group" in page and "Erase Djibo…" in page

    renamed = client.post(g(group, f"players/{djibo}/rename/"), {"name": "Djibo Hama"})
    assert renamed.status_code == 302 and renamed["Location"] == g(group)
    assert "Djibo is now Djibo Hama, in every match too." in shown(client.get(g(group)).content.decode())
    assert "Djibo Hama" in client.get(sitting.get_absolute_url()).content.decode()

    removed = client.post(g(group, f"players/{djibo}/remove/"))
    assert removed.status_code == 302 and "Djibo Hama" not in members(group)
    body = client.get(g(group)).content.decode()
    assert "their matches stay" in body and "1 former player" in body and "Bring back" in body
    client.post(g(group, "players/"), {"name": "Djibo Hama"})  # the former players' Bring back button
    assert "Djibo Hama" in members(group) and ids(group)["Djibo Hama"] == djibo

    confirm = client.get(g(group, f"players/{djibo}/erase/"))
    assert confirm.status_code == 200 and "Yes, erase Djibo Hama" in shown(confirm.content.decode())
    erased = client.post(g(group, f"players/{djibo}/erase/"), {"confirm": "erase"})
    assert erased.status_code == 302
    assert "every match now says Erased player 1" in shown(client.get(g(group)).content.decode())
    table = client.get(sitting.get_absolute_url()).content.decode()
    assert "Erased player 1" in table and "Djibo" not in table
    assert [s.total for s in sitting.table().seats] == [0, 1]


def test_the_player_page_lists_each_change_with_when_and_which_phone(client, group):
    djibo = ids(group)["Djibo"]
    client.post(g(group, f"players/{djibo}/rename/"), {"name": "Djibo"})  # the same name: nothing to list
    client.post(g(group, f"players/{djibo}/rename/"), {"name": "Djibo Hama"})
    group.remove_player(djibo, by="another")
    page = shown(client.get(g(group, f"players/{djibo}/")).content.decode())
    changes = [html.unescape(c) for c in re.findall(r"<li>(.*?)</li>", page.split("Changes to this player")[1])]
    assert len(changes) == 2
    assert changes[0].startswith("Taken off the group's list") and changes[0].endswith("on another phone.")
    assert changes[1].startswith("Renamed from Djibo to Djibo Hama, ") and changes[1].endswith("on this phone.")
    french = shown(client.get(g(group, f"players/{djibo}/"), **FR).content.decode())
    assert "Nom changé\u00a0: Djibo → Djibo Hama, le " in french and "sur ce téléphone." in french


def test_erasing_a_player_who_owes_says_what_stays_on_the_tab_first(client, group):
    players = [p.pk for p in group.members()]
    sitting = group.start_match("fapfap", players[:3], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "1"})  # the other two each owe the first 100
    owing, clear = players[1], players[3]
    asked = shown(client.get(g(group, f"players/{owing}/erase/")).content.decode())
    assert "Still open on the group’s tab:" in asked and "It stays there under the erased name" in asked
    assert "pays Aïcha 100\u00a0FCFA." in asked
    assert "Still open" not in shown(client.get(g(group, f"players/{clear}/erase/")).content.decode())


def test_erase_without_the_confirmation_changes_nothing(client, group):
    before = state(group)
    response = client.post(g(group, f"players/{ids(group)['Aïcha']}/erase/"))
    assert response.status_code == 400 and "Nothing was erased" in response.content.decode()
    assert state(group) == before


@pytest.mark.parametrize(
    "path, data, status, message",
    [
        ("players/{aicha}/rename/", {"name": ""}, 400, "Type the player&#x27;s name."),
        ("players/{aicha}/rename/", {"name": "boubacar"}, 400, "Boubacar is in this group already."),
        ("players/{aicha}/rename/", {"name": "x" * 41}, 400, "Keep names to 40 characters"),
        ("players/{other}/rename/", {"name": "Z"}, 404, "That player is not in this group."),
        ("players/{other}/remove/", {}, 404, "That player is not in this group."),
        ("players/{other}/erase/", {"confirm": "erase"}, 404, "That player is not in this group."),
        ("players/99999999999999999999999/remove/", {}, 404, "That player is not in this group."),
        ("players/99999999999999999999999/", None, 404, "That player is not in this group."),
        ("players/{other}/", None, 404, "That player is not in this group."),
    ],
)
def test_bad_player_changes_answer_4xx_and_change_nothing(client, group, path, data, status, message):
    other = Group.create("Other", ["Zeinab"]).players.get()
    path = path.format(aicha=ids(group)["Aïcha"], other=other.pk)
    before = state(group)
    response = client.get(g(group, path)) if data is None else client.post(g(group, path), data)
    assert response.status_code == status and message in shown(response.content.decode())
    assert state(group) == before and Player.objects.filter(name="Zeinab").exists()


def test_an_erased_players_page_is_gone(client, group):
    djibo = ids(group)["Djibo"]
    group.erase_player(djibo)
    for path in (f"players/{djibo}/", f"players/{djibo}/erase/"):
        assert client.get(g(group, path)).status_code == 404


def test_a_get_on_a_change_address_goes_back_to_the_group(client, group):
    before = state(group)
    for path in ("players/", f"players/{ids(group)['Aïcha']}/remove/", "links/"):
        response = client.get(g(group, path))
        assert response.status_code == 302 and response["Location"] == g(group)
    assert state(group) == before


# --- the watch view -------------------------------------------------------------------------------


def test_the_watch_view_shows_members_and_matches_by_their_watch_links_only(client, group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    response = client.get(f"/gw/{group.watch_token}/")
    body = response.content.decode()
    assert response.status_code == 200 and "private" in response["Cache-Control"]
    assert all(name in body for name in WORKED)
    assert f"/w/{sitting.watch_token}/" in body
    assert group.token not in body and sitting.token not in body
    assert "<form" not in body.split("</header>")[1] and "New match" not in body


def test_the_watch_view_refuses_every_post(client, group):
    """POST on the watch address: 405 with a message. Every change address with the watch token in
    place of the member token: 404 with a message. Nothing changes."""
    group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    aicha = ids(group)["Aïcha"]
    before = state(group)
    for headers in ({}, HX):
        refused = client.post(f"/gw/{group.watch_token}/", {"name": "Ousmane"}, **headers)
        assert refused.status_code == 405 and "does not take that kind of request" in refused.content.decode()
        for path, data in [
            ("", {}),
            ("players/", {"name": "Ousmane"}),
            (f"players/{aicha}/rename/", {"name": "X"}),
            (f"players/{aicha}/remove/", {}),
            (f"players/{aicha}/erase/", {"confirm": "erase"}),
            ("links/", {}),
            ("new/agram/", {"action": "start", "seat": [f"m{aicha}", "n:Ousmane"]}),
        ]:
            for prefix in ("g", "gw"):
                answer = client.post(f"/{prefix}/{group.watch_token}/{path}", data, **headers)
                assert answer.status_code in (404, 405), (prefix, path)
                assert answer.content.strip(), (prefix, path)
    assert state(group) == before
