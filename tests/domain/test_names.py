"""The one set of player-name rules (matches/domain/names.py), as tables of cases (the places that take
a name: tests/models/test_names_in_a_group.py and tests/web/test_one_player_per_spelling.py)."""

import unicodedata

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
CLEANED = [
    ("Aïcha", "Aïcha"),
    ("  Aïcha   Maïga ", "Aïcha Maïga"),
    ("A\u0308icha", "Äicha"),  # decomposed: stored composed (NFC)
    ("Ai\u200bcha", "Aicha"),  # zero-width space
    ("\u202eAicha\u202c", "Aicha"),  # bidi overrides
    ("Ai\tcha\n", "Ai cha"),
    ("Ai\x00cha", "Aicha"),
    ("👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"),  # joiners inside an emoji stay
    ("A" + "\u0308" * 9 + "wa", "Ä" + "\u0308" * 3 + "wa"),  # marks piled on one letter: three kept
    ("\u05e9\u05bc\u05c1\u05b8", unicodedata.normalize("NFC", "\u05e9\u05bc\u05c1\u05b8")),  # Hebrew: three marks
    ("Nguy\u1ec5n", "Nguyễn"),
    ("", ""),
]


@pytest.mark.parametrize("raw, stored", CLEANED)
def test_clean_name(raw, stored):
    assert clean_name(raw) == stored


VISIBLE = [("Aïcha", True), ("7", True), ("🂡", True), ("...", False), ("", False), (" - ", False), ("عائشة", True)]
VISIBLE += [("\u3164", False), ("\u115f\u1160", False), ("\u00ad", False)]  # fillers and a soft hyphen show nothing


@pytest.mark.parametrize("name, visible", VISIBLE)
def test_is_visible(name, visible):
    assert is_visible(name) is visible


REFUSED = [
    ("Aïcha", None, {}),
    ("é" * NAME_MAX_LENGTH, None, {}),
    ("é" * (NAME_MAX_LENGTH + 1), "name_too_long", {"max": 40, "length": 41}),
    ("", "name_blank", {}),
    ("?!", "name_blank", {}),
    ("Brun\u03bf", "name_mixed_scripts", {"name": "Brun\u03bf"}),  # a Greek o among Latin letters
    ("Mamadou Dj\u0456bo", "name_mixed_scripts", {"name": "Dj\u0456bo"}),  # a Cyrillic i
    ("Aïcha عائشة", None, {}),  # two alphabets, a word each
    ("山田さん", None, {}),  # Japanese mixes Han and kana
    ("Nguyễn Văn An", None, {}),
    ("Ǆemal ʻOkina", None, {}),  # a Latin digraph, a modifier letter
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
    ("Chloe\u200d", "Chloé"),  # a joiner, which a name keeps for emoji, shows as nothing
    ("Ai\u00adcha", "Aicha"),  # a soft hyphen
    ("Mbarga.", "Mbarga"),  # punctuation reads as a space
    ("Jean-Pierre", "jean pierre"),
    ("M. Diallo", "M Diallo"),
    ("«Ngono»", "Ngono"),
    ("M'barga", "Mbarga"),  # an apostrophe, left out or not
    ("N\u2019Diaye", "Ndiaye"),
    ("Mbarga\u02bc", "Mbarga"),  # a letter that looks like one
    ("Mbarga\u00b4", "Mbarga"),  # an accent typed alone
    ("\U0001d40cbarga", "Mbarga"),  # a mathematical bold M
    ("\u2133barga", "mbarga"),  # a script M
    ("\u1d39barga", "Mbarga"),  # a small raised M
]
DIFFERENT = [
    ("Aicha", "Aisha"),
    ("Aïcha Maïga", "AïchaMaïga"),
    ("Ana", "Anna"),
    ("राम", "रम"),  # a Devanagari vowel sign is part of the letters, not an accent
    ("Ali 1", "Ali 2"),
    ("Jean-Pierre", "JeanPierre"),  # as a space would
    ("Ali +", "Ali"),  # a symbol is part of the name
    ("Ali \u2b50", "Ali \U0001f0cf"),  # two Alis told apart by one
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
