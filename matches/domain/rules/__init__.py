"""Game rules: one registry, one entry per game; no Django. `GAMES["agram"].score_hand(4, winner=2)`
-> (0, 0, 1, 0); `GAMES["fapfap"].score_hand(3, 0, {"multiplier": "4"})` -> (4, 0, 0)."""

from matches.domain.rules.core import (
    Choice,
    Direction,
    Game,
    Leader,
    MatchEnd,
    MatchEndKind,
    NextDealer,
    Pack,
    Progress,
    Question,
    RuleError,
    gettext_noop,
    MATCH_END_WORDS,
    leaders,
)
from matches.domain.rules.games import ALL_GAMES

GAMES: dict[str, Game] = {game.slug: game for game in ALL_GAMES}


def get_game(slug: str) -> Game:
    """The registry entry for `slug`; raises RuleError for an unknown game."""
    try:
        return GAMES[slug]
    except KeyError:
        raise RuleError(gettext_noop("Unknown game %(slug)s: choose one from the list."), slug=repr(slug)) from None


__all__ = [
    "GAMES",
    "MATCH_END_WORDS",
    "Choice",
    "Direction",
    "Game",
    "Leader",
    "MatchEnd",
    "MatchEndKind",
    "NextDealer",
    "Pack",
    "Progress",
    "Question",
    "RuleError",
    "get_game",
    "leaders",
]
