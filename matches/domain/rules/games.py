"""The registry's entries, one per game. Source: RULES.md (facts from seeds/ 000-004); help texts are ours."""

from __future__ import annotations

from collections.abc import Mapping

from matches.domain.rules.core import (
    Choice,
    Direction,
    Game,
    Leader,
    MatchEndKind,
    NextDealer,
    Pack,
    Question,
    Scorer,
    to_winner,
    winner_takes_one,
)
from matches.domain.rules.core import (
    gettext_noop as _,
)

PACK_35 = Pack(35, _("a 52-card pack without Kings, Queens, Jacks, Twos and the Ace of Spades"))
PACK_31 = Pack(31, _("a 52-card pack without 6, 5, 4, 3, 2 and the Ace of Spades"))
PACK_SPAR = Pack(35, _("a 52-card pack without 2, 3, 4, 5 and the Ace of Spades"))
PACK_52 = Pack(52, _("a full pack, no jokers"))
PACK_SKAT = Pack(32, _("a Skat pack: A K Q J 10 9 8 7 of each suit"))
PACK_SKAT_28 = Pack(28, _("a Skat pack without the four eights"))

AGRAM_RANKING = _("A 10 9 8 7 6 5 4 3 in each suit; spades top out at the 10. No trumps: follow suit if you can.")
ONE_WIN_ENDS = (MatchEndKind.OPEN, MatchEndKind.WINS, MatchEndKind.HANDS)
POINTS_ENDS = (MatchEndKind.OPEN, MatchEndKind.POINTS, MatchEndKind.HANDS)
# RULES.md names the optional match ends of these games but no number for them: these are the app's.
ONE_WIN_TARGETS = {MatchEndKind.WINS: 5, MatchEndKind.HANDS: 10}
POINTS_TARGETS = {MatchEndKind.POINTS: 10, MatchEndKind.HANDS: 10}

# Agram family: counter-clockwise, the dealer's right leads, the hand's winner deals next. Source: RULES.md (003).
_AGRAM_FAMILY = dict(
    direction=Direction.COUNTER_CLOCKWISE,
    next_dealer=NextDealer.WINNER,
    leader=Leader.AFTER_DEALER,
)
# Agram, Sink-Sink and Agram in Mali: a hand is simply won; the tally of wins is the score (002).
_ONE_WIN = dict(
    score=winner_takes_one,
    match_ends=ONE_WIN_ENDS,
    end_targets=ONE_WIN_TARGETS,
    scoring=_("One win for the hand's winner; the tally of wins is the score."),
    unit=_("wins"),
    **_AGRAM_FAMILY,
)


def by_answer(key: str, table: Mapping[str, int]) -> Scorer:
    """A scorer giving the winner the points `table` lists for the answer to `key`."""

    def score(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
        return to_winner(n_seats, winner, table[extras[key]])

    return score


def score_eighty_three(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
    """5th-trick winner: 2, +1 unless won with an Ace, +1 unless they also won the last trick;
    +1 to each player who held four of a kind or six of one suit. Source: RULES.md, Eighty Three."""
    points = [0] * n_seats
    points[winner] = 2 + (not extras["ace"]) + (not extras["last"])
    for seat in extras["bonus"]:
        points[seat] += 1
    return tuple(points)


CAT_TE_PAYMENT = {"last": 1, "flush": 2, "sweep": 2}


def score_cat_te(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
    """Chips summing to zero: each opponent pays the winner 1 (last trick) or 2 (dealt flush, first-four
    sweep); on a sweep each holder of a held-back Ace pays 1 more. Source: RULES.md, Cat Te."""
    each = CAT_TE_PAYMENT[extras["how"]]
    points = [-each] * n_seats
    points[winner] = each * (n_seats - 1)
    for seat in extras.get("aces", ()):
        points[seat] -= 1
        points[winner] += 1
    return tuple(points)


def score_letzter_stich(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
    """The last trick's winner scores 50. Source: RULES.md, Letzter Stich."""
    return to_winner(n_seats, winner, 50)


AGRAM = Game(
    slug="agram",
    name=_("Agram"),
    region=_("Niger"),
    min_players=2,
    max_players=5,
    pack=PACK_35,
    cards_each=6,
    deal_batches=(3, 3),
    ranking=AGRAM_RANKING,
    deciding_trick=_("Whoever wins the 6th and last trick wins the hand."),
    too_many_players=_("six players of six cards each need 36, the pack has 35."),
    **_ONE_WIN,
)

SINK_SINK = Game(
    slug="sink-sink",
    name=_("Sink-Sink"),
    region=_("Niger"),
    min_players=2,
    max_players=7,
    pack=PACK_35,
    cards_each=5,
    deal_batches=(3, 2),
    ranking=AGRAM_RANKING,
    deciding_trick=_("Whoever wins the 5th and last trick wins the hand."),
    too_many_players=_("eight hands of five need 40 cards, the pack has 35."),
    **_ONE_WIN,
)

FAPFAP = Game(
    slug="fapfap",
    name=_("Fapfap"),
    region=_("Cameroon"),
    min_players=2,
    max_players=7,
    pack=PACK_35,
    cards_each=5,
    deal_batches=(3, 2),
    ranking=AGRAM_RANKING,
    deciding_trick=_("Whoever wins the 5th and last trick wins the hand; how they won it sets the stake."),
    score=by_answer("multiplier", {"1": 1, "2": 2, "4": 4}),
    match_ends=POINTS_ENDS,
    end_targets=POINTS_TARGETS,
    scoring=_(
        "The winner takes 1 stake for a last trick won with a 4 or higher, 2 stakes for a last trick "
        "won with a 3, 4 stakes for the last two tricks both won with 3s."
    ),
    too_many_players=_("eight hands of five need 40 cards, the pack has 35."),
    questions=(
        Question(
            "multiplier",
            _("How was the last trick won?"),
            "choice",
            (
                Choice("1", _("With a 4 or higher: 1 stake"), _("with a 4 or higher")),
                Choice("2", _("With a 3, last trick only: 2 stakes"), _("with a 3, last trick only")),
                Choice("4", _("With 3s, the last two tricks: 4 stakes"), _("with 3s, the last two tricks")),
            ),
        ),
    ),
    uses_stake=True,
    unit=_("stakes"),
    notes=(
        _("Each player plays their cards face up in a pile in front of them."),
        _(
            "Played for a stake: on every hand, each other player pays the winner the stake times the hand's "
            "multiplier. The money column is each player's net, and the table says who pays whom to settle up."
        ),
    ),
    **_AGRAM_FAMILY,
)

AGRAM_MALI = Game(
    slug="agram-mali",
    name=_("Agram in Mali"),
    region=_("Mali"),
    min_players=2,
    max_players=6,
    pack=PACK_31,
    cards_each=5,
    deal_batches=(2, 3),
    ranking=_("A K 10 Q 9 8 J 7 in each suit; spades top out at the King. No trumps: follow suit if you can."),
    deciding_trick=_("Whoever wins the 5th and last trick wins the hand."),
    too_many_players=_("seven hands of five need 35 cards, the pack has 31."),
    **_ONE_WIN,
)

SPAR = Game(
    slug="spar",
    name=_("Spar"),
    region=_("Ghana"),
    min_players=2,
    max_players=7,
    pack=PACK_SPAR,
    cards_each=5,
    deal_batches=(3, 2),
    ranking=_("A K Q J 10 9 8 7 6 in each suit; spades top out at the King. Follow suit if you can."),
    deciding_trick=_("Whoever wins the 5th and last trick wins the hand; the card that won it sets the points."),
    score=by_answer("card", {"other": 1, "seven": 2, "six": 3}),
    match_ends=POINTS_ENDS,
    end_targets=POINTS_TARGETS,
    scoring=_("The winner scores 3 for a last trick won with a six, 2 with a seven, 1 with any other card."),
    too_many_players=_("eight hands of five need 40 cards, the pack has 35."),
    questions=(
        Question(
            "card",
            _("Which card won the last trick?"),
            "choice",
            (
                Choice("six", _("A six: 3 points"), _("a six")),
                Choice("seven", _("A seven: 2 points"), _("a seven")),
                Choice("other", _("Another card: 1 point"), _("another card")),  # "other" than those above: last
            ),
        ),
    ),
    **_AGRAM_FAMILY,
)

SIPA = Game(
    slug="sipa",
    name=_("Sipa"),
    region=_("Togo"),
    min_players=2,
    max_players=5,  # the sources' range: the pack (31) would deal 6 hands of 5, so no reason is given
    pack=PACK_31,
    cards_each=5,
    deal_batches=(3, 2),
    ranking=_("A K Q J 10 9 8 7 in each suit; spades top out at the King. Follow suit if you can."),
    deciding_trick=_("Whoever wins the 5th and last trick wins the hand; sevens on the last tricks score more."),
    direction=Direction.COUNTER_CLOCKWISE,
    next_dealer=NextDealer.ROTATE,
    leader=Leader.AFTER_DEALER,
    score=by_answer("sevens", {"none": 1, "last": 2, "two": 4, "three": 6}),
    match_ends=(MatchEndKind.POINTS,),
    end_targets={MatchEndKind.POINTS: 10},  # "the target is usually 10" (000)
    scoring=_(
        "The winner scores 6 for the last three tricks all won with sevens, 4 for the last two, "
        "2 for the last one only, 1 otherwise. First to the target (usually 10) wins the match."
    ),
    questions=(
        Question(
            "sevens",
            _("Which of the last tricks did the winner take with a seven?"),
            "choice",
            (
                Choice("last", _("A seven on the last trick only: 2 points"), _("a seven on the last trick only")),
                Choice("two", _("Sevens on the last two tricks: 4 points"), _("sevens on the last two tricks")),
                Choice("three", _("Sevens on the last three tricks: 6 points"), _("sevens on the last three tricks")),
                # Any other hand, a seven on the 4th trick included when the last was won otherwise: last.
                Choice("none", _("Last trick not won with a seven: 1 point"), _("last trick not won with a seven")),
            ),
        ),
    ),
    notes=(_("A card that cannot beat the trick is usually played face down."),),
)

CAT_TE = Game(
    slug="cat-te",
    name=_("Cat Tê"),
    region=_("Vietnam"),
    min_players=3,
    max_players=6,  # the sources' range: the pack (52) would deal 7 hands of 6, so no reason is given
    pack=PACK_52,
    cards_each=6,
    deal_batches=(1,),
    ranking=_("A K Q J 10 9 8 7 6 5 4 3 2. You need not follow suit."),
    deciding_trick=_(
        "The winner of the 6th trick wins, unless someone was dealt a flush (four or six of one "
        "suit) or swept the first four tricks: they win at once. Players who took none of the first four "
        "tricks drop out of the hand but still pay."
    ),
    direction=Direction.COUNTER_CLOCKWISE,
    next_dealer=NextDealer.WINNER,
    leader=Leader.DEALER,
    score=score_cat_te,
    match_ends=(MatchEndKind.HANDS,),
    end_targets={MatchEndKind.HANDS: 12},  # RULES.md says "a set number of hands", not how many
    scoring=_(
        "Each opponent pays the winner 1 chip for the last trick, 2 chips for a dealt flush or a "
        "first-four sweep. On a sweep, a player who held back an Ace of the suit led pays the winner 1 more "
        "chip (the app gives that chip to the winner, so no chip is lost)."
    ),
    questions=(
        Question(
            "how",
            _("How was the hand won?"),
            "choice",
            (
                Choice("last", _("Last trick: 1 chip from each"), _("last trick")),
                Choice("flush", _("Dealt a flush: 2 chips from each"), _("dealt a flush")),
                Choice(
                    "sweep", _("Sweep of the first four tricks: 2 chips from each"), _("sweep of the first four tricks")
                ),
            ),
        ),
        Question(
            "aces",
            _("Sweep: who held back an Ace of the suit led (each pays 1 chip more)?"),
            "seats",
            when=("how", "sweep"),
            others_only=True,
            short=_("held back an Ace"),
        ),
    ),
    uses_chips=True,
    unit=_("chips"),
    notes=(
        _(
            "A player who owes more chips than they hold goes below 0: they owe the rest, and it comes off "
            "the next stack everyone is given."
        ),
    ),
)

EIGHTY_THREE = Game(
    slug="eighty-three",
    name=_("Eighty Three"),
    # The sources name no country for it, only that it is a close variant of Cat Tê (RULES.md, 000).
    region=_("origin not recorded; a close variant of Cat Tê"),
    min_players=2,
    max_players=8,
    pack=PACK_52,
    cards_each=6,
    deal_batches=(1,),
    ranking=_("A K Q J 10 9 8 7 6 5 4 3 2. Follow suit if you can."),
    deciding_trick=_("Whoever wins the 5th trick (not the last) wins the hand."),
    direction=Direction.CLOCKWISE,
    next_dealer=NextDealer.ROTATE,
    leader=Leader.AFTER_DEALER,
    score=score_eighty_three,
    match_ends=(MatchEndKind.THRESHOLDS,),
    scoring=_(
        "The 5th-trick winner scores 2, 1 more if that trick was not won with an Ace, and 1 more if "
        "they did not also win the last trick. Anyone dealt four of a kind or six of one suit scores 1. "
        "Playing to 10: whoever is alone at the top at or above it wins; a tie at the top raises it by 5."
    ),
    too_many_players=_("nine hands of six need 54 cards, the pack has 52."),
    questions=(
        Question("ace", _("Won the 5th trick with an Ace"), "flag", short=_("won the 5th trick with an Ace")),
        Question("last", _("Also won the last trick"), "flag", short=_("also won the last trick")),
        Question(
            "bonus",
            _("Held four of a kind or six of one suit"),
            "seats",
            short=_("held four of a kind or six of one suit"),
        ),
    ),
    notes=(_("Best with 3 to 6 players."),),
)

LETZTER_STICH = Game(
    slug="letzter-stich",
    name=_("Letzter Stich"),
    region=_("Germany"),
    min_players=3,
    max_players=6,
    pack=PACK_SKAT,
    cards_each=5,
    deal_batches=(1,),
    ranking=_("A 10 K Q J 9 8 7 in each suit. Follow suit if you can."),
    deciding_trick=_("Whoever wins the last trick wins the hand."),
    direction=Direction.CLOCKWISE,
    next_dealer=NextDealer.ROTATE,
    leader=Leader.BEFORE_DEALER,
    score=score_letzter_stich,
    match_ends=(MatchEndKind.POINTS, MatchEndKind.HANDS),
    # RULES.md: target "e.g. 500", or hands "ideally a multiple of the number of players": three deals each.
    end_targets={MatchEndKind.POINTS: 500},
    deal_rounds=3,
    scoring=_(
        "The winner scores 50. Play a set number of hands (a multiple of the number of players, so "
        "everyone deals equally often) or to a target such as 500."
    ),
    too_many_players=_("seven hands of five need 35 cards, the Skat pack has 32."),
    cards_by_players={3: 8, 4: 7, 5: 6, 6: 5},
    pack_by_players={3: PACK_SKAT_28},
    notes=(
        _("Cards each: 4 players 7, 5 players 6, 6 players 5; the rest is set aside."),
        _("Three players: take the eights out too (28 cards) and deal 8 each."),
    ),
)

ALL_GAMES = (AGRAM, SINK_SINK, FAPFAP, AGRAM_MALI, SPAR, SIPA, CAT_TE, EIGHTY_THREE, LETZTER_STICH)
