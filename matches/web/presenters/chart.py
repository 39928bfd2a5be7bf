"""A sitting's score chart from the hands' running totals; the sampled hands come with the table's
own read (Sitting.table, record_hand), and a missing one is fetched here."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from matches.domain import rules
from matches.domain.chart import CHART_POINTS, NAME_BASELINE, NAME_GAP, Chart, draw, sampled
from matches.models import Hand, Sitting
from matches.web.presenters.table_state import TableState
from matches.web.presenters.numbers import grouper, money_number
from matches.domain.names import shared
from matches.domain.stakes import widened


def sitting_chart(sitting: Sitting, state: TableState) -> Chart | None:
    """Each seat's tally after every sampled hand and Eighty Three's threshold steps; None before hand 1."""
    last = state.last_hand
    # An early end's abandoned hand was not played, so it is not drawn.
    drawn = last.number - (last.status == Hand.Status.ABANDONED) if last is not None else 0
    if drawn == 0:
        return None
    keep = sampled(drawn + 1, CHART_POINTS)
    held = {**state.drawn_hands, **{hand.number: hand for hand in state.recent_hands}}
    wanted = [number for number in keep if number and number not in held]
    if wanted:
        held.update(
            {
                hand.number: hand
                for hand in Hand.objects.filter(sitting=sitting, number__in=wanted).only(
                    "number", "running", "threshold_after"
                )
            }
        )
    seats = len(state.seats)
    # A latecomer's line starts where they sat down, after the hand before the first they play.
    first = [seat.joined - 1 for seat in state.seats]

    def at_table(number: int, row: list[int]) -> list[int | None]:
        return [value if number >= since else None for value, since in zip(row, first)]

    start = rules.Progress.start(seats, sitting.match_end)
    hands, rows, steps = [0], [at_table(0, shown(sitting, 0, [0] * seats))], [start.threshold]
    if sitting.chips_reissued and new_stacks_after(sitting, 0):  # dated before hand 1 by its undo
        hands.append(0)
        rows.append(at_table(0, shown(sitting, 0, [0] * seats, then_new_stacks=True)))
        steps.append(start.threshold)
    as_kept = not sitting.rules.uses_chips and not sitting.stake_amount  # the tally shows the totals
    for number in keep[1:]:
        hand = held.get(number)
        if hand is None:
            continue
        running = widened(hand.running, seats)
        hands.append(number)
        rows.append(at_table(number, running if as_kept else shown(sitting, number, running)))
        steps.append(hand.threshold_after)
        if sitting.chips_reissued and new_stacks_after(sitting, number):  # a step of its own, straight up
            hands.append(number)
            rows.append(at_table(number, shown(sitting, number, running, then_new_stacks=True)))
            steps.append(hand.threshold_after)
    names = [seat.name for seat in state.seats]
    return draw(names, hands, rows, steps if sitting.threshold is not None else None)


def new_stacks_after(sitting: Sitting, number: int) -> int:
    """Chips everyone was given right after hand `number` (Cat Tê; 0 for the other games)."""
    return sitting.stakes.handed_out_after(number)


def shown(sitting: Sitting, number: int, totals: list[int], then_new_stacks: bool = False) -> list[int]:
    """The tally after hand `number`; Cat Tê chips include stacks handed out after it if `then_new_stacks`."""
    return sitting.stakes.shown(totals, before=number + 1 if then_new_stacks else number)


def written(money: str | None):
    """How the chart writes its values: money in smallest units of currency `money`, else whole numbers."""
    if money is None:
        return grouper()
    return lambda value: money_number(value, money)


def table_rows(chart: Chart | None, money: str | None = None) -> SafeString:
    """The chart's screen-reader table, written as the score table writes numbers (`money`: the currency
    of a money chart). Built here, not in a template: a tap's answer carries up to forty rows, and a
    template loop over them costs more than this."""
    if chart is None:
        return mark_safe("")
    number = written(money)
    cells: dict[int, str] = {}  # each value's cell, written once: a chart's values repeat

    def cell(value: int | None) -> str:
        if value is None:  # not at the table yet
            return "<td></td>"
        if value not in cells:
            cells[value] = f"<td>+{number(value)}</td>" if money is not None and value > 0 else f"<td>{number(value)}</td>"
        return cells[value]

    points, rows = chart.points, []
    for index, (hand, row) in enumerate(points):
        # A hand drawn twice: the second time with the chips everyone was given after it (Cat Tê).
        again = index and points[index - 1][0] == hand
        heading = escape(_("%(number)d, then new chips for everyone") % {"number": hand}) if again else int(hand)
        rows.append(f'<tr><th scope="row">{heading}</th>{"".join([cell(value) for value in row])}</tr>')
    return mark_safe("".join(rows))  # noqa: S308 - numbers, and the heading escaped


def chart_title(sitting: Sitting) -> str:
    """What the chart draws, said above it: chips, money in the stake's currency, or the score."""
    if sitting.rules.uses_chips:
        return _("Chips after each hand")
    if sitting.stake_amount:  # a stake (a chip's worth draws chips, above)
        if not sitting.stake_label:
            return _("Money after each hand")
        return _("Money after each hand (%(currency)s)") % {"currency": sitting.stake_label}
    return _("Score after each hand")


def chart_svg(chart: Chart, money: str | None = None) -> SafeString:
    """The chart as inline SVG: grid, threshold steps, a line per player, then each value above its grid
    line (on its halo, over the lines: they all start at the first value) and each player's name beside
    its end in the line's colour, a right-to-left one isolated (names.shared). Built here: in a tap's answer a template loop costs more than
    the rest of the drawing."""
    width, number = chart.width, written(money)
    parts = [f'<svg viewBox="{" ".join(map(str, chart.view_box))}" aria-hidden="true" focusable="false">']
    for y, _value in chart.ticks:
        parts.append(f'<line class="tick" x1="0" x2="{width}" y1="{y}" y2="{y}"/>')
    if chart.steps:
        parts.append(f'<polyline class="steps" points="{chart.steps}"/>')
    for index, line in enumerate(chart.lines):
        parts.append(f'<polyline class="l{index}" points="{line.points}"/>')
    for y, value in chart.ticks:
        parts.append(f'<text class="axis" x="0" y="{y - 4}">{escape(number(value))}</text>')
    for index, line in enumerate(chart.lines):  # names over every line
        parts.append(
            f'<text class="l{index}" x="{width + NAME_GAP}" y="{line.label_y + NAME_BASELINE}">'
            f"{escape(shared(line.label))}</text>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - numbers and escaped names only
