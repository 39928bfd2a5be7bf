"""An archive's changes of who plays mid-match (each seat's first and last hands, the changes' log),
the receipts of a match's changes and of a group's player's."""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

from matches.domain import rules, seating
from matches.domain.capacity import MATCH_HANDS
from matches.models import PlayerChange, Receipt, TableChange
from matches.models.players import PHONE_MAX_LENGTH
from matches.services.archive.fields import (
    ArchiveError,
    check_fields,
    POINTS_MAX,
    fail_type,
    is_whole,
    problem_at,
    read_choice,
    read_list,
    read_moment,
    read_object,
    read_text,
    read_whole,
    whole_kind,
)
from matches.services.wording import rule_message

CHANGE_FIELDS = ("before", "kind", "seat", "name", "name_before", "at", "by_phone")
NAME_LENGTH = TableChange._meta.get_field("name").max_length


def read_stays(seats: list[dict], entries: list[dict], where: str, open_number: int) -> list[seating.Stay]:
    """Each seat's hands (`joined`, `left`: left out for a seat that played the whole match)."""
    stays = []
    for position, (seat, entry) in enumerate(zip(seats, entries, strict=True)):
        at = f"{where}.seats[{position}]"
        joined = read_whole(entry, "joined", f"{at}.joined", 1, open_number) if "joined" in entry else 1
        left = read_whole(entry, "left", f"{at}.left", joined + 1, open_number, optional=True) if "left" in entry else None
        seat.update(joined=joined, left=left)
        stays.append(seating.Stay(joined, left))
    return stays


def check_counts(game: rules.Game, stays: list[seating.Stay], where: str, open_number: int) -> None:
    """The game's number of players at every hand (and the open one), however the table changed."""
    for number in sorted({1, open_number} | {stay.joined for stay in stays} | {stay.left or 1 for stay in stays}):
        try:
            game.check_player_count(len(seating.playing(stays, min(number, open_number))))
        except rules.RuleError as error:
            raise problem_at(f"{where}.seats", rule_message(error)) from None


def read_changes(entry: dict, where: str, n_seats: int, open_number: int) -> list[dict]:
    """TableChange's fields (seat: a position), in the order they were made."""
    changes = []
    for at, change in _listed(entry, "table_changes", where, CHANGE_FIELDS):
        changes.append(
            {
                "before": read_whole(change, "before", f"{at}.before", 1, open_number),
                "kind": read_choice(change, "kind", f"{at}.kind", list(TableChange.Kind.values)),
                "seat": read_whole(change, "seat", f"{at}.seat", 0, n_seats - 1),
                "name": read_text(change, "name", f"{at}.name", NAME_LENGTH),
                "name_before": read_text(change, "name_before", f"{at}.name_before", NAME_LENGTH),
                "at": read_moment(change, "at", f"{at}.at"),
                "by_phone": read_text(change, "by_phone", f"{at}.by_phone", PHONE_MAX_LENGTH),
            }
        )
    if [change["before"] for change in changes] != sorted(change["before"] for change in changes):
        raise ArchiveError(_("%(where)s should list the changes in the order they were made.") % {"where": where})
    return changes


RECEIPT_FIELDS = ("verb", "number", "by_phone", "by_seat", "at", "before", "after", "last")
KEPT_HAND_LENGTH = 400  # a hand as a receipt keeps it: its winner, answers and points (8 seats)


def read_receipts(entry: dict, where: str, n_seats: int) -> list[dict]:
    """Receipt's fields of each change the match kept a receipt of, in the order made (hands since undone
    included)."""
    receipts = []
    for at, receipt in _listed(entry, "receipts", where, RECEIPT_FIELDS):
        kept = {key: _kept_hand(receipt, key, f"{at}.{key}", n_seats) for key in ("before", "after")}
        receipts.append(
            {
                "verb": read_choice(receipt, "verb", f"{at}.verb", list(Receipt.Verb.values)),
                "number": read_whole(receipt, "number", f"{at}.number", 1, MATCH_HANDS + 1, optional=True),
                "by_phone": read_text(receipt, "by_phone", f"{at}.by_phone", PHONE_MAX_LENGTH),
                "by_seat": read_whole(receipt, "by_seat", f"{at}.by_seat", 0, n_seats - 1, optional=True),
                "at": read_moment(receipt, "at", f"{at}.at"),
                "last": read_whole(receipt, "last", f"{at}.last", 0, MATCH_HANDS + 1, optional=True),
                **kept,
            }
        )
    return receipts


def _kept_hand(receipt: dict, key: str, where: str, n_seats: int) -> dict:
    """A hand as a receipt keeps it: {} (none), or its winner's seat, answers and a whole number a seat (as many
    seats as it had then: a latecomer may have sat down since)."""
    hand = read_object(receipt[key], where)
    if not hand:
        return hand
    check_fields(hand, where, ("winner", "extras", "points"))
    read_whole(hand, "winner", f"{where}.winner", 0, n_seats - 1)
    extras = read_object(hand["extras"], f"{where}.extras")
    points = read_list(hand, "points", f"{where}.points")
    if len(points) > n_seats or not all(is_whole(value) and abs(value) <= POINTS_MAX for value in points):
        fail_type(f"{where}.points", points, whole_kind(-POINTS_MAX, POINTS_MAX))
    if len(json.dumps(extras)) > KEPT_HAND_LENGTH:
        fail_type(f"{where}.extras", extras, _("an object {...} of at most %(max)d characters") % {"max": KEPT_HAND_LENGTH})
    return hand


def _listed(entry: dict, key: str, where: str, fields: tuple[str, ...]):
    """(where, object) for each object of the match's optional list `key`, each with exactly `fields`."""
    for number, item in enumerate(read_list(entry, key, f"{where}.{key}") if key in entry else []):
        at = f"{where}.{key}[{number}]"
        item = read_object(item, at)
        check_fields(item, at, fields)
        yield at, item


PLAYER_CHANGE_FIELDS = ("verb", "before", "after", "by_phone", "at")


def read_player_changes(entry: dict, where: str, erased: bool) -> list[dict]:
    """A player's receipts (optional: an archive from before them has none), oldest first; an erased
    player's keep no name (as Group.erase_player leaves them)."""
    if "changes" not in entry:
        return []
    changes = []
    for number, change in enumerate(read_list(entry, "changes", f"{where}.changes")):
        at = f"{where}.changes[{number}]"
        change = read_object(change, at)
        check_fields(change, at, PLAYER_CHANGE_FIELDS)
        names = {key: read_text(change, key, f"{at}.{key}", NAME_LENGTH) for key in ("before", "after")}
        changes.append(
            {
                "verb": read_choice(change, "verb", f"{at}.verb", list(PlayerChange.Verb.values)),
                **({"before": "", "after": ""} if erased else names),
                "by_phone": read_text(change, "by_phone", f"{at}.by_phone", PHONE_MAX_LENGTH),
                "at": read_moment(change, "at", f"{at}.at"),
            }
        )
    return changes
