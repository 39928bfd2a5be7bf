"""The worked sitting of RULES.md, for newcomers: a live match table to try."""

from __future__ import annotations

from .models import Sitting

DEMO_GAME = "agram"
DEMO_PLAYERS = ("Aïcha", "Boubacar", "Chaibou", "Djibo")


def create_demo_sitting() -> Sitting:
    """A new Agram sitting seated Aïcha, Boubacar, Chaibou, Djibo where Chaibou won hand 1.

    Source: RULES.md, A worked sitting (002). Chaibou, the winner, deals hand 2.
    """
    sitting = Sitting.start(DEMO_GAME, DEMO_PLAYERS)
    sitting.record_hand(1, winner=DEMO_PLAYERS.index("Chaibou"))
    return sitting
