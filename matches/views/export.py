"""The sitting as a spreadsheet: one CSV row per hand, with the totals the match table shows."""

from __future__ import annotations

from defusedcsv import csv
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from ..models import Sitting
from .common import HtmxHttpRequest, with_sitting


@require_safe
@with_sitting
def export(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """CSV, one row per hand: number, status, dealer, winner, how, each seat's points, running totals."""
    state = sitting.table(recent=None)
    names = [seat.name for seat in state.seats]
    filename = f"last-trick-{sitting.game}-{timezone.localtime(sitting.started_at):%Y-%m-%d}.csv"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.write("\ufeff")  # so spreadsheet programs read the names' accents as UTF-8
    # French spreadsheets split columns on ";" (the comma is their decimal mark).
    writer = csv.writer(response, delimiter=";" if get_language() == "fr" else ",")
    writer.writerow(
        [
            _("hand"),
            _("status"),
            _("dealer"),
            _("winner"),
            _("how"),
            *(_("%(name)s points") % {"name": n} for n in names),
            *(_("%(name)s total") % {"name": n} for n in names),
        ]
    )
    running = [0] * len(names)
    for hand in reversed(state.recent_hands):
        running = [total + gained for total, gained in zip(running, hand.points)]
        winner = state.name_of(hand.winner_id) if hand.winner_id else ""
        writer.writerow(
            [
                hand.number,
                hand.get_status_display(),
                names[hand.dealer_position],
                winner,
                state.describe(hand),
                *hand.points,
                *running,
            ]
        )
    return response
