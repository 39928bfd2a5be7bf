"""The match table page: the whole page for a plain request and the table region for an htmx one (the
region a tap's answer, a poll and a push all show), one button per seat, the score table and who
deals next; and what rendering, tapping and polling cost however long the match."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Sitting

from tests.big_groups import fill
from tests.conftest import WORKED, play, shown
from tests.pages import HX, is_full_page, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
HISTORY_RESTORE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}


def test_table_plain_request_gets_the_full_page(client, sitting):
    response = client.get(url(sitting))
    assert response.status_code == 200
    assert is_full_page(response)
    assert "HX-Request" in response["Vary"]


def test_table_htmx_request_gets_only_the_table_region(client, sitting):
    response = client.get(url(sitting), **HX)
    assert response.status_code == 200
    assert not is_full_page(response)
    assert response.content.lstrip().startswith(b'<section id="table"')
    assert "HX-Request" in response["Vary"]


def test_htmx_history_restore_gets_the_full_page(client, sitting):
    response = client.get(url(sitting), **HISTORY_RESTORE)
    assert is_full_page(response)


def test_table_shows_one_button_per_seat_tally_and_next_dealer(client, sitting):
    play(sitting, [2])
    page = client.get(url(sitting)).content.decode()
    for position, name in enumerate(WORKED, start=1):
        assert re.search(f'name="winner" value="{position}"[^>]*><span class="name">{name}</span>', page)
    assert '<input type="hidden" name="number" value="2">' in page
    assert '<table class="tally">' in page and "Hands won" in page
    assert "Chaibou deals, Djibo leads." in shown(page)


@pytest.mark.parametrize("hands", [0, 3])
def test_the_table_region_is_sent_without_blank_lines_or_indents(client, sitting, hands):
    play(sitting, [0, 1, 2][:hands])
    region = client.get(url(sitting), **HX).content.decode()
    assert ('<figure class="chart">' in region) == bool(hands)
    outside_chart = re.sub(r'<figure class="chart">.*?</figure>\n', "", region, flags=re.DOTALL)
    assert "\n\n" not in outside_chart and "\n " not in outside_chart


def count_queries(callable_):
    with CaptureQueriesContext(connection) as captured:
        callable_()
    return len(captured)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_rendering_tapping_and_polling_cost_the_same_queries_at_50_and_500_hands(client, headers):
    counts = []
    for size in (5, 50, 500):
        sitting = Sitting.start("agram", WORKED)
        fill(sitting, size)
        render = count_queries(lambda: client.get(url(sitting), **headers))
        tap = count_queries(lambda: client.post(url(sitting, "tap/"), {"number": size + 1, "winner": 1}, **HX))
        sitting.refresh_from_db()
        poll = count_queries(lambda: client.get(url(sitting, "poll/"), {"v": sitting.version}, **HX))
        assert sitting.hands.count() == size + 1
        counts.append((render, tap, poll))
    assert counts[1] == counts[2], counts  # beyond the newest hands the table shows, the chart's hands
    assert all(small <= large for small, large in zip(counts[0], counts[1])), counts  # ...read apart
    render, tap, poll = counts[2]
    # The link's read, then the verb's transaction: the lock, seats, the hands the answer shows (the newest,
    # the chart's sampled ones) and four writes; nothing read after it (on SQLite the lock reads the seats
    # too). The page: its sitting with its seats, the newest hands, the chart's. Transaction statements included.
    assert tap <= (10 if connection.vendor == "sqlite" else 11) and render <= 5 and poll <= 2, counts
