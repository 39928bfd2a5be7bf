"""A tap's answer is the table as its transaction left it, built from what the tap read under its lock (no
read after it): byte for byte the region a fresh read of the sitting renders, notice apart, at any length
of match (the newest hands, the chart's sampled hands) and when the tap ends the match."""

import re

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Sitting
from matches.web.live.regions import render_region

from tests.big_groups import fill
from tests.conftest import WORKED
from tests.pages import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
NOTICE = re.compile(r'<p class="notice[^"]*" role="status">.*?</p>\n', re.DOTALL)
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*')  # masked afresh on every render


def unmasked(html: str) -> str:
    return CSRF.sub(r"\1", html)


def without_notice(answer) -> str:
    assert answer.status_code == 200
    return NOTICE.sub("", answer.content.decode(), count=1)


@pytest.mark.parametrize("hands", [0, 5, 6, 38, 39, 40, 41, 120, 1001])
def test_the_answer_of_a_tap_is_what_a_fresh_read_shows(client, hands):
    sitting = Sitting.start("agram", WORKED, MatchEnd(MatchEndKind.OPEN, None))
    fill(sitting, hands)
    for number in range(hands + 1, hands + 4):
        answer = client.post(url(sitting, "tap/"), {"number": number, "winner": 1 + number % 4}, **HX)
        assert without_notice(answer) == render_region(sitting.pk, "en", False).html


def test_the_answer_of_the_tap_that_ends_the_match_is_what_a_fresh_read_shows(client):
    sitting = Sitting.start("sink-sink", WORKED, MatchEnd(MatchEndKind.WINS, 3))
    number = 1
    while not sitting.is_finished and number < 50:
        answer = client.post(url(sitting, "tap/"), {"number": number, "winner": 3, **answers(sitting)}, **HX)
        assert unmasked(without_notice(answer)) == unmasked(client.get(url(sitting), **HX).content.decode())
        sitting.refresh_from_db()
        number += 1
    assert sitting.is_finished


def answers(sitting):
    """The first answer the game's tap offers (games that ask how the hand was won)."""
    from matches.web.presenters.answers import answer_forms

    if not sitting.rules.questions:
        return {}
    return dict(answer_forms(sitting.rules, sitting.table().seats, 2)[0].fixed)
