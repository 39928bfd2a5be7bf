"""Players' names as typed at the table: cleaned the same way everywhere, compared without case.

Pure Python (no Django): the start form, the group's players and a saved match all use it.
"""

from __future__ import annotations

import unicodedata

NAME_MAX_LENGTH = 40
INVISIBLE = {"\u200b", "\u2060", "\ufeff", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}


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


def same_name(a: str, b: str) -> bool:
    """Whether two cleaned names name the same person at one table ("Cissé" and "cissé" do)."""
    return a.casefold() == b.casefold()


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
