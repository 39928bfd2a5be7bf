"""What a sitting's totals come to in chips (Cat Tê) or money (Fapfap at a stake): the one place.
Source: RULES.md (Cat Te: equal stacks, another for all when one runs out; Fapfap: stake x multiplier)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from matches.domain.settlement import nets_from_totals


@dataclass(frozen=True)
class Part:
    """Part of a match whose table changed: hands from `number` on, played by `seats` (positions), which
    began with each seat's total at `start` (a seat taken since starts at 0)."""

    number: int
    seats: tuple[int, ...]
    start: tuple[int, ...]


@dataclass(frozen=True)
class Stakes:
    """A sitting's chips and stake: `chips` stack per player (0: none); `batches` the hand open at each
    re-issue (inf: undated); `stake` per stake, or with chips what one chip is worth, in smallest units of
    `unit` (0: none; matches.domain.money); `parts` when the table changed
    mid-match (else none); `joined` the first hand of each seat (none: every seat from hand 1); `skipped`
    how many batches each seat's player missed, handed out before they sat down (at the hand they joined too)."""

    chips: int = 0
    batches: tuple[float, ...] = ()
    stake: int = 0
    unit: str = ""
    parts: tuple[Part, ...] = ()
    joined: tuple[int, ...] = ()
    left: tuple[int | None, ...] = ()
    skipped: tuple[int, ...] = ()

    @classmethod
    def of(
        cls,
        uses_chips: bool,
        starting: int | None,
        dated: Sequence[int],
        count: int,
        stake: int | None,
        unit: str,
        parts: Sequence[Part] = (),
        joined: Sequence[int] = (),
        left: Sequence[int | None] = (),
        skipped: Sequence[int] = (),
    ):
        """From a sitting's fields; a batch counted but not dated goes after every hand."""
        batches = sorted(dated)[:count] + [math.inf] * (count - min(count, len(dated)))
        chips = (starting or 0) if uses_chips else 0
        return cls(chips, tuple(batches), stake or 0, unit, tuple(parts), tuple(joined), tuple(left), tuple(skipped))

    def stack(self, batches: int) -> int:
        """Chips handed to each player once `batches` stacks followed the first (0 without chips)."""
        return self.chips * (1 + batches)

    def issued(self, before: float = math.inf, joined: int = 1, left: float | None = None, skipped: int = 0) -> int:
        """Chips handed to each player by the time hand `before` was open (default: by now); to one who sat
        down at hand `joined`, a stack then and each one handed out since (not the first `skipped`, handed
        out before, at that hand too), until they `left`."""
        batches = enumerate(self.batches)
        reached = [i >= skipped and joined <= b <= before and (left is None or b < left) for i, b in batches]
        return self.stack(sum(reached))

    def issued_to_each(self, before: float = math.inf) -> list[int]:
        """`issued` for each seat, by when it sat down and left."""
        if not self.joined:
            return []
        seats = zip(self.joined, self.left or [None] * len(self.joined), self.skipped or [0] * len(self.joined))
        return [self.issued(before, joined, left, skipped) for joined, left, skipped in seats]

    def given_to(self, batch: int, seats: Sequence[int]) -> list[int]:
        """Of `seats` (those at the table), the ones the `batch`-th batch (from 0, as handed out) reached: not
        one taken after it."""
        return [seat for seat in seats if not self.skipped or batch >= self.skipped[seat]]

    def handed_out_after(self, number: int) -> int:
        """Chips handed to each player right after hand `number` (before the next one)."""
        return self.chips * sum(1 for batch in self.batches if batch == number + 1)

    def money(self, totals: Sequence[int], before: float = math.inf) -> list[int]:
        """Each seat's net money from its stakes won (0s without a stake), `totals` being those after hand
        `before`; they sum to 0. When the table changed, each part counts the seats that played it. With
        chips, each chip won or lost is worth the stake."""
        if not self.stake:
            return [0] * len(totals)
        if self.chips:
            return [self.stake * total for total in totals]
        if not self.parts:
            return nets_from_totals(totals, self.stake)
        parts = [part for part in self.parts if part.number <= before] or list(self.parts[:1])
        nets = [0] * len(totals)
        ends = [part.start for part in parts[1:]] + [tuple(totals)]
        for part, end in zip(parts, ends, strict=True):
            moved = [now - then for now, then in zip(widened(end, len(totals)), widened(part.start, len(totals)))]
            everyone = sum(moved[seat] for seat in part.seats)
            for seat in part.seats:
                nets[seat] += self.stake * (len(part.seats) * moved[seat] - everyone)
        return nets

    def standing(self, totals: Sequence[int]) -> list[int]:
        """What places go by: chips in front (Cat Tê), else the totals; at a stake, when the table changed
        mid-match, the money (its hands had different numbers of payers)."""
        if self.chips:
            return self.shown(totals)
        return self.money(totals) if self.stake and self.parts else list(totals)

    def shown(self, totals: Sequence[int], before: float = math.inf) -> list[int]:
        """What the tally shows: chips in front (stacks by hand `before` + total), else net money, else totals."""
        if self.chips:
            issued = self.issued_to_each(before) or [self.issued(before)] * len(totals)
            return [chips + total for chips, total in zip(issued, totals)]
        if self.stake:
            return self.money(totals, before)
        return list(totals)


def widened(totals: Sequence[int], width: int) -> list[int]:
    """`totals` with 0 for each seat taken since."""
    return [*totals, *[0] * (width - len(totals))]
