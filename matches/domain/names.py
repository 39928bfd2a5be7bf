"""Players' names as typed at the table: the one set of rules every place that takes a name uses.

Pure Python (no Django). A name is kept as `clean_name` makes it; it is a name when `name_refusal`
finds nothing wrong; two spellings name the same player when their `name_key`s are equal
("Aicha", "aïcha " and "AÏCHA" are one player).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from matches.domain.errors import BadInput

NAME_MAX_LENGTH = 40
GROUP_NAME_MAX_LENGTH = 40
INVISIBLE = {"\u200b", "\u2060", "\ufeff", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
# The accents a key drops: the combining diacritical marks NFKD splits off letters ("ï" is i + U+0308).
# Marks of other scripts (Devanagari vowel signs, Arabic vowels) stay: there they are letters' parts.
ACCENTS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))

T = TypeVar("T")


def clean_name(raw: str) -> str:
    """A typed name as stored: Unicode NFC, control and invisible formatting characters dropped
    (joiners inside emoji stay), spaces trimmed and runs of spaces folded to one."""
    kept = "".join(
        char
        for char in unicodedata.normalize("NFC", raw)
        if char not in INVISIBLE and (unicodedata.category(char) != "Cc" or char.isspace())
    )
    return " ".join(kept.split())


def is_visible(name: str) -> bool:
    """At least one letter, digit or symbol (an emoji counts)."""
    return any(unicodedata.category(char)[0] in "LNS" for char in name)


def name_refusal(name: str) -> BadInput | None:
    """Why the cleaned `name` cannot be a player's, None when it can: "name_blank" (no letter, digit
    or symbol) or "name_too_long" (with `max` and `length`)."""
    if not is_visible(name):
        return BadInput("name_blank")
    if len(name) > NAME_MAX_LENGTH:
        return BadInput("name_too_long", max=NAME_MAX_LENGTH, length=len(name))
    return None


def checked_name(raw: str) -> str:
    """`raw` cleaned; raises name_refusal's BadInput when that is no player's name."""
    name = clean_name(raw)
    if (refusal := name_refusal(name)) is not None:
        raise refusal
    return name


def _is_accent(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in ACCENTS)


def name_key(name: str) -> str:
    """What the spellings of one player share: the cleaned name case-folded, accents dropped (NFKD)
    and spaces folded, so "Aïcha", "aicha" and "AÏCHA " give one key."""
    decomposed = unicodedata.normalize("NFKD", clean_name(name).casefold())
    return " ".join("".join(char for char in decomposed if not _is_accent(char)).split())


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


FSI, PDI = "\u2068", "\u2069"  # Unicode's first strong isolate and pop directional isolate


def isolate(name: str) -> str:
    """`name` between FSI and PDI, for text that stays plain on the screen (a chart's label in SVG, a
    page's title, a hand's few words; the shared result: `shared`): the name takes its own direction from its
    first letter and stays next to its own numbers, so "عائشة 3" never shows as "3 عائشة" in a
    left-to-right line, nor "Ana: 2" in a right-to-left one. HTML puts names in <bdi> instead
    (matches.web.bidi). clean_name drops such characters from typed names, so the pair is always balanced."""
    return f"{FSI}{name}{PDI}"


def is_right_to_left(name: str) -> bool:
    """Whether `name` holds a right-to-left letter (Unicode bidi class R: Hebrew..., AL: Arabic...)."""
    return any(unicodedata.bidirectional(char) in ("R", "AL") for char in name)


def shared(name: str) -> str:
    """`name` for plain text that leaves the app (the result a table shares to a chat or an SMS):
    between FSI and PDI only when it holds right-to-left letters, which need them to keep their place
    beside numbers; a Latin name goes bare, as the invisible pair may show as boxes in other apps."""
    return isolate(name) if is_right_to_left(name) else name


def without_isolates(text: str) -> str:
    """`text` without the FSI and PDI that `isolate` added (for files that keep names as typed)."""
    return text.replace(FSI, "").replace(PDI, "")
