"""A group as its archive (the format: the package's docstring)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping

from matches.models import Group, Hand, PlayerChange, Receipt, Seat, Sitting, TableChange
from matches.models.snapshot import read_snapshot
from matches.services.archive.fields import FORMAT, MONEY, SMALLEST, VERSION, ZONE, ArchiveError
from matches.services.archive.payments import TAB_FIELDS, exported_tab

def export_group(group: Group) -> dict:
    """The group's archive (format: the package docstring) in one snapshot; Group.DoesNotExist if deleted."""
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
        receipts: dict[int, list[dict]] = {}
        for receipt in Receipt.objects.filter(sitting__group=group).order_by("sitting_id", "pk").iterator(2000):
            receipts.setdefault(receipt.sitting_id, []).append(_receipt_entry(receipt))
        kept: dict[int, list[dict]] = {}
        for said in PlayerChange.objects.filter(player__group=group).order_by("at", "pk"):
            kept.setdefault(said.player_id, []).append(
                {"verb": said.verb, "before": said.before, "after": said.after, "by_phone": said.by_phone,
                 "at": _moment(said.at)}
            )
        changes: dict[int, list[dict]] = {}
        for change in TableChange.objects.filter(sitting__group=group).order_by("sitting_id", "before", "pk"):
            changes.setdefault(change.sitting_id, []).append(_change_entry(change, positions))
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": group.name,
            "created_at": _moment(group.created_at),
            "changed_at": _moment(group.changed_at),
            ZONE: group.time_zone,
            MONEY: SMALLEST,
            "players": [
                {"name": p.name, "left": p.left, "erased": p.erased, **_changes(kept, p.pk)}
                for p in players
            ],
            "sittings": [
                _sitting_entry(
                    sitting, seats[sitting.pk], hands[sitting.pk], index, numbers, changes.get(sitting.pk),
                    receipts.get(sitting.pk),
                )
                for sitting in sittings
            ],
            **exported_tab(group, index),  # (left out when empty, as older archives are)
        }


def _sitting_entry(
    sitting: Sitting,
    seats: list[Seat],
    hands: list[dict],
    players: dict[int, int],
    numbers: dict[int, int],
    changes: list[dict] | None = None,
    receipts: list[dict] | None = None,
) -> dict:
    for seat in seats:
        if seat.player_id not in players:  # every verb seats the group's own players
            raise ArchiveError(f"Match {sitting.pk} seats player {seat.player_id}, who is not in its group.")
    entry = {
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
        "seats": [_seat_entry(seat, players) for seat in seats],
        "hands": hands,
    }
    if changes:  # (left out when the table never changed, as older archives are)
        entry["table_changes"] = changes
    if receipts:  # (left out for a match from before receipts were kept)
        entry["receipts"] = receipts
    return entry


def _receipt_entry(receipt: Receipt) -> dict:
    """What a change did (its key, a phone's, and its version, this server's, are left out)."""
    return {
        "verb": receipt.verb,
        "number": receipt.number,
        "by_phone": receipt.by_phone,
        "by_seat": receipt.by_seat,
        "at": _moment(receipt.at),
        "before": receipt.before,
        "after": receipt.after,
        "last": receipt.last,
    }


def _seat_entry(seat: Seat, players: dict[int, int]) -> dict:
    entry = {"player": players[seat.player_id], "total": seat.total, "hands_won": seat.hands_won}
    entry["best_run"] = seat.best_run
    if seat.joined != 1 or seat.left is not None:  # a latecomer, or one who left mid-match
        entry.update(joined=seat.joined, left=seat.left)
    return entry


def _change_entry(change: TableChange, positions: dict[int, int]) -> dict:
    return {
        "before": change.before,
        "kind": change.kind,
        "seat": positions[change.seat_id],
        "name": change.name,
        "name_before": change.name_before,
        "at": _moment(change.at),
        "by_phone": change.by_phone,
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
    """The archive as the text of a .json file (UTF-8): compact, a line per player, match and hand, so a
    group at the limits (matches.domain.capacity) stays well under ARCHIVE_BYTES and imports again."""
    if not (isinstance(data.get("players"), list) and isinstance(data.get("sittings"), list)):
        return _compact(data) + "\n"  # (not an archive: a test's broken one, say)
    head = _compact({key: value for key, value in data.items() if key not in ("players", "sittings", *TAB_FIELDS)})
    players = _lines(data["players"], _compact)
    sittings = _lines(data["sittings"], _sitting_line)
    tab = "".join(f',\n"{key}":{_lines(data[key], _compact)}' for key in TAB_FIELDS if isinstance(data.get(key), list))
    return f'{head[:-1]}{"," if len(head) > 2 else ""}\n"players":{players},\n"sittings":{sittings}{tab}}}\n'


def _sitting_line(sitting: object) -> str:
    """A match on one line, then its hands a line each."""
    if not isinstance(sitting, dict) or not isinstance(sitting.get("hands"), list):
        return _compact(sitting)
    head = _compact({key: value for key, value in sitting.items() if key != "hands"})
    return f'{head[:-1]}{"," if len(head) > 2 else ""}"hands":{_lines(sitting["hands"], _compact)}}}'


def _lines(items: list, write) -> str:
    return "[\n" + ",\n".join(map(write, items)) + "]" if items else "[]"


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _changes(kept: dict[int, list[dict]], player: int) -> dict:
    """A player's receipts, when there are any (an archive without them imports as one from before them)."""
    return {"changes": kept[player]} if player in kept else {}
