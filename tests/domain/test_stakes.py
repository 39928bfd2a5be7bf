"""What totals come to in chips (Cat Tê) and money (Fapfap at a stake), by tables of cases."""

import math

import pytest

from matches.domain.stakes import Stakes

CAT_TE = Stakes.of(True, 10, [3, 5], 2, None, "")  # stacks of 10, handed out again while hands 3 and 5 were open


@pytest.mark.parametrize(
    "before, issued",
    [(1, 10), (2, 10), (3, 20), (4, 20), (5, 30), (math.inf, 30)],
)
def test_chips_handed_out_by_the_time_a_hand_was_open(before, issued):
    assert CAT_TE.issued(before) == issued


@pytest.mark.parametrize("number, chips", [(1, 0), (2, 10), (3, 0), (4, 10), (5, 0)])
def test_chips_handed_out_right_after_a_hand(number, chips):
    assert CAT_TE.handed_out_after(number) == chips


@pytest.mark.parametrize(
    "stakes, totals, shown",
    [
        (CAT_TE, [5, -3, -2], [35, 27, 28]),  # chips in front: 30 handed to each, plus the totals
        (Stakes.of(False, None, [], 0, 100, "FCFA"), [3, 1, 0], [500, -100, -400]),  # 100 x (3 x own - 4)
        (Stakes.of(False, None, [], 0, None, ""), [3, 1, 0], [3, 1, 0]),  # points as they are
        (Stakes.of(False, 20, [], 0, None, ""), [2, 1], [2, 1]),  # a game without chips ignores a stack
    ],
)
def test_what_the_tally_shows(stakes, totals, shown):
    assert stakes.shown(totals) == shown


def test_a_batch_counted_but_not_dated_comes_after_every_hand():
    undated = Stakes.of(True, 10, [], 1, None, "")
    assert (undated.issued(1_000_000), undated.issued()) == (10, 20)


def test_net_money_sums_to_zero_and_is_zero_without_a_stake():
    assert sum(Stakes(stake=50).money([4, 0, 2, 1])) == 0
    assert Stakes().money([4, 0]) == [0, 0]
