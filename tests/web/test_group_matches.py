"""A group's matches. A new match from the group: its games first, its last table and settings for that
game offered, the players seated by taps (moved, taken off, a newcomer or a former player back) under
a hint saying what the screen offers, then the match table. A match played outside any group, saved
into one once it is over: one of this phone's groups (its players matched by name) or a new one, then
linking back to it. A bad form answers 4xx with its reason and changes nothing."""

import re

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Sitting

from tests.conftest import shown
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import finished, ids, members, post_form, seated_in, state
from tests.pages import FR, HX, g, is_full_page, words

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
SEATING_HINT = re.compile(r'id="player-range">.*?</p>\s*<p class="hint"[^>]*>(.*?)</p>', re.DOTALL)
SEATED = re.compile(r'<ol class="seated">(.*?)</ol>', re.DOTALL)


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


def test_an_unknown_game_answers_404(client, group):
    assert client.get(g(group, "new/poker/")).status_code == 404
    response = client.post(g(group, "new/poker/"), {"action": "start"})
    assert response.status_code == 404 and "no such game" in response.content.decode()


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


def seating_hint(response) -> str:
    return words(SEATING_HINT.search(response.content.decode())[1])


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_the_seating_hint_says_what_the_screen_offers_nobody_some_or_everyone_seated(client, headers):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    ids = {p.name: p.pk for p in group.members()}
    nobody = client.get(g(group, "new/agram/"), **headers)  # the group never played: nobody seated
    assert 'name="seat"' not in nobody.content.decode()
    some = post_form(client, group, [f"m{ids['Aïcha']}"], f"seat-{ids['Chaibou']}", HX | headers)
    everyone = post_form(client, group, [f"m{ids['Aïcha']}", f"m{ids['Chaibou']}"], f"seat-{ids['Boubacar']}", headers)
    assert 'value="seat-' not in everyone.content.decode()  # nobody left to tap
    hints = [seating_hint(response) for response in (nobody, some, everyone)]
    assert len(set(hints)) == 3, hints
    tap_first = "Touchez celui qui donne en premier" if headers else "Tap whoever deals first"
    assert hints[0].startswith(tap_first)
    assert not any(tap_first in hint for hint in hints[1:])
    if not headers:
        assert hints[1] == (
            "The first in the list deals first, then the next to the right (counter-clockwise). "
            "Tap a name below to seat them next; ↑ and ↓ change the order, ✕ takes a player off."
        )
        assert hints[2] == (
            "The first in the list deals first, then the next to the right (counter-clockwise). "
            "↑ and ↓ change the order, ✕ takes a player off."
        )


def test_the_seating_hint_follows_the_games_direction(client):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    ids = {p.name: p.pk for p in group.members()}
    some = post_form(client, group, [], f"seat-{ids['Chaibou']}")
    assert "to the right (counter-clockwise)" in seating_hint(some)
    data = {"seat": [f"m{ids['Aïcha']}"], "action": f"seat-{ids['Chaibou']}", "end_kind": "open"}
    eighty_three = client.post(g(group, "new/eighty-three/"), data)
    assert "to the left (clockwise)" in seating_hint(eighty_three)


def seated_labels(response) -> list[str]:
    return [
        words(item)
        for item in re.findall(
            r'<span class="name">(.*?)</span>\s*<span class="moves">',
            SEATED.search(response.content.decode())[1],
            re.DOTALL,
        )
    ]


@pytest.fixture
def samedi() -> Group:
    group = Group.create("Samedi", ["Aïcha", "Chaibou", "Mariam"])
    group.remove_player(group.members().get(name="Mariam").pk)  # she stopped coming; her matches stay
    return group


def test_a_former_player_typed_again_is_back_not_new(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    response = post_form(client, samedi, [f"m{ids['Aïcha']}"], "newcomer", newcomer="mariam")
    response = post_form(
        client,
        samedi,
        re.findall(r'name="seat" value="([^"]+)"', response.content.decode()),
        "newcomer",
        newcomer="Ousmane",
    )
    assert seated_labels(response) == ["Aïcha", "Mariam back in the group", "Ousmane joins the group"]


def test_a_newcomer_of_a_name_another_player_had_before_a_rename_is_refused_as_it_is_typed(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    samedi.rename_player(ids["Chaibou"], "Chaibou M")
    response = post_form(client, samedi, [f"m{ids['Aïcha']}"], "newcomer", newcomer="chaibou")
    assert response.status_code == 400
    assert "Chaibou was Chaibou M’s name in this group" in shown(response.content.decode())
    assert seated_labels(response) == ["Aïcha"]


def test_someone_another_phone_added_meanwhile_is_seated_as_the_member(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    samedi.add_player("Ousmane")  # another phone, while this form had him as a newcomer
    ousmane = samedi.members().get(name="Ousmane").pk
    response = post_form(client, samedi, [f"m{ids['Aïcha']}", "n:Ousmane"], f"seat-{ids['Chaibou']}")
    assert re.findall(r'name="seat" value="([^"]+)"', response.content.decode()) == [
        f"m{ids['Aïcha']}",
        f"m{ousmane}",
        f"m{ids['Chaibou']}",
    ]
    assert seated_labels(response) == ["Aïcha", "Ousmane", "Chaibou"]
    # Seated twice (as the member and as the newcomer of the same name): once.
    twice = post_form(client, samedi, [f"m{ousmane}", "n:ousmane"], f"seat-{ids['Chaibou']}")
    assert seated_labels(twice) == ["Ousmane", "Chaibou"]


def test_the_label_is_no_masculine_word_in_french(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    response = post_form(client, samedi, [f"m{ids['Aïcha']}", "n:Zeinab"], f"seat-{ids['Chaibou']}", FR)
    assert "nouveau dans le groupe" not in response.content.decode()


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


def test_the_new_match_form_offers_the_groups_match_this_phone_is_still_playing(client, group):
    """Back from the table lands on the form again: it leads back to the match rather than inviting a second
    (another table of the group may still start one). Another group's match, or a finished one, is not offered."""
    url = g(group, "new/agram/")
    assert "Match in progress" not in client.get(url).content.decode()
    i = ids(group)
    post_form(client, group, [f"m{i['Djibo']}", f"m{i['Aïcha']}"], "start", {})
    sitting = Sitting.objects.get()
    page = client.get(url).content.decode()
    assert "Match in progress on this phone: Agram." in page and f'href="{sitting.get_absolute_url()}"' in page
    other = Group.create("Autre", ["Ana", "Ben"])
    assert "Match in progress" not in client.get(g(other, "new/agram/")).content.decode()
    sitting.end_match()
    assert "Match in progress" not in client.get(url).content.decode()


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
    assert response.status_code == 409 and "No longer in this group: <bdi>Boubacar</bdi>." in response.content.decode()
    assert seated_in(response) == [f"m{i['Aïcha']}", f"m{i['Djibo']}"]
    assert state(group) == before


# --- a match saved into a group -------------------------------------------------------------------


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
