"""The rules registry, tested by tables of cases with no database. Source of every case: RULES.md."""

import ast
import pathlib

import pytest

from matches.domain import rules, seating
from matches.domain.replay import Played, replay
from matches.domain.rules import GAMES, MatchEnd, MatchEndKind, Progress, RuleError

G = GAMES


@pytest.mark.parametrize(
    "slug, pack_size, cards_each, batches, players, direction",
    [
        ("agram", 35, 6, (3, 3), (2, 5), "counter-clockwise"),
        ("sink-sink", 35, 5, (3, 2), (2, 7), "counter-clockwise"),
        ("fapfap", 35, 5, (3, 2), (2, 7), "counter-clockwise"),
        ("agram-mali", 31, 5, (2, 3), (2, 6), "counter-clockwise"),
        ("spar", 35, 5, (3, 2), (2, 7), "counter-clockwise"),
        ("sipa", 31, 5, (3, 2), (2, 5), "counter-clockwise"),
        ("cat-te", 52, 6, (1,), (3, 6), "counter-clockwise"),
        ("eighty-three", 52, 6, (1,), (2, 8), "clockwise"),
        ("letzter-stich", 32, 5, (1,), (3, 6), "clockwise"),
    ],
)
def test_table_facts_match_rules_md(slug, pack_size, cards_each, batches, players, direction):
    game = G[slug]
    assert game.pack.size == pack_size
    assert game.cards_for(players[1]) == cards_each
    assert game.deal_batches == batches
    assert (game.min_players, game.max_players) == players
    assert game.direction.value == direction


def test_the_registry_holds_the_nine_games_of_rules_md():
    assert len(G) == 9


@pytest.mark.parametrize("game", G.values(), ids=G.keys())
def test_every_table_size_fits_the_pack(game):
    for players in range(game.min_players, game.max_players + 1):
        assert players * game.cards_for(players) <= game.pack_for(players).size


@pytest.mark.parametrize("players, cards, pack", [(3, 8, 28), (4, 7, 32), (5, 6, 32), (6, 5, 32)])
def test_letzter_stich_deals_by_table_size_and_drops_the_eights_for_three(players, cards, pack):
    game = G["letzter-stich"]
    assert (game.cards_for(players), game.pack_for(players).size) == (cards, pack)


# --- scoring: every branch of every game -------------------------------------------

SCORING = [
    # (game, seats, winner, extras as posted, points per seat)
    ("agram", 4, 2, {}, (0, 0, 1, 0)),  # the worked sitting: Chaibou wins hand 1
    ("agram", 2, 0, {}, (1, 0)),
    ("sink-sink", 7, 6, {}, (0, 0, 0, 0, 0, 0, 1)),
    ("agram-mali", 6, 0, {}, (1, 0, 0, 0, 0, 0)),
    ("fapfap", 3, 1, {"multiplier": "1"}, (0, 1, 0)),  # last trick with a 4 or higher
    ("fapfap", 3, 1, {"multiplier": "2"}, (0, 2, 0)),  # a 3 on the last trick only
    ("fapfap", 3, 1, {"multiplier": "4"}, (0, 4, 0)),  # 3s on the last two tricks
    ("spar", 4, 3, {"card": "six"}, (0, 0, 0, 3)),
    ("spar", 4, 3, {"card": "seven"}, (0, 0, 0, 2)),
    ("spar", 4, 3, {"card": "other"}, (0, 0, 0, 1)),
    ("sipa", 2, 0, {"sevens": "three"}, (6, 0)),
    ("sipa", 2, 0, {"sevens": "two"}, (4, 0)),
    ("sipa", 2, 0, {"sevens": "last"}, (2, 0)),
    ("sipa", 2, 0, {"sevens": "none"}, (1, 0)),
    ("cat-te", 4, 0, {"how": "last"}, (3, -1, -1, -1)),
    ("cat-te", 4, 0, {"how": "flush"}, (6, -2, -2, -2)),
    ("cat-te", 4, 0, {"how": "sweep"}, (6, -2, -2, -2)),
    ("cat-te", 4, 0, {"how": "sweep", "aces": ["3"]}, (7, -2, -3, -2)),
    ("cat-te", 3, 2, {"how": "sweep", "aces": ["1", "2"]}, (-3, -3, 6)),
    ("eighty-three", 3, 0, {}, (4, 0, 0)),  # no Ace, did not win the last trick
    ("eighty-three", 3, 0, {"ace": "1"}, (3, 0, 0)),
    ("eighty-three", 3, 0, {"last": "1"}, (3, 0, 0)),
    ("eighty-three", 3, 0, {"ace": "1", "last": "1"}, (2, 0, 0)),
    ("eighty-three", 3, 0, {"bonus": ["2", "3"]}, (4, 1, 1)),
    ("eighty-three", 3, 0, {"ace": "on", "bonus": ["1"]}, (4, 0, 0)),  # the winner's own bonus
    ("letzter-stich", 4, 1, {}, (0, 50, 0, 0)),
]


@pytest.mark.parametrize("slug, seats, winner, extras, expected", SCORING)
def test_scoring(slug, seats, winner, extras, expected):
    assert G[slug].score_hand(seats, winner, extras) == expected


@pytest.mark.parametrize("how, aces", [("last", []), ("flush", []), ("sweep", ["2", "3"])])
@pytest.mark.parametrize("seats", [3, 4, 6])
def test_cat_te_chips_are_conserved(how, aces, seats):
    extras = {"how": how, "aces": aces} if aces else {"how": how}
    assert sum(G["cat-te"].score_hand(seats, 0, extras)) == 0


REFUSED = [
    ("agram", 4, 4, {}, "Seat 5 is not at this table."),
    ("agram", 6, 0, {}, "Agram is for 2 to 5 players: six players of six cards each need 36, the pack has 35."),
    ("sink-sink", 1, 0, {}, "Sink-Sink needs at least 2 players"),
    ("agram-mali", 7, 0, {}, "Agram in Mali is for 2 to 6 players: seven hands of five need 35 cards"),
    ("agram", 4, 0, {"multiplier": "2"}, "Agram records only the winner of a hand."),
    ("fapfap", 4, 0, {"multiplier": "3"}, "Answer with one of these: with a 4 or higher, with a 3, last trick only, with 3s, the last two tricks."),
    ("fapfap", 4, 0, {}, "How was the last trick won? Tap one of the answers."),
    ("fapfap", 4, 0, {"multiplier": "2", "card": "six"}, "Fapfap records only the answers it asks for."),
    ("spar", 4, 0, {"card": "ace"}, "Answer with one of these: a six, a seven, another card."),
    ("sipa", 6, 0, {"sevens": "none"}, "Sipa is for 2 to 5 players"),
    ("cat-te", 4, 0, {"how": "last", "aces": ["2"]}, "Asked only after the answer “sweep of the first four tricks”."),
    ("cat-te", 4, 0, {"how": "sweep", "aces": ["1"]}, "The hand's winner cannot be one of them."),
    ("cat-te", 4, 0, {"how": "sweep", "aces": ["9"]}, "There is no seat 9 at this table."),
    ("cat-te", 2, 0, {"how": "last"}, "Cat Tê needs at least 3 players"),
    ("eighty-three", 3, 0, {"bonus": ["4"]}, "There is no seat 4 at this table."),
    ("eighty-three", 3, 0, {"bonus": ["x"]}, "Pick players by their seat number"),
    # Numbers no page sends, which int() would read as seats: other scripts' digits, a sign, spaces, underscores.
    *(("eighty-three", 3, 0, {"bonus": [seat]}, "Pick players by their seat number") for seat in ("٢", "２", "+2", " 2", "0_2")),
    ("cat-te", 4, 0, {"how": "sweep", "aces": ["١"]}, "Pick players by their seat number"),  # (not read as the winner)
    ("eighty-three", 3, 0, {"ace": "maybe"}, "Answer yes or no."),
    ("fapfap", 3, 0, {"multiplier": ["1", "4"]}, "Give one answer, not several."),  # posted twice
    ("cat-te", 4, 0, {"how": ["last", "zz"]}, "Give one answer, not several."),
    ("eighty-three", 3, 0, {"ace": ["yes", "no"]}, "Give one answer, not several."),
    ("letzter-stich", 2, 0, {}, "Letzter Stich needs at least 3 players"),
]


@pytest.mark.parametrize("slug, seats, winner, extras, message", REFUSED)
def test_impossible_hands_are_refused_with_the_reason(slug, seats, winner, extras, message):
    with pytest.raises(RuleError) as refusal:
        G[slug].score_hand(seats, winner, extras)
    assert message in str(refusal.value)


@pytest.mark.parametrize(
    "slug, seats, posted_twice, once",
    [
        ("fapfap", 3, {"multiplier": ["4", "4"]}, {"multiplier": "4"}),
        ("cat-te", 4, {"how": ["last", "last"]}, {"how": "last"}),
        ("eighty-three", 3, {"ace": ["yes", "yes"]}, {"ace": "yes"}),
    ],
)
def test_an_answer_posted_twice_alike_counts_once(slug, seats, posted_twice, once):
    """A retried post that repeats a field (the same answer twice) scores as the answer given once."""
    assert G[slug].score_hand(seats, 0, posted_twice) == G[slug].score_hand(seats, 0, once)


# --- who deals and leads next -------------------------------------------------------


@pytest.mark.parametrize(
    "slug, seats, dealer, winner, next_dealer, leader_of_next",
    [
        ("agram", 4, 0, 2, 2, 3),  # the winner deals; next in playing order (dealer's right) leads
        ("agram", 4, 2, 3, 3, 0),
        ("sink-sink", 7, 5, 5, 5, 6),
        ("fapfap", 3, 1, 0, 0, 1),
        ("agram-mali", 3, 1, 0, 0, 1),
        ("spar", 5, 4, 2, 2, 3),
        ("sipa", 4, 3, 1, 0, 1),  # the deal passes on whoever wins
        ("cat-te", 4, 0, 2, 2, 2),  # the winner deals and the dealer leads
        ("eighty-three", 5, 4, 1, 0, 1),  # the deal passes to the left, the dealer's left leads
        ("letzter-stich", 4, 1, 3, 2, 1),  # the deal passes on, the dealer's right leads
    ],
)
def test_who_deals_and_leads_next(slug, seats, dealer, winner, next_dealer, leader_of_next):
    game = G[slug]
    everyone = tuple(range(seats))
    assert seating.dealer_after(game, everyone, dealer, winner) == next_dealer
    assert seating.leader_for(game, everyone, next_dealer) == leader_of_next


# --- match ends --------------------------------------------------------------------


def run(end, hands, seats=3):
    return replay(seats, end, [Played(w, p) for w, p in hands]).final


@pytest.mark.parametrize(
    "end, hands, over",
    [
        (MatchEnd(), [(0, (1, 0))] * 30, False),
        (MatchEnd(MatchEndKind.WINS, 3), [(0, (1, 0)), (0, (1, 0)), (1, (0, 1))], False),
        (MatchEnd(MatchEndKind.WINS, 3), [(0, (1, 0))] * 3, True),
        (MatchEnd(MatchEndKind.HANDS, 3), [(0, (1, 0)), (1, (0, 1))], False),
        (MatchEnd(MatchEndKind.HANDS, 3), [(0, (1, 0)), (1, (0, 1)), (1, (0, 1))], True),
        (MatchEnd(MatchEndKind.POINTS, 10), [(0, (6, 0)), (0, (2, 0))], False),  # Sipa: 8 of 10
        (MatchEnd(MatchEndKind.POINTS, 10), [(0, (6, 0)), (0, (4, 0))], True),
        (MatchEnd(MatchEndKind.POINTS, 500), [(1, (0, 50))] * 10, True),  # Letzter Stich
    ],
)
def test_match_end_rules(end, hands, over):
    assert run(end, hands, seats=2).over is over


THRESHOLDS = MatchEnd(MatchEndKind.THRESHOLDS)


def test_eighty_three_escalation_example_of_rules_md_hand_by_hand():
    """RULES.md: A 11, B 11, C 7 after a hand: tie at the top, the threshold becomes 15, play on.
    Next hand A 13, B 16: B wins. (The example gives totals, so the hands carry those points.)"""
    progress = Progress.start(3, THRESHOLDS)
    assert progress.threshold == 10
    progress = progress.after(THRESHOLDS, 0, (11, 11, 7))
    assert (progress.totals, progress.threshold, progress.tied_at, progress.over) == ((11, 11, 7), 15, 11, False)
    progress = progress.after(THRESHOLDS, 1, (2, 5, 0))
    assert (progress.totals, progress.over) == ((13, 16, 7), True)
    assert rules.leaders(progress.totals) == [1]


def test_eighty_three_thresholds_with_real_hands():
    """With real hands a tie at the top can only be reached at 10 (a non-winner gains 1 at most)."""
    game = G["eighty-three"]
    progress = Progress.start(3, THRESHOLDS)
    steps = [
        (0, {}, (4, 0, 0), 10),
        (1, {}, (4, 4, 0), 10),
        (0, {}, (8, 4, 0), 10),
        (1, {"ace": "1"}, (8, 7, 0), 10),
        (1, {"ace": "1", "last": "1"}, (8, 9, 0), 10),
        (0, {"ace": "1", "last": "1", "bonus": ["2"]}, (10, 10, 0), 15),  # tie at 10: playing to 15
        (1, {}, (10, 14, 0), 15),
    ]
    for winner, extras, totals, threshold in steps:
        progress = progress.after(THRESHOLDS, winner, game.score_hand(3, winner, extras))
        assert (progress.totals, progress.threshold, progress.over) == (totals, threshold, False)
    assert progress.tied_at == 10
    progress = progress.after(THRESHOLDS, 1, game.score_hand(3, 1, {"ace": "1", "last": "1"}))
    assert progress.over and progress.totals == (10, 16, 0)


@pytest.mark.parametrize(
    "totals_steps, thresholds, over",
    [
        ([(9, 9, 0)], [10], False),  # nobody at 10
        ([(10, 9, 0)], [10], True),  # alone at the top at 10
        ([(10, 10, 0)], [15], False),  # tie at 10: 15
        ([(10, 10, 0), (5, 5, 0)], [15, 20], False),  # tie at 15: 20, one step per hand
        ([(10, 10, 0), (3, 1, 0)], [15, 15], False),  # 13 v 11: below 15, play on
        ([(10, 10, 0), (6, 1, 0)], [15, 15], True),
    ],
)
def test_the_threshold_rises_one_step_per_tie(totals_steps, thresholds, over):
    progress = Progress.start(3, THRESHOLDS)
    for step, expected in zip(totals_steps, thresholds):
        progress = progress.after(THRESHOLDS, 0, step)
        assert progress.threshold == expected
    assert progress.over is over


@pytest.mark.parametrize(
    "totals, first",
    [([], []), ([0, 3, 1], [1]), ([2, 2, 1], [0, 1]), ([1, 1, 1], [0, 1, 2])],
)
def test_leaders_name_a_winner_or_a_shared_first_place(totals, first):
    assert rules.leaders(totals) == first


@pytest.mark.parametrize(
    "kind, target",
    [
        (MatchEndKind.OPEN, 3),
        (MatchEndKind.WINS, None),
        (MatchEndKind.WINS, 0),
        (MatchEndKind.HANDS, 10_001),
        (MatchEndKind.THRESHOLDS, 10),
    ],
)
def test_nonsense_match_ends_are_refused(kind, target):
    with pytest.raises(RuleError):
        MatchEnd(kind, target)


def test_unknown_game_is_refused():
    with pytest.raises(RuleError, match="Unknown game"):
        rules.get_game("poker")


def test_rules_import_nothing_from_django():
    for path in pathlib.Path(rules.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = [
            node.module if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in getattr(node, "names", [])
        ]
        assert not [name for name in imported if name and name.startswith("django")], path


@pytest.mark.parametrize(
    "slug, end, seats, uneven",
    [
        ("letzter-stich", MatchEnd(MatchEndKind.HANDS, 10), 4, True),
        ("letzter-stich", MatchEnd(MatchEndKind.HANDS, 12), 4, False),
        ("letzter-stich", MatchEnd(MatchEndKind.HANDS, 2), 3, True),
        ("letzter-stich", MatchEnd(MatchEndKind.POINTS, 500), 4, False),  # no set number of hands
        ("cat-te", MatchEnd(MatchEndKind.HANDS, 10), 4, False),  # the winner deals: no count makes it even
    ],
)
def test_a_set_number_of_hands_deals_unevenly_where_the_deal_rotates_and_it_is_no_multiple_of_the_players(
    slug, end, seats, uneven
):
    """Source: RULES.md, Letzter Stich ("ideally a multiple of the number of players")."""
    assert GAMES[slug].deals_unevenly(end, seats) is uneven
