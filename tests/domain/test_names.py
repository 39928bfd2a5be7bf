"""The one set of player-name rules (matches/domain/names.py), as tables of cases, then the places
that take a name: each refuses a name that is an existing player's in other letters, accents or
spacing, naming that player."""

import copy

import pytest

from matches.domain.errors import BadInput
from matches.domain.names import (
    NAME_MAX_LENGTH,
    checked_name,
    clean_name,
    is_visible,
    name_key,
    name_refusal,
    repeats,
    same_as,
    same_name,
)
from matches.models import Group, Sitting
from matches.services.archive import ArchiveError, export_group, import_group
from matches.web.refusals import refusal_text

from tests.conftest import shown

CLEANED = [
    ("Aïcha", "Aïcha"),
    ("  Aïcha   Maïga ", "Aïcha Maïga"),
    ("A\u0308icha", "Äicha"),  # decomposed: stored composed (NFC)
    ("Ai\u200bcha", "Aicha"),  # zero-width space
    ("\u202eAicha\u202c", "Aicha"),  # bidi overrides
    ("Ai\tcha\n", "Ai cha"),
    ("Ai\x00cha", "Aicha"),
    ("👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"),  # joiners inside an emoji stay
    ("", ""),
]


@pytest.mark.parametrize("raw, stored", CLEANED)
def test_clean_name(raw, stored):
    assert clean_name(raw) == stored


VISIBLE = [("Aïcha", True), ("7", True), ("🂡", True), ("...", False), ("", False), (" - ", False), ("عائشة", True)]


@pytest.mark.parametrize("name, visible", VISIBLE)
def test_is_visible(name, visible):
    assert is_visible(name) is visible


REFUSED = [
    ("Aïcha", None, {}),
    ("é" * NAME_MAX_LENGTH, None, {}),
    ("é" * (NAME_MAX_LENGTH + 1), "name_too_long", {"max": 40, "length": 41}),
    ("", "name_blank", {}),
    ("?!", "name_blank", {}),
]


@pytest.mark.parametrize("name, code, params", REFUSED)
def test_name_refusal(name, code, params):
    refusal = name_refusal(name)
    assert (refusal and refusal.code, refusal.params if refusal else {}) == (code, params)


def test_checked_name_cleans_then_refuses():
    assert checked_name("  Aïcha ") == "Aïcha"
    with pytest.raises(BadInput) as caught:
        checked_name("\u200b ")
    assert caught.value.code == "name_blank"


SAME = [
    ("Aicha", "Aïcha"),
    ("aïcha ", "Aïcha"),
    ("AÏCHA", "aicha"),
    ("Aïcha  Maïga", "aicha maiga"),
    ("A\u0308icha", "Äicha"),
    ("Cissé", "CISSE"),
    ("Nguyễn Văn An", "nguyen van an"),
    ("Straße", "STRASSE"),
    ("Ｂｏｂ", "Bob"),  # full-width letters (NFKD)
    ("Ai\u200bcha", "Aicha"),
]
DIFFERENT = [
    ("Aicha", "Aisha"),
    ("Aïcha Maïga", "AïchaMaïga"),
    ("Ana", "Anna"),
    ("राम", "रम"),  # a Devanagari vowel sign is part of the letters, not an accent
    ("Ali 1", "Ali 2"),
]


@pytest.mark.parametrize("a, b", SAME)
def test_same_player(a, b):
    assert same_name(a, b) and name_key(a) == name_key(b)


@pytest.mark.parametrize("a, b", DIFFERENT)
def test_different_players(a, b):
    assert not same_name(a, b)


REPEATS = [
    (["Aïcha", "Boubacar"], []),
    (["Aïcha", "Boubacar", "aicha"], [(0, 2)]),
    (["A", "B", "a", "b ", "À"], [(0, 2), (1, 3), (0, 4)]),
]


@pytest.mark.parametrize("names, found", REPEATS)
def test_repeats(names, found):
    assert list(repeats(names)) == found


def test_same_as_finds_the_first_of_the_others_and_names_it_as_written():
    assert same_as("aicha", ["Boubacar", "Aïcha", "AICHA"]) == "Aïcha"
    assert same_as("Djibo", ["Boubacar", "Aïcha"]) is None
    assert same_as("AICHA", [{"n": "Aïcha"}], lambda entry: entry["n"]) == {"n": "Aïcha"}


# --- every place that takes a name ------------------------------------------------------------


@pytest.fixture
def group(db) -> Group:
    return Group.create("Vendredi", ["Aïcha", "Boubacar"])


def said(caught) -> str:
    return shown(str(refusal_text(caught.value)))


SPELLINGS = ["Aicha", "aïcha ", "AÏCHA", "A\u0308icha"]


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
