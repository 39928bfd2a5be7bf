"""A group's tab from the database: the money its matches moved (finished matches and those still being
played, as the nights count it) and the payments marked, less the balances the last forgiveness wiped off,
and what is still owed in the fewest payments (domain/tab.py)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Q

from matches.domain import stats
from matches.domain.names import name_order
from matches.domain.tab import Paid, balances, open_payments
from matches.models import Forgiveness, Group, Payment, Player, Receipt, Sitting
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
    total: dict[str, dict[int, int]]  # every match and payment ever, per currency: what a forgiveness wipes off
    changes: list[Receipt]  # the newest corrections and undos that moved money after the fact (money_changes)


def money_nets(matches: list[stats.MatchRecord]) -> list[tuple[str, dict[int, int]]]:
    """(currency, player -> net) of each match played for money that has a hand played."""
    return [
        (match.currency, dict(zip(match.players, match.money)))
        for match in matches
        if match.money is not None and match.hands_played
    ]


def standing(payments: list[Payment]) -> list[Paid]:
    """The payments that count: not taken back."""
    return [Paid(p.payer_id, p.payee_id, p.amount, p.currency) for p in payments if p.taken_back_at is None]


def net(total: dict[str, dict[int, int]], wiped: dict[str, dict[int, int]]) -> dict[str, dict[int, int]]:
    """Per currency, each player's balance: the `total` of every match and payment less what the last
    forgiveness `wiped` off. A player whose balance that brings back to 0 is no longer listed."""
    shown = {
        currency: {p: owed - wiped.get(currency, {}).get(p, 0) for p, owed in players.items()}
        for currency, players in total.items()
    }
    kept = {c: {p: owed for p, owed in players.items() if owed or p not in wiped.get(c, {})} for c, players in shown.items()}
    return {currency: players for currency, players in kept.items() if players}


def wiped_off(forgiven: Forgiveness | None, matches: list, payments: list[Payment], before: set) -> dict:
    """The balances the last forgiveness wiped off: as kept with it, or for one forgiven before they were
    kept, those of the matches started (`before`: their keys) and of the payments marked before it."""
    if forgiven is None:
        return {}
    if (kept := forgiven.wiped()) is not None:
        return kept
    return balances(money_nets([m for m in matches if m.key in before]), standing([p for p in payments if p.at < forgiven.at]))


def counted_since(group: Group, forgiven: Forgiveness | None) -> tuple[set, set | None]:
    """The keys of the matches started before the last forgiveness (only when it kept no balances), and of
    those it leaves on the tab's nights: started after it, or played on across it (None: no forgiveness)."""
    if forgiven is None:
        return set(), None
    started = Sitting.objects.filter(group=group).values_list("pk", flat=True)
    before = set(started.filter(started_at__lt=forgiven.at)) if forgiven.balances is None else set()
    after = Q(started_at__gte=forgiven.at) | Q(finished_at=None) | Q(finished_at__gte=forgiven.at)
    return before, set(started.filter(after))


CHANGES_KEPT = 20  # on the tab's history: the newest; each match's all-hands page keeps the rest


def money_changes(group: Group, settled: list) -> list[Receipt]:
    """The newest changes of a played hand in the group's matches for money (a stake, or what a chip is worth)
    that moved balances after the fact, newest first: every correction, and an undo of a hand recorded before a
    payment or forgiveness (`settled`: their moments) that came before the undo."""
    found = Receipt.objects.filter(sitting__group=group, verb__in=(Receipt.Verb.CORRECT, Receipt.Verb.UNDO))
    kept = []
    for change in found.select_related("sitting").order_by("-at", "-pk")[: CHANGES_KEPT * 4]:
        if not change.sitting.stake_amount:
            continue
        if change.verb == Receipt.Verb.UNDO:
            taps = Receipt.objects.filter(sitting=change.sitting, verb=Receipt.Verb.TAP, number=change.number, at__lte=change.at)
            tapped = taps.order_by("-at").values_list("at", flat=True).first()  # (none: an archive without receipts)
            if not any((tapped is None or tapped <= moment) and moment <= change.at for moment in settled):
                continue
        kept.append(change)
        if len(kept) == CHANGES_KEPT:
            break
    return kept


def read_tab(group: Group) -> Tab:
    """The group's tab, read in one snapshot."""
    with read_snapshot():
        forgiven = list(group.forgivenesses.order_by("at", "pk"))
        last = forgiven[-1] if forgiven else None
        read = read_group(group)  # every match: one played on across a forgiveness counts its hands since
        payments = list(group.payments.select_related("payer", "payee").order_by("at", "pk"))
        names = dict(read.names)
        names.update(Player.objects.filter(group=group).values_list("pk", "name"))
        before, counted = counted_since(group, last)
        changes = money_changes(group, [p.at for p in payments] + [f.at for f in forgiven])
    total = balances(money_nets(read.every_match), standing(payments))
    tab = net(total, wiped_off(last, read.every_match, payments, before))
    if counted is not None:
        since = [m for m in read.matches if m.key in counted], [m for m in read.playing if m.key in counted]
        read = GroupRead(since[0], read.names, since[1])

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
    return Tab(last.at if last else None, shown, owed, read, payments, forgiven, total, changes)


def forgive(group: Group, by: str = "") -> Forgiveness:
    """Every balance starts at zero from now; those wiped off are kept with the forgiveness."""
    return group.forgive_tab(lambda locked: read_tab(locked).total, by=by)


def owed_now(group: Group, payer: int, payee: int, currency: str) -> int:
    """What the tab now asks `payer` to pay `payee` in `currency` (0: nothing)."""
    owed = read_tab(group).owed
    return next((o.amount for o in owed if (o.payer, o.payee, o.currency) == (payer, payee, currency)), 0)
