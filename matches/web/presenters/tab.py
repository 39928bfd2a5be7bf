"""The tab as the group page shows it: balances per currency and the open payments, in words."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from matches.domain.names import by_name, shared
from matches.models.payments import Forgiveness, Payment
from matches.models.zones import night_of
from matches.services.tab import Owed, Tab, net
from matches.web.bidi import bdi, sentence
from matches.web.presenters.numbers import money_text, signed_money
from matches.web.presenters.receipts import change_words
from matches.web.presenters.table_state import TableState


@dataclass(frozen=True)
class Balances:
    """One currency's balances as shown: a caption and (name, signed balance) rows."""

    caption: str
    rows: list[tuple[str, str]]


def owed_sentence(owed: Owed) -> str:
    """"Ben pays Ana 300 CFA." (names in <bdi>)."""
    words = {"payer": bdi(owed.payer_name), "payee": bdi(owed.payee_name), "amount": money_text(owed.amount, owed.currency)}
    return sentence(_("%(payer)s pays %(payee)s %(amount)s."), words)  # (the currency after a no-break space)


def yours_tonight(paid: Payment, phone: str | None, zone, since=None) -> bool:
    """Whether `phone` may take `paid` back: it marked it, and it stands tonight (`marked_tonight`)."""
    return bool(phone) and paid.marked_by_phone == phone and marked_tonight(paid, zone, since)


def marked_tonight(paid: Payment, zone, since=None) -> bool:
    """Whether `paid` was marked tonight on the group's clock (`zone`), stands, and was not forgiven since
    (`since`: when the tab last was)."""
    tonight = night_of(paid.at, zone) == night_of(timezone.now(), zone)
    return paid.taken_back_at is None and tonight and (since is None or paid.at > since)


def payment_words(paid: Payment) -> dict[str, str]:
    """A payment's payer and payee (in <bdi>) and amount, for the sentences that name it."""
    return {"payer": bdi(paid.payer.name), "payee": bdi(paid.payee.name), "amount": money_text(paid.amount, paid.currency)}


def paid_sentence(paid: Payment) -> str:
    """"Ben paid Ana 300 CFA." (a payment marked; names in <bdi>)."""
    return sentence(_("%(payer)s paid %(payee)s %(amount)s."), payment_words(paid))


CURRENCIES_SHOWN = 8  # on the group page; the tab's page shows every currency


def tab_context(tab: Tab, currencies: int | None = CURRENCIES_SHOWN, phone: str = "", zone=None) -> dict:
    """What the group page shows of the tab: balances per currency and the open payments, or nothing
    when the group never played for money nor marked a payment since the tab was forgiven; and the
    payments `phone` marked tonight (on the clock of `zone`), which it may take back, and those the other
    phones marked."""
    mine = [(paid, paid_sentence(paid)) for paid in tab.payments if yours_tonight(paid, phone, zone, tab.since)]
    others = [  # no money moves silently: what the other phones marked tonight, beside the balances it moved
        paid_sentence(paid) for paid in tab.payments
        if zone is not None and marked_tonight(paid, zone, tab.since) and not (phone and paid.marked_by_phone == phone)
    ]
    shown = [
        Balances(_("Balances in %(currency)s") % {"currency": currency} if currency else _("Balances"),
                 [(name, signed_money(owed, currency)) for name, owed in rows])
        for currency, rows in list(tab.balances.items())[:currencies]
    ]
    kept = set(list(tab.balances)[:currencies])
    return {
        "tab_balances": shown,
        "tab_owed": [(owed, owed_sentence(owed)) for owed in tab.owed if owed.currency in kept],
        "tab_exists": bool(tab.payments or tab.forgiven),
        "tab_mine": mine,
        "tab_others": others,
        "tab_after": max((payment.pk for payment in tab.payments), default=0),  # the newest payment shown
        "tab_moves": money_moves(tab, phone, zone, tonight=True) if zone is not None else [],
    }


def money_moves(tab: Tab, phone: str, zone, tonight: bool = False) -> list[str]:
    """Each correction or undo that moved the tab's money after the fact, after its match, as its table words
    it ("Fapfap of 5 Dec. 2026: Hand 5 changed on this phone at 21:47: Ngono (x2) → Boubacar (x1): Ngono −400,
    Boubacar +400."): the tab's history shows those kept, the group page those of `tonight` (clock of `zone`)."""
    states: dict[int, TableState] = {}
    lines = []
    for receipt in tab.changes:
        if tonight and night_of(receipt.at, zone) != night_of(timezone.now(), zone):
            continue
        sitting = receipt.sitting
        if sitting.pk not in states:
            states[sitting.pk] = TableState.of(replace(sitting.table(recent=0), this_phone=phone))
        day = formats.date_format(night_of(sitting.started_at, zone), "DATE_FORMAT")
        match = _("%(game)s of %(day)s") % {"game": _(sitting.rules.name), "day": day}
        change = change_words(states[sitting.pk], receipt, sitting.stake_amount)
        lines.append(_("%(match)s: %(change)s") % {"match": match, "change": change})
    return lines


def wiped_words(forgiven: Forgiveness, before: Forgiveness | None, names: dict[int, str]) -> str:
    """ "Aïcha −1,00 €, Élise +1,60 €": what a forgiveness wiped off, by name: the balances it kept less those
    the forgiveness `before` it kept ("" when it kept none: forgiven before they were kept)."""
    parts = []
    for currency, owed_by in sorted(net(forgiven.wiped() or {}, (before and before.wiped()) or {}).items()):
        owed = {player: amount for player, amount in owed_by.items() if amount}
        for player in by_name(list(owed), lambda player: names.get(player, "")):
            parts.append(f"{shared(names.get(player, ''))} {money_text(owed[player], currency, signed=True)}")
    return ", ".join(parts)


def whose(by: str, phone: str | None) -> str:
    """ "this phone" or "another phone" (a phone's id means nothing to a player; the admin keeps it)."""
    return _("this phone") if phone and by == phone else _("another phone")
