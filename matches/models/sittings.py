"""A sitting: one match of one game by one table, and how its table is read."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, models
from django.urls import reverse
from django.utils import timezone

from matches.domain import rules, seating
from matches.domain.chart import CHART_POINTS, sampled
from matches.domain.stakes import Part, Stakes
from matches.models.choices import EndedHow
from matches.models.hands import Hand
from matches.models.options import option
from matches.models import quick_reads
from matches.models.players import Player
from matches.models.seats import Seat
from matches.models.snapshot import read_snapshot
from matches.models.receipts import Receipt, ReceiptVerbs
from matches.models.replay_writes import ReplayWrites
from matches.models.table_changes import TableChange, TableChangeVerbs
from matches.models.table_verbs import TableVerbs
from matches.models.table import HANDS_ON_TABLE, ChartPoint, Table
from matches.models.tokens import LinkedQuerySet, new_token, reachable
from matches.models.verbs import SittingVerbs
from matches.models.zones import ZONE_MAX_LENGTH, zone_named


class SittingQuerySet(LinkedQuerySet):
    def unfinished(self) -> models.QuerySet:
        """Matches still being played."""
        return self.filter(finished_at__isnull=True)


class Sitting(SittingVerbs, ReplayWrites, TableVerbs, TableChangeVerbs, ReceiptVerbs, models.Model):
    """One match of one game by one table: seats in playing order and numbered hands. `threshold`,
    `tied_at` and seat totals derive from the hands, kept in step in every change's transaction.
    `game` is a registry slug checked by the verbs, so adding a game needs no migration."""

    EndedHow = EndedHow

    token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    watch_token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    version = models.PositiveIntegerField(default=1)  # bumped in the transaction of every change
    game = models.CharField(max_length=20)
    end_kind = models.CharField(
        max_length=10, choices=[(k.value, k.name.lower()) for k in rules.MatchEndKind], default="open"
    )
    end_target = models.PositiveIntegerField(null=True, blank=True)
    chips_reissued = models.PositiveIntegerField(default=0)
    reissued_before = models.JSONField(default=list, blank=True)  # per batch, the hand open when handed out
    # The game's settings by name (Cat Tê's starting_chips, Fapfap's stake_amount and stake_label):
    # a game with settings of its own needs no new column.
    options = models.JSONField(default=dict, blank=True)
    threshold = models.PositiveIntegerField(null=True, blank=True)
    tied_at = models.PositiveIntegerField(null=True, blank=True)
    # The hand an undo reopened, until the next hand is recorded: ending the match then abandons no hand
    # (an undone hand is gone; only a hand being played when the match ends is abandoned).
    reopened = models.PositiveIntegerField(null=True, blank=True)
    group = models.ForeignKey(
        "Group", on_delete=models.SET_NULL, null=True, blank=True, related_name="sittings", editable=False
    )
    next_sitting = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )  # the rematch, once a phone started it
    started_at = models.DateTimeField(default=timezone.now)
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)  # with every version, for retention
    finished_at = models.DateTimeField(null=True, blank=True)
    ended_how = models.CharField(max_length=12, choices=EndedHow.choices, default="", blank=True)
    changes = models.PositiveIntegerField(default=0)  # table changes mid-match (TableChange rows)
    # The starting phone's IANA zone ("Africa/Lome"); "": the server's TIME_ZONE.
    time_zone = models.CharField(max_length=ZONE_MAX_LENGTH, blank=True, default="")

    starting_chips = option("starting_chips", None)
    stake_amount = option("stake_amount", None)
    stake_label = option("stake_label", "")

    objects = SittingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(finished_at__isnull=True, ended_how="")
                | (models.Q(finished_at__isnull=False) & ~models.Q(ended_how="")),
                name="sitting_finished_has_a_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rules.name} started {self.started_at:%Y-%m-%d %H:%M}"

    def get_absolute_url(self) -> str:
        return reverse("table", kwargs={"token": self.token})

    @property
    def rules(self) -> rules.Game:
        return rules.get_game(self.game)

    @property
    def match_end(self) -> rules.MatchEnd:
        return rules.MatchEnd(rules.MatchEndKind(self.end_kind), self.end_target)

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def is_final(self) -> bool:
        """Ended by a member: read-only for good."""
        return self.ended_how == Sitting.EndedHow.ENDED_EARLY

    @property
    def stakes(self) -> Stakes:
        """What this sitting's totals come to in chips or money (domain/stakes.py)."""
        game = self.rules
        stake = self.stake_amount if game.uses_stake or game.uses_chips else None
        batches = (self.reissued_before, self.chips_reissued)
        parts = self._parts() if self.changes else ((), (), (), ())
        return Stakes.of(game.uses_chips, self.starting_chips, *batches, stake, self.stake_label, *parts)

    def _parts(self) -> tuple[list[Part], list[int], list[int | None], list[int]]:
        """The parts of a match whose table changed, each seat's first hand, the one it left at, and the
        chips batches handed out before it sat down."""
        stays = [seating.Stay(*stay) for stay in self.seats.order_by("position").values_list("joined", "left")]
        starts = {1} | {stay.joined for stay in stays} | {stay.left for stay in stays if stay.left}
        running = dict(self.table_changes.exclude(kind=TableChange.Kind.RENAMED).values_list("before", "running"))
        parts = [Part(start, seating.playing(stays, start), tuple(running.get(start, ()))) for start in sorted(starts)]
        return parts, [stay.joined for stay in stays], [stay.left for stay in stays], self._batches_missed()

    def _batches_missed(self) -> list[int]:
        """For each seat, the chips batches handed out before its player first sat down (none but Cat Tê's;
        a batch and a seat taken at the same open hand are told apart by when each happened)."""
        if not self.chips_reissued:
            return []
        handed = sorted(self.receipts.filter(verb=Receipt.Verb.CHIPS).values_list("at", flat=True))
        latecomers = self.table_changes.filter(kind=TableChange.Kind.JOINED, seat__joined__gt=1).order_by("pk")
        sat_down: dict[int, object] = {}
        for position, at in latecomers.values_list("seat__position", "at"):
            sat_down.setdefault(position, at)  # the first time (a come-back sits down again)
        positions = self.seats.order_by("position").values_list("position", flat=True)
        return [sum(1 for when in handed if when < sat_down[p]) if p in sat_down else 0 for p in positions]

    @property
    def zone(self):
        """The table's own clock: every time of this sitting is shown in it (a tzinfo)."""
        return zone_named(self.time_zone)

    @classmethod
    def reached_by(cls, link: str, token: str) -> Sitting | None:
        """The sitting whose `link` ("token" or "watch_token") is `token`, or None."""
        return quick_reads.linked(cls, link, token) if reachable(link, token) else None

    @classmethod
    def reached_with_seats(cls, link: str, token: str) -> Sitting | None:
        """reached_by() with the seats and their players read in the same query: the next table() read of
        this copy takes them instead of reading them again (a page: one query fewer)."""
        if not reachable(link, token):
            return None
        seats = quick_reads.seated(link, token)
        if not seats:
            return cls.reached_by(link, token)
        sitting = seats[0].sitting
        sitting._seats_read = seats
        return sitting

    def scores(self) -> list[tuple[str, int]]:
        """(name, score) per seat as the home list shows it: Cat Tê chips, Fapfap net money, else score.
        Prefetch `seats` when listing many. Source: RULES.md (Cat Te chips; Fapfap stakes)."""
        seats = list(self.seats.all())
        totals = self.stakes.shown([seat.total for seat in seats])
        return [(seat.name, total) for seat, total in zip(seats, totals, strict=True)]


    def seated(self) -> list[Seat]:
        """The seats in playing order, with their players."""
        return quick_reads.seats_of(self)

    def seated_afresh(self) -> list[Seat]:
        """seated() with this sitting's row read again by its link in the same query (in a snapshot, or
        the two could disagree); Sitting.DoesNotExist when the link no longer reaches it."""
        seats = quick_reads.seated("token", self.token)
        if not seats:
            raise Sitting.DoesNotExist
        self.take_row(seats[0].sitting)
        for seat in seats:
            seat.sitting = self
        return seats

    def take_row(self, fresh: Sitting) -> None:
        """This copy holds the row as `fresh` read it (refresh_from_db, from a read made here)."""
        for field in self._meta.concrete_fields:
            setattr(self, field.attname, getattr(fresh, field.attname))
        self._state.fields_cache.clear()  # what it pointed to (a rematch, a group) may have changed too
        self._prefetched_objects_cache = {}

    def table(self, recent: int | None = HANDS_ON_TABLE, chart: bool = True) -> Table:
        """The match table with the newest `recent` hands (None: all, newest first); `chart`: with the chart's."""
        seats = self.__dict__.pop("_seats_read", None) or self.seated()
        return Table(self, seats, *self._read_hands(seats, recent, chart))

    def fresh_table(self, recent: int | None = HANDS_ON_TABLE, chart: bool = True) -> Table:
        """table() with the row re-read in one snapshot with seats and hands (a transaction is one already).
        Raises Sitting.DoesNotExist when this copy's link no longer reaches it."""
        if connection.in_atomic_block:
            return self.table(recent, chart)
        with read_snapshot():
            seats = self.seated_afresh()
            return Table(self, seats, *self._read_hands(seats, recent, chart))

    def history_page(self, holding: int | None, size: int) -> tuple[Table, int]:
        """(page of `size` hands holding hand `holding`, newest first; last hand's number). Pages count from
        the newest so paging is stable; None or an unknown number: the newest page."""
        state = self.table(recent=0)
        last = self._last_number(state.seats)
        wanted = holding if holding is not None and 1 <= holding <= last else last
        top = last - (last - wanted) // size * size
        state.recent_hands = list(self.hands.filter(number__lte=top, number__gt=top - size).order_by("-number"))
        return state, last

    def _last_number(self, seats: Sequence[Seat]) -> int:
        """The last hand's number: every won hand, and the abandoned one a member's end leaves (none when
        an undo had just reopened the hand)."""
        return sum(seat.hands_won for seat in seats) + (1 if self.is_final and self.reopened is None else 0)

    def _read_hands(
        self, seats: Sequence[Seat], recent: int | None, chart: bool = True, ahead: int = 0
    ) -> tuple[list[Hand], dict]:
        """The newest `recent` hands (None: all) and, with `chart`, the chart's sampled hands: two queries at most
        (the older hands as chart points only: whole rows cost more to read than a second query). `ahead`: the
        chart as it will be once that many more hands are recorded (a tap reads it under its lock)."""
        if recent == 0:
            return [], {}
        if recent is None:
            hands = list(self.hands.order_by("-number"))
            return hands, {hand.number: hand for hand in hands}
        last = self._last_number(seats)
        if not last:
            return [], {}
        hands = quick_reads.newest_hands(self.pk, last - recent)
        drawn: dict = {hand.number: hand for hand in hands}
        older = [number for number in sampled(last + ahead + 1, CHART_POINTS) if 0 < number <= last - recent and chart]
        points = quick_reads.chart_points(self.pk, older)
        drawn.update({number: ChartPoint(number, running, after) for number, running, after in points})
        return hands, drawn

    def check_totals(self) -> list[str]:
        """One English line for the operator per seat whose kept total or wins disagree with the ledger."""
        seats = self.seated()
        totals, wins = [0] * len(seats), [0] * len(seats)
        by_id = {seat.pk: seat.position for seat in seats}
        for points, winner_id in self.hands.values_list("points", "winner_id"):
            for position, gained in enumerate(points):
                totals[position] += gained
            if winner_id is not None:
                wins[by_id[winner_id]] += 1
        return [
            f"{seat.name}: kept {seat.total} points and {seat.hands_won} wins, "
            f"ledger says {totals[seat.position]} and {wins[seat.position]}"
            for seat in seats
            if (seat.total, seat.hands_won) != (totals[seat.position], wins[seat.position])
        ]


__all__ = ["Hand", "Player", "Receipt", "Seat", "Sitting", "TableChange"]
