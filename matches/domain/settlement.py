"""Settling up a money match in as few payments as possible. Pure Python; amounts are whole ints, a net
> 0 is owed. Fapfap (RULES.md, Fapfap stakes): a seat nets stake x (n x W - T), W its multipliers, T all."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matches.domain.names import name_order

EXACT_LIMIT = 14
"""Up to this many players with a non-zero net, `settle` finds the true fewest transfers."""


@dataclass(frozen=True)
class Transfer:
    """One payment: `payer` gives `payee` `amount` whole units (always > 0)."""

    payer: str | int
    payee: str | int
    amount: int


@dataclass(frozen=True)
class Settling:
    """A settlement by name: `unit` ("" for none or chips), `nets` (name, net) and `transfers` by name."""

    unit: str
    chips: bool
    nets: tuple[tuple[str, int], ...]
    transfers: tuple[Transfer, ...]


def settling(
    names: Mapping[str | int, str], nets: Mapping[str | int, int], unit: str = "", chips: bool = False
) -> Settling:
    """The Settling of `nets` (by key) named by `names` (key -> name). Raises KeyError for an unnamed key.
    Ties go by name, never key, so the match page (by seat) and the night's settlement (by player id)
    give the same payments; both list the players, and the payments by payer then payee, as people
    read a list of names (name_order), never by seat."""
    def order(key: str | int) -> tuple:
        return name_order(names[key])

    transfers = settle(nets, rank=order)
    transfers.sort(key=lambda t: (order(t.payer), order(t.payee)))
    return Settling(
        unit=unit,
        chips=chips,
        nets=tuple((names[key], nets.get(key, 0)) for key in sorted(names, key=order)),
        transfers=tuple(Transfer(names[t.payer], names[t.payee], t.amount) for t in transfers),
    )


def nets_from_totals(multipliers: Sequence[int], stake: int) -> list[int]:
    """Fapfap nets for `stake` a hand from each seat's total multipliers: stake x (n x own - all).
    Sums to 0; equals nets_from_hands. Raises ValueError for stake < 1 or a negative total."""
    if stake < 1:
        raise ValueError(f"A stake is a whole amount of at least 1, not {stake}")
    if any(total < 0 for total in multipliers):
        raise ValueError(f"Totals of multipliers are never negative: {list(multipliers)}")
    everyone = sum(multipliers)
    return [stake * (len(multipliers) * own - everyone) for own in multipliers]


def settle(nets: Mapping[str | int, int], rank: Callable[[str | int], Any] | None = None) -> list[Transfer]:
    """The fewest transfers bringing every net to zero, sorted by payer then payee; `rank` (a key
    function, identity when None) breaks every tie, so the result ignores the order of `nets`.

    Players in a zero-sum group settle in (size - 1) transfers, so the fewest is non-zero players
    minus the most disjoint zero-sum groups. Up to EXACT_LIMIT players that split is exact (DP over
    2**n subsets); beyond, one group settled greedily. Raises TypeError for a non-int net,
    ValueError when nets do not sum to 0.
    """
    for player, net in nets.items():
        if not isinstance(net, int):
            raise TypeError(f"{player}'s net is {net!r}: whole units only (round_nets rounds them)")
    total = sum(nets.values())
    if total != 0:
        raise ValueError(f"Nets must sum to 0 to be settled; these sum to {total}")
    order = rank or _itself
    players = sorted((player for player, net in nets.items() if net != 0), key=order)
    if len(players) <= EXACT_LIMIT:
        groups = _most_zero_sum_groups(players, nets)
    else:
        groups = [players]
    transfers = [transfer for group in groups for transfer in _settle_greedily({p: nets[p] for p in group}, order)]
    return sorted(transfers, key=lambda t: (order(t.payer), order(t.payee)))


def _itself(player: str | int) -> str | int:
    return player


def _most_zero_sum_groups(players: Sequence[str], nets: Mapping[str, int]) -> list[list[str]]:
    """`players` split into the most disjoint zero-sum groups: best[mask] is the most zero-sum
    prefixes an order of mask can have; the order is read back from best."""
    count = len(players)
    full = (1 << count) - 1
    sums = [0] * (full + 1)
    for mask in range(1, full + 1):
        lowest = (mask & -mask).bit_length() - 1
        sums[mask] = sums[mask & (mask - 1)] + nets[players[lowest]]
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        best[mask] = max(best[mask & ~(1 << i)] for i in range(count) if mask >> i & 1) + (sums[mask] == 0)

    groups: list[list[str]] = []
    mask, group = full, []
    while mask:
        closes = sums[mask] == 0
        if closes and group:
            groups.append(group)
            group = []
        # First player (by rank) whose removal keeps the best count, so the result is deterministic.
        i = next(i for i in range(count) if mask >> i & 1 and best[mask & ~(1 << i)] + closes == best[mask])
        group.append(players[i])
        mask &= ~(1 << i)
    if group:
        groups.append(group)
    return groups


def _settle_greedily(balances: dict[str, int], rank: Callable[[str | int], Any]) -> list[Transfer]:
    """Settle a zero-sum group greedily, largest debtor to largest creditor (ties by `rank`): <= len - 1 transfers."""
    balances = {player: net for player, net in balances.items() if net != 0}
    transfers = []
    while balances:
        payer = min((p for p in balances if balances[p] < 0), key=lambda p: (balances[p], rank(p)))
        payee = min((p for p in balances if balances[p] > 0), key=lambda p: (-balances[p], rank(p)))
        amount = min(-balances[payer], balances[payee])
        transfers.append(Transfer(payer, payee, amount))
        balances[payer] += amount
        balances[payee] -= amount
        balances = {player: net for player, net in balances.items() if net != 0}
    return transfers


def nets_from_hands(points_per_hand: Iterable[Sequence[int]], stake: int) -> list[int]:
    """Each seat's net over a Fapfap match at `stake` a hand; `points_per_hand` stores the winner's
    multiplier (1, 2 or 4) and zeros (all zeros: abandoned). Returns ints in seat order summing to 0.
    Raises ValueError for stake < 1, hands of different sizes, or a malformed hand."""
    if stake < 1:
        raise ValueError(f"A stake is a whole amount of at least 1, not {stake}")
    nets: list[int] = []
    for number, points in enumerate(points_per_hand, start=1):
        if not nets:
            nets = [0] * len(points)
        if len(points) != len(nets):
            raise ValueError(f"Hand {number} has {len(points)} seats, the first hand {len(nets)}")
        scored = [multiplier for multiplier in points if multiplier]
        if len(scored) > 1 or (scored and scored[0] < 0):
            raise ValueError(f"Hand {number} should give one winner a positive multiplier: {list(points)}")
        nets = [net + gain for net, gain in zip(nets, hand_gains(points, staked=True, stake=stake))]
    return nets


def hand_gains(points: Sequence[int], staked: bool, stake: int = 0) -> list[int]:
    """One hand's gain (+) or loss (-) for each seat in the match's unit. At stakes (Fapfap: `points`
    holds the winner's multiplier) every other seat pays the winner that many stakes, times `stake` when
    money is played; otherwise the points as scored (Cat Tê's chips are already paid seat to seat).
    An abandoned hand gains nobody anything. Source: RULES.md (Fapfap stakes)."""
    if not staked:
        return list(points)
    multiplier = max(points, default=0)
    if multiplier <= 0:
        return [0] * len(points)
    winner, each = points.index(multiplier), multiplier * (stake or 1)
    return [each * (len(points) - 1) if seat == winner else -each for seat in range(len(points))]


def round_nets(nets: Mapping[str, float]) -> dict[str, int]:
    """`nets` rounded to whole units still summing to 0 (largest remainder; ties by name): each within 1.
    Raises ValueError for a non-finite net or nets not summing to 0 (beyond 1e-9 of their sizes)."""
    for player, net in nets.items():
        if not math.isfinite(net):
            raise ValueError(f"{player}'s net is {net}")
    total = math.fsum(nets.values())
    if abs(total) > 1e-9 * (1 + math.fsum(abs(net) for net in nets.values())):
        raise ValueError(f"Nets must sum to 0 to be rounded; these sum to {total}")
    rounded = {player: math.floor(net) for player, net in nets.items()}
    missing = -sum(rounded.values())
    by_fraction = sorted(nets, key=lambda player: (-(nets[player] - rounded[player]), player))
    for player in by_fraction[:missing]:
        rounded[player] += 1
    return rounded
