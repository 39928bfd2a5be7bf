"""Settling up after a match played for money: who pays whom, in as few payments as possible.

Pure Python: nothing here imports Django. Amounts are whole units of the table's currency
(e.g. CFA francs) or chips, as ints; a net is positive for a player who is owed, negative for one
who owes. Players are known by a key (a name, a seat position, a Player's id: one kind per call).

Fapfap's convention (RULES.md, Fapfap stakes): on every hand, each other player pays the winner
the stake times the hand's multiplier. So with n seats, T the multipliers of all hands won and
W a seat's own, the seat nets stake x (n x W - T): the money column, the CSV and the settlement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    """A settlement as a screen says it: each player's net and the payments, by name.

    `unit`: the currency ("FCFA"; "" for money without one) or, when `chips`, nothing (the
    screens say "chips"). `nets`: (name, net) in the order given. `transfers`: Transfers whose
    payer and payee are names, as `settle` found them.
    """

    unit: str
    chips: bool
    nets: tuple[tuple[str, int], ...]
    transfers: tuple[Transfer, ...]


def settling(
    names: Mapping[str | int, str], nets: Mapping[str | int, int], unit: str = "", chips: bool = False
) -> Settling:
    """The Settling of `nets` (by key) for players named by `names` (key -> name, in the order the
    screen lists them). Raises KeyError when a net's key has no name, and as `settle` does.

    The payments depend on the names and their nets only, never on the keys or their order: ties
    go by name (`by_name`), so a match's page (players keyed by seat) and the night's settlement on
    the statistics page (keyed by player id, listed by name) give the table the same payments. Each
    screen lists them in its own order of the players: by payer, then payee, as `names` lists them.
    """
    transfers = settle(nets, rank=lambda key: by_name(names[key]))
    place = {key: index for index, key in enumerate(names)}
    transfers.sort(key=lambda t: (place[t.payer], place[t.payee]))
    return Settling(
        unit=unit,
        chips=chips,
        nets=tuple((name, nets.get(key, 0)) for key, name in names.items()),
        transfers=tuple(Transfer(names[t.payer], names[t.payee], t.amount) for t in transfers),
    )


def by_name(name: str) -> tuple[str, str]:
    """A name's place in a tie-break: without case first ("aïcha" before "Djibo"), then as typed."""
    return (name.casefold(), name)


def nets_from_totals(multipliers: Sequence[int], stake: int) -> list[int]:
    """Each seat's net money in a Fapfap match for `stake` a hand, from each seat's total of the
    multipliers of the hands it won (what the seat's total keeps): stake x (n x own - all).

    Equal to nets_from_hands over the same hands; sums to 0. Raises ValueError for a stake below 1
    or a negative total.
    """
    if stake < 1:
        raise ValueError(f"A stake is a whole amount of at least 1, not {stake}")
    if any(total < 0 for total in multipliers):
        raise ValueError(f"Totals of multipliers are never negative: {list(multipliers)}")
    everyone = sum(multipliers)
    return [stake * (len(multipliers) * own - everyone) for own in multipliers]


def settle(nets: Mapping[str | int, int], rank: Callable[[str | int], Any] | None = None) -> list[Transfer]:
    """The fewest transfers that bring every player's net to zero, sorted by payer then payee.

    `rank` orders the players wherever a choice is free (ties, and the order of the result): a key
    function of the player, the player itself when None. The result depends only on each player's
    rank and net, never on the order of `nets`.

    `nets` maps a player to a whole amount: positive is owed, negative owes; players at 0 take
    no part. Each transfer goes from a debtor to a creditor, and no pair appears twice.

    How the count is kept low: the players of every group whose nets sum to zero can settle among
    themselves in (group size - 1) transfers, so the fewest transfers is (non-zero players) minus
    (the most disjoint zero-sum groups they split into). Up to EXACT_LIMIT non-zero players that
    split is found exactly, by dynamic programming over subsets (2**n states); beyond, every
    player forms one group, which is settled greedily and may take more transfers than needed.
    Within a group the largest debt is paid to the largest credit first (ties by rank).

    Raises TypeError for a net that is not an int, ValueError when the nets do not sum to 0.
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
    """`players` split into the largest number of disjoint groups each summing to zero.

    Any order of the players passes through zero-sum prefixes; the groups are the stretches
    between them. best[mask] is the most zero-sum prefixes an order of the players in mask can
    have, so best[all] is the most groups; the order is then read back from best.
    """
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
        # The first player (in the order given: by rank) whose removal keeps the best count: deterministic.
        i = next(i for i in range(count) if mask >> i & 1 and best[mask & ~(1 << i)] + closes == best[mask])
        group.append(players[i])
        mask &= ~(1 << i)
    if group:
        groups.append(group)
    return groups


def _settle_greedily(balances: dict[str, int], rank: Callable[[str | int], Any]) -> list[Transfer]:
    """Settle a group summing to zero: the largest debtor pays the largest creditor, until all are 0;
    among equal amounts, the first by `rank`.

    Each transfer clears at least one of the two (the last clears both): at most len - 1 transfers.
    """
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
    """Each seat's net money over a Fapfap match played for `stake` whole units a hand.

    `points_per_hand`: per hand, the points per seat as the hand stored them: the winner's entry
    is the multiplier (1, 2 or 4) and every other entry 0; an abandoned hand is all zeros.
    Convention: every other player pays the winner stake x multiplier, so with n seats the
    winner nets +(n - 1) x stake x multiplier and each other seat -stake x multiplier.

    Returns one int per seat, in seat order, summing to 0 ([] when there is no hand).
    Raises ValueError for a stake below 1, hands of different sizes, or a hand that is not
    one positive entry among zeros.
    """
    if stake < 1:
        raise ValueError(f"A stake is a whole amount of at least 1, not {stake}")
    nets: list[int] = []
    for number, points in enumerate(points_per_hand, start=1):
        if not nets:
            nets = [0] * len(points)
        if len(points) != len(nets):
            raise ValueError(f"Hand {number} has {len(points)} seats, the first hand {len(nets)}")
        scored = [(seat, multiplier) for seat, multiplier in enumerate(points) if multiplier]
        if not scored:
            continue  # abandoned
        if len(scored) > 1 or scored[0][1] < 0:
            raise ValueError(f"Hand {number} should give one winner a positive multiplier: {list(points)}")
        winner, multiplier = scored[0]
        for seat in range(len(nets)):
            nets[seat] -= stake * multiplier
        nets[winner] += len(nets) * stake * multiplier
    return nets


def round_nets(nets: Mapping[str, float]) -> dict[str, int]:
    """`nets` rounded to whole units, still summing to exactly 0 (largest remainder method).

    Every net is rounded down, then the units this takes away are given back, one each, to the
    players whose nets lost the largest fractions (ties by name). So each result is within 1 of
    its net, and a net that is already whole is kept when the others allow.

    Raises ValueError for a net that is not finite, or nets that do not sum to 0 (beyond float
    error: 1e-9 of the sum of their sizes).
    """
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
