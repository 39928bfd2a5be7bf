"""A group's figures from the database: a hand-made group played through the real models (several
games, ties at the top, a match ended early, an erased player, a correction that changes a finished
match's winner) checked against values worked out by hand; the statistics page; its queries."""

import datetime
import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.services.figures import group_matches, read_group
from matches.models import Group, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.domain.stats import PlayerStats, head_to_head, nightly_nets, player_stats

from tests.conftest import shown

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}

WINS, HANDS, POINTS = MatchEndKind.WINS, MatchEndKind.HANDS, MatchEndKind.POINTS


def on_day(sitting: Sitting, day: int) -> None:
    """Date the match's start to 8 pm on `day` March 2025 (local time), as if played that night."""
    when = timezone.make_aware(datetime.datetime(2025, 3, day, 20, 0))
    Sitting.objects.filter(pk=sitting.pk).update(started_at=when)


def play(sitting: Sitting, *taps) -> Sitting:
    """Record the next hands: a seat position, or (seat position, answers)."""
    number = sitting.table(recent=1).open_number
    for tap in taps:
        seat, answers = tap if isinstance(tap, tuple) else (tap, {})
        sitting.record_hand(number, seat, answers)
        number += 1
    return sitting


def x(multiplier: int) -> dict:
    return {"multiplier": str(multiplier)}


LAST, FLUSH = {"how": "last"}, {"how": "flush"}


@pytest.fixture
def friends():
    """The hand-made group. Players are made in the order Ana, Ben, Cal, Dia (ids ascending)."""
    group = Group.create("Jeudi", ["Ana", "Ben", "Cal", "Dia"])
    ids = {player.name: player.pk for player in group.players.all()}
    ana, ben, cal, dia = (ids[name] for name in ("Ana", "Ben", "Cal", "Dia"))

    def start(game, seating, end, day, **options):
        sitting = group.start_match(game, seating, end, **options)
        on_day(sitting, day)
        return sitting

    matches = {}
    # m1 Agram, first to 2 wins (Ana, Ben, Cal): Ben, Ana, Ana -> Ana 2, Ben 1, Cal 0; Ana wins.
    matches["m1"] = play(start("agram", [ana, ben, cal], MatchEnd(WINS, 2), 1), 1, 0, 0)
    # m2 Agram, 4 hands (Ben, Ana, Cal): Ana, Ben, Ana, Ben -> Ben 2, Ana 2: a shared first place.
    matches["m2"] = play(start("agram", [ben, ana, cal], MatchEnd(HANDS, 4), 1), 1, 0, 1, 0)
    # m3 Fapfap for 100 FCFA (Ana, Cal, Dia), ended early: Dia x2, Dia x4, Ana x1, then End match
    # (the open hand 4 abandoned). Totals Ana 1, Cal 0, Dia 6; T = 7, n = 3: money 100 x (3 x own - 7):
    # Ana -400, Cal -700, Dia +1100.
    m3 = start("fapfap", [ana, cal, dia], None, 8, stake_amount=100, stake_label="FCFA")
    play(m3, (2, x(2)), (2, x(4)), (0, x(1)))
    m3.end_match(4)
    matches["m3"] = m3
    # m3b Fapfap for 100 FCFA, first to 4 stakes (Ana, Dia): Ana x4 -> Ana +400, Dia -400.
    matches["m3b"] = play(
        start("fapfap", [ana, dia], MatchEnd(POINTS, 4), 8, stake_amount=100, stake_label="FCFA"), (0, x(4))
    )
    # m4 Cat Tê, 4 hands, 20 chips each (Ben, Cal, Dia): Ben last trick, Dia dealt flush, Ben, Ben.
    # Each opponent pays 1 (last trick) or 2 (flush): Ben 2 - 2 + 2 + 2 = 4, Cal -1 - 2 - 1 - 1 = -5,
    # Dia -1 + 4 - 1 - 1 = 1; chips in front 24, 15, 21: Ben wins.
    matches["m4"] = play(
        start("cat-te", [ben, cal, dia], MatchEnd(HANDS, 4), 8, starting_chips=20),
        (0, LAST),
        (2, FLUSH),
        (0, LAST),
        (0, LAST),
    )
    # m5 Agram (Ana, Dia) ended before any hand was won: counts nowhere.
    m5 = start("agram", [ana, dia], None, 15)
    m5.end_match(1)
    matches["m5"] = m5
    # m6 Sink-Sink, first to 3 wins (Cal, Dia): Cal wins all three.
    matches["m6"] = play(start("sink-sink", [cal, dia], MatchEnd(WINS, 3), 15), 0, 0, 0)
    # m7 Agram, first to 2 (Ana, Ben): Ana, Ben, Ana -> Ana won... until hand 3 is corrected to Ben:
    # Ben 2, Ana 1, the match still over and now Ben's.
    m7 = play(start("agram", [ana, ben], MatchEnd(WINS, 2), 16), 0, 1, 0)
    assert m7.is_finished
    m7.correct_hand(3, 1)
    matches["m7"] = m7
    # m8 Agram (Ana, Ben), still being played: not in the figures.
    matches["m8"] = play(start("agram", [ana, ben], None, 16), 0)
    # Dia leaves and is erased: her figures stay under her replaced name.
    group.erase_player(dia)
    return group, {"Ana": ana, "Ben": ben, "Cal": cal, "Dia": dia}, matches


def test_the_matches_read_from_the_database_worked_by_hand(friends):
    group, ids, matches = friends
    records = group_matches(group)
    assert [record.key for record in records] == [
        matches[k].pk for k in ("m1", "m2", "m3", "m3b", "m4", "m5", "m6", "m7")
    ]
    by_key = {record.key: record for record in records}
    m3, m4, m7 = by_key[matches["m3"].pk], by_key[matches["m4"].pk], by_key[matches["m7"].pk]
    assert (m3.finals, m3.hands_won, m3.best_runs, m3.points) == ((1, 0, 6), (1, 0, 2), (1, 0, 2), (1, 0, 6))
    assert (m3.money, m3.currency, m3.ended_early, m3.hands_played) == ((-400, -700, 1100), "FCFA", True, 3)
    assert (m4.finals, m4.chips_net, m4.money, m4.best_runs) == ((24, 15, 21), (4, -5, 1), None, (2, 0, 1))
    assert (m7.finals, m7.hands_won, m7.best_runs) == ((1, 2), (1, 2), (1, 2))  # the correction counts
    assert by_key[matches["m5"].pk].counts is False
    assert [record.day.day for record in records] == [1, 1, 8, 8, 8, 15, 15, 16]
    assert read_group(group).names[ids["Dia"]] == "Erased player 1"


def test_player_figures_over_every_game_worked_by_hand(friends):
    group, ids, _ = friends
    ana, ben, cal, dia = (ids[name] for name in ("Ana", "Ben", "Cal", "Dia"))
    assert player_stats(group_matches(group)) == {
        # Ana: m1 won, m2 shared, m3 lost, m3b won, m7 lost (the correction took it); m5 not counted.
        # Hands 3 + 4 + 3 + 1 + 3 = 14, won 2 + 2 + 1 + 1 + 1 = 7; points 2 + 2 + 1 + 4 + 1 = 10.
        # Money -400 + 400 = 0. Newest first: m7 L, m3b W, m3 L, m2 W, m1 W.
        ana: PlayerStats(5, 3, 3 / 5, 14, 7, 7 / 14, 10 / 14, 2, None, 0, ("L", "W", "L", "W", "W")),
        # Ben: m1 lost, m2 shared, m4 won, m7 won. Hands 3 + 4 + 4 + 3 = 14, won 1 + 2 + 3 + 2 = 8;
        # points 1 + 2 + 4 + 2 = 9. Best run 2 (m4's last two; m7's after the correction). Chips +4.
        ben: PlayerStats(4, 3, 3 / 4, 14, 8, 8 / 14, 9 / 14, 2, 4, None, ("W", "W", "W", "L")),
        # Cal: lost m1, m2, m3, m4; won m6. Hands 3 + 4 + 3 + 4 + 3 = 17, won 3 (m6); points
        # 0 + 0 + 0 - 5 + 3 = -2. Chips -5, money -700.
        cal: PlayerStats(5, 1, 1 / 5, 17, 3, 3 / 17, -2 / 17, 3, -5, -700, ("W", "L", "L", "L", "L")),
        # Dia (erased): won m3, lost m3b, m4, m6. Hands 3 + 1 + 4 + 3 = 11, won 2 + 0 + 1 + 0 = 3;
        # points 6 + 0 + 1 + 0 = 7. Chips +1, money 1100 - 400 = 700.
        dia: PlayerStats(4, 1, 1 / 4, 11, 3, 3 / 11, 7 / 11, 2, 1, 700, ("L", "L", "L", "W")),
    }


def test_head_to_head_and_nights_worked_by_hand(friends):
    group, ids, matches = friends
    ana, ben, cal, dia = (ids[name] for name in ("Ana", "Ben", "Cal", "Dia"))
    records = group_matches(group)
    pairs = head_to_head(records)
    assert {pair: (h.matches, h.first_wins, h.second_wins, h.draws) for pair, h in pairs.items()} == {
        (ana, ben): (3, 1, 1, 1),  # m1 2 > 1, m7 1 < 2, m2 2 = 2
        (ana, cal): (3, 3, 0, 0),  # m1, m2, m3
        (ana, dia): (2, 1, 1, 0),  # m3 1 < 6, m3b 4 > 0 (m5 not counted)
        (ben, cal): (3, 3, 0, 0),  # m1 1 > 0, m2 2 > 0, m4 24 > 15
        (ben, dia): (1, 1, 0, 0),  # m4 24 > 21
        (cal, dia): (3, 1, 2, 0),  # m3 0 < 6, m4 15 < 21, m6 3 > 0
    }
    nights = nightly_nets(records)
    # Only the 8th moved money or chips: m3 and m3b in FCFA (Ana -400 + 400, Cal -700, Dia 1100 - 400),
    # m4 in chips.
    assert [(n.day.day, n.chips, n.currency, n.matches, n.nets) for n in nights] == [
        (8, False, "FCFA", (matches["m3"].pk, matches["m3b"].pk), {ana: 0, cal: -700, dia: 700}),
        (8, True, "", (matches["m4"].pk,), {ben: 4, cal: -5, dia: 1}),
    ]


def test_one_games_figures(friends):
    group, ids, _ = friends
    records = group_matches(group)
    agram = player_stats(records, "agram")
    # Ana at Agram: m1 won, m2 shared, m7 lost; hands 3 + 4 + 3, won 2 + 2 + 1.
    assert agram[ids["Ana"]] == PlayerStats(3, 2, 2 / 3, 10, 5, 0.5, 0.5, 2, None, None, ("L", "W", "W"))
    fapfap = player_stats(records, "fapfap")
    # Stakes per hand: Ana (1 + 4) / (3 + 1), Dia (6 + 0) / 4, Cal 0 / 3.
    assert [fapfap[ids[n]].points_per_hand for n in ("Ana", "Dia", "Cal")] == [1.25, 1.5, 0.0]


# --- the page ---------------------------------------------------------------------------------

FIGURES = re.compile(r'<table class="figures">(.*?)</table>', re.DOTALL)
HEADING = re.compile(
    r'<th scope="col" class="num"[^>]*>(?:<a href="([^"]*)">)?(.*?)(?:<span aria-hidden.*?</span>)?(?:</a>)?</th>'
)
ROW = re.compile(r'<tr><th scope="row"><span class="name">(.*?)</span></th>(.*?)</tr>', re.DOTALL)
CELL = re.compile(r'<td class="num"[^>]*>(.*?)</td>')


def figures_table(page: str) -> tuple[list[str], dict[str, list[str]]]:
    table = FIGURES.search(page)[1]
    headings = [unescape(text) for _, text in HEADING.findall(table)]
    rows = {unescape(name): [unescape(c) for c in CELL.findall(cells)] for name, cells in ROW.findall(table)}
    return headings, rows


def stats_url(group: Group, watching: bool = False) -> str:
    return f"/gw/{group.watch_token}/stats/" if watching else f"/g/{group.token}/stats/"


def test_the_page_shows_every_figure_in_order_of_matches_won(client, friends):
    group, _, _ = friends
    page = shown(client.get(stats_url(group)).content.decode())  # names without their isolation (test_bidi)
    headings, rows = figures_table(page)
    assert headings == [
        "Matches",
        "Won",
        "Win rate",
        "Hands",
        "Hands won",
        "Share of hands",
        "Best run",
        "Net chips",
        "FCFA",
        "Last 10, newest first",
    ]
    # Sorted by matches won, most first; ties (Ana and Ben at 3) by who joined first.
    assert list(rows) == ["Ana", "Ben", "Cal", "Erased player 1"]
    none = '<span class="no-figure" title="no figure"><span aria-hidden="true">—</span><span class="visually-hidden">no figure</span></span>'
    assert rows["Ana"] == ["5", "3", "60%", "14", "7", "50%", "2", none, "0", "L W L W W"]
    assert rows["Ben"] == ["4", "3", "75%", "14", "8", "57%", "2", "+4", none, "W W W L"]
    assert rows["Cal"] == ["5", "1", "20%", "17", "3", "18%", "3", "\u22125", "\u2212700", "W L L L L"]
    assert rows["Erased player 1"] == ["4", "1", "25%", "11", "3", "27%", "2", "+1", "+700", "L L L W"]
    assert "Dia" not in page
    # Head to head, by names: the correction made m7 Ben's.
    assert (
        '<span class="line">Ana: 1</span><span class="line">Ben: 1</span></td><td class="num" data-label="Level">1</td>'
        in page
    )
    assert '<span class="line">Cal: 1</span><span class="line">Erased player 1: 2</span>' in page
    # The night of the 8th, under one heading: one payment in FCFA, two in chips.
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))
    assert "8 Mar 2025 · 3 matches Settling up in FCFA" in text
    assert "Cal pays Erased player 1 700 FCFA." in text
    assert "Cal owes Ben the worth of 4 chips." in text and "Cal owes Erased player 1 the worth of 1 chip." in text
    # How each figure is counted, in one sentence each.
    assert "Hands won divided by hands played, as a whole percent." in text
    # The win rate after each of Ana's matches, beside the chart: 1/1, 2/2, 2/3, 3/4, 3/5.
    assert '<th scope="row">Ana</th><td>100, 100, 67, 75, 60</td>' in page
    # Hands-won share per game, with the numbers: Cal won all of Sink-Sink's 3 hands.
    assert re.search(r"<caption>Sink-Sink</caption>.*?Cal</span>.*?<td class=\"num\">100%</td>", page, re.DOTALL)


def test_sorting_by_any_column_and_back(client, friends):
    group, _, _ = friends
    page = client.get(stats_url(group) + "?sort=net_money&dir=asc").content.decode()
    assert list(figures_table(page)[1]) == ["Cal", "Ana", "Erased player 1", "Ben"]  # no money: last
    assert 'aria-sort="ascending"' in page
    assert '<a href="?sort=net_money">FCFA' in page  # the sorted column's link turns it around
    page = client.get(stats_url(group) + "?sort=hands_played").content.decode()
    assert list(figures_table(page)[1]) == ["Cal", "Ana", "Ben", "Erased player 1"]
    assert 'aria-sort="descending"' in page and '<a href="?sort=hands_played&amp;dir=asc">' in page
    # An unknown column, or the form (not sortable), falls back to matches won.
    for wrong in ("?sort=elo", "?sort=recent_form", "?sort=points_per_hand"):
        assert next(iter(figures_table(client.get(stats_url(group) + wrong).content.decode())[1])) == "Ana"


def test_a_figure_per_hand_is_rounded_half_up_not_cut(client):
    """2 stakes over 3 hands is 0.67 a hand, as the share of hands beside it rounds (67 %)."""
    group = Group.create("Vendredi", ["Ana", "Ben"])
    sitting = group.start_match("fapfap", [player.pk for player in group.players.all()])
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 1, {"multiplier": "1"})
    sitting.record_hand(3, 1, {"multiplier": "1"})
    sitting.end_match()
    _, rows = figures_table(client.get(stats_url(group) + "?game=fapfap").content.decode())
    assert rows["Ana"][6] == "0.67" and rows["Ben"][6] == "0.67"


def test_the_game_filter_shows_points_per_hand_in_the_games_unit(client, friends):
    group, _, _ = friends
    page = client.get(stats_url(group) + "?game=fapfap").content.decode()
    headings, rows = figures_table(page)
    assert headings == [
        "Matches",
        "Won",
        "Win rate",
        "Hands",
        "Hands won",
        "Share of hands",
        "Stakes per hand",
        "Best run",
        "FCFA",
        "Last 10, newest first",
    ]
    assert rows["Ana"][6] == "1.25" and rows["Erased player 1"][6] == "1.50" and rows["Cal"][6] == "0.00"
    assert '<a href="?game=fapfap" aria-current="page">Fapfap</a>' in page
    agram = client.get(stats_url(group) + "?game=agram").content.decode()
    headings, rows = figures_table(agram)
    assert "Agram per hand" not in agram and "Wins per hand" not in agram  # one win a hand: the share says it
    assert rows["Ana"][:6] == ["3", "2", "67%", "10", "5", "50%"]
    # Sorting keeps the game, and the filter keeps the sort.
    assert '<a href="?game=agram&amp;sort=win_rate">' in agram
    assert '<a href="?sort=win_rate" >' not in client.get(stats_url(group) + "?sort=win_rate").content.decode()
    assert '<a href="?game=agram&amp;sort=win_rate"' in client.get(stats_url(group) + "?sort=win_rate").content.decode()


def test_the_page_in_french(client, friends):
    group, _, _ = friends
    page = shown(client.get(stats_url(group), **FR).content.decode())
    headings, rows = figures_table(page)
    assert headings[:3] == ["Parties", "Gagnées", "Taux de victoire"]
    assert rows["Ana"][2] == "60\u00a0%" and rows["Ana"][-1] == "D V D V V"
    text = unescape(page)
    assert "Cal paie 700 FCFA à Erased player 1." in text  # erased while English was active
    assert "Cal doit à Ben la valeur de 4 jetons." in text and "Comptes à régler, en FCFA" in text


def test_the_watch_twin_is_read_only(client, friends):
    group, _, _ = friends
    page = client.get(stats_url(group, watching=True)).content.decode()
    assert figures_table(page)[1]["Ana"][:3] == ["5", "3", "60%"]
    assert group.token not in page
    for url in (stats_url(group, watching=True), stats_url(group)):
        response = client.post(url, {"anything": "1"})
        assert response.status_code == 405
    assert client.get(f"/gw/{group.token}/stats/").status_code == 404  # the member token is not a watch link
    assert client.get(f"/g/{group.watch_token}/stats/").status_code == 404
    assert client.get("/g/not-a-token/stats/").status_code == 404


def test_a_group_without_a_finished_match(client):
    group = Group.create("", ["Ana", "Ben"])
    group.start_match("agram", [p.pk for p in group.members()])
    page = client.get(stats_url(group)).content.decode()
    assert "No finished match with a hand won yet" in page and 'class="figures"' not in page


# --- a constant number of queries -------------------------------------------------------------


def a_group_of(count: int) -> Group:
    """A group of four that played `count` finished matches, in turn Agram, Fapfap for a stake and Cat Tê."""
    group = Group.create("", ["Ana", "Ben", "Cal", "Dia"])
    seating = [player.pk for player in group.members()]
    for number in range(count):
        kind = number % 3
        if kind == 0:
            sitting = group.start_match("agram", seating, MatchEnd(WINS, 2))
            play(sitting, number % 4, number % 4)
        elif kind == 1:
            sitting = group.start_match("fapfap", seating, MatchEnd(POINTS, 2), stake_amount=50, stake_label="FCFA")
            play(sitting, (number % 4, x(2)))
        else:
            sitting = group.start_match("cat-te", seating[:3], MatchEnd(HANDS, 1), starting_chips=10)
            play(sitting, (number % 3, LAST))
        on_day(sitting, 1 + number // 10)
        assert sitting.is_finished
    return group


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured.captured_queries)


def test_the_page_reads_a_fixed_number_of_queries_whatever_the_number_of_matches(client):
    small, large = a_group_of(5), a_group_of(50)
    for watching in (False, True):
        for query in ("", "?game=fapfap&sort=net_money", "?game=cat-te"):
            few = queries(client, stats_url(small, watching) + query)
            many = queries(client, stats_url(large, watching) + query)
            assert few == many <= 6, (watching, query, few, many)
    assert len(group_matches(large)) == 50


def test_group_matches_takes_two_queries(django_assert_num_queries):
    group = a_group_of(6)
    with django_assert_num_queries(2):
        assert len(group_matches(group)) == 6


# The page on a phone (layout, sorting by a tap): tests/browser/test_figures_on_phones.py.


def test_a_long_history_is_drawn_with_at_most_sixty_matches_across():
    """120 matches of two players, Ana winning every third: the line is sampled, starts at the left,
    ends at the right edge at her rate (40 of 120: 33%), and the numbers beside it keep every match."""
    from matches.services.figures import RATE_POINTS, RATE_WIDTH, rate_chart
    from matches.domain.stats import HandRecord, MatchRecord

    matches = [
        MatchRecord.from_hands(
            n,
            "agram",
            datetime.date(2025, 3, 1),
            (1, 2),
            (1, 0) if n % 3 == 0 else (0, 1),
            (HandRecord(0 if n % 3 == 0 else 1, (1, 0) if n % 3 == 0 else (0, 1)),),
        )
        for n in range(120)
    ]
    chart = rate_chart(matches, {1: "Ana", 2: "Ben"})
    ana = chart.lines[0]
    points = ana.points.split()
    assert ana.name == "Ana" and len(points) <= RATE_POINTS
    assert (
        points[0] == "0,0" and points[-1] == f"{RATE_WIDTH},67" and ana.end == (RATE_WIDTH, 67)
    )  # 33%: 67 down from 100%
    assert len(ana.rates) == 60 and ana.rates[-1] == 33  # the numbers beside it: sampled as the drawing is
    assert rate_chart([], {}) is None


def test_players_ending_at_the_same_win_rate_are_each_named_one_under_the_other_at_that_rate():
    """Ana and Ben each won one of their two matches (50%), Cyr none (0%): three names, Ana's and Ben's
    stacked around the 50% line, Cyr's at 0%."""
    from matches.domain.chart import LABEL_GAP
    from matches.services.figures import RATE_HEIGHT, rate_chart
    from matches.domain.stats import HandRecord, MatchRecord

    def match(key, winner):  # Ana, Ben and Cyr; the winner takes the only hand
        points = tuple(int(seat == winner) for seat in range(3))
        return MatchRecord.from_hands(
            key, "agram", datetime.date(2025, 3, 1), (1, 2, 3), points, (HandRecord(winner, points),)
        )

    chart = rate_chart([match(1, 0), match(2, 1)], {1: "Ana", 2: "Ben", 3: "Cyr"})
    ana, ben, cyr = chart.lines
    assert (ana.label, ben.label, cyr.label) == ("Ana", "Ben", "Cyr")
    assert ben.label_y - ana.label_y == LABEL_GAP and ana.label_y < RATE_HEIGHT // 2 < ben.label_y
    assert cyr.label_y >= RATE_HEIGHT - LABEL_GAP // 2 and cyr.label_y - ben.label_y >= LABEL_GAP
