"""The score chart's names: every player named beside their line's end, in its colour; players ending
level are named one under the other, each isolated on its own line, never one label for several."""

import re

import pytest

from matches.domain.chart import HEIGHT, LABEL_GAP, draw
from matches.models import Sitting
from matches.domain.names import FSI, PDI

from tests.pages import HX, chart_of, url

EIGHT = ["P1a", "P1b", "P1c", "P1d", "P1e", "P1f", "P1g", "P1h"]


def end_y(line) -> int:
    """Where the line ends, in viewBox units (its last point's y)."""
    return int(line.points.split()[-1].split(",")[1])


def test_six_players_level_at_zero_are_each_named_one_under_the_other_near_zero():
    """Eighty Three, eight seats: six still at 0, two ahead. Six names stacked by the 0, in seat order."""
    chart = draw(EIGHT, [0, 1, 2], [[0] * 8, [0, 0, 0, 5, 0, 0, 12, 0], [0, 0, 0, 10, 0, 0, 25, 0]])
    assert [line.label for line in chart.lines] == EIGHT
    level = [line for line in chart.lines if line.last == 0]
    heights = [line.label_y for line in level]
    assert len(level) == 6 and heights == sorted(heights)
    assert all(later - earlier >= LABEL_GAP for earlier, later in zip(heights, heights[1:]))
    assert heights[0] <= HEIGHT <= heights[-1] + LABEL_GAP  # around the 0 line, which they all end on
    assert all(end_y(line) == HEIGHT for line in level)
    assert chart.lines[6].label_y < chart.lines[3].label_y < heights[0]  # 25, then 10, then the zeros


def test_distinct_values_keep_one_label_per_player():
    names = ["Aïcha", "Boubacar", "Ousmane Abdoulaye Maïnassara"]
    chart = draw(names, [0, 1], [[0, 0, 0], [3, -2, 40]])
    assert [line.label for line in chart.lines] == ["Aïcha", "Boubacar", "Ousmane Abd…"]
    by_height = sorted(chart.lines, key=lambda line: line.label_y)
    assert [line.name for line in by_height] == [names[2], names[0], names[1]]


@pytest.mark.django_db
def test_the_tap_answer_names_every_player_in_the_drawing_and_its_table(client):
    names = ["Ali", "Bintou", "Chloé", "Dan", "Éric", "Fanta", "Garba", "Hawa"]
    sitting = Sitting.start("eighty-three", names)
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)
    figure = chart_of(client.post(url(sitting, "tap/"), {"number": 3, "winner": 1}, **HX).content.decode())
    named = re.findall(r'<text class="l(\d)"[^>]*>([^<]*)</text>', figure)
    assert named == [(str(seat), name) for seat, name in enumerate(names)]  # each in its line's colour, no marks
    header = re.findall(r'<th scope="col"><bdi>([^<]*)</bdi></th>', figure)
    assert header == names  # the table for screen readers: every player, each in a column


def test_a_right_to_left_name_level_with_a_latin_one_is_isolated_on_its_own_line():
    """Each name on its own line: in one label their order and the comma between them read wrong. Only
    the right-to-left name is between FSI and PDI: a left-to-right one reads the same without them, and
    some phones draw the marks as boxes."""
    from matches.web.presenters.chart import chart_svg

    svg = str(chart_svg(draw(["عائشة", "|calc"], [0, 1], [[0, 0], [1, 1]])))
    texts = re.findall(r'<text class="l\d"[^>]*>([^<]*)</text>', svg)
    assert texts == [f"{FSI}عائشة{PDI}", "|calc"]


def test_players_at_no_win_are_named_at_the_win_rate_charts_0_line_not_up_by_50():
    """Ana won both matches (100 %); Ben, Cyr, Dia and Eve none (0 %): their four names start beside the
    0 % line and go on under it."""
    import datetime

    from matches.domain.stats import HandRecord, MatchRecord
    from matches.services.figures import RATE_HEIGHT, rate_chart

    def match(key):  # five players, Ana takes the only hand
        points = (1, 0, 0, 0, 0)
        return MatchRecord.from_hands(
            key, "agram", datetime.date(2025, 3, 1), (1, 2, 3, 4, 5), points, (HandRecord(0, points),)
        )

    chart = rate_chart([match(1), match(2)], {1: "Ana", 2: "Ben", 3: "Cyr", 4: "Dia", 5: "Eve"})
    ana, *nobody = chart.lines
    assert ana.label_y < RATE_HEIGHT // 2
    assert [line.label_y for line in nobody] == [RATE_HEIGHT + k * LABEL_GAP for k in range(4)]


@pytest.mark.django_db
def test_the_charts_values_are_written_over_the_lines_not_under_them(client):
    """A money chart's lines all start at its 0: the values come after the lines in the drawing, each on
    its halo, so no line crosses them. The win-rate chart of a group alike."""
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Cal"])
    sitting = group.start_match("fapfap", [p.pk for p in group.members()], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.end_match()
    for page in (client.get(url(sitting)).content.decode(), client.get(f"/g/{group.token}/stats/").content.decode()):
        svg = page[page.index("<svg viewBox") : page.index("</svg>", page.index("<svg viewBox"))]
        assert '<text class="axis"' in svg
        assert svg.rindex("<polyline") < svg.index('<text class="axis"'), svg
