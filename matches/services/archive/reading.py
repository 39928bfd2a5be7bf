"""Reading an archive's file: bytes to JSON, and every value one this server can keep (numbers no field
holds, text no database keeps, nesting), each refusal naming the field. checks.py then reads the fields."""

from __future__ import annotations

import json
import math
import re


from django.utils.translation import gettext as _

from matches.domain.capacity import ARCHIVE_BYTES, ARCHIVE_CONTAINERS, ARCHIVE_DEPTH, ARCHIVE_DIGITS, ARCHIVE_VALUES
from matches.services.archive.fields import ArchiveError, counted, shown


def too_big_message() -> str:
    return _("This file is larger than %(size)d MB: a group's archive is much smaller. Choose its .json file.") % {
        "size": ARCHIVE_BYTES // (1024 * 1024)
    }


def read_archive(raw: bytes) -> object:
    """The JSON value of an uploaded or read file; ArchiveError when it is over ARCHIVE_BYTES, not UTF-8,
    empty, not JSON, nested too deep for the parser, or gives a field twice in one object. A number no
    field holds (too many digits, NaN, Infinity, 1e999) is left in its place as a marker, and
    check_values (which checked_archive runs first) refuses it naming its field."""
    if len(raw) > ARCHIVE_BYTES:
        raise ArchiveError(too_big_message())
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArchiveError(
            _("This file is not UTF-8 text (byte %(at)d): choose the .json file the group's page gave.")
            % {"at": error.start + 1}
        ) from None
    if not text.strip():
        raise ArchiveError(_("This file is empty: choose the .json file the group's page gave."))
    _check_counts(text)
    try:
        data = json.loads(
            text,
            parse_int=_whole_number,
            parse_float=_fraction,
            parse_constant=_Unreadable,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as error:
        raise ArchiveError(
            _(
                "This file is not JSON (line %(line)d, column %(column)d): choose the .json file the group's page gave."
            )
            % {"line": error.lineno, "column": error.colno}  # (not json's own words: English only)
        ) from None
    except RecursionError:
        raise _too_deep() from None
    except _Twice as twice:
        raise ArchiveError(
            _('This file gives the field %(field)s twice in one object: keep one.') % {"field": shown_key(twice.key)}
        ) from None
    return data


# A JSON text, whatever its characters and escapes (the file's text is read as UTF-8 before).
TEXTS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _check_counts(text: str) -> None:
    """Count the file's objects and lists, and its values (each comma parts two), with its texts set
    aside, before anything is built from it; refuse a file holding more than a group at the limits."""
    bare = TEXTS.sub('""', text)
    containers = bare.count("{") + bare.count("[")
    values = bare.count(",") + 1
    if containers > ARCHIVE_CONTAINERS or values > ARCHIVE_VALUES:
        raise ArchiveError(
            _(
                "This file holds more values than any group's archive (over %(max)s): "
                "choose the .json file the group's page gave."
            )
            % {"max": counted(ARCHIVE_VALUES if values > ARCHIVE_VALUES else ARCHIVE_CONTAINERS)}
        )


class _Unreadable:
    """A number written in the file that no field can hold (too many digits, NaN, Infinity, 1e999): kept
    in its place until check_values names its field."""

    def __init__(self, text: str):
        self.text = text


class _Twice(Exception):
    def __init__(self, key: str):
        self.key = key


def _whole_number(text: str) -> int | _Unreadable:
    # Before int(): Python refuses over 4,300 digits (ValueError), and converting long ones is slow.
    return _Unreadable(text) if len(text) > ARCHIVE_DIGITS else int(text)


def _fraction(text: str) -> float | _Unreadable:
    value = float(text)
    return value if math.isfinite(value) else _Unreadable(text)


def _object(pairs: list[tuple[str, object]]) -> dict:
    made = dict(pairs)
    if len(made) != len(pairs):
        seen: set[str] = set()
        raise _Twice(next(key for key, _value in pairs if key in seen or seen.add(key)))
    return made


def _too_deep() -> ArchiveError:
    return ArchiveError(
        _(
            "This file is not a Last Trick group archive: its lists and objects nest more than %(depth)d deep. "
            "Choose the .json file the group's page gave."
        )
        % {"depth": ARCHIVE_DEPTH}
    )


UNKEPT = re.compile(r"[\x00\ud800-\udfff]")  # text no database keeps: NUL, and halves of a UTF-16 pair
PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


def check_values(data: object) -> None:
    """Every value of `data` one this server can keep: ArchiveError naming the first (in file order)
    number no field holds (over ARCHIVE_DIGITS digits, NaN, Infinity, 1e999), text with a null
    character or a lone surrogate (field names too), or nesting deeper than ARCHIVE_DEPTH. A quick
    pass without recursion, then, only for a refusal, a second one that tracks where it is."""
    waiting: list[tuple[object, int]] = [(data, 0)]
    while waiting:
        value, depth = waiting.pop()
        if type(value) is dict:
            if depth >= ARCHIVE_DEPTH or any(type(key) is not str or UNKEPT.search(key) for key in value):
                _name_the_problem(data)
            items = value.values()
        elif type(value) is list:
            if depth >= ARCHIVE_DEPTH:
                _name_the_problem(data)
            items = value
        else:
            items = (value,)
        for item in items:
            kind = type(item)
            if kind is dict or kind is list:
                waiting.append((item, depth + 1))
            elif (kind is str and UNKEPT.search(item)) or _unkept_number(item):
                _name_the_problem(data)


def _unkept_number(value: object) -> bool:
    kind = type(value)
    if kind is int:
        return not -BIGGEST < value < BIGGEST
    if kind is float:
        return not math.isfinite(value)
    return kind is _Unreadable


BIGGEST = 10**ARCHIVE_DIGITS


def _name_the_problem(value: object, where: str = "", depth: int = 0) -> None:
    """Raise the refusal of the first value check_values would refuse, with where it is (at most
    ARCHIVE_DEPTH calls deep)."""
    if isinstance(value, (dict, list)) and depth >= ARCHIVE_DEPTH:
        raise _too_deep()
    if isinstance(value, dict):
        for key, item in value.items():
            key = key if isinstance(key, str) else str(key)  # (JSON's are text; a caller's dict may differ)
            at = field_path(where, key)
            _check_text(key, at)
            _name_the_problem(item, at, depth + 1)
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _name_the_problem(item, f"{where}[{number}]", depth + 1)
    elif isinstance(value, str):
        _check_text(value, where)
    elif _unkept_number(value):
        _refuse_number(value, where or _("The archive"))


def field_path(where: str, key: str) -> str:
    """`where`.`key` as the refusals name a field; a key that is not a plain name in quotes (escaped, short)."""
    if PLAIN_KEY.fullmatch(key):
        return f"{where}.{key}" if where else key
    return f"{where}[{shown_key(key)}]"


def shown_key(key: str) -> str:
    """A field's name as a refusal shows it: in JSON quotes, non-ASCII escaped, at most 40 characters."""
    written = json.dumps(key)
    return written if len(written) <= 40 else f"{written[:39]}…\""


def _check_text(text: str, where: str) -> None:
    found = UNKEPT.search(text)
    if found is None:
        return
    where = where or _("The archive")
    if found.group() == "\x00":  # no database column keeps it (PostgreSQL refuses it)
        raise ArchiveError(_("%(where)s holds a null character: remove it.") % {"where": where})
    raise ArchiveError(
        _("%(where)s holds a broken character (a lone surrogate, \\ud800 to \\udfff): remove it.") % {"where": where}
    )


def _refuse_number(value: object, where: str) -> None:
    text = value.text if isinstance(value, _Unreadable) else repr(value)  # an int: a caller's own data
    if isinstance(value, int):
        # Python writes ints of 4,300 digits at most: count them from the bits (the count of a long one
        # may be one short).
        text = "9" * max(ARCHIVE_DIGITS + 1, int(abs(value).bit_length() * math.log10(2)))
    if text.lstrip("-").isdigit():
        digits = len(text.lstrip("-"))
        raise ArchiveError(
            _("%(where)s is a number of %(digits)s digits: no field of a group's archive holds more than %(max)d.")
            % {"where": where, "digits": counted(digits), "max": ARCHIVE_DIGITS}
        )
    raise ArchiveError(
        _("%(where)s is %(value)s, which is not a number a group's archive can hold: write a whole number.")
        % {"where": where, "value": shown(text, quoted=False)}
    )
