"""Who plays, deals and leads when the table changes mid-match; the money of a changed table."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.domain import seating
from matches.domain.rules import GAMES, RuleError
from matches.domain.settlement import nets_from_totals, settle
from matches.domain.stakes import Part, Stakes
from matches.domain.seating import Stay


def test_a_seat_plays_from_the_hand_it_joined_until_the_hand_it_left():
    stays = [Stay(), Stay(1, 4), Stay(3)]
    assert seating.playing(stays, 1) == (0, 1)
    assert seating.playing(stays, 3) == (0, 1, 2)
    assert seating.playing(stays, 4) == (0, 2)


@pytest.mark.parametrize("slug", ["letzter-stich", "eighty-three"])  # the deal goes round
def test_the_deal_passes_to_the_next_player_when_the_dealer_left(slug):
    game = GAMES[slug]
    assert seating.dealer_after(game, (0, 2, 3), dealer=1, winner=0) == 2
    assert seating.dealer_after(game, (0, 1, 2), dealer=2, winner=0) == 0  # round the table
    assert seating.dealer_after(game, (0, 1, 2, 3), dealer=2, winner=0) == 3  # the newcomer sits last


def test_where_the_winner_deals_a_winner_who_left_passes_the_deal_on():
    agram = GAMES["agram"]
    assert seating.dealer_after(agram, (0, 2, 3), dealer=0, winner=2) == 2
    assert seating.dealer_after(agram, (0, 2, 3), dealer=0, winner=1) == 2
    assert seating.dealer_after(agram, (0, 2, 3), dealer=1, winner=None) == 2  # abandoned: the deal stays, or passes


def test_the_leader_is_found_among_those_who_play():
    letzter = GAMES["letzter-stich"]  # the player before the dealer leads
    assert seating.leader_for(letzter, (0, 2, 3), dealer=2) == 0
    assert seating.leader_for(letzter, (0, 2, 3), dealer=0) == 3
    assert seating.leader_for(GAMES["eighty-three"], (0, 2, 3), dealer=0) == 2


def test_a_hand_is_scored_among_those_who_play_it_and_spread_over_every_seat():
    cat_te = GAMES["cat-te"]  # each opponent pays the winner; a seat that left pays nothing
    answers, points = seating.score(cat_te, seating.Hand((0, 2, 3), 4), 3, {"how": "last"})
    assert points == [-1, 0, -1, 2]
    answers, points = seating.score(cat_te, seating.Hand((0, 2, 3), 4), 3, {"how": "sweep", "aces": ["1"]})
    assert answers["aces"] == (0,) and points == [-3, 0, -2, 5]


def test_a_seat_that_does_not_play_the_hand_cannot_be_named_in_its_answers():
    with pytest.raises(RuleError, match="2 does not play this hand"):
        seating.score(GAMES["cat-te"], seating.Hand((0, 2, 3), 4), 3, {"how": "sweep", "aces": ["2"]})


@given(st.data())
def test_the_money_of_a_changed_table_sums_to_zero_and_pays_each_part_by_who_played_it(data):
    """Fapfap: in each part, every other player pays the winner; a part's money comes from its hands only."""
    width = data.draw(st.integers(2, 6))
    starts, parts, hands = [], [], []
    totals = [0] * width
    number = 1
    for _ in range(data.draw(st.integers(1, 4))):
        seats = tuple(sorted(data.draw(st.sets(st.integers(0, width - 1), min_size=2))))
        parts.append(Part(number, seats, tuple(totals)))
        for _ in range(data.draw(st.integers(0, 4))):
            winner, times = data.draw(st.sampled_from(seats)), data.draw(st.sampled_from([1, 2, 4]))
            totals[winner] += times
            hands.append((seats, winner, times))
            number += 1
        starts.append(number)
    stake = data.draw(st.integers(1, 500))
    nets = Stakes(stake=stake, parts=tuple(parts)).money(totals)
    expected = [0] * width
    for seats, winner, times in hands:  # paid hand by hand, as a table does
        for seat in seats:
            if seat != winner:
                expected[seat] -= stake * times
                expected[winner] += stake * times
    assert nets == expected
    assert sum(nets) == 0
    assert sum(transfer.amount for transfer in settle(dict(enumerate(nets)))) == sum(n for n in nets if n > 0)


def test_without_a_change_the_money_is_the_usual_stake_times_totals():
    assert Stakes(stake=100).money([3, 0, 1]) == nets_from_totals([3, 0, 1], 100)


def test_a_newcomer_to_cat_te_gets_a_stack_then_and_each_one_handed_out_after():
    stakes = Stakes(chips=20, batches=(3.0, 7.0), joined=(1, 5))
    assert stakes.shown([4, -4]) == [20 * 3 + 4, 20 * 2 - 4]
