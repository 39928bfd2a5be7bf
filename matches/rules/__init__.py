"""Game rules: one registry, one entry per game. Imports nothing from Django.

Usage: `GAMES["agram"].score_hand(4, winner=2)` -> (0, 0, 1, 0).
"""

from .core import (
    Direction,
    Game,
    Leader,
    MatchEnd,
    MatchEndKind,
    NextDealer,
    Pack,
    RuleError,
    leaders,
    match_over,
)
from .games import AGRAM, AGRAM_MALI, SINK_SINK

GAMES: dict[str, Game] = {game.slug: game for game in (AGRAM, SINK_SINK, AGRAM_MALI)}


def get_game(slug: str) -> Game:
    """The registry entry for `slug`; raises RuleError for an unknown game."""
    try:
        return GAMES[slug]
    except KeyError:
        raise RuleError(f"Unknown game {slug!r}: choose one from the list.") from None


__all__ = [
    "GAMES",
    "Direction",
    "Game",
    "Leader",
    "MatchEnd",
    "MatchEndKind",
    "NextDealer",
    "Pack",
    "RuleError",
    "get_game",
    "leaders",
    "match_over",
]
