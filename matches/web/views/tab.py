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

from matches.domain.errors import Conflict, TableError
from matches.models import Group, Payment
from matches.services.tab import forgive as forgive_tab
from matches.services.tab import owed_now, read_tab
from matches.web.bidi import sentence
from matches.web.amounts import AmountRefused, PaidForm, read_amount
from matches.web.one_value import TwoValues, is_digits, posted_once
from matches.web.presenters.tab import money_moves, paid_sentence, payment_words, tab_context, whose, wiped_words, yours_tonight
from matches.web.refusals import refusal_text
from matches.web.views.common import HtmxHttpRequest, action, known_phone, phone_id, reached
from matches.web.views.figures import nights
from matches.web.views.groups import group_name, group_page
from matches.web.live.regions import group_shown

HISTORY_NIGHTS = 60  # the newest nights the tab's page lists
HISTORY_PAYMENTS = 200  # the newest payments it lists


def said(request: HtmxHttpRequest, group: Group, notice: str, status: int = 200, **extra) -> HttpResponse:
    """Where the form was (the group page or the tab's): after a change, redirected to it with the notice
    in a message; a refusal (`status` 4xx) answers that page at once, saying what to fix."""
    on_tab = request.POST.get("back") == "tab"
    if status >= 400:
        if on_tab:
            return tab_response(request, group, notice, status, **extra)
        return group_page(request, group, notice, status, **extra)
    messages.success(request, notice)
    return redirect("group-tab" if on_tab else "group", token=group.token)


@action(Group)
def mark_paid(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """One tap on an open payment: it is marked paid by this phone, the whole of what is owed now or the
    part typed (never more); a resend of the same change is the first one's payment."""
    form = PaidForm(request.POST)
    if not form.is_valid():
        return said(request, group, _("That payment could not be read: tap Mark paid again."), status=400)
    data = form.cleaned_data
    payer, payee, currency, typed = data["payer"], data["payee"], data["currency"], data["amount"]
    first = group.payments.filter(key=data["key"]).first() if data["key"] else None
    try:
        if first is not None and first.taken_back_at is not None:  # a late copy of one taken back since
            when = formats.time_format(timezone.localtime(first.taken_back_at, group.zone), "TIME_FORMAT")
            text = _("This payment (%(payer)s to %(payee)s, %(amount)s) was taken back at %(when)s: it was not marked again.")
            return said(request, group, sentence(text, {**payment_words(first), "when": when}), 409)
        if first is not None:  # a resend: the first one's payment, nothing more
            return said(request, group, marked(first))
        owed = owed_now(group, payer, payee, currency)
        if not owed:
            raise group.unowed(payer, payee, currency, data["after"])
        amount = read_amount(typed, currency, 1, owed) if "amount" in request.POST else owed  # (no field: an older page)
        paid = group.mark_paid(payer, payee, amount, currency, by=phone_id(request), key=data["key"], after=data["after"])
    except TableError as refusal:  # the tab moved on: said above it, as it is now
        return said(request, group, refusal_text(refusal), refusal.status)
    except AmountRefused as refusal:  # said beside the amount, as typed, unless another phone paid meanwhile
        if group.paid_since(payer, payee, currency, data["after"]):
            return said(request, group, refusal_text(Conflict("paid_meanwhile")), 409)
        beside = {"payer": payer, "payee": payee, "currency": currency, "message": str(refusal), "typed": typed}
        return said(request, group, "", 400, paid_refused=beside)
    return said(request, group, marked(paid))


def marked(paid: Payment) -> str:
    return sentence(_("Marked paid: %(payer)s to %(payee)s, %(amount)s."), payment_words(paid))


@action(Group)
def take_back(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The phone that marked a payment says it was a mistake (that night only)."""
    started = timezone.now()
    try:
        asked = posted_once(request.POST, "payment")
    except TwoValues as refusal:
        return said(request, group, str(refusal), status=400)
    if not (is_digits(asked) and len(asked) < 20):
        return said(request, group, refusal_text(TableError("payment_gone")), status=400)
    try:
        back = group.take_back(int(asked), by=known_phone(request) or "")
    except TableError as refusal:
        return said(request, group, refusal_text(refusal), refusal.status)
    if back.taken_back_at < started:  # a second tap, or a copy: said as it stands
        when = formats.time_format(timezone.localtime(back.taken_back_at, group.zone), "TIME_FORMAT")
        return said(request, group, _("This payment was already taken back, at %(when)s.") % {"when": when})
    return said(request, group, _("Payment taken back."))


@action(Group)
def forgive(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """Every balance starts at zero again (the history stays)."""
    if request.POST.get("sure") != "yes":
        return said(request, group, _("Tick the box to forgive every debt."), status=400)
    forgive_tab(group, by=phone_id(request))
    return said(request, group, _("The tab starts at zero again: nobody owes anything."))


@require_safe
@reached(Group)
def tab_page(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The tab's history: the open payments, the nights since the last forgiveness, every payment
    (taken back ones struck, with who marked it and when) and every forgiveness."""
    return tab_response(request, group)


def tab_response(request: HtmxHttpRequest, group: Group, notice: str = "", status: int = 200, **extra) -> HttpResponse:
    tab = read_tab(group)
    phone = known_phone(request)
    names = dict(tab.read.names)
    def when(moment) -> str:
        return formats.date_format(timezone.localtime(moment, group.zone), "DATETIME_FORMAT")

    payments = [
        {
            "payment": p,
            "text": paid_sentence(p),
            "when": when(p.at),
            "who": whose(p.marked_by_phone, phone),
            "back_when": when(p.taken_back_at) if p.taken_back_at else "",
            "back_who": whose(p.taken_back_by_phone, phone),
            "mine": yours_tonight(p, phone, group.zone, tab.since),
            "counted": tab.since is None or p.at >= tab.since,
        }
        for p in reversed(tab.payments[-HISTORY_PAYMENTS:])
    ]
    names.update(group.players.values_list("pk", "name"))
    forgiven = [
        {"when": when(f.at), "who": whose(f.by_phone, phone), "wiped": wiped_words(f, tab.forgiven[i - 1] if i else None, names)}
        for i, f in reversed(list(enumerate(tab.forgiven)))
    ]
    context = {
        "group": group,
        "shown_version": group_shown(group),
        "name": group_name(group),
        "nights": nights(tab.read.every_match, names, shown=HISTORY_NIGHTS),
        "payments": payments,
        "forgiven": forgiven,
        "moves": money_moves(tab, phone or "", group.zone),
        "notice": notice,
        "status_is_error": status >= 400,
        "back": "tab",
        **tab_context(tab, currencies=None),
        **extra,
    }
    return render(request, "matches/group_tab.html", context, status=status)
