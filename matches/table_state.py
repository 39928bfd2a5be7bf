"""What the match table shows, read in a fixed number of queries: seats, newest hands, who deals.

Built by Sitting.table() (or by a verb, from the rows it already read under its lock).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from . import models, rules

if TYPE_CHECKING:
    from .models import Hand, Seat, Sitting


@dataclass
class TableState:
    """A read of the match table: seats in playing order and the newest hands first."""

    sitting: Sitting
    seats: list[Seat]
    recent_hands: list[Hand]

    @property
    def last_hand(self) -> Hand | None:
        return self.recent_hands[0] if self.recent_hands else None

    @cached_property
    def hands_played(self) -> int:
        """Won hands so far (hands are numbered 1, 2, ... with no gaps)."""
        last = self.last_hand
        if last is None:
            return 0
        return last.number if last.status == models.Hand.Status.WON else last.number - 1

    @cached_property
    def open_number(self) -> int:
        last = self.last_hand
        return last.number + 1 if last else 1

    @cached_property
    def dealer(self) -> int:
        """Seat position dealing the open hand; the first seat deals hand 1."""
        last = self.last_hand
        if last is None:
            return 0
        if last.winner_id is None:
            return last.dealer_position
        winner = self.position_of(last.winner_id)
        return self.sitting.rules.dealer_after(len(self.seats), last.dealer_position, winner)

    @cached_property
    def leader(self) -> int:
        return self.sitting.rules.leader_for(len(self.seats), self.dealer)

    @cached_property
    def dealer_seat(self) -> Seat:
        return self.seats[self.dealer]

    @cached_property
    def leader_seat(self) -> Seat:
        return self.seats[self.leader]

    @cached_property
    def can_undo(self) -> bool:
        """The last hand can be taken back unless a member ended the match."""
        last = self.last_hand
        return (
            last is not None
            and last.status == models.Hand.Status.WON
            and self.sitting.ended_how != models.Sitting.EndedHow.ENDED_EARLY
        )

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
    def leader_score(self) -> int:
        """The first place's score as the tally shows it: chips in front of them, or their total."""
        first = self.leaders[0]
        return self.balances()[first.position] if self.sitting.rules.uses_chips else first.total

    def balances(self) -> list[int]:
        """Chips in front of each seat (Cat Tê): the stacks handed out plus what the hands moved."""
        issued = (self.sitting.starting_chips or 0) * (1 + self.sitting.chips_reissued)
        return [issued + seat.total for seat in self.seats]

    @cached_property
    def tally(self) -> list[tuple[Seat, int | None]]:
        """(seat, chips or money) per seat in seating order; None when the game has neither."""
        sitting = self.sitting
        if sitting.rules.uses_chips:
            return list(zip(self.seats, self.balances()))
        if sitting.stake_amount:
            return [(seat, seat.total * sitting.stake_amount) for seat in self.seats]
        return [(seat, None) for seat in self.seats]

    @cached_property
    def someone_ran_out(self) -> bool:
        return self.sitting.rules.uses_chips and min(self.balances()) <= 0

    @cached_property
    def leaders(self) -> list[Seat]:
        """Seats sharing first place (empty before any hand is won)."""
        if self.hands_played == 0:
            return []
        return [self.seats[p] for p in rules.leaders([seat.total for seat in self.seats])]

    def position_of(self, seat_id: int) -> int:
        return next(seat.position for seat in self.seats if seat.pk == seat_id)

    def name_of(self, seat_id: int | None) -> str:
        return "—" if seat_id is None else self.seats[self.position_of(seat_id)].name

    @cached_property
    def rows(self) -> list[HandRow]:
        """The hand rows to show, newest first."""
        return [
            HandRow(
                hand=hand,
                winner=self.name_of(hand.winner_id) if hand.winner_id else "",
                dealer=self.seats[hand.dealer_position].name,
                points=hand.points[self.position_of(hand.winner_id)] if hand.winner_id else 0,
                how=self.describe(hand),
                recorded_by=self.who(hand.recorded_by_seat, hand.recorded_by_phone),
                corrected_by=self.who(hand.corrected_by_seat, hand.corrected_by_phone),
            )
            for hand in self.recent_hands
        ]

    def who(self, seat: int | None, phone: str) -> str:
        """Who made a change, for a hand's details: "Djibo", "phone k3Xa", or "" when unknown."""
        if seat is not None and seat < len(self.seats):
            return self.seats[seat].name
        return _("phone %(id)s") % {"id": phone} if phone else ""

    def describe(self, hand: Hand) -> str:
        """A hand's extra facts in a few words ("x2", "dealt flush", "Ace; bonus: Djibo")."""
        words = []
        if hand.status != models.Hand.Status.WON:
            return ""  # an abandoned hand has no answers
        for question in self.sitting.rules.asked(hand.extras):
            answer = hand.extras.get(question.key)
            if question.kind == "choice":
                words.extend(_(c.short) for c in question.choices if c.value == answer)
            elif question.kind == "flag" and answer:
                words.append(_(question.short or question.prompt))
            elif question.kind == "seats" and answer:
                names = ", ".join(self.seats[p].name for p in answer)
                words.append(
                    _("%(question)s: %(names)s") % {"question": _(question.short or question.prompt), "names": names}
                )
        return _("; ").join(words)


@dataclass
class HandRow:
    """One hand as the screens show it: winner's and dealer's names, the winner's points,
    how it was won, and who recorded or corrected it."""

    hand: Hand
    winner: str
    dealer: str
    points: int
    how: str
    recorded_by: str
    corrected_by: str
