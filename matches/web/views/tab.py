"""A group's tab: what each player is owed or owes over the nights since it was last forgiven, the
payments that settle it (each one tap: "Mark paid", a plain form), and its history page (nights,
payments, forgiveness). Every change bumps the group's version, so the other phones fetch it again."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from matches.domain.errors import TableError
from matches.models import Group
from matches.models.payments import night_of
from matches.services.tab import Owed, read_tab
from matches.web.bidi import bdi, sentence
from matches.web.amounts import AmountRefused, read_amount
from matches.web.presenters.numbers import money_text, typed_amount
from matches.web.presenters.tab import owed_sentence, tab_context
from matches.web.refusals import refusal_text
from matches.web.views.common import HtmxHttpRequest, action, known_phone, phone_id, reached
from matches.web.views.figures import nights
from matches.web.views.groups import group_name, group_page

HISTORY_NIGHTS = 60  # the newest nights the tab's page lists
HISTORY_PAYMENTS = 200  # the newest payments it lists


def said(request: HtmxHttpRequest, group: Group, notice: str, status: int = 200) -> HttpResponse:
    """Where the form was (the group page or the tab's): after a change, redirected to it with the notice
    in a message; a refusal (`status` 4xx) answers that page at once, saying what to fix."""
    on_tab = request.POST.get("back") == "tab"
    if status >= 400:
        if on_tab:
            return tab_response(request, group, notice, status)
        return group_page(request, group, notice, status)
    messages.success(request, notice)
    return redirect("group-tab" if on_tab else "group", token=group.token)


@action(Group)
def mark_paid(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """One tap on an open payment: it is marked paid by this phone, the whole of it or the part typed."""
    fields = [request.POST.get(key, "") for key in ("payer", "payee", "owed")]
    if not all(field.isdecimal() and len(field) < 20 for field in fields):
        return said(request, group, _("That payment could not be read: tap Mark paid again."), status=400)
    payer, payee, owed = map(int, fields)
    currency = request.POST.get("currency", "")
    try:
        amount = paid_amount(request.POST.get("amount", ""), owed, currency)
    except ValueError as refusal:
        return said(request, group, str(refusal), status=400)
    try:
        paid = group.mark_paid(payer, payee, amount, request.POST.get("currency", ""), by=phone_id(request))
    except TableError as refusal:
        return said(request, group, refusal_text(refusal), refusal.status)
    words = {"payer": bdi(paid.payer.name), "payee": bdi(paid.payee.name)}
    return said(request, group, sentence(_("Marked paid: %(payer)s to %(payee)s."), words))


def paid_amount(typed: str, owed: int, currency: str) -> int:
    """The amount typed beside Mark paid (blank: all that is owed), in smallest units, from the smallest
    unit up to what is owed. Raises ValueError saying what to type."""
    if not typed.strip():
        return owed
    try:
        return read_amount(typed, currency, 1, owed)
    except AmountRefused:
        words = {"amount": money_text(owed, currency), "example": typed_amount(owed, currency)}
        raise ValueError(_("Type what was paid, up to %(amount)s, like %(example)s.") % words) from None


@action(Group)
def take_back(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The phone that marked a payment says it was a mistake (that night only)."""
    asked = request.POST.get("payment", "")
    if not (asked.isdecimal() and len(asked) < 20):
        return said(request, group, refusal_text(TableError("payment_gone")), status=400)
    try:
        group.take_back(int(asked), by=known_phone(request) or "")
    except TableError as refusal:
        return said(request, group, refusal_text(refusal), refusal.status)
    return said(request, group, _("Payment taken back."))


@action(Group)
def forgive(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """Every balance starts at zero again (the history stays)."""
    if request.POST.get("sure") != "yes":
        return said(request, group, _("Tick the box to forgive every debt."), status=400)
    group.forgive_tab(by=phone_id(request))
    return said(request, group, _("The tab starts at zero again: nobody owes anything."))


@require_safe
@reached(Group)
def tab_page(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The tab's history: the open payments, the nights since the last forgiveness, every payment
    (taken back ones struck, with who marked it and when) and every forgiveness."""
    return tab_response(request, group)


def tab_response(request: HtmxHttpRequest, group: Group, notice: str = "", status: int = 200) -> HttpResponse:
    tab = read_tab(group)
    phone, today = known_phone(request), night_of(timezone.now(), group.zone)
    names = dict(tab.read.names)
    payments = [
        {
            "payment": p,
            "text": owed_sentence(Owed(p.payer_id, p.payee_id, p.payer.name, p.payee.name, p.amount, p.currency)),
            "when": formats.date_format(timezone.localtime(p.at, group.zone), "DATETIME_FORMAT"),
            "mine": bool(phone) and p.marked_by_phone == phone and not p.taken_back_at and night_of(p.at, group.zone) == today,
            "counted": tab.since is None or p.at >= tab.since,
        }
        for p in reversed(tab.payments[-HISTORY_PAYMENTS:])
    ]
    forgiven = [
        {"when": formats.date_format(timezone.localtime(f.at, group.zone), "DATETIME_FORMAT"), "by": f.by_phone}
        for f in reversed(tab.forgiven)
    ]
    context = {
        "group": group,
        "name": group_name(group),
        "nights": nights(tab.read.every_match, names, shown=HISTORY_NIGHTS),
        "payments": payments,
        "forgiven": forgiven,
        "notice": notice,
        "status_is_error": status >= 400,
        "back": "tab",
        **tab_context(tab, currencies=None),
    }
    return render(request, "matches/group_tab.html", context, status=status)
