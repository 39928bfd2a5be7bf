"""Players' names as typed: the one set of rules every place that takes a name uses (pure Python).
`clean_name` stores, `name_refusal` validates, equal `name_key`s are one player ("Aicha" = "AÏCHA ")."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, lru_cache
from typing import TypeVar

from pyuca import Collator

from matches.domain.errors import BadInput

NAME_MAX_LENGTH = 40
GROUP_NAME_MAX_LENGTH = 40
# What a browser shows for a character it could not read (a null character sent back in a refused form): never
# typed, so a name holding it is refused, not kept.
UNREADABLE = "\ufffd"
# Dropped from a name as typed: spaces and marks that only steer how text runs (some of IGNORABLE below).
INVISIBLE = {"\u200b", "\u2060", "\ufeff", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
# Unicode's default-ignorable code points (DerivedCoreProperties.txt): shown as nothing, whatever their
# category (Hangul fillers are letters). A name keeps the rest of them (an emoji's joiners), but keys and
# the blank check skip them all, so "Chloe" with a joiner after it is Chloé, and a name of fillers is blank.
IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
# Alphabets whose letters look alike ("o" in Latin, Greek and Cyrillic): a word mixing them is refused,
# so that no name can pass for another player's. Japanese and Korean words mix their scripts with Han.
LOOKALIKE_SCRIPTS = {"LATIN", "GREEK", "CYRILLIC", "ARMENIAN", "CHEROKEE", "COPTIC"}
# Keys drop the combining marks NFKD splits off Latin letters ("ï" = i + U+0308); marks of other
# scripts (Devanagari, Arabic vowels) are letters' parts and stay.
ACCENTS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))

# Combining marks kept in a row on one letter (after NFC): real names carry fewer (Vietnamese composes to one
# character, Hebrew points and Arabic vowels stack two or three); more pile up over the lines around the name.
MARKS_IN_A_ROW = 3

T = TypeVar("T")


def clean_name(raw: str) -> str:
    """A typed name as stored: NFC, invisible/control characters dropped (not emoji joiners), marks stacked on
    one letter past MARKS_IN_A_ROW dropped, spaces folded."""
    kept, marks = [], 0
    for char in unicodedata.normalize("NFC", raw):
        if char in INVISIBLE or (unicodedata.category(char) == "Cc" and not char.isspace()):
            continue
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if marks <= MARKS_IN_A_ROW:
            kept.append(char)
    return " ".join("".join(kept).split())


def is_ignorable(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in IGNORABLE)


def is_visible(name: str) -> bool:
    """At least one letter, digit or symbol (an emoji counts) that shows as something."""
    return any(unicodedata.category(char)[0] in "LNS" and not is_ignorable(char) for char in name)


def script_of(char: str) -> str:
    """The alphabet a letter belongs to, as its Unicode name starts ("LATIN", "GREEK"...)."""
    return unicodedata.name(char, "").partition(" ")[0]


def mixed_word(name: str) -> str | None:
    """The first word of `name` holding letters of two look-alike alphabets ("Brun\u03bf": Latin, Greek o)."""
    for word in name.split():
        scripts = {script_of(char) for char in word if unicodedata.category(char)[0] == "L"}
        if len(scripts & LOOKALIKE_SCRIPTS) > 1:
            return word
    return None


def name_refusal(name: str) -> BadInput | None:
    """Why cleaned `name` cannot be a player's ("name_blank", "name_unreadable", "name_too_long" with `max` and
    `length`, "name_mixed_scripts" with `name`, the word), else None."""
    if not is_visible(name):
        return BadInput("name_blank")
    if UNREADABLE in name:
        return BadInput("name_unreadable")
    if len(name) > NAME_MAX_LENGTH:
        return BadInput("name_too_long", max=NAME_MAX_LENGTH, length=len(name))
    if (word := mixed_word(name)) is not None:
        return BadInput("name_mixed_scripts", name=word)
    return None


def group_name_refusal(name: str) -> BadInput | None:
    """Why cleaned `name` cannot be a group's ("group_name_too_long" with `max`, "name_unreadable"), else None:
    a group's name may be blank."""
    if len(name) > GROUP_NAME_MAX_LENGTH:
        return BadInput("group_name_too_long", max=GROUP_NAME_MAX_LENGTH)
    if UNREADABLE in name:
        return BadInput("name_unreadable")
    return None


def checked_name(raw: str) -> str:
    """`raw` cleaned; raises name_refusal's BadInput when that is no player's name."""
    name = clean_name(raw)
    if (refusal := name_refusal(name)) is not None:
        raise refusal
    return name


def _is_accent(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in ACCENTS)


APOSTROPHES = frozenset("'\u2018\u2019\u02b9\u02bb\u02bc\u02bd")  # typed either way, or left out


def name_key(name: str) -> str:
    """The cleaned name case-folded, accents (NFKD, and modifier symbols like ´ or ˜), apostrophes and
    characters shown as nothing dropped ("M'barga" is Mbarga), other punctuation read as a space ("Mbarga."
    is Mbarga, "Jean-Pierre" Jean Pierre), extra spaces dropped: one key per player. A symbol stays: two
    Alis may be told apart by one ("Ali ⭐", "Ali 🃏")."""
    # Compatibility forms first ("𝐌", "ℳ" and "ᴹ" are an M), then case, then again ("ẞ" folds to "ss").
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", clean_name(name)).casefold())
    kept = []
    for char in decomposed:
        kind = unicodedata.category(char)
        if char in APOSTROPHES or kind == "Sk" or _is_accent(char) or is_ignorable(char):
            continue
        kept.append(" " if kind[0] == "P" else char)
    return " ".join("".join(kept).split())


def same_name(a: str, b: str) -> bool:
    """Whether two names name the same player ("Cissé", "cisse" and "CISSÉ" do)."""
    return name_key(a) == name_key(b)


def same_as(name: str, others: Iterable[T], name_of: Callable[[T], str] = str) -> T | None:
    """The first of `others` (names, or what `name_of` names) that names the same player as `name`."""
    key = name_key(name)
    return next((other for other in others if name_key(name_of(other)) == key), None)


def repeats(names: Sequence[str]) -> Iterator[tuple[int, int]]:
    """(first, again) for each name of `names` that names a player listed before it (indexes)."""
    seen: dict[str, int] = {}
    for number, name in enumerate(names):
        first = seen.setdefault(name_key(name), number)
        if first != number:
            yield first, number


@cache
def _collator() -> Collator:
    return Collator()  # reads the Unicode collation table, which is slow: once per process


@lru_cache(maxsize=4096)  # the same few names, sorted on every page that lists them
def name_order(name: str) -> tuple:
    """A name's place in a list, as people read one: the Unicode Collation Algorithm ("Éloïse" with
    the Es, before "Ngono"; case and accents only break ties), then the name as typed."""
    return (_collator().sort_key(name), name)


def by_name(items: Iterable[T], name_of: Callable[[T], str] = str) -> list[T]:
    """`items` (names, or what `name_of` names) in name_order."""
    return sorted(items, key=lambda item: name_order(name_of(item)))


FSI, PDI = "\u2068", "\u2069"  # Unicode's first strong isolate and pop directional isolate


def isolate(name: str) -> str:
    """`name` between FSI and PDI for plain text (SVG labels, titles, hand words) so it keeps its own
    direction beside numbers ("عائشة 3"). HTML uses <bdi> instead (web.bidi). clean_name strips
    these characters from typed names, so the pair is always balanced."""
    return f"{FSI}{name}{PDI}"


def is_right_to_left(name: str) -> bool:
    """Whether `name` holds a right-to-left letter (Unicode bidi class R: Hebrew..., AL: Arabic...)."""
    return any(unicodedata.bidirectional(char) in ("R", "AL") for char in name)


def shared(name: str) -> str:
    """`name` for text leaving the app: isolated only if right-to-left (elsewhere the pair may show as boxes)."""
    return isolate(name) if is_right_to_left(name) else name


def without_isolates(text: str) -> str:
    """`text` without the FSI and PDI that `isolate` added (for files that keep names as typed)."""
    return text.replace(FSI, "").replace(PDI, "")
