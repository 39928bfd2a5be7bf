"""One player per spelling in a group's verbs and its archive: a name that differs from a member's only
by case, accents or spacing is that member (the web's paths: tests/web/test_one_player_per_spelling.py)."""

import copy

import pytest

from matches.domain.errors import BadInput
from matches.models import Group, Sitting
from matches.services.archive import ArchiveError, export_group, import_group
from matches.web.refusals import refusal_text

from tests.conftest import shown


@pytest.fixture
def group(db) -> Group:
    return Group.create("Vendredi", ["Aïcha", "Boubacar"])


def said(caught) -> str:
    return shown(str(refusal_text(caught.value)))


# Case, accents, spacing, and characters shown as nothing (a joiner, a soft hyphen, a variation selector).
SPELLINGS = ["Aicha", "aïcha ", "AÏCHA", "A\u0308icha", "Aïcha\u200d", "Aï\u00adcha", "Aïcha\ufe0f"]


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_group_refuses_a_newcomer_who_is_a_member_in_other_letters(group, typed):
    with pytest.raises(BadInput) as caught:
        group.add_player(typed)
    assert said(caught) == "Aïcha is in this group already."


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_renamed_member_cannot_take_another_members_name_in_other_letters(group, typed):
    boubacar = group.members().get(name="Boubacar")
    with pytest.raises(BadInput) as caught:
        group.rename_player(boubacar.pk, typed)
    assert said(caught) == "Aïcha is in this group already."
    aicha = group.members().get(name="Aïcha")
    assert group.rename_player(aicha.pk, "Aicha").name == "Aicha"  # their own name, in other letters


def test_a_former_player_in_other_letters_comes_back(group):
    aicha = group.members().get(name="Aïcha")
    group.remove_player(aicha.pk)
    assert group.add_player("AICHA").pk == aicha.pk


def test_a_new_group_refuses_one_player_listed_twice_in_other_letters(db):
    with pytest.raises(BadInput) as caught:
        Group.create("Vendredi", ["Aïcha", "Boubacar", "aicha"])
    assert said(caught) == "Aïcha is on the list twice: type each player once."
    assert not Group.objects.exists()


def test_a_match_saved_into_a_group_seats_the_member_of_that_name_in_other_letters(group):
    sitting = Sitting.start("agram", ["AICHA", "Djibo"])
    group.save_sitting(sitting)
    assert [seat.player.name for seat in sitting.seats.order_by("position")] == ["Aïcha", "Djibo"]


def test_an_archive_with_one_player_twice_in_other_letters_is_refused(group):
    data = export_group(group)
    broken = copy.deepcopy(data)
    broken["players"][1]["name"] = "AICHA"
    with pytest.raises(ArchiveError) as caught:
        import_group(broken)
    assert caught.value.message == "players[0] (Aïcha) and players[1] (AICHA) name the same player: rename one."


@pytest.mark.parametrize("typed", ["Bo\u03bfbacar", "B\u043eubacar"])  # a Greek, a Cyrillic o
def test_a_name_mixing_look_alike_alphabets_is_refused_so_it_cannot_pass_for_a_member(group, typed):
    with pytest.raises(BadInput) as caught:
        group.add_player(typed)
    assert said(caught) == (
        f"{typed} mixes letters of alphabets that look alike (Latin, Greek, Cyrillic…): "
        "type each word of a name in one alphabet."
    )
    aicha = group.members().get(name="Aïcha")
    with pytest.raises(BadInput):
        group.rename_player(aicha.pk, typed)
    assert sorted(group.members().values_list("name", flat=True)) == ["Aïcha", "Boubacar"]


def test_an_archive_keeps_a_name_that_mixes_alphabets_from_before_that_rule(group):
    data = export_group(group)
    data["players"][1]["name"] = "Bo\u03bfbacar"
    imported = import_group(data)
    assert "Bo\u03bfbacar" in set(imported.members().values_list("name", flat=True))
