"""A whole group as one JSON document, and back: the archive another server imports.

`export_group(group)` reads the group in one snapshot and returns the document; `import_group(data)`
checks a document through and through, then writes a new group from it in one transaction (or
raises ArchiveError, saying what to fix, having written nothing). Exporting the imported group gives
the same document again: nothing in it depends on the server it came from.

Format "last-trick-group", version 1 (indexes are 0-based positions in the file's lists):

    {
      "format": "last-trick-group", "version": 1,
      "name": "Thursday club", "created_at": "2025-05-01T19:15:00.123456+00:00", "changed_at": "...",
      "time_zone": "Africa/Lome",                                 # "": the server's; may be left out
      "players": [{"name": "Aïcha", "left": false, "erased": false}, ...],      # in the order they joined
      "sittings": [                                                             # oldest first
        {"game": "cat-te", "end_kind": "hands", "end_target": 12,
         "starting_chips": 20, "stake_amount": null, "stake_label": "",
         "chips_reissued": 1, "reissued_before": [7], "threshold": null, "tied_at": null,
         "next_sitting": 3,                                   # its rematch, a later entry of "sittings"
         "started_at": "...", "changed_at": "...", "finished_at": "..." or null, "ended_how": "match-end",
         "time_zone": "Asia/Ho_Chi_Minh",                     # its table's clock; may be left out
         "seats": [{"player": 0, "total": 5, "hands_won": 2, "best_run": 1}, ...],   # in playing order
         "hands": [{"number": 1, "status": "won", "winner": 2, "dealer_position": 0,  # winner: a seat
                    "extras": {"how": "sweep", "aces": [1]}, "points": [-3, -2, 5], "running": [-3, -2, 5],
                    "threshold_after": null, "recorded_at": "...", "recorded_by_phone": "k3Xa",
                    "recorded_by_seat": 2, "corrected_at": null, "corrected_by_phone": "",
                    "corrected_by_seat": null, "stamp": "Qx9_ab12"}, ...]},
        ...]
    }

Times are ISO 8601 in UTC; each match is shown on the clock of its "time_zone" (an IANA name, the
zone of the phone that started it; "" for the server's own). Archives from before time zones were kept
have no "time_zone": "" then. A zone this server's time zone database does not know is read as "" too,
rather than refusing the group. Left out on purpose: the links (tokens are secrets of the server that
made them; an import gets new ones), database ids, and the `version` counters (they count one
server's changes, which phones poll against; an imported group and its matches start at 1). A
rematch link to a match outside the group (a match saved into the group after its rematch was
started elsewhere) is left out too (null): that match is not in the file.

Import trusts the file only where the models themselves keep history as it was: when and by whom
each hand was recorded or corrected, and who dealt a hand after one whose winner was corrected.
Everything the models derive is worked out again by the same rules and must agree: each hand's
points (from its winner and extra facts, which the game's own questions check) and dealer, the
seats' totals, wins and best runs, each hand's running totals and threshold, the match's threshold,
and whether its match end was reached. Moments lie between 2000 and the day after the import.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.domain import rules
from matches.domain.errors import BadInput
from matches.models import (
    GROUP_NAME_MAX_LENGTH,
    STAKE_LABEL_MAX_LENGTH,
    Group,
    Hand,
    Player,
    Seat,
    Sitting,
    as_stored,
    check_options,
)
from matches.domain.names import NAME_MAX_LENGTH
from matches.domain.replay import longest_run
from matches.domain.names import clean_name, is_visible
from matches.models.snapshot import read_snapshot
from matches.web.texts import rule_message
from matches.models.zones import ZONE_MAX_LENGTH, clean_zone

FORMAT = "last-trick-group"
VERSION = 1
INT_MAX = 2**31 - 1  # the databases' integer columns
POINTS_MAX = 1_000_000  # what one hand may give or take from one seat
PHONE_MAX_LENGTH = STAMP_MAX_LENGTH = 12  # Hand.recorded_by_phone, corrected_by_phone, stamp
# A file's moments: from EARLIEST to CLOCKS_APART after this server's now (another server's clock).
EARLIEST = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
CLOCKS_APART = datetime.timedelta(days=1)

GROUP_FIELDS = ("format", "version", "name", "created_at", "changed_at", "players", "sittings")
ZONE = "time_zone"  # in a group and in each of its sittings; optional (archives made before it lack it)
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
    """A group archive this server cannot import, or a file that is not one; `message` says what to
    fix, in the active language. Nothing was written."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# --- export ------------------------------------------------------------------------


def export_group(group: Group) -> dict:
    """The group's archive (see the module's docstring), read in one snapshot. Raises
    Group.DoesNotExist when the group was deleted meanwhile."""
    with read_snapshot():
        group = Group.objects.get(pk=group.pk)
        players = list(group.players.order_by("pk"))
        index = {player.pk: number for number, player in enumerate(players)}
        sittings = list(group.sittings.order_by("started_at", "pk"))
        numbers = {sitting.pk: number for number, sitting in enumerate(sittings)}
        seats: dict[int, list[Seat]] = {sitting.pk: [] for sitting in sittings}
        for seat in Seat.objects.filter(sitting__group=group).order_by("sitting_id", "position"):
            seats[seat.sitting_id].append(seat)
        hands: dict[int, list[dict]] = {sitting.pk: [] for sitting in sittings}
        positions = {seat.pk: seat.position for listed in seats.values() for seat in listed}
        for hand in Hand.objects.filter(sitting__group=group).order_by("sitting_id", "number").iterator(2000):
            hands[hand.sitting_id].append(_hand_entry(hand, positions))
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": group.name,
            "created_at": _moment(group.created_at),
            "changed_at": _moment(group.changed_at),
            ZONE: group.time_zone,
            "players": [{"name": p.name, "left": p.left, "erased": p.erased} for p in players],
            "sittings": [
                _sitting_entry(sitting, seats[sitting.pk], hands[sitting.pk], index, numbers) for sitting in sittings
            ],
        }


def _sitting_entry(
    sitting: Sitting, seats: list[Seat], hands: list[dict], players: dict[int, int], numbers: dict[int, int]
) -> dict:
    for seat in seats:
        if seat.player_id not in players:  # every verb seats the group's own players
            raise ArchiveError(f"Match {sitting.pk} seats player {seat.player_id}, who is not in its group.")
    return {
        "game": sitting.game,
        "end_kind": sitting.end_kind,
        "end_target": sitting.end_target,
        "starting_chips": sitting.starting_chips,
        "stake_amount": sitting.stake_amount,
        "stake_label": sitting.stake_label,
        "chips_reissued": sitting.chips_reissued,
        "reissued_before": list(sitting.reissued_before),
        "threshold": sitting.threshold,
        "tied_at": sitting.tied_at,
        "next_sitting": numbers.get(sitting.next_sitting_id),
        "started_at": _moment(sitting.started_at),
        "changed_at": _moment(sitting.changed_at),
        "finished_at": _moment(sitting.finished_at),
        "ended_how": sitting.ended_how,
        ZONE: sitting.time_zone,
        "seats": [
            {"player": players[s.player_id], "total": s.total, "hands_won": s.hands_won, "best_run": s.best_run}
            for s in seats
        ],
        "hands": hands,
    }


def _hand_entry(hand: Hand, positions: dict[int, int]) -> dict:
    return {
        "number": hand.number,
        "status": hand.status,
        "winner": positions[hand.winner_id] if hand.winner_id is not None else None,
        "dealer_position": hand.dealer_position,
        "extras": hand.extras,
        "points": list(hand.points),
        "running": list(hand.running),
        "threshold_after": hand.threshold_after,
        "recorded_at": _moment(hand.recorded_at),
        "recorded_by_phone": hand.recorded_by_phone,
        "recorded_by_seat": hand.recorded_by_seat,
        "corrected_at": _moment(hand.corrected_at),
        "corrected_by_phone": hand.corrected_by_phone,
        "corrected_by_seat": hand.corrected_by_seat,
        "stamp": hand.stamp,
    }


def _moment(value: datetime.datetime | None) -> str | None:
    return None if value is None else value.astimezone(datetime.UTC).isoformat()


def dumps(data: Mapping) -> str:
    """The archive as the text of a .json file (UTF-8, one field a line)."""
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


# --- reading a file ----------------------------------------------------------------


def read_archive(raw: bytes) -> object:
    """The JSON value of an uploaded or read file; ArchiveError when it is not UTF-8 JSON."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ArchiveError(_("This file is not UTF-8 text: choose the .json file the group's page gave.")) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ArchiveError(
            _(
                "This file is not JSON (line %(line)d, column %(column)d: %(error)s): "
                "choose the .json file the group's page gave."
            )
            % {"line": error.lineno, "column": error.colno, "error": error.msg}
        ) from None
    except RecursionError:
        raise ArchiveError(
            _("This file is not a Last Trick group archive: choose the .json file the group's page gave.")
        ) from None


# --- import ------------------------------------------------------------------------


@dataclass
class _Player:
    name: str
    left: bool
    erased: bool


@dataclass
class _Hand:
    fields: dict  # Hand's fields, but winner: a seat position or None
    winner: int | None


@dataclass
class _Sitting:
    fields: dict  # Sitting's fields, but next_sitting: an index or None
    next_sitting: int | None
    seats: list[dict] = field(default_factory=list)  # Seat's fields, player: an index
    hands: list[_Hand] = field(default_factory=list)


def import_group(data: object) -> Group:
    """A new group (new links) holding everything `data` (an archive, as export_group makes it)
    holds. Raises ArchiveError, naming the field and what to fix, when anything in it is not as
    this server keeps it; nothing is written then. The group's `changed_at` becomes the moment of
    the import (a change on this server: retention counts from it), everything else is as in `data`."""
    name, created_at, _changed_at, players, sittings = _checked(data)
    zone = _zone(data, ZONE)
    with transaction.atomic():
        group = Group.objects.create(name=name, created_at=created_at, changed_at=timezone.now(), time_zone=zone)
        made = _inserted([Player(name=p.name, group=group, left=p.left, erased=p.erased) for p in players])
        rows = _inserted([Sitting(group=group, **s.fields) for s in sittings])
        seats = _inserted(
            [
                Seat(sitting=row, player=made[entry["player"]], position=position, **_without(entry, "player"))
                for row, s in zip(rows, sittings)
                for position, entry in enumerate(s.seats)
            ]
        )
        by_sitting: list[list[Seat]] = []
        for s in sittings:
            by_sitting.append(seats[: len(s.seats)])
            seats = seats[len(s.seats) :]
        Hand.objects.bulk_create(
            (
                Hand(sitting=row, winner=None if h.winner is None else table[h.winner], **h.fields)
                for row, s, table in zip(rows, sittings, by_sitting)
                for h in s.hands
            ),
            batch_size=500,
        )
        linked = []
        for row, s in zip(rows, sittings):
            if s.next_sitting is not None:
                row.next_sitting = rows[s.next_sitting]
                linked.append(row)
        Sitting.objects.bulk_update(linked, ["next_sitting"])
    return group


def _inserted(rows: list) -> list:
    """Insert `rows` (new model instances of one model), which then carry their ids."""
    if rows and not connection.features.can_return_rows_from_bulk_insert:  # SQLite before 3.35
        for row in rows:
            row.save(force_insert=True)
        return rows
    return type(rows[0]).objects.bulk_create(rows) if rows else rows


def _without(entry: dict, key: str) -> dict:
    return {k: v for k, v in entry.items() if k != key}


def _checked(data: object) -> tuple[str, datetime.datetime, datetime.datetime, list[_Player], list[_Sitting]]:
    """The archive's contents, every field checked (raises ArchiveError)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(
            _('This file is not a Last Trick group archive: its "format" should be "%(format)s".') % {"format": FORMAT}
        )
    if data.get("version") != VERSION or type(data.get("version")) is not int:  # (not true, not 1.0)
        raise ArchiveError(
            _("This archive is version %(found)s of the format; this server reads version %(known)d only.")
            % {"found": json.dumps(data.get("version")), "known": VERSION}
        )
    _fields(data, _("The archive"), GROUP_FIELDS, optional=(ZONE,))
    name = _text(data, "name", "name", GROUP_NAME_MAX_LENGTH)
    if name != clean_name(name):
        _fail_unclean("name", name)
    created_at = _moment_of(data, "created_at", "created_at")
    changed_at = _moment_of(data, "changed_at", "changed_at")
    players = [_player(entry, f"players[{number}]") for number, entry in enumerate(_list(data, "players", "players"))]
    _distinct_members(players)
    entries = _list(data, "sittings", "sittings")
    sittings = [
        _sitting(entry, f"sittings[{number}]", len(players), len(entries)) for number, entry in enumerate(entries)
    ]
    rematched: dict[int, int] = {}
    for number, sitting in enumerate(sittings):
        target = sitting.next_sitting
        if target is None:
            continue
        if target <= number or target in rematched or sittings[target].fields["game"] != sitting.fields["game"]:
            raise ArchiveError(
                _(
                    "sittings[%(number)d].next_sitting is %(target)d: a rematch is a later match of the file, "
                    "of the same game, and each match is the rematch of one match at most."
                )
                % {"number": number, "target": target}
            )
        rematched[target] = number
    return name, created_at, changed_at, players, sittings


def _player(entry: object, where: str) -> _Player:
    entry = _object(entry, where)
    _fields(entry, where, PLAYER_FIELDS)
    name = _text(entry, "name", f"{where}.name", NAME_MAX_LENGTH)
    if not is_visible(name):
        raise ArchiveError(
            _("%(where)s.name is not a name: it needs a letter, a digit or a symbol.") % {"where": where}
        )
    if name != clean_name(name):
        _fail_unclean(f"{where}.name", name)
    player = _Player(name, _flag(entry, "left", f"{where}.left"), _flag(entry, "erased", f"{where}.erased"))
    if player.erased and not player.left:
        raise ArchiveError(
            _("%(where)s is erased but not left: an erased player is off the list too (left: true).") % {"where": where}
        )
    return player


def _distinct_members(players: list[_Player]) -> None:
    """No two of the group's players, members, former or erased, share a name, case aside (as the group
    keeps them: a newcomer of a former player's name is that player back)."""
    seen: dict[str, int] = {}
    for number, player in enumerate(players):
        first = seen.setdefault(player.name.casefold(), number)  # names.same_name compares casefolded
        if first != number:
            raise ArchiveError(
                _("players[%(first)d] and players[%(second)d] are both called %(name)s: rename one.")
                % {"first": first, "second": number, "name": player.name}
            )


def _sitting(entry: object, where: str, n_players: int, n_sittings: int) -> _Sitting:
    entry = _object(entry, where)
    _fields(entry, where, SITTING_FIELDS, optional=(ZONE,))
    slug = _text(entry, "game", f"{where}.game", 20)
    game = rules.GAMES.get(slug)
    if game is None:
        raise ArchiveError(
            _('%(where)s.game is "%(game)s", a game this server does not know (it knows %(known)s).')
            % {"where": where, "game": slug, "known": ", ".join(rules.GAMES)}
        )
    kind = _choice(entry, "end_kind", f"{where}.end_kind", [k.value for k in rules.MatchEndKind])
    target = _whole(entry, "end_target", f"{where}.end_target", 1, INT_MAX, optional=True)
    try:
        match_end = rules.MatchEnd(rules.MatchEndKind(kind), target)
    except rules.RuleError as error:
        raise _problem(f"{where}.end_target", rule_message(error)) from None
    if match_end.kind not in game.match_ends:
        raise _problem(
            f"{where}.end_kind",
            _("%(game)s cannot end that way: %(choices)s.")
            % {"game": _(game.name), "choices": ", ".join(_(rules.MATCH_END_WORDS[k]) for k in game.match_ends)},
        )
    options = {
        "starting_chips": _whole(entry, "starting_chips", f"{where}.starting_chips", 1, INT_MAX, optional=True),
        "stake_amount": _whole(entry, "stake_amount", f"{where}.stake_amount", 1, INT_MAX, optional=True),
        "stake_label": _text(entry, "stake_label", f"{where}.stake_label", STAKE_LABEL_MAX_LENGTH),
    }
    if options["stake_label"] != options["stake_label"].strip():  # as the start form keeps it
        _fail_unclean(f"{where}.stake_label", options["stake_label"])
    try:
        if check_options(game, **options) != options:  # a chips game without its starting chips
            _fail_type(f"{where}.starting_chips", None, _whole_kind(1, INT_MAX))
    except BadInput as refusal:
        raise _problem(where, refusal.code) from None  # still a sentence: see the archive split
    players = _list(entry, "seats", f"{where}.seats")
    try:
        game.check_player_count(len(players))
    except rules.RuleError as error:
        raise _problem(f"{where}.seats", rule_message(error)) from None
    seats = [_seat(seat, f"{where}.seats[{p}]", n_players) for p, seat in enumerate(players)]
    for position, seat in enumerate(seats):
        if any(other["player"] == seat["player"] for other in seats[:position]):
            raise ArchiveError(
                _("%(where)s is players[%(player)d] again: each player holds one seat.")
                % {"where": f"{where}.seats[{position}].player", "player": seat["player"]}
            )
    n_seats = len(seats)
    hands = [
        _hand(hand, f"{where}.hands[{number - 1}]", number, game, n_seats)
        for number, hand in enumerate(_list(entry, "hands", f"{where}.hands"), start=1)
    ]
    ended_how = _choice(entry, "ended_how", f"{where}.ended_how", list(Sitting.EndedHow.values))
    finished_at = _moment_of(entry, "finished_at", f"{where}.finished_at", optional=True)
    if (finished_at is None) != (ended_how == Sitting.EndedHow.PLAYING):
        raise ArchiveError(
            _(
                "%(where)s has ended_how %(how)s and finished_at %(at)s: a finished match has both, "
                'a match in progress neither ("" and null).'
            )
            % {"where": where, "how": json.dumps(ended_how), "at": json.dumps(entry["finished_at"])}
        )
    ended_early = ended_how == Sitting.EndedHow.ENDED_EARLY
    for number, hand in enumerate(hands):
        if hand.winner is None and not (ended_early and number == len(hands) - 1):
            raise _abandoned(f"{where}.hands[{number}]")
    if ended_early and (not hands or hands[-1].winner is not None):
        raise _abandoned(f"{where}.hands")
    _replayed(entry, where, seats, hands, match_end, ended_how, finished_at is not None)
    _dealt_in_turn(where, game, hands, n_seats)
    chips_reissued = _whole(entry, "chips_reissued", f"{where}.chips_reissued", 0, INT_MAX)
    if chips_reissued and not game.uses_chips:
        raise _problem(f"{where}.chips_reissued", _("%(game)s is not played with chips.") % {"game": _(game.name)})
    batches = _list(entry, "reissued_before", f"{where}.reissued_before")
    open_number = len(hands) + 1
    if (
        len(batches) != chips_reissued
        or any(not _is_whole(b) or not 1 <= b <= open_number for b in batches)
        or batches != sorted(batches)
    ):
        raise ArchiveError(
            _(
                "%(where)s.reissued_before should list, for each of the %(count)d batches of chips re-issued, "
                "the hand open then (1 to %(open)d), in order."
            )
            % {"where": where, "count": chips_reissued, "open": open_number}
        )
    fields = {
        "game": slug,
        "end_kind": kind,
        "end_target": target,
        **options,
        "chips_reissued": chips_reissued,
        "reissued_before": list(batches),
        "threshold": entry["threshold"],
        "tied_at": entry["tied_at"],
        "started_at": _moment_of(entry, "started_at", f"{where}.started_at"),
        "changed_at": _moment_of(entry, "changed_at", f"{where}.changed_at"),
        "finished_at": finished_at,
        "ended_how": ended_how,
        "time_zone": _zone(entry, f"{where}.{ZONE}"),
    }
    rematch = _whole(entry, "next_sitting", f"{where}.next_sitting", 0, n_sittings - 1, optional=True)
    return _Sitting(fields, rematch, seats, hands)


def _seat(entry: object, where: str, n_players: int) -> dict:
    entry = _object(entry, where)
    _fields(entry, where, SEAT_FIELDS)
    if n_players == 0:
        raise ArchiveError(
            _("%(where)s.player: the file lists no players, so nobody can be seated.") % {"where": where}
        )
    return {
        "player": _whole(entry, "player", f"{where}.player", 0, n_players - 1),
        "total": _whole(entry, "total", f"{where}.total", -INT_MAX, INT_MAX),
        "hands_won": _whole(entry, "hands_won", f"{where}.hands_won", 0, INT_MAX),
        "best_run": _whole(entry, "best_run", f"{where}.best_run", 0, INT_MAX),
    }


def _hand(entry: object, where: str, number: int, game: rules.Game, n_seats: int) -> _Hand:
    entry = _object(entry, where)
    _fields(entry, where, HAND_FIELDS)
    found = _whole(entry, "number", f"{where}.number", 1, INT_MAX)
    if found != number:
        raise ArchiveError(
            _(
                "%(where)s is hand %(found)d where hand %(expected)d should be: a match's hands are "
                "numbered 1, 2, 3... in order, without gaps."
            )
            % {"where": f"{where}.number", "found": found, "expected": number}
        )
    status = _choice(entry, "status", f"{where}.status", list(Hand.Status.values))
    last_seat = n_seats - 1
    winner = _whole(entry, "winner", f"{where}.winner", 0, last_seat, optional=status == Hand.Status.ABANDONED)
    points = _list(entry, "points", f"{where}.points")
    if len(points) != n_seats:
        raise ArchiveError(
            _("%(where)s lists %(found)d numbers for %(seats)d seats: one per seat, in seat order.")
            % {"where": f"{where}.points", "found": len(points), "seats": n_seats}
        )
    for seat, gained in enumerate(points):
        if not _is_whole(gained) or not -POINTS_MAX <= gained <= POINTS_MAX:
            _fail_type(f"{where}.points[{seat}]", gained, _whole_kind(-POINTS_MAX, POINTS_MAX))
    extras = _object(entry["extras"], f"{where}.extras")
    if status == Hand.Status.ABANDONED:
        if winner is not None or any(points) or extras:
            raise ArchiveError(
                _("%(where)s is abandoned: it has no winner (null), no extra facts ({}) and no points (all 0).")
                % {"where": where}
            )
    else:
        cleaned = _check_extras(extras, f"{where}.extras", game, n_seats, winner)
        expected = list(game.score(n_seats, winner, cleaned))
        if json.dumps(points) != json.dumps(expected):
            raise ArchiveError(
                _("%(where)s is %(found)s, but its game's rules give %(expected)s for its winner and extra facts.")
                % {"where": f"{where}.points", "found": json.dumps(points), "expected": json.dumps(expected)}
            )
    return _Hand(
        {
            "number": number,
            "status": status,
            "dealer_position": _whole(entry, "dealer_position", f"{where}.dealer_position", 0, last_seat),
            "extras": extras,
            "points": points,
            "running": entry["running"],  # checked by _replayed
            "threshold_after": entry["threshold_after"],
            "recorded_at": _moment_of(entry, "recorded_at", f"{where}.recorded_at"),
            "recorded_by_phone": _text(entry, "recorded_by_phone", f"{where}.recorded_by_phone", PHONE_MAX_LENGTH),
            "recorded_by_seat": _whole(entry, "recorded_by_seat", f"{where}.recorded_by_seat", 0, last_seat, True),
            "corrected_at": _moment_of(entry, "corrected_at", f"{where}.corrected_at", optional=True),
            "corrected_by_phone": _text(entry, "corrected_by_phone", f"{where}.corrected_by_phone", PHONE_MAX_LENGTH),
            "corrected_by_seat": _whole(entry, "corrected_by_seat", f"{where}.corrected_by_seat", 0, last_seat, True),
            "stamp": _text(entry, "stamp", f"{where}.stamp", STAMP_MAX_LENGTH),
        },
        winner,
    )


def _check_extras(extras: dict, where: str, game: rules.Game, n_seats: int, winner: int) -> dict:
    """The hand's extra facts are what the game's questions record for this answer, as the
    models store them (seats 0-based, sorted); returns them as the game's rules score them."""
    seat_keys = {q.key for q in game.questions if q.kind == "seats"}
    posted = {}
    for key, value in extras.items():
        if key in seat_keys and isinstance(value, list) and all(_is_whole(seat) for seat in value):
            value = [seat + 1 for seat in value]  # the questions take seats as tapped: 1-based
        posted[key] = value
    try:
        cleaned = game.clean_extras(posted, n_seats, winner)
    except rules.RuleError as error:
        raise _problem(where, rule_message(error)) from None
    stored = as_stored(cleaned)
    if json.dumps(stored, sort_keys=True) != json.dumps(extras, sort_keys=True):  # so true is not 1
        raise ArchiveError(
            _("%(where)s is %(found)s, which this server records as %(expected)s.")
            % {"where": where, "found": json.dumps(extras), "expected": json.dumps(stored)}
        )
    return cleaned


def _replayed(
    entry: dict,
    where: str,
    seats: list[dict],
    hands: list[_Hand],
    match_end: rules.MatchEnd,
    ended_how: str,
    finished: bool,
) -> None:
    """Replay the hands as Sitting._recompute does; what the file says the models derived must agree."""
    progress = rules.Progress.start(len(seats), match_end)
    winners: list[int | None] = []
    for number, hand in enumerate(hands):
        if hand.winner is not None:
            progress = progress.after(match_end, hand.winner, hand.fields["points"])
        winners.append(hand.winner)
        at = f"{where}.hands[{number}]"
        _agree(f"{at}.running", hand.fields["running"], list(progress.totals))
        _agree(f"{at}.threshold_after", hand.fields["threshold_after"], progress.threshold)
    for position, seat in enumerate(seats):
        at = f"{where}.seats[{position}]"
        _agree(f"{at}.total", seat["total"], progress.totals[position])
        _agree(f"{at}.hands_won", seat["hands_won"], progress.wins[position])
    _agree(f"{where}.threshold", entry["threshold"], progress.threshold)
    _agree(f"{where}.tied_at", entry["tied_at"], progress.tied_at)
    if ended_how != Sitting.EndedHow.ENDED_EARLY:
        if progress.over and ended_how != Sitting.EndedHow.MATCH_END:
            raise ArchiveError(
                _(
                    "%(where)s is in progress, but its hands reach its match end: it ended "
                    '("match-end", with finished_at).'
                )
                % {"where": where}
            )
        if not progress.over and ended_how == Sitting.EndedHow.MATCH_END:
            raise ArchiveError(
                _("%(where)s says its match end was reached, but its hands do not reach it.") % {"where": where}
            )
    if finished:  # kept once the match ends (a match reopened since keeps the one it had)
        for position, seat in enumerate(seats):
            _agree(f"{where}.seats[{position}].best_run", seat["best_run"], longest_run(winners, position))


def _dealt_in_turn(where: str, game: rules.Game, hands: list[_Hand], n_seats: int) -> None:
    """Each hand's dealer is the one the game's rules name after the hand before (the first seat
    deals hand 1), as the table showed it when the hand was dealt: after a hand whose winner was
    corrected, the next one may have been dealt by the winner it had then, so any seat may."""
    expected = 0
    for number, hand in enumerate(hands):
        found = hand.fields["dealer_position"]
        if expected is not None and found != expected:
            raise ArchiveError(
                _(
                    "%(where)s is %(found)d, but by its game's rules seat %(expected)d deals this hand "
                    "(the first seat deals hand 1; then it follows who dealt and who won the hand before)."
                )
                % {"where": f"{where}.hands[{number}].dealer_position", "found": found, "expected": expected}
            )
        corrected = hand.fields["corrected_at"] is not None
        expected = None if corrected or hand.winner is None else game.dealer_after(n_seats, found, hand.winner)


def _abandoned(where: str) -> ArchiveError:
    return ArchiveError(
        _(
            "%(where)s: a hand is abandoned only when a member ends the match, and a match ended that way "
            "ends on that hand (no winner, no points)."
        )
        % {"where": where}
    )


def _agree(where: str, found: object, expected: object) -> None:
    """`found` is `expected`, as JSON writes them (so 1.0 or true is not 1)."""
    if json.dumps(found) != json.dumps(expected):
        raise ArchiveError(
            _("%(where)s is %(found)s, but replaying the match's hands by its game's rules gives %(expected)s.")
            % {"where": where, "found": json.dumps(found), "expected": json.dumps(expected)}
        )


# --- fields --------------------------------------------------------------------------


def _fields(entry: dict, where: str, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """`entry` has exactly the fields `names`, and may have those of `optional`."""
    for name in names:
        if name not in entry:
            raise ArchiveError(_('%(where)s has no "%(field)s": add it.') % {"where": where, "field": name})
    for name in entry:
        if name not in names and name not in optional:
            raise ArchiveError(
                _('%(where)s has a field "%(field)s" that this format does not know: remove it.')
                % {"where": where, "field": name}
            )


def _zone(entry: dict, where: str) -> str:
    """The entry's "time_zone", "" when it has none: text of at most 64 characters (else ArchiveError);
    a zone this server does not know reads as "" (the server's own), see the module's docstring."""
    if ZONE not in entry:
        return ""
    value = entry[ZONE]
    if not isinstance(value, str) or len(value) > ZONE_MAX_LENGTH:
        _fail_type(where, value, _("text of at most %(max)d characters") % {"max": ZONE_MAX_LENGTH})
    return clean_zone(value)


def _problem(where: str, problem: str) -> ArchiveError:
    return ArchiveError(_("%(where)s: %(problem)s") % {"where": where, "problem": problem})


def _fail_type(where: str, value: object, kind: str) -> None:
    shown = json.dumps(value, ensure_ascii=False)
    if len(shown) > 40:
        shown = f"{shown[:40]}…"
    raise ArchiveError(
        _("%(where)s should be %(kind)s, not %(value)s.") % {"where": where, "kind": kind, "value": shown}
    )


def _fail_unclean(where: str, name: str) -> None:
    raise ArchiveError(
        _("%(where)s has spaces or invisible characters this server would not keep: write it %(clean)s.")
        % {"where": where, "clean": json.dumps(clean_name(name), ensure_ascii=False)}
    )


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole_kind(low: int, high: int) -> str:
    return _("a whole number from %(low)d to %(high)d") % {"low": low, "high": high}


def _or_null(kind: str) -> str:
    return _("%(kind)s, or null") % {"kind": kind}


def _object(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        _fail_type(where, value, _("an object {...}"))
    return value


def _list(entry: dict, key: str, where: str) -> list:
    value = entry[key]
    if not isinstance(value, list):
        _fail_type(where, value, _("a list [...]"))
    return value


def _text(entry: dict, key: str, where: str, max_length: int) -> str:
    value = entry[key]
    if not isinstance(value, str) or len(value) > max_length:
        _fail_type(where, value, _("text of at most %(max)d characters") % {"max": max_length})
    if "\x00" in value:  # no database column keeps it (PostgreSQL refuses it)
        raise ArchiveError(_("%(where)s holds a null character: remove it.") % {"where": where})
    return value


def _flag(entry: dict, key: str, where: str) -> bool:
    value = entry[key]
    if not isinstance(value, bool):
        _fail_type(where, value, _("true or false"))
    return value


def _whole(entry: dict, key: str, where: str, low: int, high: int, optional: bool = False) -> int | None:
    value = entry[key]
    if value is None and optional:
        return None
    if not _is_whole(value) or not low <= value <= high:
        kind = _whole_kind(low, high)
        _fail_type(where, value, _or_null(kind) if optional else kind)
    return value


def _choice(entry: dict, key: str, where: str, choices: list[str]) -> str:
    value = entry[key]
    if value not in choices or not isinstance(value, str):
        listed = ", ".join(json.dumps(choice) for choice in choices)
        _fail_type(where, value, _("one of %(choices)s") % {"choices": listed})
    return value


def _moment_of(entry: dict, key: str, where: str, optional: bool = False) -> datetime.datetime | None:
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
        _fail_type(where, value, _or_null(kind) if optional else kind)
    if not EARLIEST <= moment <= timezone.now() + CLOCKS_APART:
        raise ArchiveError(
            _("%(where)s is %(value)s: a moment this group played or changed something is from 2000 until today.")
            % {"where": where, "value": json.dumps(value)}
        )
    return moment
