"""The rules registry, tested by tables of cases with no database."""

import pytest

from matches import rules
from matches.rules import GAMES, MatchEnd, MatchEndKind, RuleError

AGRAM, SINK_SINK, MALI = GAMES["agram"], GAMES["sink-sink"], GAMES["agram-mali"]


@pytest.mark.parametrize(
    "game, pack_size, cards_each, batches, deciding, players",
    [
        (AGRAM, 35, 6, (3, 3), 6, (2, 5)),
        (SINK_SINK, 35, 5, (3, 2), 5, (2, 7)),
        (MALI, 31, 5, (2, 3), 5, (2, 6)),
    ],
)
def test_table_facts_match_rules_md(game, pack_size, cards_each, batches, deciding, players):
    assert game.pack.size == pack_size
    assert game.cards_each == cards_each
    assert sum(game.deal_batches) == cards_each and game.deal_batches == batches
    assert game.deciding_trick == deciding == game.tricks  # the last trick decides
    assert (game.min_players, game.max_players) == players
    assert game.direction is rules.Direction.COUNTER_CLOCKWISE


@pytest.mark.parametrize("game", [AGRAM, SINK_SINK, MALI])
def test_the_largest_table_fits_the_pack_and_one_more_player_would_not(game):
    assert game.max_players * game.cards_each <= game.pack.size
    assert (game.max_players + 1) * game.cards_each > game.pack.size


@pytest.mark.parametrize(
    "game, seats, winner, expected",
    [
        (AGRAM, 4, 2, (0, 0, 1, 0)),  # the worked sitting: Chaibou (seat 3) wins
        (AGRAM, 2, 0, (1, 0)),
        (AGRAM, 5, 4, (0, 0, 0, 0, 1)),
        (SINK_SINK, 7, 6, (0, 0, 0, 0, 0, 0, 1)),
        (SINK_SINK, 3, 1, (0, 1, 0)),
        (MALI, 6, 0, (1, 0, 0, 0, 0, 0)),
    ],
)
def test_a_won_hand_scores_one_for_its_winner_only(game, seats, winner, expected):
    assert game.score_hand(seats, winner) == expected


@pytest.mark.parametrize(
    "game, seats, winner, message",
    [
        (AGRAM, 4, 4, "Seat 5 is not at this table."),
        (AGRAM, 4, -1, "Seat 0 is not at this table."),
        (AGRAM, 6, 0, "Agram is for 2 to 5 players: six hands of six need 36 cards, the pack has 35."),
        (SINK_SINK, 1, 0, "Sink-Sink is for 2 to 7 players"),
        (MALI, 7, 0, "Agram in Mali is for 2 to 6 players: seven hands of five need 35 cards, the pack has 31."),
    ],
)
def test_impossible_hands_are_refused_with_the_reason(game, seats, winner, message):
    with pytest.raises(RuleError) as refusal:
        game.score_hand(seats, winner)
    assert str(refusal.value).startswith(message)


@pytest.mark.parametrize("extras", [{"multiplier": 2}, {"card": "six"}, {"bonus": [1]}])
def test_extras_that_do_not_belong_to_a_one_win_game_are_refused(extras):
    with pytest.raises(RuleError, match="records only the winner"):
        AGRAM.score_hand(4, 0, extras)


@pytest.mark.parametrize(
    "game, seats, dealer, winner, next_dealer, leader_of_next",
    [
        # Winner deals next; the player after the dealer in playing order (dealer's right) leads.
        (AGRAM, 4, 0, 2, 2, 3),
        (AGRAM, 4, 2, 3, 3, 0),  # the lead wraps round to the first seat
        (SINK_SINK, 7, 5, 5, 5, 6),
        (MALI, 3, 1, 0, 0, 1),
    ],
)
def test_the_winner_deals_next_and_the_dealers_right_leads(game, seats, dealer, winner, next_dealer, leader_of_next):
    assert game.dealer_after(seats, dealer, winner) == next_dealer
    assert game.leader_for(seats, next_dealer) == leader_of_next


@pytest.mark.parametrize(
    "end, totals, wins, hands, over",
    [
        (MatchEnd(), [9, 9], [9, 9], 18, False),
        (MatchEnd(MatchEndKind.WINS, 3), [2, 1, 0], [2, 1, 0], 3, False),
        (MatchEnd(MatchEndKind.WINS, 3), [3, 1, 0], [3, 1, 0], 4, True),
        (MatchEnd(MatchEndKind.HANDS, 5), [2, 2], [2, 2], 4, False),
        (MatchEnd(MatchEndKind.HANDS, 5), [3, 2], [3, 2], 5, True),
        (MatchEnd(MatchEndKind.POINTS, 50), [49, 10], [1, 1], 2, False),
        (MatchEnd(MatchEndKind.POINTS, 50), [50, 10], [1, 1], 2, True),
    ],
)
def test_match_end_rules(end, totals, wins, hands, over):
    assert rules.match_over(end, totals, wins, hands) is over


@pytest.mark.parametrize(
    "totals, first",
    [([], []), ([0, 3, 1], [1]), ([2, 2, 1], [0, 1]), ([1, 1, 1], [0, 1, 2])],
)
def test_leaders_name_a_winner_or_a_shared_first_place(totals, first):
    assert rules.leaders(totals) == first


@pytest.mark.parametrize(
    "kind, target",
    [(MatchEndKind.OPEN, 3), (MatchEndKind.WINS, None), (MatchEndKind.WINS, 0), (MatchEndKind.HANDS, 10_001)],
)
def test_nonsense_match_ends_are_refused(kind, target):
    with pytest.raises(RuleError):
        MatchEnd(kind, target)


def test_unknown_game_is_refused():
    with pytest.raises(RuleError, match="Unknown game"):
        rules.get_game("poker")


def test_summary_gives_pack_cards_each_and_players():
    assert AGRAM.summary() == "35-card pack · 6 cards each · 2–5 players"


def test_rules_import_nothing_from_django():
    import ast
    import pathlib

    for path in pathlib.Path(rules.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = [
            node.module if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in getattr(node, "names", [])
        ]
        assert not [name for name in imported if name and name.startswith("django")], path
