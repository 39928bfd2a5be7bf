"""The one replay of a sitting's hands (models after corrections, archive checks, statistics):
totals, thresholds, dealers, match end, best runs. Source: RULES.md (match ends; dealing; Eighty Three)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from matches.domain.rules.core import MatchEnd, Progress


@dataclass(frozen=True)
class Played:
    """What the replay needs of one hand: the winner's seat (None: abandoned), each seat's points, and
    the seats that played it (None: all)."""

    winner: int | None
    points: Sequence[int]
    playing: Sequence[int] | None = None


@dataclass(frozen=True)
class Replayed:
    """`after[i]`: state after hand i; `ended_at`: index of the hand that reached the match end; `final`."""

    after: tuple[Progress, ...]
    ended_at: int | None
    final: Progress

    @property
    def played_after_end(self) -> int:
        """Won hands recorded after the one that ended the match (a correction can cause that)."""
        if self.ended_at is None:
            return 0
        return len(self.after) - 1 - self.ended_at


def replay(n_seats: int, end: MatchEnd, hands: Iterable[Played]) -> Replayed:
    """Fold `hands` in order into the state after each; abandoned hands change nothing."""
    progress = Progress.start(n_seats, end)
    after, ended_at = [], None
    for index, hand in enumerate(hands):
        if hand.winner is not None:
            progress = progress.after(end, hand.winner, hand.points, hand.playing)
            if progress.over and ended_at is None:
                ended_at = index
        after.append(progress)
    return Replayed(tuple(after), ended_at, progress)


def longest_run(winners: Iterable[int | None], seat: int) -> int:
    """The most hands `seat` won in a row; an abandoned hand (None: never played out) breaks no run."""
    longest = current = 0
    for winner in winners:
        if winner is None:
            continue
        current = current + 1 if winner == seat else 0
        longest = max(longest, current)
    return longest


def best_runs(winners: Sequence[int | None], n_seats: int) -> tuple[int, ...]:
    return tuple(longest_run(winners, seat) for seat in range(n_seats))
