"""How big a group may grow: the one place of each number, which the verbs, the forms, the archive's
checks and the pages all read. Far beyond what a weekly group of friends plays in twenty years
(a night is a few matches of a few dozen hands), and small enough that every page of a group at the
limits stays light and its archive imports again (tests/web/test_group_limits.py)."""

from __future__ import annotations

GROUP_PLAYERS = 300  # players a group keeps, those who left and those erased included (their rows stay)
GROUP_MATCHES = 5_000  # matches a group keeps
# Hands won in one match (a member's end adds the abandoned one after them). A tap, the table page and an
# undo of the last hand cost the same at any length of match (BENCHMARKS.md measures them at 10,000 hands);
# a correction of an early hand replays and rewrites every hand after it (about 3 s at 10,000 here).
MATCH_HANDS = 11_000
GROUP_HANDS = 50_000  # hands (won or abandoned) over all of a group's matches: bounds its archive and CSV

# The archive: a group at the limits above fits under this in the export's compact form, even with every
# field as long as it can be and 8 seats a match; a file over this is refused before it is read.
ARCHIVE_BYTES = 40 * 1024 * 1024
# No field of the archive holds a longer number, text or nesting (the longest number: a moment's
# microseconds or a total, 11 characters; the deepest: a hand's extras in a match of a group, 6).
ARCHIVE_DIGITS = 20
ARCHIVE_DEPTH = 12
# The JSON values (objects and lists; numbers, text, true, false, null) of a group at the limits, with room
# to spare: a hand has 5 objects and lists and about 40 values with 8 seats, a match 12 and 80, a player 1
# and 4. Counted before the file is read into memory, so that no file of the allowed size costs more than
# such a group (a file of a million empty objects would cost hundreds of MB).
ARCHIVE_CONTAINERS = GROUP_HANDS * 5 + GROUP_MATCHES * 12 + GROUP_PLAYERS * 1 + 100
ARCHIVE_VALUES = GROUP_HANDS * 45 + GROUP_MATCHES * 80 + GROUP_PLAYERS * 4 + 100
