"""A group's tab from the database: the money its matches moved since the tab was last forgiven (finished
matches and those still being played, as the nights count it), the payments marked since, and what is
still owed in the fewest payments (domain/tab.py)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from matches.domain import stats
from matches.domain.names import name_order
from matches.domain.tab import Paid, balances, open_payments
from matches.models import Forgiveness, Group, Payment, Player
from matches.models.snapshot import read_snapshot
from matches.services.figures import GroupRead, read_group


@dataclass(frozen=True)
class Owed:
    """One suggested payment, by player id and name."""

    payer: int
    payee: int
    payer_name: str
    payee_name: str
    amount: int
    currency: str


@dataclass(frozen=True)
class Tab:
    """Since `since` (None: ever): per currency each player's balance (name, balance), by name; the
    open payments; and the matches (`read`) and `payments` counted, with every payment and forgiveness
    of the group for its history."""

    since: datetime.datetime | None
    balances: dict[str, list[tuple[str, int]]]
    owed: list[Owed]
    read: GroupRead
    payments: list[Payment]
    forgiven: list[Forgiveness]


def money_nets(matches: list[stats.MatchRecord]) -> list[tuple[str, dict[int, int]]]:
    """(currency, player -> net) of each match played for money that has a hand played."""
    return [
        (match.currency, dict(zip(match.players, match.money)))
        for match in matches
        if match.money is not None and match.hands_played
    ]


def standing(payments: list[Payment], since: datetime.datetime | None) -> list[Paid]:
    """The payments that count: not taken back, marked since the last forgiveness."""
    return [
        Paid(p.payer_id, p.payee_id, p.amount, p.currency)
        for p in payments
        if p.taken_back_at is None and (since is None or p.at >= since)
    ]


def read_tab(group: Group) -> Tab:
    """The group's tab, read in one snapshot."""
    with read_snapshot():
        forgiven = list(group.forgivenesses.order_by("at", "pk"))
        since = forgiven[-1].at if forgiven else None
        read = read_group(group, since=since)
        payments = list(group.payments.select_related("payer", "payee").order_by("at", "pk"))
        names = dict(read.names)
        names.update(Player.objects.filter(group=group).values_list("pk", "name"))
    tab = balances(money_nets(read.every_match), standing(payments, since))

    def rank(player: int) -> tuple:
        return name_order(names[player])

    owed = [
        Owed(t.payer, t.payee, names[t.payer], names[t.payee], t.amount, currency)
        for currency, transfers in open_payments(tab, rank).items()
        for t in sorted(transfers, key=lambda t: (rank(t.payer), rank(t.payee)))
    ]
    shown = {
        currency: [(names[player], owed) for player, owed in sorted(players.items(), key=lambda item: rank(item[0]))]
        for currency, players in sorted(tab.items())
    }
    return Tab(since, shown, owed, read, payments, forgiven)


def owed_now(group: Group, payer: int, payee: int, currency: str) -> int:
    """What the tab now asks `payer` to pay `payee` in `currency` (0: nothing)."""
    owed = read_tab(group).owed
    return next((o.amount for o in owed if (o.payer, o.payee, o.currency) == (payer, payee, currency)), 0)
