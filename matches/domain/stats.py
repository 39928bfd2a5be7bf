"""Statistics of a group across matches (pure Python). MatchRecords come oldest first; player keys
are of one sortable kind. Matches with no hand won count nowhere; abandoned hands are not played;
an early end counts its standings then; players tied at the top each win."""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from decimal import ROUND_HALF_UP, Decimal
from functools import cached_property
from itertools import combinations, pairwise

from matches.domain.replay import longest_run

RECENT_FORM_LENGTH = 10

Key = str | int
"""A player's key, or a match's: one kind throughout a call, since keys are sorted."""


def gettext_noop(message: str) -> str:
    """Mark `message` for translation (Django's makemessages finds this name) without importing Django."""
    return message


@dataclass(frozen=True)
class HandRecord:
    """One hand: the winner's seat position (None for an abandoned hand) and the points per seat."""

    winner: int | None
    points: tuple[int, ...]

    @property
    def won(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True)
class MatchRecord:
    """One match summed per seat: `players` keys, `finals` (table score), `hands_won`, `best_runs`,
    `points` (game's unit), `money` (Fapfap stake, in `currency`) or None, `chips_net` (Cat Tê) or None;
    `playing`: not finished yet, so it counts in the night's money and chips, never in the figures.
    Raises ValueError for a repeated seat, a misfit tuple, or a run longer than hands won."""

    key: Key
    game: str
    day: datetime.date
    players: tuple[Key, ...]
    finals: tuple[int, ...]
    hands_won: tuple[int, ...]
    best_runs: tuple[int, ...]
    points: tuple[int, ...]
    ended_early: bool = False
    money: tuple[int, ...] | None = None
    chips_net: tuple[int, ...] | None = None
    currency: str = ""
    playing: bool = False
    seat_hands: tuple[int, ...] | None = None  # hands each seat played, when not every one (the table changed)

    def __post_init__(self) -> None:
        seats = len(self.players)
        if len(set(self.players)) != seats:
            raise ValueError(f"Match {self.key}: a player sits twice in {self.players}")
        per_seat = {
            "finals": self.finals,
            "hands_won": self.hands_won,
            "best_runs": self.best_runs,
            "points": self.points,
            "money": self.money,
            "chips_net": self.chips_net,
        }
        for name, values in per_seat.items():
            if values is not None and len(values) != seats:
                raise ValueError(f"Match {self.key}: {name} has {len(values)} entries for {seats} seats")
        for seat, (won, run) in enumerate(zip(self.hands_won, self.best_runs)):
            if not 0 <= run <= won:
                raise ValueError(f"Match {self.key}: seat {seat} has a best run of {run} in {won} hands won")

    @classmethod
    def from_hands(
        cls,
        key: Key,
        game: str,
        day: datetime.date,
        players: tuple[Key, ...],
        finals: tuple[int, ...],
        hands: tuple[HandRecord, ...] = (),
        **rest: object,
    ) -> MatchRecord:
        """A record from `hands` in play order (`rest`: ended_early, money, chips_net, currency).
        Raises ValueError as the constructor does, or for hands not fitting the seats."""
        seats = len(players)
        for number, hand in enumerate(hands, start=1):
            if len(hand.points) != seats:
                raise ValueError(f"Match {key}: hand {number} has {len(hand.points)} entries for {seats} seats")
            if hand.won and not 0 <= hand.winner < seats:
                raise ValueError(f"Match {key}: hand {number} names seat {hand.winner} of {seats}")
        winners = [hand.winner for hand in hands]
        return cls(
            key,
            game,
            day,
            players,
            finals,
            hands_won=tuple(winners.count(seat) for seat in range(seats)),
            best_runs=tuple(longest_run(winners, seat) for seat in range(seats)),
            points=tuple(sum(hand.points[seat] for hand in hands) for seat in range(seats)),
            **rest,
        )

    @cached_property
    def hands_played(self) -> int:
        """Hands with a winner: each has exactly one, so the sum of the seats' hands won."""
        return sum(self.hands_won)

    def played_by(self, seat: int) -> int:
        """The hands `seat` played: all of them, unless it sat down late or left."""
        return self.hands_played if self.seat_hands is None else self.seat_hands[seat]

    @cached_property
    def counts(self) -> bool:
        """Whether the match enters the figures: finished, with at least one hand won."""
        return self.hands_played > 0 and not self.playing

    @cached_property
    def top(self) -> int:
        return max(self.finals)

    def won_by(self, seat: int) -> bool:
        """Whether the seat finished at the top (alone or tied)."""
        return self.finals[seat] == self.top


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures over the counted matches; EXPLANATIONS says how each is counted."""

    matches_played: int = 0
    matches_won: int = 0
    win_rate: float | None = None
    hands_played: int = 0
    hands_won: int = 0
    hand_share: float | None = None
    points_per_hand: float | None = None
    best_run: int = 0
    net_chips: int | None = None
    net_money: int | None = None
    recent_form: tuple[str, ...] = ()


COLUMNS = tuple(column.name for column in fields(PlayerStats))


@dataclass(frozen=True)
class HeadToHead:
    """Two players over the counted matches they both played; `first` is the key that sorts first."""

    matches: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0


EXPLANATIONS: dict[str, str] = {
    "matches_played": gettext_noop(
        "Finished matches this player sat in where at least one hand was won; a match ended early counts, "
        "with the standings it had when it ended. Matches still being played do not count."
    ),
    "matches_won": gettext_noop(
        "Finished matches this player ended at the top (a match ended early: at the top when it ended); "
        "players tied at the top each count a win."
    ),
    "win_rate": gettext_noop("Matches won divided by matches played, as a whole percent."),
    "hands_played": gettext_noop(
        "Hands with a winner that this player played in their finished matches, won by anyone (a latecomer's from "
        "when they sat down); an abandoned hand does not count."
    ),
    "hands_won": gettext_noop("Hands this player won in their finished matches."),
    "hand_share": gettext_noop("Hands won divided by hands played, as a whole percent."),
    "points_per_hand": gettext_noop(
        "The player's points from every hand of their finished matches, divided by the hands played."
    ),
    "best_run": gettext_noop(
        "The most hands this player won in a row within one finished match; a run stops at the end of a match."
    ),
    "net_chips": gettext_noop(
        "Cat Tê chips won minus chips lost over the finished Cat Tê matches, against the starting stacks and re-issues."
    ),
    "net_money": gettext_noop(
        "Money won minus money lost over the finished matches played for money, in the currency shown: in "
        "Fapfap each other player pays the winner the stake times the hand's multiplier; in Cat Tê each chip "
        "won or lost is worth what the table said."
    ),
    "recent_form": gettext_noop(
        "This player's last ten finished matches, newest first: W won (a shared first place counts), L lost."
    ),
    "head_to_head": gettext_noop(
        "Of the finished matches two players both played, how often each ended higher, and how often level."
    ),
}
"""How each figure is counted, one plain sentence each (English; marked for translation)."""


def _chosen(matches: Iterable[MatchRecord], game: str | None) -> list[MatchRecord]:
    """The matches of `game` (all games when None), in order; raises ValueError when a day goes back."""
    chosen = [match for match in matches if game is None or match.game == game]
    for before, after in pairwise(chosen):
        if after.day < before.day:
            raise ValueError(f"Matches must come oldest first: {after.key} ({after.day}) follows {before.key}")
    return chosen


def percent_of(ratio: float) -> int:
    """Ratio (0-1) as a whole percent, halves rounded up (5/8 -> 63, where round() gives 62)."""
    return math.floor(100 * ratio + 0.5)


def hundredths(value: float) -> Decimal:
    """`value` to two decimals, halves rounded up as people round (2/3 -> 0.67, 1/8 -> 0.13, -1/8 ->
    -0.13), where Django's number_format cuts (0.66)."""
    return Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class _Tally:
    """One player's running counts while player_stats reads the matches."""

    played: int = 0
    won: int = 0
    hands: int = 0
    hands_won: int = 0
    points: int = 0
    best_run: int = 0
    chips: list[int] = field(default_factory=list)
    money: list[int] = field(default_factory=list)
    form: list[str] = field(default_factory=list)

    def stats(self) -> PlayerStats:
        return PlayerStats(
            matches_played=self.played,
            matches_won=self.won,
            win_rate=_ratio(self.won, self.played),
            hands_played=self.hands,
            hands_won=self.hands_won,
            hand_share=_ratio(self.hands_won, self.hands),
            points_per_hand=_ratio(self.points, self.hands),
            best_run=self.best_run,
            net_chips=sum(self.chips) if self.chips else None,
            net_money=sum(self.money) if self.money else None,
            recent_form=tuple(reversed(self.form[-RECENT_FORM_LENGTH:])),
        )


def player_stats(
    matches: Iterable[MatchRecord], game: str | None = None, currency: str | None = None
) -> dict[Key, PlayerStats]:
    """Each player's PlayerStats over `matches` (oldest first) of `game` (all when None); players only
    in unwon matches get zeros and None ratios. `net_money` sums `currency` (all when None).
    Raises ValueError when a match's day goes back."""
    tallies: dict[Key, _Tally] = {}
    for match in _chosen(matches, game):
        for seat, player in enumerate(match.players):
            tally = tallies.setdefault(player, _Tally())
            if not match.counts or not match.played_by(seat):  # (sat down after the last hand)
                continue
            won = match.won_by(seat)
            tally.played += 1
            tally.won += won
            tally.hands += match.played_by(seat)
            tally.hands_won += match.hands_won[seat]
            tally.points += match.points[seat]
            tally.best_run = max(tally.best_run, match.best_runs[seat])
            if match.chips_net is not None:
                tally.chips.append(match.chips_net[seat])
            if match.money is not None and currency in (None, match.currency):
                tally.money.append(match.money[seat])
            tally.form.append("W" if won else "L")
    return {player: tally.stats() for player, tally in tallies.items()}


def hand_shares(matches: Iterable[MatchRecord]) -> dict[str, dict[Key, float]]:
    """Per game, each player's share of hands won (0-1), as player_stats' hand_share but in one pass."""
    counts: dict[str, dict[Key, list[int]]] = {}  # game -> player -> [hands won, hands played]
    for match in matches:
        if not match.counts:
            continue
        game = counts.setdefault(match.game, {})
        for seat, (player, won) in enumerate(zip(match.players, match.hands_won)):
            if not match.played_by(seat):
                continue
            tally = game.setdefault(player, [0, 0])
            tally[0] += won
            tally[1] += match.played_by(seat)
    return {
        game: {player: won / played for player, (won, played) in players.items()} for game, players in counts.items()
    }


def head_to_head(matches: Iterable[MatchRecord], game: str | None = None) -> dict[tuple[Key, Key], HeadToHead]:
    """Per sorted pair who both played a counted match: who finished higher how often, and draws."""
    tallies: dict[tuple[Key, Key], list[int]] = {}  # matches, first's wins, second's wins, draws
    for match in _chosen(matches, game):
        if not match.counts:
            continue
        for (first, a), (second, b) in combinations(sorted(zip(match.players, match.finals)), 2):
            tally = tallies.setdefault((first, second), [0, 0, 0, 0])
            tally[0] += 1
            tally[1 if a > b else 2 if a < b else 3] += 1
    return {pair: HeadToHead(*tally) for pair, tally in tallies.items()}


def win_rate_over_time(matches: Iterable[MatchRecord], player: Key) -> list[tuple[Key, float]]:
    """After each counted match of `player`: (match key, win rate so far)."""
    rates, played, won = [], 0, 0
    for match in _chosen(matches, None):
        if not match.counts or player not in match.players:
            continue
        played += 1
        won += match.won_by(match.players.index(player))
        rates.append((match.key, won / played))
    return rates


def sort_rows(stats: Mapping[Key, PlayerStats], column: str, descending: bool = True) -> list[tuple[Key, PlayerStats]]:
    """(player, stats) rows sorted by PlayerStats field `column`; None last either way, ties by key.
    Raises ValueError naming the valid columns for an unknown one."""
    if column not in COLUMNS:
        raise ValueError(f"Cannot sort by {column!r}; choose one of {', '.join(COLUMNS)}")
    rows = sorted(stats.items(), key=lambda row: row[0])
    valued = [row for row in rows if getattr(row[1], column) is not None]
    missing = [row for row in rows if getattr(row[1], column) is None]
    # sorted() is stable even with reverse=True, so equal values keep the key order.
    return sorted(valued, key=lambda row: getattr(row[1], column), reverse=descending) + missing


@dataclass(frozen=True)
class NightNets:
    """A night's nets per player over `matches` of `day`, in `currency` ("" if none) or in chips;
    `playing`: those of `matches` still being played."""

    day: datetime.date
    chips: bool
    currency: str
    matches: tuple[Key, ...]
    nets: dict[Key, int]
    playing: tuple[Key, ...] = ()


def nightly_nets(matches: Iterable[MatchRecord]) -> list[NightNets]:
    """Per day (newest first) and currency (then chips): each player's net over the matches of that day (the
    night each started: all of its hands) with money or chips (Cat Tê chips with a worth: in money),
    finished or still being played (in Fapfap each hand is paid when it is won). Raises ValueError when a
    match's day goes back."""
    nights: dict[tuple[datetime.date, bool, str], tuple[list[MatchRecord], dict[Key, int]]] = {}
    for match in _chosen(matches, None):
        for chips, currency, nets in ((False, match.currency, match.money), (True, "", match.chips_net)):
            if nets is None or not match.hands_played or (chips and match.money is not None):
                continue  # chips with a worth are settled in money
            counted, total = nights.setdefault((match.day, chips, currency), ([], {}))
            counted.append(match)
            for player, net in zip(match.players, nets):
                total[player] = total.get(player, 0) + net
    return [
        NightNets(
            day,
            chips,
            currency,
            tuple(match.key for match in counted),
            total,
            tuple(match.key for match in counted if match.playing),
        )
        for (day, chips, currency), (counted, total) in sorted(
            nights.items(), key=lambda item: (-item[0][0].toordinal(), item[0][1], item[0][2])
        )
    ]
