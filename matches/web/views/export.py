"""The sitting as a spreadsheet: one CSV row per hand, with the totals the match table shows.

Streamed: the hands are read with an iterator while the file is sent, in a read snapshot of their
own, so a sitting of any length takes the same little memory; words the rows repeat (a status, a
hand's answers) are translated once per file.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from functools import partial

from defusedcsv import csv
from django.http import StreamingHttpResponse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from matches.models import Hand, Sitting
from matches.web.presenters.table_state import TableState
from matches.domain.names import without_isolates
from matches.models.snapshot import read_snapshot
from matches.web.views.common import HtmxHttpRequest, with_sitting

ROWS_PER_CHUNK = 200


@require_safe
@partial(with_sitting, snapshot=False)
def export(request: HtmxHttpRequest, sitting: Sitting) -> StreamingHttpResponse:
    """CSV, one row per hand (number, status, dealer, winner, how, each seat's points in the game's
    unit, then each seat's running numbers under the score table's columns), plus a row where a batch
    of chips was handed out (Cat Tê). The last row's running numbers are the score table's. Named for
    the day the match started on the table's own clock (its time zone). UTF-8 with a BOM; ";" between
    columns in languages whose decimal mark is the comma."""
    language = translation.get_language()
    filename = f"last-trick-{sitting.game}-{timezone.localtime(sitting.started_at, sitting.zone):%Y-%m-%d}.csv"
    rows = file_rows(sitting, language)
    response = StreamingHttpResponse(csv_chunks(rows, delimiter(language)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def delimiter(language: str | None) -> str:
    """The column separator spreadsheets expect in `language`: ";" where "," is the decimal mark
    (French, German, Vietnamese), else ","."""
    return ";" if formats.get_format("DECIMAL_SEPARATOR", lang=language) == "," else ","


class Echo:
    """A file whose write() hands back what it was given, for a csv writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def csv_chunks(rows: Generator[list[object], None, None], delimiter: str) -> Iterator[str]:
    """The file's text in chunks of ROWS_PER_CHUNK rows, after the BOM (so spreadsheet programs read
    the names' accents as UTF-8)."""
    writer = csv.writer(Echo(), delimiter=delimiter)
    chunk = ["\ufeff"]
    try:
        for row in rows:
            chunk.append(writer.writerow(row))
            if len(chunk) >= ROWS_PER_CHUNK:
                yield "".join(chunk)
                chunk = []
        if chunk:
            yield "".join(chunk)
    finally:
        rows.close()  # a client that went away: end the read snapshot now


def file_rows(sitting: Sitting, language: str | None) -> Generator[list[object], None, None]:
    """The header, then the rows; runs while the response streams, in one read snapshot (the sitting
    read again in it, so its chips and hands agree) and in the request's language. Nothing but the
    header when the sitting went away meanwhile."""
    with translation.override(language), read_snapshot():
        fresh = Sitting.objects.filter(pk=sitting.pk, token=sitting.token).first()
        if fresh is None:
            return
        state = TableState.of(fresh.table(recent=0))
        yield header(state)
        yield from rows(state, fresh.hands.order_by("number").iterator(chunk_size=500))


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


def rows(state: TableState, hands: Iterable[Hand]) -> Iterator[list[object]]:
    """The file's rows from `hands`, oldest first: every hand, and a row for each chip batch just
    before the hand it was handed out for (after the last hand when no later hand was played).

    Running numbers are summed from the hands' points (the ledger), so a file that disagrees with the
    score table shows a drift that `check_totals` would name. Source: RULES.md, Cat Te (chips).
    """
    n_seats = len(state.seats)
    totals, wins, batches = [0] * n_seats, [0] * n_seats, 0
    dated = batch_dates(state.sitting)
    hand_row = HandRows(state)
    for hand in hands:
        while batches < len(dated) and dated[batches] <= hand.number:
            batches += 1
            yield batch_row(state, totals, wins, batches)
        totals = [total + gained for total, gained in zip(totals, hand.points)]
        if hand.winner_id is not None:
            wins[hand_row.positions[hand.winner_id]] += 1
        yield hand_row(hand) + running(state, totals, wins, batches)
    while batches < len(dated):
        batches += 1
        yield batch_row(state, totals, wins, batches)


def batch_dates(sitting: Sitting) -> list[float]:
    """Per batch re-issued, in order, the hand it was handed out before; a batch the sitting counts
    but does not date (kept count and list out of step) goes after every hand, like the migration's."""
    return list(sitting.stakes.batches)


class HandRows:
    """A hand's facts as the file writes them: number, status, dealer, winner, how, each seat's
    points. Statuses and answers are worded once per file, not once per row."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.positions = {seat.pk: seat.position for seat in state.seats}
        self.statuses = {value: str(label) for value, label in Hand.Status.choices}
        self.answers: dict[tuple, str] = {}

    def __call__(self, hand: Hand) -> list[object]:
        seats = self.state.seats
        winner = seats[self.positions[hand.winner_id]].name if hand.winner_id else ""
        key = (hand.status, repr(sorted(hand.extras.items())))
        if key not in self.answers:
            self.answers[key] = without_isolates(self.state.describe(hand, worth=False))  # names as typed
        status = self.statuses.get(hand.status, hand.status)
        return [hand.number, status, seats[hand.dealer_position].name, winner, self.answers[key], *hand.points]


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
