"""The verbs of a group (matches/models/groups.py): making it, its players (a newcomer, a rename, one
removed, one erased, one back), the matches it starts or saves, the settings it offers again and its
new links. A refusal names its reason and writes nothing, not even a newcomer."""

import re

import pytest

from matches.domain.errors import BadInput, Conflict
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Player, PlayerChange, Recorder, Sitting

from tests.conftest import WORKED
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import ids, members, state
from tests.refusing import refused

pytestmark = pytest.mark.django_db


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


def test_every_change_bumps_the_groups_version(group):
    before = group.version
    group.add_player("Ousmane")
    group.rename_player(ids(group)["Ousmane"], "Ousmane B.")
    group.remove_player(ids(group)["Ousmane B."])
    group.start_match("agram", [ids(group)["Aïcha"], ids(group)["Djibo"]])
    group.rotate_links()
    group.refresh_from_db()
    assert group.version == before + 5


# --- players --------------------------------------------------------------------------------------


def test_add_player_a_newcomer_joins_a_same_name_is_refused_a_former_player_comes_back(group):
    ousmane = group.add_player("Ousmane")
    assert "Ousmane" in members(group) and ousmane.group_id == group.pk
    with refused(BadInput, "<bdi>Ousmane</bdi> is in this group already"):
        group.add_player("ousmane")
    group.remove_player(ousmane.pk)
    back = group.add_player("OUSMANE")
    assert back.pk == ousmane.pk and "Ousmane" in members(group)


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


def test_each_change_to_a_player_keeps_a_receipt_and_an_erasure_keeps_no_name_of_theirs(group):
    djibo = ids(group)["Djibo"]
    group.rename_player(djibo, "Djibo", by="ph1")  # the same name: no change, no receipt
    group.rename_player(djibo, "Djibo Hama", by="ph1")
    group.remove_player(djibo, by="ph2")
    group.add_player("djibo hama", by="ph3")  # back
    kept = [(c.verb, c.before, c.after, c.by_phone) for c in PlayerChange.objects.filter(player_id=djibo)]
    assert kept == [("renamed", "Djibo", "Djibo Hama", "ph1"), ("removed", "", "", "ph2"), ("back", "", "", "ph3")]
    group.erase_player(djibo, by="ph4")
    kept = [(c.verb, c.before, c.after, c.by_phone) for c in PlayerChange.objects.filter(player_id=djibo)]
    assert kept == [
        ("renamed", "", "", "ph1"), ("removed", "", "", "ph2"), ("back", "", "", "ph3"), ("erased", "", "", "ph4"),
    ]


def test_nobody_takes_a_name_another_player_had_before_a_rename_so_no_two_swap_places(group):
    aicha, djibo = ids(group)["Aïcha"], ids(group)["Djibo"]
    group.rename_player(djibo, "Tmp")
    with refused(BadInput, "<bdi>Djibo</bdi> was <bdi>Tmp</bdi>’s name in this group, before a rename"):
        group.rename_player(aicha, "djibo.")
    with refused(BadInput, "<bdi>Djibo</bdi> was <bdi>Tmp</bdi>’s name in this group"):
        group.add_player("Djibo")
    assert group.rename_player(djibo, "Djibo").name == "Djibo"  # their own name back
    group.rename_player(djibo, "Tmp")
    outside = Sitting.start("agram", ["djibo", "Ousmane"])  # played outside the group, then brought in
    with refused(BadInput, "<bdi>Djibo</bdi> was <bdi>Tmp</bdi>’s name in this group"):
        group.save_sitting(outside)
    assert outside.group is None and "Ousmane" not in members(group)
    at_table = group.start_match("agram", [aicha, djibo])  # a seat renamed from the match's "who plays"
    at_table.rename_player(1, "Djibo H", by=Recorder(phone="ph9"))
    assert PlayerChange.objects.filter(player_id=djibo).last().by_phone == "ph9"
    group.rename_player(djibo, "Djibo")
    group.erase_player(djibo)
    assert group.add_player("Djibo").name == "Djibo"  # an erased player's names are free


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


# --- matches --------------------------------------------------------------------------------------


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


def test_start_match_names_a_player_who_left_the_group_meanwhile(group):
    i = ids(group)
    group.remove_player(i["Chaibou"])
    before = state(group)
    with refused(BadInput, "No longer in this group: <bdi>Chaibou</bdi>."):
        group.start_match("agram", [i["Aïcha"], i["Chaibou"]])
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
