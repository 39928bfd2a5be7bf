"""The table changing mid-match: a latecomer sits down, a player leaves, a misspelt name is put right.
Each change happens between hands and leaves a row, which the hand list shows. Source: RULES.md
(dealing; Cat Te's stacks; Eighty Three's thresholds)."""

from __future__ import annotations

from django.db import models, transaction
from django.utils import timezone

from matches.domain import rules
from matches.domain.capacity import MATCH_HANDS
from matches.domain.errors import BadInput, Conflict
from matches.domain.names import checked_name, same_as
from matches.models.hands import Hand
from matches.models.players import ANYONE, Player, Recorder
from matches.models.receipts import Receipt
from matches.models.seats import Seat
from matches.models.table import Table


class TableChange(models.Model):
    """One change of the table, made while hand `before` was open; `running` is every seat's total then
    (where the money of the part before it ends)."""

    class Kind(models.TextChoices):
        JOINED = "joined", "sat down"
        LEFT = "left", "left the table"
        RENAMED = "renamed", "renamed"

    sitting = models.ForeignKey("Sitting", on_delete=models.CASCADE, related_name="table_changes")
    before = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=80)  # the seat's name after the change
    name_before = models.CharField(max_length=80, blank=True)  # a rename's old spelling
    running = models.JSONField(default=list)
    at = models.DateTimeField(default=timezone.now)
    by_phone = models.CharField(max_length=12, blank=True)

    class Meta:
        ordering = ["before", "pk"]

    def __str__(self) -> str:
        return f"{self.name} {self.get_kind_display()} before hand {self.before}"


class TableChangeVerbs:
    """Sitting's verbs that change who sits at the table (a mixin, beside SittingVerbs)."""

    def seat_player(self, name: str, by: Recorder = ANYONE, key: str = "") -> Seat:
        """Seat a latecomer last in playing order, from the open hand on, at 0 (Cat Tê: with a starting
        stack). In a group, a member of that name, else a new member. Someone who left with no hand played
        since comes back to their own seat (a leave tapped by mistake). BadInput: a bad or seated name, one
        that left before a hand since, or the game's most players; Conflict once the match is over."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()
            self._check_key(key)
            table = self._changing(seats)
            self._check_count(len(table.playing) + 1)
            name = checked_name(name)
            here = same_as(name, seats, _seat_name)
            if here is not None and here in table.may_come_back:
                here.left = None
                here.save(update_fields=["left"])
                self._log(table, here, TableChange.Kind.JOINED, by)
                self._receipt(Receipt.Verb.JOIN, key, table.open_number, by)
                return here
            if here is not None:
                raise BadInput("name_at_table" if here.left is None else "name_left_table", name=here.name)
            player = self._player_named(name)
            hands = list(self.hands.only("points", "running"))  # every hand keeps a column per seat ever taken
            for hand in hands:
                hand.points, hand.running = [*hand.points, 0], [*hand.running, 0]
            Hand.objects.bulk_update(hands, ["points", "running"], batch_size=500)
            seat = Seat.objects.create(sitting=self, player=player, position=len(seats), joined=table.open_number)
            self._log(table, seat, TableChange.Kind.JOINED, by, running=[*table.totals, 0])
            self._receipt(Receipt.Verb.JOIN, key, table.open_number, by)
        return seat

    def unseat_player(self, position: int, by: Recorder = ANYONE, key: str = "") -> Seat:
        """The player at `position` leaves from the open hand on, keeping what they won; the others
        play on (the deal passes on if it was theirs). BadInput: not playing, or too few would stay."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()
            self._check_key(key)
            table = self._changing(seats)
            if not 0 <= position < len(seats):
                raise BadInput("no_such_seat", seat=position + 1)
            if position not in table.playing:
                raise BadInput("seat_not_playing", seat=position + 1, name=seats[position].name)
            if len(table.playing) - 1 < self.rules.min_players:
                raise BadInput("too_few_to_leave", game=self.rules.name, min=self.rules.min_players)
            seat = seats[position]
            seat.left = table.open_number
            seat.save(update_fields=["left"])
            self._log(table, seat, TableChange.Kind.LEFT, by)
            self._receipt(Receipt.Verb.LEAVE, key, table.open_number, by)
        return seat

    def rename_player(
        self, position: int, name: str, by: Recorder = ANYONE, key: str = "", was: str | None = None
    ) -> Seat:
        """Put a seat's name right, on every page of the match (in a group, everywhere the player shows).
        `was`: the name the phone showed; renamed since on another phone -> Conflict (nothing changes)."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()
            self._check_key(key)
            table = self._changing(seats, renaming=True)
            if not 0 <= position < len(seats):
                raise BadInput("no_such_seat", seat=position + 1)
            seat, before = seats[position], seats[position].name
            if was is not None and was != before and before != name:
                raise Conflict("renamed_meanwhile", player=was, name=before)
            name = checked_name(name)
            other = same_as(name, [other for other in seats if other.pk != seat.pk], _seat_name)
            if other is not None:
                raise BadInput("name_at_table" if other.left is None else "name_left_earlier", name=other.name)
            if self.group_id is not None:
                seat.player = self.group.rename_player(seat.player_id, name, by=by.phone)
            else:
                Player.objects.filter(pk=seat.player_id).update(name=name)
                seat.player.name = name
            if before != name:
                self._log(table, seat, TableChange.Kind.RENAMED, by, name_before=before)
            self._receipt(Receipt.Verb.RENAME, key, table.open_number, by)
        return seat

    def _changing(self, seats: list[Seat], renaming: bool = False) -> Table:
        """The locked table, once it can still change: a rename may follow a member's end, not a seat change."""
        if self.is_final and not renaming:
            raise Conflict("match_ended")
        if self.is_finished and not renaming:
            raise Conflict("table_change_over")
        table = Table(self, seats, *self._read_hands(seats, 1, chart=False))
        if table.open_number > MATCH_HANDS:
            raise Conflict("match_hands_full", max=MATCH_HANDS)
        return table

    def _check_count(self, count: int) -> None:
        try:
            self.rules.check_player_count(count)
        except rules.RuleError as error:
            raise BadInput("rule", error=error) from None

    def _player_named(self, name: str) -> Player:
        """The group's member of that name (a former one comes back), a new member, or a new player."""
        if self.group_id is None:
            return Player.objects.create(name=name)
        member = same_as(name, self.group.members(), _seat_name)
        return member if member is not None else self.group.add_player(name)

    def _log(self, table: Table, seat: Seat, kind: str, by: Recorder, **fields: object) -> None:
        fields.setdefault("running", list(table.totals))
        TableChange.objects.create(
            sitting=self, before=table.open_number, kind=kind, seat=seat, name=seat.name, by_phone=by.phone, **fields
        )
        self._update(changes=self.changes + 1)


def _seat_name(seat) -> str:
    return seat.name
