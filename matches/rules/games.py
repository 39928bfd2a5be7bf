"""The registry's entries, one per game. Source: RULES.md (facts from seeds/ 000-004)."""

from __future__ import annotations

from .core import Direction, Game, Leader, MatchEndKind, NextDealer, Pack, winner_takes_one

PACK_35 = Pack(
    name="35",
    size=35,
    description="52 cards without Kings, Queens, Jacks, Twos and the Ace of Spades",
)
PACK_31 = Pack(
    name="31",
    size=31,
    description="52 cards without 6, 5, 4, 3, 2 and the Ace of Spades",
)

# The Agram family: counter-clockwise, the player to the dealer's right leads,
# the winner of a hand deals the next. Source: RULES.md, The Agram family (003).
_AGRAM_FAMILY = dict(
    direction=Direction.COUNTER_CLOCKWISE,
    next_dealer=NextDealer.WINNER,
    leader=Leader.AFTER_DEALER,
    score=winner_takes_one,
    match_ends=(MatchEndKind.OPEN, MatchEndKind.WINS, MatchEndKind.HANDS),
)

AGRAM = Game(
    slug="agram",
    name="Agram",
    region="Niger",
    min_players=2,
    max_players=5,
    pack=PACK_35,
    cards_each=6,
    deal_batches=(3, 3),
    ranking="A 10 9 8 7 6 5 4 3; spades top out at the 10; no trumps",
    deciding_trick=6,
    tricks=6,
    too_many_players="six hands of six need 36 cards, the pack has 35.",
    **_AGRAM_FAMILY,
)

SINK_SINK = Game(
    slug="sink-sink",
    name="Sink-Sink",
    region="Niger",
    min_players=2,
    max_players=7,
    pack=PACK_35,
    cards_each=5,
    deal_batches=(3, 2),
    ranking="A 10 9 8 7 6 5 4 3; spades top out at the 10; no trumps",
    deciding_trick=5,
    tricks=5,
    too_many_players="eight hands of five need 40 cards, the pack has 35.",
    **_AGRAM_FAMILY,
)

AGRAM_MALI = Game(
    slug="agram-mali",
    name="Agram in Mali",
    region="Mali",
    min_players=2,
    max_players=6,
    pack=PACK_31,
    cards_each=5,
    deal_batches=(2, 3),
    ranking="A K 10 Q 9 8 J 7; spades top out at the King; no trumps",
    deciding_trick=5,
    tricks=5,
    too_many_players="seven hands of five need 35 cards, the pack has 31.",
    **_AGRAM_FAMILY,
)
