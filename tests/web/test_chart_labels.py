"""The score chart's names: players whose lines end at the same value share one label, at that value
(six players still at 0 were named up to the 10 line); labels of different values never overlap."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.domain.chart import HEIGHT, NAME_CHARS, draw, listed, shortened
from matches.models import Sitting
from matches.domain.names import FSI, PDI, isolate

from tests.web.test_score_chart import chart_of
from tests.web.test_views import HX, url

EIGHT = ["P1a", "P1b", "P1c", "P1d", "P1e", "P1f", "P1g", "P1h"]


def labels(chart) -> list[tuple[int, str]]:
    """(label_y, label) of the labels drawn, top to bottom."""
    return sorted((line.label_y, line.label) for line in chart.lines if line.label)


def end_y(line) -> int:
    """Where the line ends, in viewBox units (its last point's y)."""
    return int(line.points.split()[-1].split(",")[1])


def test_six_players_level_at_zero_share_one_label_drawn_at_zero():
    """Eighty Three, eight seats: six still at 0, two ahead. One label names the six, beside the 0."""
    chart = draw(EIGHT, [0, 1, 2], [[0] * 8, [0, 0, 0, 5, 0, 0, 12, 0], [0, 0, 0, 10, 0, 0, 25, 0]])
    drawn = labels(chart)
    assert len(drawn) == 3, drawn
    level = [line for line in chart.lines if line.last == 0]
    assert len(level) == 6 and len({line.label_y for line in level}) == 1
    (zero,) = {line.label for line in level} - {""}
    assert zero == listed(["P1a", "P1b", "P1c", "P1e", "P1f", "P1h"]) == f"P1a, {isolate('P1b')}, …"
    assert abs(level[0].label_y - HEIGHT) <= 1 and all(end_y(line) == HEIGHT for line in level)  # the 0 line
    assert chart.lines[-1].label == zero  # the last drawn of them (on top there, its colour seen) names them
    assert [chart.lines[3].label, chart.lines[6].label] == ["P1d", "P1g"]
    assert len(chart.lines) == 8 and chart.rows[-1] == (0, 0, 0, 10, 0, 0, 25, 0)  # each line still drawn


def test_distinct_values_keep_one_label_per_player():
    names = ["Aïcha", "Boubacar", "Ousmane Abdoulaye Maïnassara"]
    chart = draw(names, [0, 1], [[0, 0, 0], [3, -2, 40]])
    assert [line.label for line in chart.lines] == ["Aïcha", "Boubacar", "Ousmane Abd…"]
    by_height = sorted(chart.lines, key=lambda line: line.label_y)
    assert [line.name for line in by_height] == [names[2], names[0], names[1]]


@pytest.mark.parametrize(
    "names, expected",
    [
        (["Ana", "Ben", "Cyr"], "Ana, \u2068Ben\u2069, \u2068Cyr\u2069"),
        (["Aïcha", "Boubacar", "Chaibou"], "Aïcha, …"),
        (["Ousmane Abdoulaye Maïnassara", "B"], "Ousmane A…, …"),
        # The first name gives the label its direction (right to left here); the others are isolated.
        (["عائشة", "Ben"], "عائشة, \u2068Ben\u2069"),
    ],
)
def test_a_shared_label_lists_the_names_that_fit_then_an_ellipsis(names, expected):
    assert listed(names) == expected


@given(st.lists(st.text(alphabet="abcdefghijklmnoüأب ", min_size=1, max_size=30), min_size=2, max_size=8))
def test_a_shared_label_holds_no_more_letters_than_one_name(names):
    label = listed(names)
    plain = label.replace(FSI, "").replace(PDI, "")
    assert len(plain) - plain.count(", ") <= NAME_CHARS  # a separator is about one letter wide
    first = label.split(", ")[0]  # the first name, whole or shortened (the names hold no comma)
    assert first == names[0] or first == shortened(names[0], NAME_CHARS - 2)


@pytest.mark.django_db
def test_the_tap_answer_draws_one_label_for_the_level_players_and_its_table_names_each(client):
    names = ["Ali", "Bintou", "Chloé", "Dan", "Éric", "Fanta", "Garba", "Hawa"]
    sitting = Sitting.start("eighty-three", names)
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)
    figure = chart_of(client.post(url(sitting, "tap/"), {"number": 3, "winner": 1}, **HX).content.decode())
    named = [
        text
        for text in re.findall(r'<text class="(?:l\d|shared)"[^>]*>([^<]*)</text>', figure)
        if text.strip(FSI + PDI)
    ]
    assert len(named) == 3, named  # Ali, Bintou, and one for the six still at 0
    assert isolate(listed(names[2:])) in named
    header = re.findall(r'<th scope="col"><bdi>([^<]*)</bdi></th>', figure)
    assert header == names  # the table for screen readers: every player, each in a column


def test_a_shared_label_is_drawn_in_the_texts_colour_a_lone_name_in_its_lines():
    from matches.web.views.chart import chart_svg

    chart = draw(["Uwe", "Björn", "Max"], [0, 1, 2, 3], [[0, 0, 0], [50, 0, 0], [50, 50, 0], [50, 50, 50]])
    assert [line.shared for line in chart.lines] == [True, True, True]  # all at 50
    assert [bool(line.label) for line in chart.lines] == [False, False, True]  # Max's line, on top, carries it
    svg = str(chart_svg(chart))
    assert re.search(r'<text class="shared"[^>]*>[^<]*Uwe', svg) and 'text class="l2"' not in svg
    alone = draw(["Uwe", "Björn"], [0, 1], [[0, 0], [50, 0]])
    assert not any(line.shared for line in alone.lines)
    assert 'text class="l0"' in str(chart_svg(alone)) and 'text class="l1"' in str(chart_svg(alone))
