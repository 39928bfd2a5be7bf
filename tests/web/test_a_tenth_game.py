"""A game is data: one registry entry (and its texts) adds it to every screen, with no migration."""

import dataclasses
import io

import pytest
from django.core.management import call_command

from matches.domain import rules
from matches.models import Sitting

from tests.pages import HX, url

pytestmark = pytest.mark.django_db

# Agram dealt seven cards each: a 35-card pack holds five hands of seven.
AGRAM_SEVEN = dataclasses.replace(
    rules.GAMES["agram"],
    slug="agram-seven",
    name="Agram (seven cards)",
    cards_each=7,
    deal_batches=(4, 3),
    deciding_trick="Whoever wins the 7th and last trick wins the hand.",
    too_many_players="",
)


@pytest.fixture
def tenth_game(monkeypatch):
    monkeypatch.setitem(rules.GAMES, AGRAM_SEVEN.slug, AGRAM_SEVEN)
    return AGRAM_SEVEN


def test_a_registered_game_needs_no_migration(tenth_game):
    assert not Sitting._meta.get_field("game").choices  # a list of games in the schema would need one
    out = io.StringIO()
    call_command("makemigrations", "matches", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def test_a_registered_game_is_offered_started_and_played_through_the_views(client, tenth_game):
    assert "Agram (seven cards)" in client.get("/start/").content.decode()
    page = client.get("/start/agram-seven/").content.decode()
    assert "7 cards each" in page
    data = {"action": "start", "end_kind": "wins", "end_target_wins": "2", "player_1": "Aïcha", "player_2": "Djibo"}
    response = client.post("/start/agram-seven/", data)
    assert response.status_code == 302
    sitting = Sitting.objects.get()
    assert sitting.game == "agram-seven"
    for number, winner in ((1, 2), (2, 1), (3, 2)):
        answer = client.post(url(sitting, "tap/"), {"number": number, "winner": winner}, **HX)
        assert answer.status_code == 200
    sitting.refresh_from_db()
    assert sitting.is_finished and [s.hands_won for s in sitting.table().seats] == [1, 2]
    assert "Djibo" in client.get(url(sitting)).content.decode()
