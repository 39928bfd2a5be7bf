"""Who plays, mid-match: a latecomer sits down, a player leaves, a misspelt name is put right. One
page of plain forms (it works without JavaScript); each POST calls one verb, then goes back to the table.
And a phone without JavaScript saying it saw a change of an earlier hand's money."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from matches.domain.errors import TableError
from matches.models import Repeated, Sitting
from matches.web.bidi import bdi, sentence
from matches.web.one_value import is_digits
from matches.web.table_forms import TableChangeForm
from matches.web.presenters.table_state import TableState
from matches.web.refusals import refusal_text
from matches.web.views.common import HtmxHttpRequest, action, reached, recorder, saw


@require_http_methods(["GET", "HEAD", "POST"])
@reached(Sitting)
def seats(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """GET shows who plays and the forms; POST makes one change and goes back to the table."""
    if request.method != "POST":
        return seats_page(request, sitting)
    form = TableChangeForm(request.POST)
    if not form.is_valid():
        refused = next(iter(form.errors.values()))[0]
        where = form.cleaned_data.get("seat") if form.data.get("change") == "rename" else form.data.get("change")
        return seats_page(request, sitting, refused, 400, form.data.get("name"), where)
    change, seat, name, key = (form.cleaned_data[field] for field in ("change", "seat", "name", "key"))
    by = recorder(request, sitting)
    try:
        if change == "join":
            done = sitting.seat_player(name, by=by, key=key)
            number = TableState.of(sitting.fresh_table(recent=1)).open_number  # (one who came back joined earlier)
            if done.joined == number:
                notice = _("%(name)s sits down and plays from hand %(number)d.")
            else:
                notice = _("%(name)s is back at the table and plays from hand %(number)d.")
        elif change == "leave":
            done = sitting.unseat_player(seat - 1, by=by, key=key)
            notice = _("%(name)s left the table; what they won stays on the score.")
        else:
            before = next((s.name for s in sitting.seated() if s.position == seat - 1), "")
            done = sitting.rename_player(seat - 1, name, by=by, key=key, was=form.cleaned_data["was"] or None)
            notice = _("%(before)s is now called %(name)s.")
    except Repeated:  # the same form sent twice: the change was made once
        messages.success(request, _("This change was already made."))
        return redirect(sitting)
    except TableError as refusal:
        return seats_page(request, sitting, refusal_text(refusal), refusal.status, name, seat if change == "rename" else change)
    if change == "rename" and before == done.name:
        notice = _("%(name)s keeps that name.")
    values = {"name": bdi(done.name), "number": number if change == "join" else None}
    messages.success(request, sentence(notice, {**values, "before": bdi(before)} if change == "rename" else values))
    return redirect(sitting)


def seats_page(
    request: HtmxHttpRequest,
    sitting: Sitting,
    notice: str = "",
    status: int = 200,
    typed: str | None = None,
    where: int | str | None = None,
) -> HttpResponse:
    """Who plays; after a refusal, what was typed stays in its own box with the refusal beside it: `where`
    is "join" (the newcomer's box, or the button of one who left and comes back) or the seat (1-based) being
    renamed."""
    table = TableState.of(sitting.fresh_table(recent=1))
    renaming = where if isinstance(where, int) else None
    renamed = {"position": renaming - 1, "typed": typed or "", "message": notice} if renaming else None
    joining = notice if where == "join" and status >= 400 else ""
    back = next((seat.position for seat in table.may_come_back if seat.name == typed), None) if joining else None
    context = {"sitting": sitting, "table": table, "notice": notice, "renamed": renamed,
               "typed": "" if renaming or back is not None else typed or "",
               "join_refused": joining if back is None else "", "back_refused": back}
    return render(request, "matches/seats.html", context, status=status)


@action(Sitting)
def seen(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """A phone without JavaScript saw a change of an earlier hand's money: its line goes from its table."""
    change = request.POST.get("change", "")
    if is_digits(change) and len(change) < 19:
        saw(request, int(change))
    return redirect(sitting)
