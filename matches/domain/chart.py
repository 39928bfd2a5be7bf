"""The score over time as drawing instructions for a small server-rendered SVG: a line per player,
threshold steps, every player's name beside their line's end, and rows for the accessible table;
integer coordinates and sampling down to `max_points` keep the tap's answer small."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import regex

# Sizes in viewBox units, about CSS px on a 360 px phone (the drawing spans the page's width there):
# text of FONT units (app.css: .chart text) stays 12 px or more.
WIDTH, HEIGHT = 182, 120  # the plot area
FONT = 13
NAME_GAP, NAMES_WIDTH = 6, 136  # between the plot and the names; room for NAME_CHARS letters
# What a line of text takes above and below its baseline in any font a phone may use (Noto Sans reaches
# 1.07 em up and 0.29 em down, DejaVu Sans and Roboto 0.93 and 0.24): never drawn past the edge.
NAME_ASCENT, NAME_DESCENT = 15, 4
NAME_BASELINE = 5  # a name's baseline below its label_y, so its letters' middle is at label_y
LABEL_GAP = NAME_ASCENT + NAME_DESCENT + 1  # the least vertical distance between two names
TOP = -(NAME_ASCENT + 4)  # room above the plot for the top value, written above its grid line
LEFT, RIGHT, BOTTOM = -2, WIDTH + NAME_GAP + NAMES_WIDTH, HEIGHT + 6
CHART_POINTS = 40  # hands drawn at most: longer matches are sampled evenly, the newest hand always in
NAME_CHARS = 12  # letters of a longer name's drawing (the table beside it has it whole); a wide one counts 2
MORE = "…"  # the last letter of a shortened name


@dataclass(frozen=True)
class Line:
    """One player's line: `points` (polyline text), its name (`label`, maybe shortened) at `label_y` in
    the line's colour, the last value. Players ending level are named one under the other, in seat order."""

    name: str
    label: str
    points: str
    label_y: int
    last: int


@dataclass(frozen=True)
class Chart:
    """What a template draws: sampled `hands` (0 = start), `rows` per hand, `steps` polyline or "", `ticks`."""

    lines: tuple[Line, ...]
    hands: tuple[int, ...]
    rows: tuple[tuple[int | None, ...], ...]
    steps: str
    ticks: tuple[tuple[int, int], ...]
    view_box: tuple[int, int, int, int] = (LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP)
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def points(self) -> list[tuple[int, tuple[int | None, ...]]]:
        """(hand number, values) pairs: the drawing's data as rows, for the table beside it."""
        return list(zip(self.hands, self.rows))


def sampled(count: int, max_points: int) -> list[int]:
    """Indexes 0..count-1 spread evenly, at most `max_points` of them, always the first and the last."""
    if count <= max_points:
        return list(range(count))
    step = (count - 1) / (max_points - 1)
    return sorted({round(i * step) for i in range(max_points)})


def running(start: Sequence[int], per_hand: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Totals per seat at the start and after each hand: `start` plus each hand's points in turn."""
    return list(accumulate(per_hand, lambda totals, gained: tuple(map(sum, zip(totals, gained))), initial=tuple(start)))


LABEL_TOP = TOP + NAME_ASCENT - NAME_BASELINE  # the highest label_y whose name stays in the drawing
LABEL_BOTTOM = BOTTOM - NAME_DESCENT - NAME_BASELINE


def label_heights(ys: Sequence[float], height: int = HEIGHT) -> list[int]:
    """Each name's label_y, near `ys` (its line's end) and LABEL_GAP apart. The names of lines ending on
    the plot's bottom hang from it, the first beside that line and the others under it, below the plot
    (view_box grows to them): never pushed up beside a higher line (a 0 % named at 50 %)."""
    hanging = [i for i, y in enumerate(ys) if y >= height]
    wanted = list(ys)
    for k, i in enumerate(hanging):
        wanted[i] = height + k * LABEL_GAP
    lowest = height + max(0, len(hanging) - 1) * LABEL_GAP
    plot_bottom = height + BOTTOM - HEIGHT - NAME_DESCENT - NAME_BASELINE
    bottom = max(plot_bottom, lowest, LABEL_TOP + (len(ys) - 1) * LABEL_GAP)
    return spread_labels(wanted, LABEL_GAP, LABEL_TOP, bottom)


def view_box(label_ys: Sequence[int], height: int = HEIGHT) -> tuple[int, int, int, int]:
    """The drawing's box (x, y, width, height): the values above their grid lines, the plot of `height`,
    the names on its right down to the lowest of `label_ys`."""
    bottom = max(height + BOTTOM - HEIGHT, max(label_ys, default=0) + NAME_BASELINE + NAME_DESCENT)
    return (LEFT, TOP, RIGHT - LEFT, bottom - TOP)


def spread_labels(
    ys: Sequence[float], gap: int = LABEL_GAP, top: int = LABEL_TOP, bottom: int = LABEL_BOTTOM
) -> list[int]:
    """Label heights near `ys` (viewBox units, down is +), `gap` apart within [top, bottom], order kept.
    Crowding names form blocks centred where they would be and merged when touching; more labels
    than fit share the room evenly."""
    if len(ys) > 1:
        gap = min(gap, (bottom - top) // (len(ys) - 1))
    order = sorted(range(len(ys)), key=lambda i: (ys[i], i))
    blocks: list[tuple[int, list[int]]] = []  # (the block's first height, its labels top to bottom)
    for index in order:
        block = [index]
        while True:
            wanted = sum(ys[label] - k * gap for k, label in enumerate(block)) / len(block)
            first = min(max(round(wanted), top), bottom - (len(block) - 1) * gap)
            if not blocks or blocks[-1][0] + len(blocks[-1][1]) * gap <= first:
                break
            block = blocks.pop()[1] + block  # it would crowd the block above it: they move as one
        blocks.append((first, block))
    placed = {label: first + k * gap for first, block in blocks for k, label in enumerate(block)}
    return [placed[i] for i in range(len(ys))]


def score_chart(
    names: Sequence[str],
    per_hand: Sequence[Sequence[int]],
    start: Sequence[int] | None = None,
    thresholds: Sequence[int | None] | None = None,
    max_points: int = 60,
) -> Chart:
    """Chart of a sitting's running totals: `names` per seat; `per_hand` points per hand (abandoned:
    zeros); `start` values before hand 1 (Cat Tê chips); `thresholds` len(per_hand) + 1 values or None.
    Raises ValueError when the shapes do not match."""
    seats = len(names)
    if any(len(points) != seats for points in per_hand) or (start is not None and len(start) != seats):
        raise ValueError(f"every hand and the start need one value per seat ({seats})")
    if thresholds is not None and len(thresholds) != len(per_hand) + 1:
        raise ValueError(f"thresholds need one value per hand and one for the start ({len(per_hand) + 1})")
    totals = running(start or [0] * seats, per_hand)
    keep = sampled(len(totals), max(2, max_points))
    steps = [thresholds[i] for i in keep] if thresholds else None
    return draw(names, keep, [totals[i] for i in keep], steps)


def draw(
    names: Sequence[str],
    hands: Sequence[int],
    rows: Sequence[Sequence[int | None]],
    steps: Sequence[int | None] | None = None,
) -> Chart:
    """Chart of pre-sampled values: `hands` numbers (0 = start, last = newest), `rows` per seat (None: a
    seat not at the table yet, its line starting later; the newest row has every value), `steps` threshold
    after each (or None). Raises ValueError when the shapes do not match."""
    if len(rows) != len(hands) or not hands or any(len(row) != len(names) for row in rows) or None in rows[-1]:
        raise ValueError(f"one row of {len(names)} values per hand drawn ({len(hands)}), the newest full")
    rows = tuple(tuple(row) for row in rows)
    steps = list(steps or [])
    values = [v for row in rows for v in row if v is not None] + [s for s in steps if s is not None]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1

    newest, span = max(1, hands[-1]), high - low
    xs = [round(hand * WIDTH / newest) for hand in hands]

    def y(value: float) -> int:
        return round((high - value) * HEIGHT / span)

    heights = label_heights([(high - last) * HEIGHT / span for last in rows[-1]])
    lines = [
        Line(
            name,
            shortened(name),
            " ".join([f"{px},{y(row[seat])}" for px, row in zip(xs, rows) if row[seat] is not None]),
            at,
            rows[-1][seat],
        )
        for seat, (name, at) in enumerate(zip(names, heights))
    ]
    return Chart(
        lines=tuple(lines),
        hands=tuple(hands),
        rows=rows,
        steps=step_line(xs, [None if s is None else y(s) for s in steps]),
        ticks=tuple((y(value), value) for value in axis_values(low, high)),
        view_box=view_box(heights),
    )


def shortened(name: str, chars: int = NAME_CHARS) -> str:
    """`name` in at most `chars` letters, a wide one (an emoji, a CJK character) counted as two: cut, with "…"
    as its last, when longer. Cut between what a reader sees as letters (an accent, a joined emoji stay whole)."""
    letters = regex.findall(r"\X", name)
    widths = [2 if unicodedata.east_asian_width(letter[0]) in "WF" else 1 for letter in letters]
    if sum(widths) <= chars:
        return name
    kept = [width for width in accumulate(widths) if width <= chars - 1]
    return "".join(letters[: len(kept)]) + MORE


def step_line(xs: Sequence[int], ys: Sequence[int | None]) -> str:
    """A polyline holding each y until the next x where it changes, to the last x; None: no value there."""
    points: list[tuple[int, int]] = []
    for px, py in zip(xs, ys):
        if py is None or (points and points[-1][1] == py):
            continue
        if points:
            points.append((px, points[-1][1]))
        points.append((px, py))
    if points and xs and points[-1][0] != xs[-1]:
        points.append((xs[-1], points[-1][1]))
    return " ".join(f"{px},{py}" for px, py in points)


AXIS_GAP = FONT + 6  # the least height between two values written on the axis, so that they never touch


def axis_values(low: int, high: int, most: int = 4) -> list[int]:
    """Round ticks (1, 2 or 5 x 10**k apart) in [low, high], at most `most` + 1, plus `high` if half a step
    above the last and, drawn HEIGHT high, far enough from it to be written apart; `low` the same below the
    first (a debt of 4.00 under ticks at 0 and 5.00 has its own)."""
    span = max(1, high - low)
    power = 10 ** max(0, math.floor(math.log10(span)) - 1)
    step = next(m * p for p in (power, power * 10, power * 100) for m in (1, 2, 5) if span / (m * p) <= most)
    values = list(range(math.ceil(low / step) * step, high + 1, step))

    def apart(gap: int) -> bool:
        return gap >= step / 2 and gap * HEIGHT / span >= AXIS_GAP

    if apart(values[0] - low):
        values.insert(0, low)
    if apart(high - values[-1]):
        values.append(high)
    return values
