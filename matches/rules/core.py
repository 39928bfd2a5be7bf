"""Shapes shared by every game of the registry: packs, table movement, match ends.

Pure Python: nothing here imports Django, so the rules are tested by tables of
cases without a database. Seats are 0-based indexes into the sitting's seats,
listed in playing order (the order in which cards are dealt and tricks played).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class RuleError(ValueError):
    """Input that the game's rules refuse; the message says what to fix."""


class Direction(StrEnum):
    """Which way the deal and the play go round the table."""

    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter-clockwise"


class NextDealer(StrEnum):
    """Who deals the next hand."""

    WINNER = "winner"  # the winner of the hand just played
    ROTATE = "rotate"  # the next player in playing order, whoever won


class Leader(StrEnum):
    """Who leads the first trick of a hand."""

    DEALER = "dealer"
    AFTER_DEALER = "after-dealer"  # next in playing order: dealer's right when play goes counter-clockwise


class MatchEndKind(StrEnum):
    """How a sitting ends by itself; OPEN means only End match ends it."""

    OPEN = "open"
    WINS = "wins"  # first to N hands won
    HANDS = "hands"  # after N hands
    POINTS = "points"  # first to N points


@dataclass(frozen=True)
class MatchEnd:
    """A sitting's match-end rule. `target` is a count of wins, hands or points."""

    kind: MatchEndKind = MatchEndKind.OPEN
    target: int | None = None

    def __post_init__(self) -> None:
        if self.kind is MatchEndKind.OPEN:
            if self.target is not None:
                raise RuleError("An open match has no target.")
        elif self.target is None or not 1 <= self.target <= MAX_TARGET:
            raise RuleError(f"Choose a target between 1 and {MAX_TARGET}.")


MAX_TARGET = 10_000


@dataclass(frozen=True)
class Pack:
    """The cards a table prepares: `size` cards, described for the help card."""

    name: str
    size: int
    description: str


Scorer = Callable[[int, int, Mapping[str, object]], tuple[int, ...]]


@dataclass(frozen=True)
class Game:
    """One registry entry: everything the app knows about a game.

    `score(n_seats, winner, extras)` returns the points the hand gives each seat,
    a tuple of ints in seat order. `extras` are the game's extra facts about the
    hand, already cleaned by `clean_extras`.
    """

    slug: str
    name: str
    region: str
    min_players: int
    max_players: int
    pack: Pack
    cards_each: int
    deal_batches: tuple[int, ...]
    ranking: str
    deciding_trick: int
    tricks: int
    direction: Direction
    next_dealer: NextDealer
    leader: Leader
    score: Scorer
    match_ends: tuple[MatchEndKind, ...]
    too_many_players: str = ""
    extra_fields: tuple[str, ...] = field(default=())

    def players_reason(self) -> str:
        """Why the player range is what it is, for the message refusing a count outside it."""
        head = f"{self.name} is for {self.min_players} to {self.max_players} players"
        if self.too_many_players:
            return f"{head}: {self.too_many_players}"
        return head + "."

    def check_player_count(self, count: int) -> None:
        """Raise RuleError naming the reason when `count` players cannot play this game."""
        if not self.min_players <= count <= self.max_players:
            raise RuleError(self.players_reason())

    def clean_extras(self, raw: Mapping[str, object], n_seats: int) -> dict[str, object]:
        """Check a hand's extra facts; return them cleaned, or raise RuleError.

        A game with no extra facts refuses any.
        """
        unknown = sorted(set(raw) - set(self.extra_fields))
        if unknown:
            raise RuleError(f"{self.name} records only the winner, not {', '.join(unknown)}.")
        return dict(raw)

    def score_hand(self, n_seats: int, winner: int, extras: Mapping[str, object] | None = None) -> tuple[int, ...]:
        """Points the hand gives each seat (tuple of `n_seats` ints, seat order).

        Raises RuleError when `winner` is not a seat or the extras do not belong.
        """
        self.check_player_count(n_seats)
        if not 0 <= winner < n_seats:
            raise RuleError(f"Seat {winner + 1} is not at this table.")
        cleaned = self.clean_extras(extras or {}, n_seats)
        points = self.score(n_seats, winner, cleaned)
        assert len(points) == n_seats
        return points

    def dealer_after(self, n_seats: int, dealer: int, winner: int) -> int:
        """Seat that deals the hand after one dealt by `dealer` and won by `winner`."""
        if self.next_dealer is NextDealer.WINNER:
            return winner
        return (dealer + 1) % n_seats

    def leader_for(self, n_seats: int, dealer: int) -> int:
        """Seat that leads the first trick of a hand dealt by `dealer`."""
        if self.leader is Leader.DEALER:
            return dealer
        return (dealer + 1) % n_seats

    def deal_text(self) -> str:
        """'6 each, 3 then 3': the deal, for the game's one-line summary."""
        batches = " then ".join(str(b) for b in self.deal_batches)
        return f"{self.cards_each} each, {batches}" if len(self.deal_batches) > 1 else f"{self.cards_each} each"

    def summary(self) -> str:
        """One line for the start screen: pack, cards each, players."""
        return (
            f"{self.pack.size}-card pack · {self.cards_each} cards each · "
            f"{self.min_players}–{self.max_players} players"
        )


def winner_takes_one(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
    """The hand's winner scores 1 (one win); nobody else scores. Source: RULES.md, Agram family."""
    return tuple(1 if seat == winner else 0 for seat in range(n_seats))


def leaders(totals: Sequence[int]) -> list[int]:
    """Seats sharing the highest total (one seat: a clear winner; several: a shared first place)."""
    if not totals:
        return []
    top = max(totals)
    return [seat for seat, total in enumerate(totals) if total == top]


def match_over(end: MatchEnd, totals: Sequence[int], wins: Sequence[int], hands_played: int) -> bool:
    """Whether the match-end rule `end` holds after `hands_played` won hands.

    `totals` are points per seat and `wins` hands won per seat, both in seat order.
    Source: RULES.md, Agram family ("first to N wins, or N hands").
    """
    if end.kind is MatchEndKind.OPEN:
        return False
    if end.kind is MatchEndKind.HANDS:
        return hands_played >= end.target
    if end.kind is MatchEndKind.WINS:
        return max(wins, default=0) >= end.target
    return max(totals, default=0) >= end.target
