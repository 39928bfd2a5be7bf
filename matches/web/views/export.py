"""The sitting as a CSV: one row per hand (each player's gain or loss in the match's unit), with the match
table's totals, and a closing line of nets. Streamed from an iterator in its own read snapshot, so any
length takes little memory; repeated words are translated once."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator

import csv
from django.http import StreamingHttpResponse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from django.views.decorators.http import require_safe

from matches.models import Hand, Sitting
from matches.web.presenters.table_state import TableState
from matches.domain.names import without_isolates
from matches.domain.settlement import hand_gains
from matches.models.snapshot import read_snapshot
from matches.web.views.common import HtmxHttpRequest, reached

ROWS_PER_CHUNK = 200


@require_safe
@reached(Sitting, snapshot=False)
def export(request: HtmxHttpRequest, sitting: Sitting) -> StreamingHttpResponse:
    """CSV: one row per hand (facts, points, running numbers per column) plus one per Cat Tê chip batch.
    Named for the start day on the table's clock; UTF-8 with a BOM; ";" where the comma is the decimal mark."""
    language = translation.get_language()
    filename = f"last-trick-{sitting.game}-{timezone.localtime(sitting.started_at, sitting.zone):%Y-%m-%d}.csv"
    rows = file_rows(sitting, language)
    response = StreamingHttpResponse(csv_chunks(rows, delimiter(language)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def delimiter(language: str | None) -> str:
    """ ";" where "," is the decimal mark of `language` (French, German, Vietnamese), else ","."""
    return ";" if formats.get_format("DECIMAL_SEPARATOR", lang=language) == "," else ","


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a text cell a spreadsheet runs as a formula (OWASP)


def neutralised(cell: object) -> object:
    """A cell as typed, unless it is text a spreadsheet would run as a formula: then after a ' (read as
    text). Numbers, negative ones included, stay numbers."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


class Echo:
    """A file whose write() hands back what it was given, for a csv writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def csv_chunks(rows: Generator[list[object], None, None], delimiter: str) -> Iterator[str]:
    """The file's text, ROWS_PER_CHUNK rows a chunk, after a BOM so spreadsheets read accents as UTF-8."""
    writer = csv.writer(Echo(), delimiter=delimiter)
    chunk = ["\ufeff"]
    try:
        for row in rows:
            chunk.append(writer.writerow(map(neutralised, row)))
            if len(chunk) >= ROWS_PER_CHUNK:
                yield "".join(chunk)
                chunk = []
        if chunk:
            yield "".join(chunk)
    finally:
        rows.close()  # a client that went away: end the read snapshot now


def file_rows(sitting: Sitting, language: str | None) -> Generator[list[object], None, None]:
    """Header then rows while streaming, in one read snapshot and the request's language; header only if gone."""
    with translation.override(language), read_snapshot():
        fresh = Sitting.objects.filter(pk=sitting.pk, token=sitting.token).first()
        if fresh is None:
            return
        state = TableState.of(fresh.table(recent=0))
        yield header(state)
        yield from rows(state, fresh.hands.order_by("number").iterator(chunk_size=500))


def header(state: TableState) -> list[str]:
    """Column names: hand facts, each seat's gain ("Aïcha: FCFA this hand"), then running numbers per column."""
    names = [seat.name for seat in state.seats]
    unit = gain_unit(state.sitting)
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


def gain_unit(sitting: Sitting) -> str:
    """What a hand's gains are counted in: the stake's currency when Fapfap is played for money, else the
    game's unit (stakes, points, chips, wins)."""
    if sitting.rules.uses_stake and sitting.stake_amount:
        return sitting.stake_label or _("Money")
    return _(sitting.rules.unit)


def nets_row(nets: Iterable[object]) -> list[object]:
    """The closing line: no hand, each player's net (the sum of the gains above) under the gains."""
    net = pgettext("the closing line of a CSV: each player's gains and losses added up", "net")
    return ["", net, "", "", "", *nets]


def rows(state: TableState, hands: Iterable[Hand]) -> Iterator[list[object]]:
    """Rows from `hands` oldest first, a chip batch row before the hand it preceded, then the nets with the
    table's final numbers. Running numbers are summed from the ledger, so drift shows against the table.
    Source: RULES.md, Cat Te (chips)."""
    n_seats = len(state.seats)
    totals, wins, batches, nets = [0] * n_seats, [0] * n_seats, 0, [0] * n_seats
    dated = batch_dates(state.sitting)
    hand_row = HandRows(state)
    any_hand = False
    for hand in hands:
        while batches < len(dated) and dated[batches] <= hand.number:
            batches += 1
            yield batch_row(state, totals, wins, batches)
        totals = [total + gained for total, gained in zip(totals, hand.points)]
        if hand.winner_id is not None:
            wins[hand_row.positions[hand.winner_id]] += 1
        row = hand_row(hand)
        nets = [net + gain for net, gain in zip(nets, row[5:])]
        any_hand = True
        yield row + running(state, totals, wins, batches)
    while batches < len(dated):
        batches += 1
        yield batch_row(state, totals, wins, batches)
    if any_hand:
        yield nets_row(nets) + running(state, totals, wins, batches)


def batch_dates(sitting: Sitting) -> list[float]:
    """Per batch, the hand it preceded; an undated batch goes after every hand (Stakes.of)."""
    return list(sitting.stakes.batches)


class HandRows:
    """A hand's facts as the file writes them; statuses and answers worded once per file."""

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
        return [hand.number, status, seats[hand.dealer_position].name, winner, self.answers[key], *self.gains(hand)]

    def gains(self, hand: Hand) -> list[int]:
        """The hand's gain or loss per seat in gain_unit (domain/settlement.hand_gains)."""
        sitting = self.state.sitting
        return hand_gains(list(hand.points), sitting.rules.uses_stake, sitting.stake_amount or 0)


def batch_row(state: TableState, totals: list[int], wins: list[int], batches: int) -> list[object]:
    """A re-issue of chips: no hand, no points, every seat's chips up by the starting stack."""
    chips = state.sitting.starting_chips or 0
    how = ngettext("%(chips)d chip to each player", "%(chips)d chips to each player", chips) % {"chips": chips}
    facts = ["", _("chips handed out"), "", "", how, *[""] * len(state.seats)]
    return facts + running(state, totals, wins, batches)


def running(state: TableState, totals: list[int], wins: list[int], batches: int) -> list[int]:
    """Each seat's numbers under the score table's columns, column by column, seat by seat."""
    chips, money = state.chips_issued(batches), state.stakes.money(totals)
    cells = [state.cells(chips + total, net, won) for total, net, won in zip(totals, money, wins, strict=True)]
    return [seat_cells[index][1] for index in range(len(state.columns)) for seat_cells in cells]
