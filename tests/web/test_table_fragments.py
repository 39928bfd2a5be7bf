"""The middle of the table region (score, chart, newest hands) is kept in Django's cache per sitting, version
and language: a page drawn from it is the page drawn afresh, and every change shows at once."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Group, Sitting
from tests.conftest import WORKED, play
from tests.pages import HX, url, watch_url
from tests.web.test_prerendered import _answers

pytestmark = pytest.mark.django_db
# What differs between two renders of one page: CSRF masks and the keys of the forms.
PER_RENDER = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": "|name="key" value=")[^"]+')


def page(client, address: str, language: str) -> str:
    answer = client.get(address, HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 200
    return PER_RENDER.sub(r"\1-", answer.content.decode())


@pytest.mark.parametrize("game", ["agram", "fapfap", "cat-te", "eighty-three"])
def test_a_page_drawn_from_the_cache_is_the_page_drawn_afresh_in_each_language(client, game):
    money = {"stake_amount": 50, "stake_label": "€"}  # shown with its decimals, in each language's way
    fields = {"cat-te": {"starting_chips": 3, **money}, "fapfap": money}.get(game, {})
    sitting = Sitting.start(game, WORKED, **fields)
    for number, winner in enumerate([2, 1, 2, 3, 1, 1, 4, 2][: 8 if game == "agram" else 3], start=1):  # agram: an earlier hand
        assert client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **_answers(sitting)}, **HX).status_code == 200
    pairs = [(address, language) for address in (url(sitting), watch_url(sitting)) for language in ("fr", "de", "vi", "en")]
    fresh = {}
    for address, language in pairs:
        cache.clear()
        fresh[address, language] = page(client, address, language)
    for address, language in pairs:  # each page's middle kept while the others are
        page(client, address, language)
    assert {pair: page(client, *pair) for pair in pairs} == fresh

def test_every_change_shows_on_a_page_whose_middle_was_kept(client):
    group = Group.create("Jeudi", WORKED)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    play(sitting, [1, 2])
    assert "Boubacar" in page(client, url(sitting), "en")
    group.rename_player(sitting.seated()[1].player_id, "Bouba")  # a group's change, not the table's verbs
    assert "Boubacar" not in page(client, url(sitting), "en")
    play(sitting, [3])
    assert "3 hands" in page(client, url(sitting), "en")


def test_a_page_whose_middle_is_kept_reads_no_hand_for_the_chart(client):
    sitting = Sitting.start("agram", WORKED)
    play(sitting, [1, 2, 3, 0, 1, 2, 3, 0, 1, 2])  # older hands than the table shows: the chart reads them
    with CaptureQueriesContext(connection) as drawn:
        first = page(client, url(sitting), "fr")
    with CaptureQueriesContext(connection) as kept:
        assert page(client, url(sitting), "fr") == first
    chart_read = [sql for sql in sqls(drawn) if sql not in sqls(kept)]
    assert len(chart_read) == 1 and "\"number\" IN (" in chart_read[0] and len(sqls(kept)) == len(sqls(drawn)) - 1


def sqls(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in captured.captured_queries]
