"""The sitting as a spreadsheet: one CSV row per hand, with the totals the match table shows."""

from __future__ import annotations

from collections.abc import Iterator

from defusedcsv import csv
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from ..models import Hand, Sitting, TableState
from ..names import without_isolates
from .common import HtmxHttpRequest, with_sitting


@require_safe
@with_sitting
def export(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """CSV, one row per hand (number, status, dealer, winner, how, each seat's points in the game's
    unit, then each seat's running numbers under the score table's columns), plus a row where a batch
    of chips was handed out (Cat Tê). The last row's running numbers are the score table's. Named for
    the day the match started on the table's own clock (its time zone)."""
    state = sitting.table(recent=None)
    filename = f"last-trick-{sitting.game}-{timezone.localtime(sitting.started_at, sitting.zone):%Y-%m-%d}.csv"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.write("\ufeff")  # so spreadsheet programs read the names' accents as UTF-8
    # French spreadsheets split columns on ";" (the comma is their decimal mark).
    writer = csv.writer(response, delimiter=";" if get_language() == "fr" else ",")
    writer.writerow(header(state))
    writer.writerows(rows(state))
    return response


def header(state: TableState) -> list[str]:
    """Column names: the hand's facts, each seat's points this hand ("Aïcha: chips this hand"), then
    per score-table column each seat's running number, named as the table heads it ("Aïcha: Chips")."""
    names = [seat.name for seat in state.seats]
    unit = _(state.sitting.rules.unit)
    return [
        _("hand"),
        _("status"),
        _("dealer"),
        _("winner"),
        _("how"),
        *(_("%(name)s: %(unit)s this hand") % {"name": name, "unit": unit} for name in names),
        *(
            _("%(name)s: %(column)s") % {"name": name, "column": column.heading}
            for column in state.columns
            for name in names
        ),
    ]


def rows(state: TableState) -> Iterator[list[object]]:
    """The file's rows, oldest first: every hand, and a row for each chip batch just before the hand
    it was handed out for (after the last hand when no later hand was played).

    Running numbers are summed from the hands' points (the ledger), so a file that disagrees with the
    score table shows a drift that `check_totals` would name. Source: RULES.md, Cat Te (chips).
    """
    n_seats = len(state.seats)
    totals, wins, batches = [0] * n_seats, [0] * n_seats, 0
    dated = batch_dates(state.sitting)
    for hand in reversed(state.recent_hands):
        while batches < len(dated) and dated[batches] <= hand.number:
            batches += 1
            yield batch_row(state, totals, wins, batches)
        totals = [total + gained for total, gained in zip(totals, hand.points)]
        if hand.winner_id is not None:
            wins[state.position_of(hand.winner_id)] += 1
        yield hand_row(state, hand) + running(state, totals, wins, batches)
    while batches < len(dated):
        batches += 1
        yield batch_row(state, totals, wins, batches)


def batch_dates(sitting: Sitting) -> list[float]:
    """Per batch re-issued, in order, the hand it was handed out before; a batch the sitting counts
    but does not date (kept count and list out of step) goes after every hand, like the migration's."""
    dated: list[float] = sorted(sitting.reissued_before)[: sitting.chips_reissued]
    return dated + [float("inf")] * (sitting.chips_reissued - len(dated))


def hand_row(state: TableState, hand: Hand) -> list[object]:
    winner = state.name_of(hand.winner_id) if hand.winner_id else ""
    dealer = state.seats[hand.dealer_position].name
    how = without_isolates(state.describe(hand, worth=False))  # the file keeps names as typed
    return [hand.number, hand.get_status_display(), dealer, winner, how, *hand.points]


def batch_row(state: TableState, totals: list[int], wins: list[int], batches: int) -> list[object]:
    """A re-issue of chips: no hand, no points, every seat's chips up by the starting stack."""
    chips = state.sitting.starting_chips or 0
    how = ngettext("%(chips)d chip to each player", "%(chips)d chips to each player", chips) % {"chips": chips}
    facts = ["", _("chips handed out"), "", "", how, *[""] * len(state.seats)]
    return facts + running(state, totals, wins, batches)


def running(state: TableState, totals: list[int], wins: list[int], batches: int) -> list[int]:
    """Each seat's numbers under the score table's columns, column by column, seat by seat."""
    cells = [state.cells(total, won, batches, sum(totals)) for total, won in zip(totals, wins)]
    return [seat_cells[index][1] for index in range(len(state.columns)) for seat_cells in cells]
