"""Bringing more phones to the table: the member link (QR code, copy, share), the read-only
watch link, rotating both, and a phone saying which seat it holds."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from matches.domain.errors import Conflict
from matches.web.bidi import bdi, sentence
from matches.web.refusals import refusal_text
from matches.models import Sitting
from matches.web.one_value import TwoValues, is_digits, posted_once
from matches.web.views.common import (
    HtmxHttpRequest,
    action,
    claim_seat,
    claimed_seat,
    forget,
    go_to,
    phone_id,
    reached,
    remember,
    shows_current_version,
)
from matches.web.views.errors import message_response
from matches.web.views.links import JUST_MADE, share_context, share_response
from matches.web.presenters.table_state import TableState
from matches.web.views.table import poll_response, table_response


@require_safe
@vary_on_headers("HX-Request")
@reached(Sitting, watching=True)
def watch(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """The read-only view (a TV, spectators): the score live, no control, no member link."""
    return table_response(request, sitting, watching=True)


@require_safe
@vary_on_headers("HX-Request")
def watch_poll(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The watch link's live updates, answered as the member link's (table.poll)."""
    if shows_current_version(request, token, watching=True):
        return HttpResponse(status=204)
    return changed_watch_poll(request, token)


@reached(Sitting, watching=True, snapshot=False)
def changed_watch_poll(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    return poll_response(request, sitting, watching=True)


@require_safe
@vary_on_headers("HX-Request")
@reached(Sitting)
def share(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """The share panel's body (htmx, when the table page's panel is opened), or a page of its own."""
    state = TableState.of(sitting.fresh_table(recent=1, chart=False))  # (who plays the open hand)
    context = {"sitting": sitting, **share_context(request, sitting, state)}
    return share_response(request, context, back=sitting.get_absolute_url())


@action(Sitting)
def rotate(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """New member and watch links; the old ones answer 404 from now on."""
    old, seat = sitting.token, claimed_seat(request, sitting)
    sitting.rotate_links()
    forget(request, old)
    remember(request, sitting)
    claim_seat(request, sitting, seat)
    notice = _("New links made: the old ones no longer work. Show the table this new QR code.")
    messages.success(request, notice, extra_tags=JUST_MADE)  # the table page opens its links
    return go_to(request, sitting)


@action(Sitting)
def me(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """ "I am Djibo": this phone's taps are recorded as Djibo's. An empty seat forgets it."""
    try:
        raw = posted_once(request.POST, "seat")
    except TwoValues as refusal:
        return message_response(request, str(refusal), 400)
    seats = sitting.seats.count()
    if raw != "" and not (is_digits(raw) and len(raw) <= 2 and 1 <= int(raw) <= seats):
        return message_response(request, _("Pick your name from the list."), 400)
    seat = int(raw) - 1 if raw else None
    try:
        sitting.claim_seat(seat, phone_id(request))
    except Conflict as refusal:  # another phone holds it
        return message_response(request, refusal_text(refusal), refusal.status, back=sitting.get_absolute_url())
    claim_seat(request, sitting, seat)
    if seat is None:
        messages.success(request, _("This phone belongs to nobody in particular now."))
    else:
        name = sitting.seats.get(position=seat).name
        messages.success(request, sentence(_("This phone is %(name)s's now: its taps say so."), {"name": bdi(name)}))
    return redirect(sitting)
