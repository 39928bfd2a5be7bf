"""How the figures page writes what it counts: every percent one way in each language, a "no figure" mark
nobody reads as a minus, and each figure saying exactly which matches it counts. (The figures
themselves: tests/web/test_figures.py.)"""

import re
from html import unescape

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group

from tests.pages import FR, words
from tests.web.test_figures import friends, stats_url  # noqa: F401 - the hand-made group, as a fixture

pytestmark = pytest.mark.django_db


def percents(html: str) -> list[str]:
    """Every number followed by % in the page's text and drawings, with what separates them."""
    return re.findall(r"\d+(\s?)%", unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("headers, space", [({}, ""), (FR, "\u00a0")], ids=["en", "fr"])
def test_every_percent_on_the_figures_page_is_written_one_way(client, friends, headers, space):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group), **headers).content.decode()
    found = percents(page)
    assert len(found) >= 3 + 4 * 2 + 5  # the chart's axis, the table's two rates, the share bars
    assert set(found) == {space}


def test_no_figure_is_a_mark_that_cannot_be_read_as_a_minus(client, friends):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group)).content.decode()
    table = re.search(r'<table class="figures">(.*?)</table>', page, re.DOTALL)[1]
    cells = re.findall(r'<td class="num"[^>]*>(.*?)</td>', table)
    assert not any("–" in cell or "-" == words(cell) for cell in cells)
    nothing = [cell for cell in cells if "no figure" in cell]
    assert len(nothing) == 2  # Ana's chips, Ben's money
    for cell in nothing:
        assert re.fullmatch(
            r'<span class="no-figure" title="no figure"><span aria-hidden="true">—</span>'
            r'<span class="visually-hidden">no figure</span></span>',
            cell,
        )


def test_each_figure_says_exactly_which_matches_it_counts(client, friends):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group)).content.decode()
    explained = {
        words(dt): words(dd)
        for dt, dd in re.findall(
            r"<dt>(.*?)</dt><dd>(.*?)</dd>", re.search(r'<details class="explain">(.*?)</details>', page, re.DOTALL)[1]
        )
    }
    assert explained["Matches"] == (
        "Finished matches this player sat in where at least one hand was won; a match ended early counts, "
        "with the standings it had when it ended. Matches still being played do not count."
    )
    for heading, text in explained.items():
        assert "finished" in text.casefold() or heading in ("Win rate", "Share of hands"), (heading, text)


def test_head_to_head_reads_each_pair_and_the_pairs_in_name_order(client):
    """Players joined in the reverse of reading order: each pair still reads "Aïcha – Ngono", with
    Aïcha's matches finished higher first, and the pairs follow the first name, then the second."""
    group = Group.create("Jeudi", ["Ngono", "Mbarga", "Aïcha"])
    ids = {player.name: player.pk for player in group.players.all()}
    for winner in (2, 2, 0):  # seated Ngono, Mbarga, Aïcha: Aïcha wins two matches, Ngono one
        seating = [ids["Ngono"], ids["Mbarga"], ids["Aïcha"]]
        group.start_match("agram", seating, MatchEnd(MatchEndKind.WINS, 1)).record_hand(1, winner)
    page = re.sub(r"</?bdi>", "", client.get(stats_url(group)).content.decode())
    rows = re.findall(r'<th scope="row"><span class="name">([^<]+) – ([^<]+)</span>.*?'
                      r'<span class="line">([^<]+)</span><span class="line">([^<]+)</span>', page, re.S)
    assert rows == [
        ("Aïcha", "Mbarga", "Aïcha: 2", "Mbarga: 0"),
        ("Aïcha", "Ngono", "Aïcha: 2", "Ngono: 1"),
        ("Mbarga", "Ngono", "Mbarga: 0", "Ngono: 1"),
    ]
