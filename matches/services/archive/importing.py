"""A checked archive written as a new group, in one transaction."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Count, QuerySet
from django.utils import timezone

from matches.models import Group, Hand, Player, PlayerChange, Receipt, Seat, Sitting, TableChange
from matches.services.archive.checks import checked_archive
from matches.services.archive.fields import ZONE, read_zone
from matches.services.archive.payments import checked_tab, imported_tab


class AlreadyHere(Exception):
    """The archive's group is among those the importing phone already has (imported before): `group`."""

    def __init__(self, group: Group):
        super().__init__(group.pk)
        self.group = group


def import_group(data: object, known: QuerySet[Group] | None = None) -> Group:
    """A new group (new links) holding all of `data`; ArchiveError naming the field and fix, with nothing
    written, when anything is not as this server keeps it; AlreadyHere when one of `known` (the groups
    the phone has) has its name, start, matches and hands. `changed_at` becomes the import's moment
    (retention counts from it); everything else is as in `data`."""
    name, created_at, _changed_at, players, sittings = checked_archive(data)
    zone = read_zone(data, ZONE)
    hands = sum(len(s.hands) for s in sittings)
    if known is not None:
        same = known.filter(name=name, created_at=created_at, hands=hands)
        copy = same.annotate(matches=Count("sittings")).filter(matches=len(sittings)).first()
        if copy is not None:
            raise AlreadyHere(copy)
    with transaction.atomic():
        now = timezone.now()
        group = Group.objects.create(
            name=name, created_at=created_at, changed_at=now, imported_at=now, time_zone=zone, hands=hands
        )
        made = _inserted([Player(name=p.name, group=group, left=p.left, erased=p.erased) for p in players])
        receipts = (PlayerChange(player=row, **change) for row, p in zip(made, players) for change in p.changes)
        PlayerChange.objects.bulk_create(receipts)
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
        TableChange.objects.bulk_create(
            TableChange(sitting=row, seat=table[change["seat"]], running=_running_at(s, change["before"]), **{
                key: value for key, value in change.items() if key != "seat"
            })
            for row, s, table in zip(rows, sittings, by_sitting)
            for change in s.changes
        )
        Receipt.objects.bulk_create(  # version 0: made before any version of this server's copy
            (Receipt(sitting=row, version=0, **receipt) for row, s in zip(rows, sittings) for receipt in s.receipts),
            batch_size=500,
        )
        linked = []
        for row, s in zip(rows, sittings):
            if s.next_sitting is not None:
                row.next_sitting = rows[s.next_sitting]
                linked.append(row)
        Sitting.objects.bulk_update(linked, ["next_sitting"])
        imported_tab(group, made, *checked_tab(data, len(players)))
    return group


def _inserted(rows: list) -> list:
    """Insert `rows` (new model instances of one model), which then carry their ids."""
    if rows and not connection.features.can_return_rows_from_bulk_insert:  # SQLite before 3.35
        for row in rows:
            row.save(force_insert=True)
        return rows
    return type(rows[0]).objects.bulk_create(rows) if rows else rows


def _running_at(sitting, before: int) -> list[int]:
    """Every seat's total when hand `before` was open (where a part of a changed table began)."""
    if before == 1:
        return [0] * len(sitting.seats)
    return list(sitting.hands[before - 2].fields["running"])


def _without(entry: dict, key: str) -> dict:
    return {k: v for k, v in entry.items() if k != key}
