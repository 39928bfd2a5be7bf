"""A read of a match table: seats, newest hands, who deals and leads next. State only: the words are
web/presenters/table_state.py's."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from django.db.models import Model

from matches.domain import rules, seating
from matches.domain.stakes import Stakes
from matches.models.choices import EndedHow, HandStatus

if TYPE_CHECKING:
    from matches.models.hands import Hand
    from matches.models.seats import Seat

HANDS_ON_TABLE = 6  # newest hand rows shown on the match table; the rest are on the history page


class ChartPoint(NamedTuple):
    """What the chart needs of an older hand: number, running totals and Eighty Three's threshold after it."""

    number: int
    running: list[int]
    threshold_after: int | None


@dataclass
class Table:
    """A read of the match table: seats in playing order and the newest hands first."""

    sitting: Model  # a Sitting (not imported: the Sitting model reads its table through this)
    seats: list[Seat]
    recent_hands: list[Hand]
    drawn_hands: dict[int, Hand | ChartPoint] = field(default_factory=dict)
    this_phone: str = ""  # the id of the phone reading the table, to tell its changes from the others'

    @classmethod
    def of(cls, table: Table) -> Table:
        return cls(**{f.name: getattr(table, f.name) for f in fields(Table)})

    @property
    def last_hand(self) -> Hand | None:
        return self.recent_hands[0] if self.recent_hands else None

    @cached_property
    def hands_played(self) -> int:
        """Won hands so far (numbered 1, 2, ... with no gaps)."""
        last = self.last_hand
        if last is None:
            return 0
        return last.number if last.status == HandStatus.WON else last.number - 1

    @property
    def earlier_hands(self) -> int:
        """Hands played before the ones read (the table shows the newest few; the history all)."""
        numbers = [hand.number for hand in self.recent_hands]
        return min(numbers) - 1 if numbers else 0

    @cached_property
    def open_number(self) -> int:
        last = self.last_hand
        return last.number + 1 if last else 1

    @cached_property
    def may_come_back(self) -> list[Seat]:
        """Those who left with no hand played since (a leave tapped by mistake): they may sit down again."""
        return [seat for seat in self.seats if seat.left == self.open_number]

    @cached_property
    def stays(self) -> list[seating.Stay]:
        return [seating.Stay(seat.joined, seat.left) for seat in self.seats]

    def playing_hand(self, number: int) -> tuple[int, ...]:
        """The positions that play hand `number` (every seat, unless the table changed mid-match)."""
        return seating.playing(self.stays, number)

    @cached_property
    def playing(self) -> tuple[int, ...]:
        """The positions that play the open hand, in playing order."""
        return self.playing_hand(self.open_number)

    @cached_property
    def playing_seats(self) -> list[Seat]:
        return [self.seats[position] for position in self.playing]

    @cached_property
    def dealer(self) -> int:
        """Seat position dealing the open hand; the first seat playing deals hand 1."""
        last = self.last_hand
        if last is None:
            return self.playing[0]
        winner = None if last.winner_id is None else self.position_of(last.winner_id)
        return seating.dealer_after(self.sitting.rules, self.playing, last.dealer_position, winner)

    @cached_property
    def leader(self) -> int:
        return seating.leader_for(self.sitting.rules, self.playing, self.dealer)

    @property
    def totals(self) -> list[int]:
        return [seat.total for seat in self.seats]

    @cached_property
    def dealer_seat(self) -> Seat:
        return self.seats[self.dealer]

    @cached_property
    def leader_seat(self) -> Seat:
        return self.seats[self.leader]

    @cached_property
    def can_undo(self) -> bool:
        """The last hand can be taken back unless a member ended the match, or a rematch followed its end."""
        last = self.last_hand
        if last is None or last.status != HandStatus.WON or self.sitting.ended_how == EndedHow.ENDED_EARLY:
            return False
        if self.sitting.is_finished and self.sitting.next_sitting_id:
            return False
        return all(stay.joined <= last.number and (stay.left or 0) <= last.number for stay in self.stays)

    def progress(self) -> rules.Progress:
        """The derived state as kept: totals, wins, hands won, threshold, match over."""
        return rules.Progress(
            totals=tuple(seat.total for seat in self.seats),
            wins=tuple(seat.hands_won for seat in self.seats),
            hands=self.hands_played,
            threshold=self.sitting.threshold,
            tied_at=self.sitting.tied_at,
            over=self.sitting.is_finished,
        )

    @cached_property
    def stakes(self) -> Stakes:
        return self.sitting.stakes

    def chips_issued(self, batches: int) -> int:
        """Chips handed to each seat once `batches` stacks followed the first (0 without chips)."""
        return self.stakes.stack(batches)

    def balances(self) -> list[int]:
        """Chips in front of each seat (Cat Tê): the stacks handed out plus what the hands moved."""
        return self.stakes.shown(self.totals) if self.stakes.chips else [seat.total for seat in self.seats]

    @cached_property
    def nets(self) -> list[int]:
        """Each seat's net money at the sitting's stake (0s without one): see Stakes.money."""
        return self.stakes.money(self.totals)

    @cached_property
    def someone_ran_out(self) -> bool:
        balances = self.balances()
        return self.sitting.rules.uses_chips and min(balances[seat] for seat in self.playing) <= 0

    @cached_property
    def leaders(self) -> list[Seat]:
        """Seats sharing first place (empty before any hand is won)."""
        if self.hands_played == 0:
            return []
        return [self.seats[p] for p in rules.leaders(self.standing_scores)]

    @cached_property
    def standing_scores(self) -> list[int]:
        """What places go by (Stakes.standing): the group's figures count a match's winner the same way."""
        return self.stakes.standing(self.totals)

    def position_of(self, seat_id: int) -> int:
        return next(seat.position for seat in self.seats if seat.pk == seat_id)

    def name_of(self, seat_id: int | None) -> str:
        return "—" if seat_id is None else self.seats[self.position_of(seat_id)].name
