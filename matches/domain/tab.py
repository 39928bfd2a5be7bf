"""A group's tab: what each player is owed (+) or owes (-) per currency over many nights, after the
payments they marked. Pure Python; amounts are whole units. The open payments are `settle`'s fewest
transfers over these balances, so what a night leaves unpaid is netted into the next."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from matches.domain.settlement import Transfer, settle

Key = str | int


@dataclass(frozen=True)
class Paid:
    """`payer` handed `payee` `amount` of `currency` (a payment still standing)."""

    payer: Key
    payee: Key
    amount: int
    currency: str


def balances(
    gains: Iterable[tuple[str, Mapping[Key, int]]], payments: Iterable[Paid]
) -> dict[str, dict[Key, int]]:
    """Per currency, each player's balance: money won less money lost over `gains` ((currency, nets) of
    each match or night), less payments received, plus payments made. Each currency sums to 0 when every
    net does. Players whose balance came back to 0 stay listed (they played or paid)."""
    tab: dict[str, dict[Key, int]] = {}
    for currency, nets in gains:
        owed = tab.setdefault(currency, {})
        for player, net in nets.items():
            owed[player] = owed.get(player, 0) + net
    for paid in payments:
        owed = tab.setdefault(paid.currency, {})
        owed[paid.payer] = owed.get(paid.payer, 0) + paid.amount
        owed[paid.payee] = owed.get(paid.payee, 0) - paid.amount
    return tab


def open_payments(
    tab: Mapping[str, Mapping[Key, int]], rank: Callable[[Key], Any] | None = None
) -> dict[str, list[Transfer]]:
    """Per currency (those with anything owed), the fewest transfers that bring every balance to 0."""
    return {currency: settle(owed, rank) for currency, owed in sorted(tab.items()) if any(owed.values())}
