"""The archive's tab: "payments" and "forgiven", both optional (older archives have neither).

    "payments": [{"payer": 0, "payee": 2, "amount": 300, "currency": "CFA",    # payer, payee: players
                  "marked_by_phone": "k3Xa", "at": "...", "taken_back_at": null, "taken_back_by_phone": ""}, ...],
    "forgiven": [{"by_phone": "k3Xa", "at": "..."}, ...]                         # oldest first
"""

from __future__ import annotations

import datetime

from django.utils.translation import gettext as _

from matches.domain.money import in_smallest_units
from matches.models import STAKE_LABEL_MAX_LENGTH, Forgiveness, Group, Payment
from matches.models.payments import LARGEST_PAYMENT, PHONE_MAX_LENGTH
from matches.services.archive.fields import ArchiveError, check_fields, read_list, read_moment, read_object, read_text
from matches.services.archive.fields import in_whole_units, read_whole

PAYMENT_FIELDS = ("payer", "payee", "amount", "currency", "marked_by_phone", "at", "taken_back_at", "taken_back_by_phone")
FORGIVEN_FIELDS = ("by_phone", "at")
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
    forgiven = [{"by_phone": f.by_phone, "at": _moment(f.at)} for f in group.forgivenesses.order_by("at", "pk")]
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
        check_fields(entry, where, FORGIVEN_FIELDS)
        forgiven.append(
            {"by_phone": read_text(entry, "by_phone", f"{where}.by_phone", PHONE_MAX_LENGTH), "at": read_moment(entry, "at", f"{where}.at")}
        )
    return payments, forgiven


def imported_tab(group: Group, players: list, payments: list[dict], forgiven: list[dict]) -> None:
    """Write the checked tab for the new `group` whose players (in the file's order) are `players`."""
    Payment.objects.bulk_create(
        Payment(group=group, **{**p, "payer": players[p["payer"]], "payee": players[p["payee"]]}) for p in payments
    )
    Forgiveness.objects.bulk_create(Forgiveness(group=group, **f) for f in forgiven)


def _moment(value: datetime.datetime | None) -> str | None:
    return None if value is None else value.astimezone(datetime.UTC).isoformat()
