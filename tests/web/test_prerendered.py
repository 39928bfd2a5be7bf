"""The speed trick of matches.web.live.prerendered answers as the plain version does: the region a tap's
view leaves for the push is, byte for byte, what the hub would render for that version and language."""

import pytest
from django.utils import translation

from matches.models import Sitting
from matches.web.live.prerendered import kept
from matches.web.live.regions import render_region

from tests.conftest import WORKED
from tests.pages import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


@pytest.mark.parametrize("game", ["agram", "fapfap", "cat-te", "eighty-three"])
@pytest.mark.parametrize("language", ["en", "fr", "vi"])
def test_the_region_kept_by_a_tap_is_the_region_the_hub_renders(client, game, language):
    sitting = Sitting.start(game, WORKED, **({"starting_chips": 3} if game == "cat-te" else {}))
    client.cookies["django_language"] = language
    for number, winner in enumerate([2, 1, 2], start=1):
        answer = client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **_answers(sitting)}, **HX)
        assert answer.status_code == 200
        sitting.refresh_from_db()
        region = kept(sitting.pk, language, sitting.version)
        assert region is not None and region.version == sitting.version
        assert region.html == render_region(sitting.pk, language, False).html
        assert region.html.split('<div hx-target="#table"')[0] in answer.content.decode()  # the same region, notice apart
    translation.activate("en")


def test_a_region_kept_for_another_version_is_not_taken(client, sitting):
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2}, **HX)
    sitting.refresh_from_db()
    assert kept(sitting.pk, "en", sitting.version) is not None
    assert kept(sitting.pk, "en", sitting.version + 1) is None and kept(sitting.pk, "fr", sitting.version) is None


def _answers(sitting):
    """The first answer the game's tap offers (games that ask how the hand was won)."""
    from matches.web.presenters.answers import answer_forms

    if not sitting.rules.questions:
        return {}
    table = sitting.table()
    return dict(answer_forms(sitting.rules, table.seats, 0)[0].fixed)
