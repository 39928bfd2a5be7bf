"""The archive's tab: "payments" and "forgiven", both optional (older archives have neither).

    "payments": [{"payer": 0, "payee": 2, "amount": 300, "currency": "CFA",    # payer, payee: players
                  "marked_by_phone": "k3Xa", "at": "...", "taken_back_at": null, "taken_back_by_phone": ""}, ...],
    "forgiven": [{"by_phone": "k3Xa", "at": "...",                               # oldest first
                  "balances": [{"player": 0, "currency": "CFA", "balance": -300}, ...]}, ...]  # wiped off (optional)
"""

from __future__ import annotations

import datetime

from django.utils.translation import gettext as _

from matches.domain.money import in_smallest_units
from matches.models import STAKE_LABEL_MAX_LENGTH, Forgiveness, Group, Payment
from matches.models.payments import LARGEST_PAYMENT
from matches.models.players import PHONE_MAX_LENGTH
from matches.services.archive.fields import ArchiveError, check_fields, read_list, read_moment, read_object, read_text
from matches.services.archive.fields import in_whole_units, read_whole

PAYMENT_FIELDS = ("payer", "payee", "amount", "currency", "marked_by_phone", "at", "taken_back_at", "taken_back_by_phone")
FORGIVEN_FIELDS = ("by_phone", "at")
BALANCE_FIELDS = ("player", "currency", "balance")
LARGEST_BALANCE = 10**18  # smallest units: far beyond any tab a group at its limits runs up
TAB_FIELDS = ("payments", "forgiven")
TAB_ENTRIES = 100_000  # payments and forgiveness together: far more than a group's nights ever mark


def exported_tab(group: Group, players: dict[int, int]) -> dict:
    """The group's payments and forgiveness as the archive keeps them ({} when it has neither)."""
    payments = [
        {
            "payer": players[p.payer_id],
            "payee": players[p.payee_id],
            "amount": p.amount,
            "currency": p.currency,
            "marked_by_phone": p.marked_by_phone,
            "at": _moment(p.at),
            "taken_back_at": _moment(p.taken_back_at),
            "taken_back_by_phone": p.taken_back_by_phone,
        }
        for p in group.payments.order_by("at", "pk")
    ]
    forgiven = [
        {"by_phone": f.by_phone, "at": _moment(f.at)}
        | ({} if f.balances is None else {"balances": exported_balances(f.wiped(), players)})
        for f in group.forgivenesses.order_by("at", "pk")
    ]
    return {key: value for key, value in (("payments", payments), ("forgiven", forgiven)) if value}


def checked_tab(data: dict, n_players: int) -> tuple[list[dict], list[dict]]:
    """The archive's payments (Payment's fields, payer and payee: indexes) and forgiveness; ArchiveError."""
    listed = read_list(data, "payments", "payments") if "payments" in data else []
    forgiven_listed = read_list(data, "forgiven", "forgiven") if "forgiven" in data else []
    if len(listed) + len(forgiven_listed) > TAB_ENTRIES:
        raise ArchiveError(_("The archive lists more payments than a group keeps."))
    payments, whole_units = [], in_whole_units(data)
    for number, entry in enumerate(listed):
        where = f"payments[{number}]"
        entry = read_object(entry, where)
        check_fields(entry, where, PAYMENT_FIELDS)
        payment = {
            "payer": read_whole(entry, "payer", f"{where}.payer", 0, max(0, n_players - 1)),
            "payee": read_whole(entry, "payee", f"{where}.payee", 0, max(0, n_players - 1)),
            "amount": read_whole(entry, "amount", f"{where}.amount", 1, LARGEST_PAYMENT),
            "currency": read_text(entry, "currency", f"{where}.currency", STAKE_LABEL_MAX_LENGTH),
            "marked_by_phone": read_text(entry, "marked_by_phone", f"{where}.marked_by_phone", PHONE_MAX_LENGTH),
            "at": read_moment(entry, "at", f"{where}.at"),
            "taken_back_at": read_moment(entry, "taken_back_at", f"{where}.taken_back_at", optional=True),
            "taken_back_by_phone": read_text(entry, "taken_back_by_phone", f"{where}.taken_back_by_phone", PHONE_MAX_LENGTH),
        }
        if whole_units:
            payment["amount"] = min(in_smallest_units(payment["amount"], payment["currency"]), LARGEST_PAYMENT)
        if n_players == 0 or payment["payer"] == payment["payee"]:
            raise ArchiveError(_("%(where)s: a payment goes from one of the file's players to another.") % {"where": where})
        payments.append(payment)
    forgiven = []
    for number, entry in enumerate(forgiven_listed):
        where = f"forgiven[{number}]"
        entry = read_object(entry, where)
        check_fields(entry, where, FORGIVEN_FIELDS, optional=("balances",))
        forgiven.append(
            {"by_phone": read_text(entry, "by_phone", f"{where}.by_phone", PHONE_MAX_LENGTH), "at": read_moment(entry, "at", f"{where}.at"),
             "balances": checked_balances(entry, where, n_players, whole_units) if "balances" in entry else None}
        )
    return payments, forgiven


def exported_balances(balances: dict[str, dict[int, int]], players: dict[int, int]) -> list[dict]:
    """A forgiveness's balances, by the archive's player indexes."""
    return [
        {"player": players[player], "currency": currency, "balance": owed}
        for currency, owed_by in sorted(balances.items())
        for player, owed in owed_by.items()
        if player in players
    ]


def checked_balances(entry: dict, where: str, n_players: int, whole_units: bool) -> dict[str, dict[int, int]]:
    """A forgiveness's balances ({currency: {player index: balance}}), each currency summing to 0; ArchiveError."""
    kept: dict[str, dict[int, int]] = {}
    for number, balance in enumerate(read_list(entry, "balances", f"{where}.balances")):
        at = f"{where}.balances[{number}]"
        balance = read_object(balance, at)
        check_fields(balance, at, BALANCE_FIELDS)
        player = read_whole(balance, "player", f"{at}.player", 0, max(0, n_players - 1))
        currency = read_text(balance, "currency", f"{at}.currency", STAKE_LABEL_MAX_LENGTH)
        owed = read_whole(balance, "balance", f"{at}.balance", -LARGEST_BALANCE, LARGEST_BALANCE)
        if whole_units:
            owed = (1 if owed >= 0 else -1) * min(in_smallest_units(abs(owed), currency), LARGEST_BALANCE)
        if n_players == 0 or player in kept.get(currency, {}):
            raise ArchiveError(_("%(where)s: each player has one balance in each currency.") % {"where": at})
        kept.setdefault(currency, {})[player] = owed
    for currency, owed_by in kept.items():
        if sum(owed_by.values()):
            raise ArchiveError(
                _("%(where)s: the balances in %(currency)s do not add up to 0, as what one owes another is owed.")
                % {"where": f"{where}.balances", "currency": currency or "—"}
            )
    return kept


def imported_tab(group: Group, players: list, payments: list[dict], forgiven: list[dict]) -> None:
    """Write the checked tab for the new `group` whose players (in the file's order) are `players`."""
    Payment.objects.bulk_create(
        Payment(group=group, **{**p, "payer": players[p["payer"]], "payee": players[p["payee"]]}) for p in payments
    )
    Forgiveness.objects.bulk_create(
        Forgiveness(group=group, **{**f, "balances": by_player(f["balances"], players)}) for f in forgiven
    )


def by_player(balances: dict[str, dict[int, int]] | None, players: list) -> dict[str, dict[str, int]] | None:
    """Balances by the file's player indexes, by the new players' ids as a Forgiveness keeps them."""
    if balances is None:
        return None
    return {currency: {str(players[i].pk): owed for i, owed in owed_by.items()} for currency, owed_by in balances.items()}


def _moment(value: datetime.datetime | None) -> str | None:
    return None if value is None else value.astimezone(datetime.UTC).isoformat()
