"""Statistics of a group of friends across matches: per player, per pair, over time.

Pure Python: nothing here imports Django. The caller turns sittings into MatchRecords, oldest
first; players are known by a key (a str, e.g. a Player's id or name), seats by their 0-based
position in the match's seat order.

Which matches count: a match with no hand won is left out of every figure (it still lists its
players). An abandoned hand (winner None) is not a hand played. A match ended early counts
with the standings it had when it ended. Winning a match is finishing with the highest final
score; players tied at the top each count a win.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from itertools import combinations, pairwise

RECENT_FORM_LENGTH = 10


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
    """One match (a sitting), as the table ended it.

    `players`: player keys in seat order. `finals`: final score per seat as the table shows it
    (total points or wins; chips for Cat Tê). `hands`: in the order played. `money`: net money
    per seat (Fapfap with a stake), else None. `chips_net`: Cat Tê net chips per seat against
    the starting stacks and re-issues, else None.

    Raises ValueError when a seat appears twice or a per-seat tuple or a winner does not fit the seats.
    """

    key: str
    game: str
    day: datetime.date
    players: tuple[str, ...]
    finals: tuple[int, ...]
    hands: tuple[HandRecord, ...] = ()
    ended_early: bool = False
    money: tuple[int, ...] | None = None
    chips_net: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        seats = len(self.players)
        if len(set(self.players)) != seats:
            raise ValueError(f"Match {self.key}: a player sits twice in {self.players}")
        per_seat = {"finals": self.finals, "money": self.money, "chips_net": self.chips_net}
        per_seat |= {f"hand {number}": hand.points for number, hand in enumerate(self.hands, start=1)}
        for name, values in per_seat.items():
            if values is not None and len(values) != seats:
                raise ValueError(f"Match {self.key}: {name} has {len(values)} entries for {seats} seats")
        for number, hand in enumerate(self.hands, start=1):
            if hand.won and not 0 <= hand.winner < seats:
                raise ValueError(f"Match {self.key}: hand {number} names seat {hand.winner} of {seats}")

    @property
    def counts(self) -> bool:
        """Whether the match enters the figures: at least one hand was won."""
        return any(hand.won for hand in self.hands)

    def won_by(self, seat: int) -> bool:
        """Whether the seat finished at the top (alone or tied)."""
        return self.finals[seat] == max(self.finals)


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
    first_wins: int = 0  # matches where the first finished higher than the second
    second_wins: int = 0
    draws: int = 0  # matches where they finished level


EXPLANATIONS: dict[str, str] = {
    "matches_played": "Matches this player sat in where at least one hand was won.",
    "matches_won": "Matches this player finished at the top; players tied at the top each count a win.",
    "win_rate": "Matches won divided by matches played.",
    "hands_played": "Hands that had a winner in the matches played; an abandoned hand does not count.",
    "hands_won": "Hands this player won.",
    "hand_share": "Hands won divided by hands played.",
    "points_per_hand": "The player's points from every hand played, divided by the hands played.",
    "best_run": "The most hands won in a row within one match; a run stops at the end of a match.",
    "net_chips": "Cat Tê chips won minus chips lost, against the starting stacks and re-issues.",
    "net_money": "Money won minus money lost in Fapfap matches played for a stake.",
    "recent_form": "The last ten matches, newest first: W won (a shared first place counts), L lost.",
    "head_to_head": "Of the matches two players both played, how often each finished higher, and how often level.",
}


def _chosen(matches: Iterable[MatchRecord], game: str | None) -> list[MatchRecord]:
    """The matches of `game` (all games when None), in order; raises ValueError when a day goes back."""
    chosen = [match for match in matches if game is None or match.game == game]
    for before, after in pairwise(chosen):
        if after.day < before.day:
            raise ValueError(f"Matches must come oldest first: {after.key} ({after.day}) follows {before.key}")
    return chosen


def _longest_run(match: MatchRecord, seat: int) -> int:
    longest = current = 0
    for hand in match.hands:
        if not hand.won:
            continue
        current = current + 1 if hand.winner == seat else 0
        longest = max(longest, current)
    return longest


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


def player_stats(matches: Iterable[MatchRecord], game: str | None = None) -> dict[str, PlayerStats]:
    """Each player's PlayerStats over `matches` (oldest first) of `game`, or of every game when None.

    Every player seated in a chosen match has an entry; one who sat only in matches with no
    hand won has zero counts and None for the ratios. Raises ValueError when a match's day is
    earlier than the one before it.
    """
    tallies: dict[str, _Tally] = {}
    for match in _chosen(matches, game):
        hands = [hand for hand in match.hands if hand.won]
        for seat, player in enumerate(match.players):
            tally = tallies.setdefault(player, _Tally())
            if not hands:
                continue
            won = match.won_by(seat)
            tally.played += 1
            tally.won += won
            tally.hands += len(hands)
            tally.hands_won += sum(hand.winner == seat for hand in hands)
            tally.points += sum(hand.points[seat] for hand in hands)
            tally.best_run = max(tally.best_run, _longest_run(match, seat))
            if match.chips_net is not None:
                tally.chips.append(match.chips_net[seat])
            if match.money is not None:
                tally.money.append(match.money[seat])
            tally.form.append("W" if won else "L")
    return {player: tally.stats() for player, tally in tallies.items()}


def head_to_head(matches: Iterable[MatchRecord], game: str | None = None) -> dict[tuple[str, str], HeadToHead]:
    """For each pair of players who both played a counted match, keyed by the pair sorted:
    who finished higher (by final score) how often, and how often they finished level."""
    pairs: dict[tuple[str, str], HeadToHead] = {}
    for match in _chosen(matches, game):
        if not match.counts:
            continue
        final = dict(zip(match.players, match.finals))
        for first, second in combinations(sorted(match.players), 2):
            old = pairs.get((first, second), HeadToHead())
            pairs[first, second] = HeadToHead(
                matches=old.matches + 1,
                first_wins=old.first_wins + (final[first] > final[second]),
                second_wins=old.second_wins + (final[first] < final[second]),
                draws=old.draws + (final[first] == final[second]),
            )
    return pairs


def win_rate_over_time(matches: Iterable[MatchRecord], player: str) -> list[tuple[str, float]]:
    """After each counted match `player` played, in the order given: (match key, win rate so far),
    the rate being matches won divided by matches played up to and including that one."""
    rates, played, won = [], 0, 0
    for match in _chosen(matches, None):
        if not match.counts or player not in match.players:
            continue
        played += 1
        won += match.won_by(match.players.index(player))
        rates.append((match.key, won / played))
    return rates


def sort_rows(stats: Mapping[str, PlayerStats], column: str, descending: bool = True) -> list[tuple[str, PlayerStats]]:
    """(player, stats) rows sorted by the PlayerStats field `column`; players without a value
    (None) come last whatever the direction, and ties go by player key.

    Raises ValueError naming the valid columns when `column` is not one.
    """
    if column not in COLUMNS:
        raise ValueError(f"Cannot sort by {column!r}; choose one of {', '.join(COLUMNS)}")
    rows = sorted(stats.items(), key=lambda row: row[0])
    valued = [row for row in rows if getattr(row[1], column) is not None]
    missing = [row for row in rows if getattr(row[1], column) is None]
    # sorted() is stable even with reverse=True, so equal values keep the key order.
    return sorted(valued, key=lambda row: getattr(row[1], column), reverse=descending) + missing
