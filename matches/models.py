"""State of a table: players, sittings, seats and hands, and the verbs that change them.

Every verb locks the sitting row (select_for_update on PostgreSQL; on SQLite the
IMMEDIATE transaction takes the write lock) so two phones tapping at once are
serialised, and raises a TableError subclass instead of writing when refused.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Sequence

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils import timezone

from . import rules
from .errors import AlreadyRecorded, BadInput, Conflict

NAME_MAX_LENGTH = 40
HANDS_ON_TABLE = 10  # newest hand rows shown on the match table; the rest are on the history page


def new_token() -> str:
    """128 random bits, URL-safe: the only way to reach a sitting."""
    return secrets.token_urlsafe(16)


class Player(models.Model):
    """A person at the table, by the name typed at the start (full Unicode, at most 40 characters)."""

    name = models.CharField(max_length=NAME_MAX_LENGTH)

    def __str__(self) -> str:
        return self.name


class Sitting(models.Model):
    """One match of one game by one table: seats in playing order and a numbered run of hands."""

    class EndedHow(models.TextChoices):
        PLAYING = "", "in progress"
        MATCH_END = "match-end", "match end reached"
        ENDED_EARLY = "ended-early", "ended by a member"

    token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    game = models.CharField(max_length=20, choices=[(slug, g.name) for slug, g in rules.GAMES.items()])
    end_kind = models.CharField(
        max_length=10, choices=[(k.value, k.name.lower()) for k in rules.MatchEndKind], default="open"
    )
    end_target = models.PositiveIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    ended_how = models.CharField(max_length=12, choices=EndedHow.choices, default="", blank=True)

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

    # --- verbs -----------------------------------------------------------

    @classmethod
    def start(cls, game: str, names: Sequence[str], match_end: rules.MatchEnd | None = None) -> Sitting:
        """Open a sitting of `game` with players seated in the order of `names`.

        Raises BadInput when the game is unknown, a match end does not suit it,
        or the player count is outside its range (the message gives the reason).
        """
        players = [Player(name=name) for name in names]
        return cls._seat(game, players, match_end or rules.MatchEnd())

    def rematch(self) -> Sitting:
        """A new sitting of the same game, same players in the same seats, same match end."""
        players = [seat.player for seat in self.seats.select_related("player").order_by("position")]
        return self._seat(self.game, players, self.match_end)

    @classmethod
    def _seat(cls, game: str, players: list[Player], match_end: rules.MatchEnd) -> Sitting:
        try:
            entry = rules.get_game(game)
            entry.check_player_count(len(players))
        except rules.RuleError as error:
            raise BadInput(str(error)) from None
        if match_end.kind not in entry.match_ends:
            raise BadInput(f"{entry.name} cannot end by {match_end.kind.name.lower()}.")
        with transaction.atomic():
            sitting = cls.objects.create(game=game, end_kind=match_end.kind.value, end_target=match_end.target)
            for player in players:
                if player.pk is None:
                    player.save()
            Seat.objects.bulk_create(
                Seat(sitting=sitting, player=player, position=position) for position, player in enumerate(players)
            )
        return sitting

    def record_hand(self, number: int, winner: int, extras: dict | None = None) -> Hand:
        """Record hand `number` as won by the seat at position `winner` (0-based).

        Idempotent: a hand that already has a row is never written twice.
        Raises AlreadyRecorded (names the recorded winner), Conflict (match over,
        or `number` is not the open hand) or BadInput (no such seat, extras that
        do not belong). Ends the match when its match-end rule now holds.
        Source: RULES.md, Common to every game.
        """
        with transaction.atomic():
            sitting = self._lock()
            table = sitting.table(recent=1)
            sitting._check_open(table, number)
            if not 0 <= winner < len(table.seats):
                raise BadInput(f"Seat {winner + 1} is not at this table: tap one of the names shown.")
            try:
                cleaned = sitting.rules.clean_extras(extras or {}, len(table.seats))
                points = sitting.rules.score_hand(len(table.seats), winner, cleaned)
            except rules.RuleError as error:
                raise BadInput(str(error)) from None
            hand = Hand(
                sitting=sitting,
                number=number,
                status=Hand.Status.WON,
                winner=table.seats[winner],
                dealer_position=table.dealer,
                extras=cleaned,
                points=list(points),
            )
            hand.clean()
            try:
                with transaction.atomic():
                    hand.save()
            except IntegrityError:
                # Another phone won the race for this hand number.
                raise sitting._already_recorded(number, table) from None
            Seat.add_points(table.seats, points, winner=winner, sign=1)
            totals = [seat.total for seat in table.seats]
            wins = [seat.hands_won for seat in table.seats]
            if rules.match_over(sitting.match_end, totals, wins, hands_played=number):
                sitting._finish(Sitting.EndedHow.MATCH_END)
        self.refresh_from_db(fields=["finished_at", "ended_how"])
        return hand

    def undo_hand(self, number: int) -> Hand:
        """Remove hand `number`, which must be the last recorded hand; returns the removed row.

        Undoing the hand that ended the match by its match-end rule reopens it;
        a match ended by a member stays final. Raises Conflict otherwise.
        """
        with transaction.atomic():
            sitting = self._lock()
            if sitting.ended_how == Sitting.EndedHow.ENDED_EARLY:
                raise Conflict("This match was ended: it can no longer change.")
            table = sitting.table(recent=1)
            last = table.last_hand
            if last is None:
                raise Conflict("There is no hand to undo yet.")
            if last.number != number:
                raise Conflict(f"Hand {number} is not the last hand any more: nothing was undone.")
            last.delete()
            winner = next(seat.position for seat in table.seats if seat.pk == last.winner_id)
            Seat.add_points(table.seats, last.points, winner=winner, sign=-1)
            if sitting.is_finished:
                Sitting.objects.filter(pk=sitting.pk).update(finished_at=None, ended_how="")
        self.refresh_from_db(fields=["finished_at", "ended_how"])
        return last

    def end_match(self) -> None:
        """End the match now: the open hand is abandoned (no winner, no points), the sitting is final.

        Raises Conflict when the match is already over. Source: RULES.md, Common to every game.
        """
        with transaction.atomic():
            sitting = self._lock()
            if sitting.is_finished:
                raise Conflict("This match is already over.")
            table = sitting.table(recent=1)
            Hand.objects.create(
                sitting=sitting,
                number=table.open_number,
                status=Hand.Status.ABANDONED,
                winner=None,
                dealer_position=table.dealer,
                points=[0] * len(table.seats),
            )
            sitting._finish(Sitting.EndedHow.ENDED_EARLY)
        self.refresh_from_db(fields=["finished_at", "ended_how"])

    def _lock(self) -> Sitting:
        return Sitting.objects.select_for_update().get(pk=self.pk)

    def _check_open(self, table: TableState, number: int) -> None:
        if self.is_finished:
            raise Conflict("This match is over: no more hands can be recorded.")
        if number < table.open_number:
            raise self._already_recorded(number, table)
        if number > table.open_number:
            raise Conflict(f"Hand {number} has not started: hand {table.open_number} is being played.")

    def _already_recorded(self, number: int, table: TableState) -> AlreadyRecorded:
        hand = self.hands.filter(number=number).first()
        if hand is None or hand.winner_id is None:
            return AlreadyRecorded(f"Hand {number} is already over.")
        return AlreadyRecorded(f"Hand {number} is already recorded: {table.name_of(hand.winner_id)}.")

    def _finish(self, how: Sitting.EndedHow) -> None:
        self.finished_at = timezone.now()
        self.ended_how = how
        Sitting.objects.filter(pk=self.pk).update(finished_at=self.finished_at, ended_how=how)

    # --- reading ---------------------------------------------------------

    def check_totals(self) -> list[str]:
        """Compare each seat's kept total and wins with the ledger of hand points.

        Returns one line per seat that disagrees (empty when all agree).
        """
        seats = list(self.seats.select_related("player").order_by("position"))
        totals = [0] * len(seats)
        wins = [0] * len(seats)
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

    def table(self, recent: int = HANDS_ON_TABLE) -> TableState:
        """What the match table shows, in two queries whatever the number of hands."""
        seats = list(self.seats.select_related("player").order_by("position"))
        hands = list(self.hands.order_by("-number")[:recent])
        return TableState(sitting=self, seats=seats, recent_hands=hands)


class Seat(models.Model):
    """A player's place in a sitting. `position` is 0-based, in playing order.

    `total` and `hands_won` are kept in step with the hands in the same
    transaction as every change; `Sitting.check_totals` compares them with the ledger.
    """

    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    total = models.IntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "position"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["sitting", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return self.player.name

    @property
    def name(self) -> str:
        return self.player.name

    @staticmethod
    def add_points(seats: Sequence[Seat], points: Sequence[int], winner: int, sign: int) -> None:
        """Add (sign=1) or take back (sign=-1) one hand's points and win, in one UPDATE."""
        total_cases = [
            models.When(pk=seat.pk, then=models.F("total") + sign * gained)
            for seat, gained in zip(seats, points)
            if gained
        ]
        won_case = models.When(pk=seats[winner].pk, then=models.F("hands_won") + sign)
        Seat.objects.filter(pk__in=[seat.pk for seat in seats]).update(
            total=models.Case(*total_cases, default=models.F("total"), output_field=models.IntegerField()),
            hands_won=models.Case(won_case, default=models.F("hands_won"), output_field=models.PositiveIntegerField()),
        )
        for seat, gained in zip(seats, points):
            seat.total += sign * gained
        seats[winner].hands_won += sign


class Hand(models.Model):
    """One hand of a sitting: its number, who won it, and the points it gave each seat.

    `points` lists the points per seat in seat order, fixed when recorded so
    that history never shifts if scoring code changes. `extras` holds a game's
    extra facts about the hand (how the last trick was won, ...).
    """

    class Status(models.TextChoices):
        WON = "won", "won"
        ABANDONED = "abandoned", "abandoned"

    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WON)
    winner = models.ForeignKey(Seat, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    dealer_position = models.PositiveSmallIntegerField()
    extras = models.JSONField(default=dict, blank=True)
    points = models.JSONField(default=list)
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "number"], name="one_row_per_hand"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="hand_numbers_start_at_1"),
            models.CheckConstraint(
                condition=models.Q(status="won", winner__isnull=False)
                | models.Q(status="abandoned", winner__isnull=True),
                name="won_hands_have_a_winner",
            ),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"

    def clean(self) -> None:
        """The winner must hold a seat in this sitting."""
        if self.winner is not None and self.winner.sitting_id != self.sitting_id:
            raise ValidationError({"winner": "The winner must be seated at this table."})


@dataclass
class TableState:
    """A read of the match table: seats in playing order and the newest hands first."""

    sitting: Sitting
    seats: list[Seat]
    recent_hands: list[Hand]

    @property
    def last_hand(self) -> Hand | None:
        return self.recent_hands[0] if self.recent_hands else None

    @property
    def hands_played(self) -> int:
        """Won hands so far (hands are numbered 1, 2, ... with no gaps)."""
        last = self.last_hand
        if last is None:
            return 0
        return last.number if last.status == Hand.Status.WON else last.number - 1

    @property
    def open_number(self) -> int:
        last = self.last_hand
        return last.number + 1 if last else 1

    @property
    def dealer(self) -> int:
        """Seat position dealing the open hand; the first seat deals hand 1."""
        last = self.last_hand
        if last is None:
            return 0
        if last.winner_id is None:
            return last.dealer_position
        winner = self.position_of(last.winner_id)
        return self.sitting.rules.dealer_after(len(self.seats), last.dealer_position, winner)

    @property
    def leader(self) -> int:
        return self.sitting.rules.leader_for(len(self.seats), self.dealer)

    @property
    def dealer_seat(self) -> Seat:
        return self.seats[self.dealer]

    @property
    def leader_seat(self) -> Seat:
        return self.seats[self.leader]

    @property
    def can_undo(self) -> bool:
        """The last hand can be taken back unless a member ended the match."""
        last = self.last_hand
        return (
            last is not None
            and last.status == Hand.Status.WON
            and self.sitting.ended_how != Sitting.EndedHow.ENDED_EARLY
        )

    @property
    def standings(self) -> list[Seat]:
        """Seats by total, highest first; ties keep seating order."""
        return sorted(self.seats, key=lambda seat: -seat.total)

    @property
    def leaders(self) -> list[Seat]:
        """Seats sharing first place (empty before any hand is won)."""
        if self.hands_played == 0:
            return []
        return [self.seats[p] for p in rules.leaders([seat.total for seat in self.seats])]

    def position_of(self, seat_id: int) -> int:
        return next(seat.position for seat in self.seats if seat.pk == seat_id)

    def name_of(self, seat_id: int | None) -> str:
        return "—" if seat_id is None else self.seats[self.position_of(seat_id)].name

    def rows(self) -> list[tuple[Hand, str, str, int]]:
        """Hand rows newest first: (hand, winner name, dealer name, winner's points)."""
        return [
            (
                hand,
                self.name_of(hand.winner_id),
                self.seats[hand.dealer_position].name,
                hand.points[self.position_of(hand.winner_id)] if hand.winner_id else 0,
            )
            for hand in self.recent_hands
        ]
