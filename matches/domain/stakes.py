"""What a sitting's totals come to in chips (Cat Tê) or money (Fapfap at a stake): the one place.
Source: RULES.md (Cat Te: equal stacks, another for all when one runs out; Fapfap: stake x multiplier)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from matches.domain.settlement import nets_from_totals


@dataclass(frozen=True)
class Stakes:
    """A sitting's chips and stake: `chips` stack per player (0: none); `batches` the hand open at each
    re-issue (inf: undated); `stake` per stake in `unit` (0: none)."""

    chips: int = 0
    batches: tuple[float, ...] = ()
    stake: int = 0
    unit: str = ""

    @classmethod
    def of(cls, uses_chips: bool, starting: int | None, dated: Sequence[int], count: int, stake: int | None, unit: str):
        """From a sitting's fields; a batch counted but not dated goes after every hand."""
        batches = sorted(dated)[:count] + [math.inf] * (count - min(count, len(dated)))
        return cls((starting or 0) if uses_chips else 0, tuple(batches), stake or 0, unit)

    def stack(self, batches: int) -> int:
        """Chips handed to each player once `batches` stacks followed the first (0 without chips)."""
        return self.chips * (1 + batches)

    def issued(self, before: float = math.inf) -> int:
        """Chips handed to each player by the time hand `before` was open (default: by now)."""
        return self.stack(sum(1 for batch in self.batches if batch <= before))

    def handed_out_after(self, number: int) -> int:
        """Chips handed to each player right after hand `number` (before the next one)."""
        return self.chips * sum(1 for batch in self.batches if batch == number + 1)

    def net(self, total: int, everyone: int, seats: int) -> int:
        """A seat's net money: stake x (seats x total - everyone); 0 without a stake."""
        return self.stake * (seats * total - everyone)

    def money(self, totals: Sequence[int]) -> list[int]:
        """Each seat's net money from its stakes won (0s without a stake); they sum to 0."""
        return nets_from_totals(totals, self.stake) if self.stake else [0] * len(totals)

    def shown(self, totals: Sequence[int], before: float = math.inf) -> list[int]:
        """What the tally shows: chips in front (stacks by hand `before` + total), else net money, else totals."""
        if self.chips:
            issued = self.issued(before)
            return [issued + total for total in totals]
        if self.stake:
            return self.money(totals)
        return list(totals)
