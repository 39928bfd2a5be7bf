"""The archive's constants, its error, and field readers that return a value or raise ArchiveError
naming where and what it should be."""

from __future__ import annotations

import datetime
import json

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from matches.domain.names import clean_name
from matches.models.zones import ZONE_MAX_LENGTH, clean_zone

FORMAT = "last-trick-group"
VERSION = 1
INT_MAX = 2**31 - 1  # the databases' integer columns
POINTS_MAX = 1_000_000  # what one hand may give or take from one seat
STAMP_MAX_LENGTH = 12  # Hand.stamp
EXTRAS_MAX_LENGTH = 200  # a hand's extras as JSON (the longest a game records: about 60 characters)
# A file's moments: from EARLIEST to CLOCKS_APART after this server's now (another server's clock).
EARLIEST = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
CLOCKS_APART = datetime.timedelta(days=1)

GROUP_FIELDS = ("format", "version", "name", "created_at", "changed_at", "players", "sittings")
ZONE = "time_zone"  # in a group and in each of its sittings; optional (absent: the server's clock)
# Stakes and payments in the currency's smallest units (cents: matches.domain.money); absent in older
# archives, whose amounts are whole units.
MONEY, SMALLEST = "money", "smallest units"
PLAYER_FIELDS = ("name", "left", "erased")
SITTING_FIELDS = (
    "game",
    "end_kind",
    "end_target",
    "starting_chips",
    "stake_amount",
    "stake_label",
    "chips_reissued",
    "reissued_before",
    "threshold",
    "tied_at",
    "next_sitting",
    "started_at",
    "changed_at",
    "finished_at",
    "ended_how",
    "seats",
    "hands",
)
SEAT_FIELDS = ("player", "total", "hands_won", "best_run")
HAND_FIELDS = (
    "number",
    "status",
    "winner",
    "dealer_position",
    "extras",
    "points",
    "running",
    "threshold_after",
    "recorded_at",
    "recorded_by_phone",
    "recorded_by_seat",
    "corrected_at",
    "corrected_by_phone",
    "corrected_by_seat",
    "stamp",
)


class ArchiveError(ValueError):
    """An archive this server cannot import; `message` says what to fix, translated. Nothing was written."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def check_fields(entry: dict, where: str, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """`entry` has exactly the fields `names`, and may have those of `optional`."""
    for name in names:
        if name not in entry:
            raise ArchiveError(_('%(where)s has no "%(field)s": add it.') % {"where": where, "field": name})
    for name in entry:
        if name not in names and name not in optional:
            raise ArchiveError(
                _('%(where)s has a field "%(field)s" that this format does not know: remove it.')
                % {"where": where, "field": shown(name, quoted=False)}
            )


def read_zone(entry: dict, where: str) -> str:
    """The entry's "time_zone": "" when absent or unknown here; ArchiveError beyond 64 characters."""
    if ZONE not in entry:
        return ""
    value = entry[ZONE]
    if not isinstance(value, str) or len(value) > ZONE_MAX_LENGTH:
        fail_type(where, value, _("text of at most %(max)d characters") % {"max": ZONE_MAX_LENGTH})
    return clean_zone(value)


def problem_at(where: str, problem: str) -> ArchiveError:
    return ArchiveError(_("%(where)s: %(problem)s") % {"where": where, "problem": problem})


def shown(value: object, quoted: bool = True, length: int = 40) -> str:
    """`value` as a refusal shows it: as JSON (`quoted`; else text as it is), cut after `length` characters.
    (Values reach here read by read_archive: finite numbers, no lone surrogate, shallow.)"""
    written = json.dumps(value, ensure_ascii=False) if quoted else str(value)
    return written if len(written) <= length else f"{written[:length]}…"


def counted(number: int) -> str:
    """A count as the reader's language groups it: "5,000", "5 000"."""
    return formats.number_format(number, force_grouping=True)


def fail_type(where: str, value: object, kind: str) -> None:
    raise ArchiveError(
        _("%(where)s should be %(kind)s, not %(value)s.") % {"where": where, "kind": kind, "value": shown(value)}
    )


def fail_unclean(where: str, name: str) -> None:
    raise ArchiveError(
        _("%(where)s has spaces or invisible characters this server would not keep: write it %(clean)s.")
        % {"where": where, "clean": json.dumps(clean_name(name), ensure_ascii=False)}
    )


def is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole_kind(low: int, high: int) -> str:
    return _("a whole number from %(low)d to %(high)d") % {"low": low, "high": high}


def or_null(kind: str) -> str:
    return _("%(kind)s, or null") % {"kind": kind}


def read_object(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        fail_type(where, value, _("an object {...}"))
    return value


def read_list(entry: dict, key: str, where: str) -> list:
    value = entry[key]
    if not isinstance(value, list):
        fail_type(where, value, _("a list [...]"))
    return value


def read_text(entry: dict, key: str, where: str, max_length: int) -> str:
    value = entry[key]
    if not isinstance(value, str) or len(value) > max_length:
        fail_type(where, value, _("text of at most %(max)d characters") % {"max": max_length})
    if "\x00" in value:  # no database column keeps it (PostgreSQL refuses it)
        raise ArchiveError(_("%(where)s holds a null character: remove it.") % {"where": where})
    return value


def read_flag(entry: dict, key: str, where: str) -> bool:
    value = entry[key]
    if not isinstance(value, bool):
        fail_type(where, value, _("true or false"))
    return value


def read_whole(entry: dict, key: str, where: str, low: int, high: int, optional: bool = False) -> int | None:
    value = entry[key]
    if value is None and optional:
        return None
    if not is_whole(value) or not low <= value <= high:
        kind = whole_kind(low, high)
        fail_type(where, value, or_null(kind) if optional else kind)
    return value


def read_choice(entry: dict, key: str, where: str, choices: list[str]) -> str:
    value = entry[key]
    if value not in choices or not isinstance(value, str):
        listed = ", ".join(json.dumps(choice) for choice in choices)
        fail_type(where, value, _("one of %(choices)s") % {"choices": listed})
    return value


def read_moment(entry: dict, key: str, where: str, optional: bool = False) -> datetime.datetime | None:
    value = entry[key]
    if value is None and optional:
        return None
    moment = None
    if isinstance(value, str):
        try:
            moment = datetime.datetime.fromisoformat(value)
        except ValueError:
            moment = None
    if moment is None or moment.tzinfo is None:
        kind = _("a date and time with its offset from UTC, like 2025-05-01T19:15:00+00:00")
        fail_type(where, value, or_null(kind) if optional else kind)
    if not EARLIEST <= moment <= timezone.now() + CLOCKS_APART:
        raise ArchiveError(
            _("%(where)s is %(value)s: a moment this group played or changed something is from 2000 until today.")
            % {"where": where, "value": shown(value)}
        )
    return moment


def in_whole_units(data: dict) -> bool:
    """Whether the archive's amounts are whole units (an older archive); ArchiveError for an unknown "money"."""
    if MONEY not in data:
        return True
    if data[MONEY] != SMALLEST:
        raise ArchiveError(_('The archive\'s "money" should be "%(money)s".') % {"money": SMALLEST})
    return False
