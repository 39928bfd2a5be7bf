"""The rules' texts as players read them, in English and in French."""

import pytest
from django.utils import translation

from matches.domain import rules
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


@pytest.mark.parametrize(
    "language, message",
    [
        ("en", "Agram is for 2 to 5 players: six hands of six need 36 cards, the pack has 35."),
        ("fr", "Agram se joue de 2 à 5 joueurs\u00a0: six mains de six demandent 36 cartes, le jeu n’en a que 35."),
    ],
)
def test_rule_refusals_are_translated_with_their_values(language, message):
    with pytest.raises(rules.RuleError) as refusal:
        GAMES["agram"].check_player_count(6)
    with translation.override(language):
        assert texts.rule_message(refusal.value) == message
