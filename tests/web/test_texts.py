"""The rules' texts as players read them: each game's one line and its help card. (A rule's refusal in
words: tests/web/test_messages.py.)"""

import pytest
from django.utils import translation

from matches.web import texts
from matches.domain.rules import GAMES


@pytest.mark.parametrize(
    "slug, language, line",
    [
        ("agram", "en", "35-card pack · 6 cards each · 2–5 players"),
        ("letzter-stich", "en", "32-card pack · 5–8 cards each · 3–6 players"),
        ("agram", "fr", "jeu de 35 cartes · 6 cartes chacun · 2 à 5 joueurs"),
    ],
)
def test_summary_gives_pack_cards_each_and_players(slug, language, line):
    with translation.override(language):
        assert texts.summary(GAMES[slug]) == line


@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_every_game_has_a_help_card(game):
    with translation.override("en"):
        headings = [heading for heading, _ in texts.help_card(game)]
    assert headings[:6] == ["Pack", "Deal", "Ranking", "Play", "What wins", "Scoring"]
    assert len(headings) == len(set(headings))  # several notes under one heading, not the same one twice
    assert headings[6:] == ([] if not game.notes else ["Note" if len(game.notes) == 1 else "Notes"])
