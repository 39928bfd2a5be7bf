"""The score chart's geometry (pure): sampling, running totals, labels that never overlap, step lines."""

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.domain.chart import (
    HEIGHT,
    LABEL_GAP,
    NAME_ASCENT,
    NAME_BASELINE,
    NAME_DESCENT,
    WIDTH,
    axis_values,
    running,
    sampled,
    score_chart,
    shortened,
    label_heights,
    spread_labels,
    step_line,
)

from tests.conftest import examples


@pytest.mark.parametrize(
    "count, most, expected",
    [(1, 60, [0]), (5, 60, [0, 1, 2, 3, 4]), (5, 3, [0, 2, 4]), (11, 6, [0, 2, 4, 6, 8, 10])],
)
def test_sampling_keeps_the_first_and_last_hand(count, most, expected):
    assert sampled(count, most) == expected


@given(st.integers(1, 20_000), st.integers(2, 200))
def test_sampling_never_exceeds_its_budget_and_keeps_order(count, most):
    kept = sampled(count, most)
    assert len(kept) <= most and kept[0] == 0 and kept[-1] == count - 1 and kept == sorted(set(kept))


def test_running_totals_start_from_the_stacks():
    assert running([20, 20], [[1, -1], [-2, 2]]) == [(20, 20), (21, 19), (19, 21)]


def names_apart_and_inside(chart) -> None:
    """Every player named (shortened at most), every pair of names at least LABEL_GAP apart, every name
    (its tallest letter to its deepest descender, drawn NAME_BASELINE below its label_y) inside the
    drawing's viewBox; players ending level are named one under the other, in seat order."""
    _, top, _, height = chart.view_box
    heights = sorted(line.label_y for line in chart.lines)
    assert all(b - a >= LABEL_GAP for a, b in pairwise(heights)), heights
    assert [line.label for line in chart.lines] == [shortened(line.name) for line in chart.lines]
    for value in set(chart.rows[-1]):
        level = [line.label_y for line in chart.lines if line.last == value]
        assert level == sorted(level)
    for line in chart.lines:
        assert top <= line.label_y + NAME_BASELINE - NAME_ASCENT, (line.name, line.label_y)
        assert line.label_y + NAME_BASELINE + NAME_DESCENT <= top + height, (line.name, line.label_y)


def totals_of(seats: int):
    """Final scores for `seats` players: any, all equal, or all different (small or far apart)."""
    score = st.integers(-2_000, 2_000)
    return st.one_of(
        st.lists(score, min_size=seats, max_size=seats),
        score.map(lambda value: [value] * seats),
        st.lists(score, min_size=seats, max_size=seats, unique=True),
        st.lists(st.integers(0, 3), min_size=seats, max_size=seats),
    )


@settings(max_examples=examples(400))
@given(st.data())
def test_names_are_never_drawn_on_top_of_each_other_nor_outside_the_drawing(data):
    seats = data.draw(st.integers(2, 8), label="seats")
    totals = data.draw(totals_of(seats), label="totals")
    first = data.draw(st.lists(st.integers(-50, 50), min_size=seats, max_size=seats), label="first hand")
    per_hand = [first, [total - gained for total, gained in zip(totals, first)]]
    chart = score_chart([f"Player {seat}" for seat in range(seats)], per_hand)
    assert chart.rows[-1] == tuple(totals)
    names_apart_and_inside(chart)
    by_height = sorted(range(seats), key=lambda seat: (chart.lines[seat].label_y, seat))
    assert [totals[seat] for seat in by_height] == sorted(totals, reverse=True)  # who is higher stays higher


def test_sink_sink_after_two_hands_keeps_four_names_apart_and_in_the_drawing():
    """The newcomer's table: after hand 2 Oumar and Salif were drawn on top of each other, and Fanta
    (at the bottom) was cut off below the drawing."""
    names = ["Awa", "Oumar", "Salif", "Fanta"]
    for first, second in [(0, 0), (0, 3), (1, 2), (3, 3)]:
        per_hand = [[int(seat == winner) for seat in range(4)] for winner in (first, second)]
        names_apart_and_inside(score_chart(names, per_hand))


@given(st.lists(st.integers(-50, 200), min_size=1, max_size=8))
def test_labels_keep_their_gap_and_their_bounds_whatever_the_heights(ys):
    bottom = -1 + 7 * LABEL_GAP  # room for eight
    placed = spread_labels(ys, top=-1, bottom=bottom)
    ordered = sorted(placed)
    assert all(b - a >= LABEL_GAP for a, b in pairwise(ordered))
    assert -1 <= ordered[0] and ordered[-1] <= bottom
    by_height = sorted(range(len(ys)), key=lambda i: (ys[i], i))
    assert [placed[i] for i in by_height] == sorted(placed)  # who is higher stays higher


def test_too_many_labels_for_the_room_share_it_evenly_rather_than_fail():
    placed = spread_labels([50] * 12, top=0, bottom=100)
    assert placed == sorted(placed) and placed[0] >= 0 and placed[-1] <= 100
    assert min(b - a for a, b in pairwise(placed)) >= 100 // 11


@pytest.mark.parametrize(
    "xs, ys, expected",
    [
        ([0, 10, 20, 30], [60, 60, 40, 40], "0,60 20,60 20,40 30,40"),
        ([0, 10], [None, None], ""),
        ([0, 10, 20], [None, 50, 50], "10,50 20,50"),
    ],
)
def test_the_threshold_is_a_step_line(xs, ys, expected):
    assert step_line(xs, ys) == expected


@pytest.mark.parametrize(
    "low, high, expected",
    [
        (0, 500, [0, 200, 400, 500]),
        (0, 450, [0, 200, 400]),  # the top is near the last: not written twice so close
        (0, 50, [0, 20, 40, 50]),  # a tie at 50 in Letzter Stich: its value on the axis
        (-5, 3, [-4, -2, 0, 2]),  # 3 would be written too close above 2
        (0, 7, [0, 2, 4, 6]),
        (16, 23, [16, 18, 20, 22]),  # Cat Tê chips: not 23 touching 22
        (0, 9, [0, 5, 9]),
        (0, 13, [0, 5, 10, 13]),
        (0, 8, [0, 2, 4, 6, 8]),
        (3, 3, [3]),
        (-400, 500, [-400, 0, 500]),  # Fapfap money in cents: the debt below 0 has a value on the axis
        (-450, 100, [-400, -200, 0, 100]),
        (-90, 10, [-90, -50, 0]),  # the top 10 too close above 0; the bottom far enough below -50
    ],
)
def test_axis_values_are_round(low, high, expected):
    assert axis_values(low, high) == expected


def test_a_chart_ends_at_each_players_total_and_spans_the_plot():
    chart = score_chart(["Aïcha", "Boubacar", "Chaibou"], [[0, 0, 1], [1, 0, 0], [0, 0, 1]])
    assert [line.last for line in chart.lines] == [1, 0, 2]
    assert chart.hands == (0, 1, 2, 3) and chart.rows[-1] == (1, 0, 2)
    chaibou = chart.lines[2].points.split()
    assert chaibou[0] == f"0,{HEIGHT}" and chaibou[-1] == f"{WIDTH},0"  # from the bottom left to the top right


def test_long_matches_are_sampled_and_long_names_shortened_in_the_drawing():
    names = ["Ousmane Abdoulaye Maïnassara", "B"]
    chart = score_chart(names, [[2, 0], [0, 1]] * 250, max_points=60)
    assert len(chart.hands) <= 60 and chart.hands[-1] == 500 and chart.rows[-1] == (500, 250)
    assert chart.lines[0].label == "Ousmane Abd…" and chart.lines[0].name == names[0]


@pytest.mark.parametrize(
    "name, drawn",
    [
        ("Ousmane Abdoulaye", "Ousmane Abd…"),
        ("😀" * 20, "😀" * 5 + "…"),  # an emoji takes two letters' room
        ("Chloe\u0301" * 3, "Chloe\u0301Chloe\u0301C…"),  # an accent typed apart stays on its letter
        ("Ami👨‍👩‍👧Familles", "Ami👨‍👩‍👧Famill…"),  # one joined emoji: whole
        ("Ami Famille👨‍👩‍👧", "Ami Famille…"),  # ...or left out whole, never cut inside
        ("阮氏明開心快樂", "阮氏明開心…"),
        ("Short name", "Short name"),
    ],
)
def test_a_long_name_is_shortened_between_the_letters_a_reader_sees_and_by_the_room_they_take(name, drawn):
    assert shortened(name) == drawn


def test_chips_start_from_the_stacks_and_the_threshold_is_drawn():
    chart = score_chart(["A", "B"], [[2, -2]], start=[20, 20], thresholds=[10, 10])
    assert chart.rows == ((20, 20), (22, 18)) and chart.steps


@pytest.mark.parametrize(
    "per_hand, start, thresholds", [([[1, 0, 0]], None, None), ([[1, 0]], [1], None), ([[1, 0]], None, [10])]
)
def test_shapes_that_do_not_match_are_refused(per_hand, start, thresholds):
    with pytest.raises(ValueError):
        score_chart(["A", "B"], per_hand, start=start, thresholds=thresholds)


def test_eight_players_level_are_each_named_and_the_drawing_grows_to_hold_them():
    """Eighty Three, eight seats all at 0 after an abandoned hand: eight names one under the other,
    each in its line's colour, the drawing taller than the plot to hold them."""
    names = ["Ali", "Bintou", "Chloé", "Dan", "Éric", "Fanta", "Garba", "Hawa"]
    chart = score_chart(names, [[0] * 8])
    names_apart_and_inside(chart)
    assert [line.label for line in chart.lines] == names
    assert chart.view_box[3] > HEIGHT - chart.view_box[1]  # below the plot's bottom too


def test_a_name_tied_with_a_right_to_left_one_is_drawn_apart_from_it():
    chart = score_chart(["عائشة", "|calc", "Boubacar"], [[1, 1, 0]])
    assert [line.label for line in chart.lines] == ["عائشة", "|calc", "Boubacar"]
    assert chart.lines[0].label_y < chart.lines[1].label_y  # level: in seat order, one under the other
    names_apart_and_inside(chart)


def test_names_of_lines_ending_on_the_plots_bottom_hang_from_it_never_above_it():
    """Four players at the lowest value (0 % in the win-rate chart): the first name beside that line, the
    others under it, below the plot (the drawing grows), none up beside a higher line such as 50 %."""
    assert label_heights([100, 100, 100, 100], 100) == [100, 100 + LABEL_GAP, 100 + 2 * LABEL_GAP, 100 + 3 * LABEL_GAP]
    heights = label_heights([0, 100, 100, 100], 100)  # one at the top, three at the bottom
    assert heights[0] < 100 // 2 and heights[1:] == [100, 100 + LABEL_GAP, 100 + 2 * LABEL_GAP]
    chart = score_chart(["A", "B", "C", "D", "E"], [[4, 0, 0, 0, 0]])
    names_apart_and_inside(chart)
    assert [line.label_y for line in chart.lines[1:]] == [HEIGHT + k * LABEL_GAP for k in range(4)]
