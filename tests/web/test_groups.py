"""Groups: the table remembers its players across matches. The verbs of matches/models/groups.py,
then every group view for plain requests (no JavaScript) and htmx requests: refusals answer 4xx
with a message and change nothing, never a 500."""

import re
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from matches.domain.errors import BadInput, Conflict
from matches.models import Group, Player, Seat, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.web.refusals import refusal_text

from tests.conftest import WORKED, shown
from tests.web.test_i18n import ENGLISH, FR, visible_text

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
HX = {"HTTP_HX_REQUEST": "true"}
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters


@pytest.fixture
def group() -> Group:
    return Group.create("Vendredi", WORKED)


@contextmanager
def refused(kind: type, message: str):
    """The block raises `kind`, which the phone reads as a sentence that `message` (a regex) finds."""
    with pytest.raises(kind) as caught:
        yield caught
    assert re.search(message, str(refusal_text(caught.value))), refusal_text(caught.value)


def members(group: Group) -> list[str]:
    return [p.name for p in group.members()]


def ids(group: Group) -> dict[str, int]:
    return {p.name: p.pk for p in group.members()}


def state(group: Group) -> tuple:
    """Everything a refused request must leave unchanged."""
    group.refresh_from_db()
    return (
        group.token,
        group.watch_token,
        group.version,
        list(group.players.order_by("pk").values_list("name", "left", "erased")),
        list(group.sittings.order_by("pk").values_list("pk", flat=True)),
        Sitting.objects.count(),
        Player.objects.count(),
        Group.objects.count(),
        list(Seat.objects.order_by("pk").values_list("player_id", flat=True)),
    )


def g(group: Group, path: str = "") -> str:
    return f"/g/{group.token}/{path}"


def is_full_page(response) -> bool:
    return response.content.lstrip().startswith(b"<!doctype html>")


def finished(names=("Aïcha", "Boubacar", "Chaibou"), game="agram") -> Sitting:
    sitting = Sitting.start(game, list(names))
    sitting.record_hand(1, 1)
    sitting.end_match()
    return sitting


# --- the verbs -------------------------------------------------------------------------------


def test_create_keeps_the_name_and_the_players_who_are_its_members():
    group = Group.create("  Vendredi   soir ", ["Djibo", "aïcha", "Boubacar"])
    assert group.name == "Vendredi soir"
    assert members(group) == ["Boubacar", "Djibo", "aïcha"]
    assert len(group.token) >= 16 and group.token != group.watch_token


@pytest.mark.parametrize(
    "name, players, message",
    [
        ("x" * 41, [], "Keep the group's name to 40 characters."),
        ("Vendredi", ["Aïcha", "AÏCHA"], "<bdi>Aïcha</bdi> is on the list twice: type each player once."),
        ("Vendredi", ["Aïcha", " "], "Type the player's name."),
        ("Vendredi", ["Aïcha", "x" * 41], "Keep names to 40 characters (this one has 41)."),
    ],
)
def test_create_refuses_a_bad_name_and_makes_nothing(name, players, message):
    with refused(BadInput, re.escape(message)):
        Group.create(name, players)
    assert Group.objects.count() == 0 and Player.objects.count() == 0


def test_add_player_a_newcomer_joins_a_same_name_is_refused_a_former_player_comes_back(group):
    ousmane = group.add_player("Ousmane")
    assert "Ousmane" in members(group) and ousmane.group_id == group.pk
    with refused(BadInput, "<bdi>Ousmane</bdi> is in this group already"):
        group.add_player("ousmane")
    group.remove_player(ousmane.pk)
    back = group.add_player("OUSMANE")
    assert back.pk == ousmane.pk and "Ousmane" in members(group)


def test_every_change_bumps_the_groups_version(group):
    before = group.version
    group.add_player("Ousmane")
    group.rename_player(ids(group)["Ousmane"], "Ousmane B.")
    group.remove_player(ids(group)["Ousmane B."])
    group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    group.rotate_links()
    group.refresh_from_db()
    assert group.version == before + 5


def test_rename_shows_the_new_name_in_every_match_history_included(group, client):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Boubacar"]])
    sitting.record_hand(1, 0)
    group.rename_player(ids(group)["Aïcha"], "Aïcha Maïga")
    assert sitting.table().seats[0].name == "Aïcha Maïga"
    assert "Aïcha Maïga" in client.get(f"/s/{sitting.token}/hands/").content.decode()
    with refused(BadInput, "<bdi>Boubacar</bdi> is in this group already"):
        group.rename_player(ids(group)["Djibo"], "boubacar")
    group.rename_player(ids(group)["Djibo"], "DJIBO")  # its own name in other capitals is fine
    assert "DJIBO" in members(group)


def test_a_member_cannot_take_a_former_players_name_who_would_then_be_two(group):
    boubacar = ids(group)["Boubacar"]
    group.remove_player(boubacar)
    with refused(BadInput, "<bdi>Boubacar</bdi> played in this group before"):
        group.rename_player(ids(group)["Djibo"], "BOUBACAR")
    assert "Djibo" in members(group)
    assert group.add_player("boubacar").pk == boubacar  # a newcomer of that name is that player, back


def test_remove_takes_a_player_off_the_list_while_their_matches_stay(group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Boubacar"]])
    sitting.record_hand(1, 1)
    group.remove_player(ids(group)["Boubacar"])
    assert "Boubacar" not in members(group)
    assert [(s.name, s.total) for s in sitting.table().seats] == [("Aïcha", 0), ("Boubacar", 1)]
    assert group.sittings.count() == 1


def test_erase_replaces_the_name_everywhere_and_the_scores_stay(group):
    djibo = ids(group)["Djibo"]
    sitting = group.start_match("agram", [ids(group)["Aïcha"], djibo])
    sitting.record_hand(1, 1)
    erased = group.erase_player(djibo)
    assert erased.name == "Erased player 1"
    assert [(s.name, s.total) for s in sitting.table().seats] == [("Aïcha", 0), ("Erased player 1", 1)]
    assert "Djibo" not in members(group) and not Player.objects.filter(name="Djibo").exists()
    with pytest.raises(Conflict):
        group.erase_player(djibo)
    second = group.erase_player(ids(group)["Chaibou"])
    assert second.name == "Erased player 2"


def test_nobody_takes_the_name_an_erased_player_keeps(group):
    group.erase_player(ids(group)["Djibo"])
    for verb in (group.add_player, lambda name: group.rename_player(ids(group)["Aïcha"], name)):
        with refused(BadInput, "<bdi>Erased player 1</bdi> is the name an erased player keeps"):
            verb("erased PLAYER 1")
    assert sorted(members(group)) == ["Aïcha", "Boubacar", "Chaibou"]


def test_a_verb_on_a_player_of_another_group_is_refused(group):
    other = Group.create("Other", ["Zeinab"])
    zeinab = other.players.get()
    before = state(group)
    for verb in (group.rename_player, group.remove_player, group.erase_player):
        args = (zeinab.pk, "Z") if verb == group.rename_player else (zeinab.pk,)
        with refused(Conflict, "That player is not in this group."):
            verb(*args)
    assert state(group) == before and other.players.get().name == "Zeinab"


def test_start_match_seats_members_in_order_and_a_newcomer_joins(group):
    sitting = group.start_match("agram", [ids(group)["Djibo"], "Ousmane", ids(group)["Aïcha"]])
    assert [s.name for s in sitting.table().seats] == ["Djibo", "Ousmane", "Aïcha"]
    assert sitting.group_id == group.pk and "Ousmane" in members(group)
    assert all(s.player.group_id == group.pk for s in sitting.seats.select_related("player"))


@pytest.mark.parametrize(
    "seating, message",
    [
        (lambda i: [i["Aïcha"], 10**6], "Someone picked is no longer in this group"),
        (lambda i: [i["Aïcha"], i["Aïcha"]], "<bdi>Aïcha</bdi> is picked twice"),
        (lambda i: [i["Aïcha"], "aïcha"], "<bdi>Aïcha</bdi> is in this group already"),
        (lambda i: ["Ousmane"], "Agram needs at least 2 players"),
        (lambda i: [*i.values(), "Ousmane", "Zeinab"], "Agram is for 2 to 5 players"),
    ],
)
def test_start_match_refusals_write_nothing_not_even_the_newcomer(group, seating, message):
    before = state(group)
    with refused(BadInput, message):
        group.start_match("agram", seating(ids(group)))
    assert state(group) == before


def test_save_sitting_matches_names_case_aside_and_the_others_join(group):
    group.remove_player(ids(group)["Chaibou"])
    sitting = Sitting.start("agram", ["AÏCHA", "chaibou", "Ousmane"])
    group.save_sitting(sitting)
    seats = sitting.table().seats
    assert [s.name for s in seats] == ["Aïcha", "Chaibou", "Ousmane"]  # the members' own spelling
    assert sitting.group == group and members(group) == ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Ousmane"]
    version = Group.objects.get(pk=group.pk).version
    group.save_sitting(sitting)  # again: nothing changes
    assert Group.objects.get(pk=group.pk).version == version
    with refused(Conflict, "saved in another group already"):
        Group.create("Other").save_sitting(sitting)


def test_save_sitting_never_moves_another_groups_players():
    first = Sitting.start("agram", ["Aïcha", "Boubacar"])
    rematch = first.rematch()  # shares the players of `first`
    friday, saturday = Group.create("Friday"), Group.create("Saturday")
    friday.save_sitting(first)
    saturday.save_sitting(rematch)
    assert members(friday) == ["Aïcha", "Boubacar"] and members(saturday) == ["Aïcha", "Boubacar"]
    assert {s.player.group_id for s in first.seats.select_related("player")} == {friday.pk}
    assert {s.player.group_id for s in rematch.seats.select_related("player")} == {saturday.pk}


def test_a_rematch_keeps_the_group_and_its_players(group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], "Ousmane"])
    sitting.end_match()
    rematch = sitting.rematch()
    assert rematch.group_id == group.pk
    assert [s.player_id for s in rematch.table().seats] == [s.player_id for s in sitting.table().seats]


def test_last_settings_are_those_of_the_groups_latest_match_of_that_game(group):
    assert group.last_settings("fapfap") == {}
    people = [ids(group)["Aïcha"], ids(group)["Boubacar"]]
    group.start_match("fapfap", people, MatchEnd(MatchEndKind.POINTS, 30), stake_amount=100, stake_label="FCFA")
    group.start_match("agram", people)
    assert group.last_settings("fapfap") == {
        "end_kind": "points",
        "end_target": 30,
        "starting_chips": None,
        "stake_amount": 100,
        "stake_label": "FCFA",
    }


def test_new_links_stop_the_old_ones_for_every_verb(group):
    through_old_link = Group.objects.get(pk=group.pk)
    group.rotate_links()
    for verb in (
        lambda: through_old_link.add_player("Ousmane"),
        lambda: through_old_link.remove_player(ids(group)["Aïcha"]),
        lambda: through_old_link.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]]),
        through_old_link.rotate_links,
    ):
        with pytest.raises(Group.DoesNotExist):
            verb()
    assert members(group) == sorted(WORKED) and group.sittings.count() == 0


# --- the group page ------------------------------------------------------------------------------


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
    assert "no-store" in page["Cache-Control"]
    assert group.token in body and group.watch_token in body and "<svg" in body  # links and QR code
    region = client.get(g(group), **HX)
    assert region.status_code == 200 and not is_full_page(region) and "HX-Request" in region["Vary"]
    assert region.content.lstrip().startswith(b'<section id="group"') and b"<svg" not in region.content


def test_group_matches_are_listed_newest_first_with_date_game_and_standings(client, group):
    people = [ids(group)["Aïcha"], ids(group)["Boubacar"]]
    older = group.start_match("agram", people)
    newer = group.start_match("fapfap", people)
    body = client.get(g(group)).content.decode()
    assert body.index(f"/s/{newer.token}/") < body.index(f"/s/{older.token}/")
    assert "Fapfap" in body and "Agram" in body and "in progress" in body


def test_an_unknown_or_malformed_group_link_answers_404_with_a_message(client):
    for path in ("/g/not-a-real-token-at-all/", "/g/%3Cscript%3E/", "/gw/not-a-real-token-at-all/"):
        response = client.get(path)
        assert response.status_code == 404 and "No group at this link" in response.content.decode()


def test_a_phone_remembers_its_groups_and_home_lists_them_above_the_matches(client, group):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    client.get(sitting.get_absolute_url())
    other = Group.create("Samedi", ["Zeinab"])
    client.get(g(group))
    client.get(g(other))
    assert client.session["groups"] == [other.token, group.token]
    body = shown(client.get("/").content.decode())
    assert body.index("Samedi") < body.index("Vendredi") < body.index("Matches on this phone")
    assert "Aïcha, Boubacar, Chaibou, Djibo" in body and "New group" in body


# --- a new group ---------------------------------------------------------------------------------


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


# --- players -------------------------------------------------------------------------------------


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
    assert response.status_code == 400 and message in shown(response.content.decode())
    assert is_full_page(response) != bool(headers)
    assert state(group) == before


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


# --- links -----------------------------------------------------------------------------------------


def test_new_links_cut_off_the_old_ones_at_once(client, group):
    old, old_watch = group.token, group.watch_token
    client.get(g(group))
    response = client.post(g(group, "links/"))
    group.refresh_from_db()
    assert response.status_code == 302 and response["Location"] == g(group)
    assert group.token != old and group.watch_token != old_watch
    assert client.session["groups"] == [group.token]
    assert client.get(f"/g/{old}/").status_code == 404
    assert client.get(f"/gw/{old_watch}/").status_code == 404
    before = state(group)
    for path, data in [("players/", {"name": "Ousmane"}), ("links/", {}), ("new/agram/", {"action": "start"})]:
        refused = client.post(f"/g/{old}/{path}", data)
        assert refused.status_code == 404 and "No group at this link" in refused.content.decode()
    assert state(group) == before
    assert "New links made" in client.get(g(group)).content.decode()


def test_htmx_rotation_redirects_the_page(client, group):
    response = client.post(g(group, "links/"), **HX)
    group.refresh_from_db()
    assert response.status_code == 200 and response["HX-Redirect"] == g(group)


@pytest.mark.parametrize("path", ["players/", "links/", "players/{aicha}/rename/", "new/agram/"])
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_change_to_a_group_re_linked_while_the_request_ran_answers_404(client, group, path, headers):
    gone = Group.DoesNotExist("links made new while the request ran")
    seat = [f"m{ids(group)['Aïcha']}", f"m{ids(group)['Djibo']}"]
    data = {"name": "Ousmane", "action": "start", "end_kind": "open", "seat": seat}
    with mock.patch.object(Group, "_lock", side_effect=gone):
        answer = client.post(g(group, path.format(aicha=ids(group)["Aïcha"])), data, **headers)
    assert answer.status_code == 404 and "No group at this link" in answer.content.decode()


# --- the watch view ----------------------------------------------------------------------------------


def test_the_watch_view_shows_members_and_matches_by_their_watch_links_only(client, group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    response = client.get(f"/gw/{group.watch_token}/")
    body = response.content.decode()
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
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


# --- a new match from the group ------------------------------------------------------------------------


def test_the_game_list_puts_the_groups_games_first(client, group):
    group.start_match("cat-te", [ids(group)["Aïcha"], ids(group)["Djibo"], ids(group)["Chaibou"]])
    body = client.get(g(group, "new/")).content.decode()
    assert body.index(g(group, "new/cat-te/")) < body.index(g(group, "new/agram/"))
    assert "played in this group" in body


def test_the_form_offers_the_last_table_and_the_groups_last_settings_first(client, group):
    people = [ids(group)["Djibo"], ids(group)["Aïcha"], ids(group)["Chaibou"]]
    group.start_match("fapfap", people, MatchEnd(MatchEndKind.POINTS, 30), stake_amount=250, stake_label="CFA")
    body = client.get(g(group, "new/fapfap/")).content.decode()
    seated = re.findall(r'name="seat" value="([^"]+)"', body)
    assert seated == [f"m{pk}" for pk in people]
    assert 'value="points" checked' in body or re.search(r'value="points"[^>]*checked', body)
    assert 'name="end_target_points" id="id_end_target_points" value="30"' in body
    assert 'value="250"' in body and 'value="CFA"' in body
    assert "As in your group's last Fapfap match." in body
    assert 'value="seat-' + str(ids(group)["Boubacar"]) in body  # the others, one tap each
    plain = client.get(g(group, "new/agram/")).content.decode()
    assert "As in your group" not in plain  # never played Agram: the game's own defaults


def post_form(client, group, seat, action, headers=None, **extra):
    data = {"seat": seat, "action": action, "end_kind": "open", **extra}
    return client.post(g(group, "new/agram/"), data, **(headers or {}))


def seated_in(response) -> list[str]:
    return re.findall(r'name="seat" value="([^"]+)"', response.content.decode())


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_seating_buttons_tap_in_order_move_and_take_off_without_changing_anything(client, group, headers):
    i = ids(group)
    before = state(group)
    a = post_form(client, group, [], f"seat-{i['Chaibou']}", headers)
    assert a.status_code == 200 and "HX-Request" in a["Vary"] and is_full_page(a) != bool(headers)
    if headers:
        assert a.content.lstrip().startswith(b'<form id="new-match"')
    assert seated_in(a) == [f"m{i['Chaibou']}"]
    b = post_form(client, group, seated_in(a), f"seat-{i['Aïcha']}", headers)
    assert seated_in(b) == [f"m{i['Chaibou']}", f"m{i['Aïcha']}"]
    c = post_form(client, group, seated_in(b), "up-2", headers)
    assert seated_in(c) == [f"m{i['Aïcha']}", f"m{i['Chaibou']}"]
    d = post_form(client, group, seated_in(c), "down-1", headers)
    assert seated_in(d) == [f"m{i['Chaibou']}", f"m{i['Aïcha']}"]
    e = post_form(client, group, seated_in(d), "newcomer", headers, newcomer=" Ousmane ")
    assert seated_in(e) == [f"m{i['Chaibou']}", f"m{i['Aïcha']}", "n:Ousmane"]
    assert "joins the group" in e.content.decode()
    f = post_form(client, group, seated_in(e), "unseat-1", headers)
    assert seated_in(f) == [f"m{i['Aïcha']}", "n:Ousmane"]
    g_ = post_form(client, group, seated_in(f), "enter", headers, newcomer="Zeinab")  # Enter in the newcomer field
    assert seated_in(g_) == [f"m{i['Aïcha']}", "n:Ousmane", "n:Zeinab"]
    assert state(group) == before


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_start_from_the_group_with_a_newcomer_goes_to_the_match_table(client, group, headers):
    i = ids(group)
    seat = [f"m{i['Djibo']}", "n:Ousmane", f"m{i['Aïcha']}"]
    response = post_form(client, group, seat, "start", headers)
    sitting = Sitting.objects.get()
    if headers:
        assert response.status_code == 200 and response["HX-Redirect"] == sitting.get_absolute_url()
    else:
        assert response.status_code == 302 and response["Location"] == sitting.get_absolute_url()
    assert sitting.group == group and [s.name for s in sitting.table().seats] == ["Djibo", "Ousmane", "Aïcha"]
    assert "Ousmane" in members(group)
    assert client.session["sittings"] == [sitting.token] and client.session["groups"] == [group.token]
    table = shown(client.get(sitting.get_absolute_url()).content.decode())
    assert "Djibo deals" in table


def test_enter_with_no_newcomer_typed_starts_with_the_settings_chosen(client, group):
    i = ids(group)
    data = {"end_kind": "wins", "end_target_wins": "7", "end_target_hands": "zz"}  # the other N does not matter
    response = post_form(client, group, [f"m{i['Aïcha']}", f"m{i['Djibo']}"], "enter", newcomer=" ", **data)
    assert response.status_code == 302
    sitting = Sitting.objects.get()
    assert (sitting.end_kind, sitting.end_target) == ("wins", 7)


@pytest.mark.parametrize(
    "seat, action, extra, status, message",
    [
        (["m{Aïcha}"], "start", {}, 400, "Agram needs at least 2 players: tap the names of those at the table."),
        ([], "start", {}, 400, "Agram needs at least 2 players"),
        (
            ["m{Aïcha}", "m{Boubacar}", "m{Chaibou}", "m{Djibo}", "n:Ousmane", "n:Zeinab"],
            "start",
            {},
            400,
            "Agram is for 2 to 5 players",
        ),
        (
            ["m{Aïcha}", "m{Boubacar}", "m{Chaibou}", "m{Djibo}", "n:Ousmane"],
            "newcomer",
            {"newcomer": "Zeinab"},
            400,
            "Agram is played by at most 5 players",
        ),
        (["m{Aïcha}"], "newcomer", {"newcomer": "djibo"}, 400, "Djibo is in this group already: tap their name"),
        (["m{Aïcha}"], "newcomer", {"newcomer": "AÏCHA"}, 400, "Aïcha is at the table already."),
        (["m{Aïcha}"], "newcomer", {"newcomer": ""}, 400, "Type the newcomer&#x27;s name, then tap Add."),
        (["m{Aïcha}"], "newcomer", {"newcomer": "x" * 41}, 400, "Keep names to 40 characters (this one has 41)."),
        (["m{Aïcha}", "m{Djibo}"], "start", {"end_kind": "wins", "end_target_wins": "ten"}, 400, "Type N as a whole"),
        (["m{Aïcha}", "m{Djibo}"], "start", {"end_kind": "never"}, 400, "Choose how the match ends."),
        (["m{Aïcha}", "m{Djibo}"], "start", {"starting_chips": "5"}, None, None),  # not Cat Tê: ignored
        (["m{Aïcha}", "m{Djibo}"], "teleport", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "m{Djibo}"], "up-7", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "m{Djibo}"], "unseat-0", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "m{Djibo}"], "seat-99999999999999999", {}, 400, "no longer in this group"),
        (["m{Aïcha}", "Djibo"], "start", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "n:"], "start", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "n:Ousmane", "n:ousmane"], "start", {}, 400, "That button is not on this form"),
        (["m{Aïcha}"] * 31, "start", {}, 400, "That button is not on this form"),
        (["m{Aïcha}", "m123456789"], "start", {}, 409, "Someone picked is no longer in this group"),
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_bad_new_match_form_answers_4xx_with_the_reason_and_changes_nothing(
    client, group, seat, action, extra, status, message, headers
):
    i = ids(group)
    seat = [value.format(**i) for value in seat]
    before = state(group)
    data = {"end_kind": "open", **extra}
    response = client.post(g(group, "new/agram/"), {"seat": seat, "action": action, **data}, **headers)
    if status is None:  # accepted
        assert response.status_code in (200, 302)
        return
    assert response.status_code == status, response.content.decode()[:2000]
    assert message in shown(response.content.decode())
    assert state(group) == before


def test_a_member_removed_meanwhile_is_left_out_with_a_message(client, group):
    i = ids(group)
    group.remove_player(i["Boubacar"])
    before = state(group)
    response = post_form(client, group, [f"m{i['Aïcha']}", f"m{i['Boubacar']}", f"m{i['Djibo']}"], "start")
    assert response.status_code == 409 and "no longer in this group" in response.content.decode()
    assert seated_in(response) == [f"m{i['Aïcha']}", f"m{i['Djibo']}"]
    assert state(group) == before


def test_an_unknown_game_answers_404(client, group):
    assert client.get(g(group, "new/poker/")).status_code == 404
    response = client.post(g(group, "new/poker/"), {"action": "start"})
    assert response.status_code == 404 and "no such game" in response.content.decode()


def test_cat_te_from_the_group_keeps_its_chips_and_the_next_form_offers_them(client, group):
    i = ids(group)
    seat = [f"m{i['Aïcha']}", f"m{i['Djibo']}", f"m{i['Chaibou']}"]
    data = {"seat": seat, "action": "start", "end_kind": "hands", "end_target_hands": "4", "starting_chips": "15"}
    assert client.post(g(group, "new/cat-te/"), data).status_code == 302
    sitting = Sitting.objects.get()
    assert (sitting.starting_chips, sitting.end_kind, sitting.end_target) == (15, "hands", 4)
    body = client.get(g(group, "new/cat-te/")).content.decode()
    assert 'name="starting_chips" id="id_starting_chips" value="15"' in body
    assert 'name="end_target_hands" id="id_end_target_hands" value="4"' in body


@override_settings(START_RATE_LIMIT="2/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_starting_from_the_group_counts_against_the_new_match_limit(group):
    caches["ratelimit"].clear()
    phone = Client()
    phone.get(g(group))  # the phone gets its id
    i = ids(group)
    seat = [f"m{i['Aïcha']}", f"m{i['Djibo']}"]
    answers = [post_form(phone, group, seat, "start").status_code for _ in range(2)]
    tapping = post_form(phone, group, seat, f"seat-{i['Chaibou']}")  # rearranging is not a start
    before = state(group)
    refused = post_form(phone, group, seat, "start")
    caches["ratelimit"].clear()
    assert answers == [302, 302] and tapping.status_code == 200
    assert refused.status_code == 429 and "Too many new matches and groups from this phone" in refused.content.decode()
    assert state(group) == before


@override_settings(TAP_RATE_LIMIT="3/h", TAP_ADDRESS_RATE_LIMIT="1000/h")
def test_changes_to_a_group_count_against_the_tap_limit(group):
    caches["ratelimit"].clear()
    phone = Client()
    phone.get(g(group))
    statuses = [phone.post(g(group, "players/"), {"name": f"P{n}"}).status_code for n in range(4)]
    caches["ratelimit"].clear()
    assert statuses == [302, 302, 302, 429]
    assert "P3" not in members(group)


# --- saving a match into a group --------------------------------------------------------------------------


def test_a_finished_match_offers_save_into_a_group_and_then_links_back(client, group):
    sitting = finished()
    table = client.get(sitting.get_absolute_url()).content.decode()
    assert f'href="/s/{sitting.token}/group/"' in table and "Save into a group" in table
    watch = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert "/group/" not in watch
    group.save_sitting(sitting)
    table = client.get(sitting.get_absolute_url()).content.decode()
    assert f'href="{g(group)}"' in table and "Back to the group: Vendredi" in shown(table)
    assert group.token not in client.get(f"/w/{sitting.watch_token}/").content.decode()


def test_save_into_one_of_this_phones_groups_matching_names_case_aside(client, group):
    client.get(g(group))
    sitting = finished(["aïcha", "DJIBO", "Ousmane"])
    page = shown(client.get(f"/s/{sitting.token}/group/").content.decode())
    assert "Save into Vendredi" in page and "Aïcha, Boubacar, Chaibou, Djibo" in page
    response = client.post(f"/s/{sitting.token}/group/", {"group": group.token})
    assert response.status_code == 302 and response["Location"] == g(group)
    sitting.refresh_from_db()
    assert sitting.group == group
    assert [s.name for s in sitting.table().seats] == ["Aïcha", "Djibo", "Ousmane"]
    assert members(group) == ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Ousmane"]
    body = shown(client.get(g(group)).content.decode())
    assert "This match now belongs to the group Vendredi." in body and f"/s/{sitting.token}/" in body
    again = shown(client.get(f"/s/{sitting.token}/group/").content.decode())
    assert "This match is in Vendredi." in again and "Save into Vendredi" not in again


def test_save_into_a_new_group_named_there(client):
    sitting = finished()
    page = client.get(f"/s/{sitting.token}/group/").content.decode()
    assert "A new group" in page and "Your groups" not in page
    response = client.post(f"/s/{sitting.token}/group/", {"group": "new", "name": "Samedi"})
    group = Group.objects.get()
    assert response.status_code == 302 and response["Location"] == g(group)
    assert group.name == "Samedi" and members(group) == ["Aïcha", "Boubacar", "Chaibou"]
    assert client.session["groups"] == [group.token]
    # the next match from the group: the last table is offered, then started with a newcomer
    body = client.get(g(group, "new/agram/")).content.decode()
    assert len(re.findall(r'name="seat" value="m', body)) == 3
    seat = re.findall(r'name="seat" value="([^"]+)"', body) + ["n:Zeinab"]
    assert post_form(client, group, seat, "start").status_code == 302
    assert group.sittings.count() == 2 and "Zeinab" in members(group)


@pytest.mark.parametrize(
    "data, status, message",
    [
        ({"group": "new", "name": " "}, 400, "Type the group&#x27;s name."),
        ({"group": "new", "name": "x" * 41}, 400, "Keep the group&#x27;s name to 40 characters."),
        ({"group": "not-a-real-group-token"}, 404, "No group at this link"),
        ({"group": "<b>"}, 404, "No group at this link"),
        ({}, 404, "No group at this link"),
        ({"group": "{watch}"}, 404, "No group at this link"),
        ({"group": "{other}"}, 409, "This match is saved in another group already."),
    ],
)
def test_bad_saves_answer_4xx_and_change_nothing(client, group, data, status, message):
    sitting = finished()
    other = Group.create("Other")
    if data.get("group") == "{other}":
        other.save_sitting(sitting)
    data = {k: v.format(watch=group.watch_token, other=group.token) for k, v in data.items()}
    before, groups = state(group), Group.objects.count()
    response = client.post(f"/s/{sitting.token}/group/", data)
    assert response.status_code == status and message in response.content.decode()
    assert state(group) == before and Group.objects.count() == groups


def test_a_match_cannot_be_saved_through_its_watch_link(client, group):
    sitting = finished()
    response = client.post(f"/s/{sitting.watch_token}/group/", {"group": group.token})
    assert response.status_code == 404 and Sitting.objects.get().group is None


def test_a_rematch_of_a_match_started_from_the_group_stays_in_it(client, group):
    i = ids(group)
    post_form(client, group, [f"m{i['Aïcha']}", f"m{i['Djibo']}"], "start")
    sitting = Sitting.objects.get()
    sitting.end_match()
    response = client.post(f"/s/{sitting.token}/rematch/")
    rematch = Sitting.objects.exclude(pk=sitting.pk).get()
    assert response.status_code == 302 and rematch.group == group
    assert group.sittings.count() == 2


# --- French ---------------------------------------------------------------------------------------------


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


def test_the_group_link_include_for_the_table_header(group):
    """What `{% include "matches/_group_link.html" with place="header" %}` shows in the table's header."""
    from django.template.loader import render_to_string

    sitting = group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    header = render_to_string("matches/_group_link.html", {"sitting": sitting, "place": "header"})
    assert f'href="{g(group)}"' in header and "><bdi>Vendredi</bdi></a>" in header
    alone = Sitting.start("agram", ["A", "B"])
    assert render_to_string("matches/_group_link.html", {"sitting": alone, "place": "header"}).strip() == ""


def test_the_group_page_leads_to_the_figures_and_files_only_by_the_links_it_was_opened_with(client, group):
    body = client.get(g(group)).content.decode()
    for name in ("stats/", "hands.csv", "group.json"):
        assert f'href="{g(group, name)}"' in body
    watch = client.get(f"/gw/{group.watch_token}/").content.decode()
    assert f'href="/gw/{group.watch_token}/stats/"' in watch and "hands.csv" not in watch and "group.json" not in watch
