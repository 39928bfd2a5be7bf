"""Settling up: hand-worked tables, then properties checked against brute-force minimums written here."""

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.domain import settlement
from matches.domain.names import name_order
from matches.domain.rules import GAMES
from matches.domain.settlement import Settling, Transfer, nets_from_hands, nets_from_totals, round_nets, settle, settling

T = Transfer


@pytest.mark.parametrize(
    "nets, expected",
    [
        # Two players: the loser pays the winner.
        ({"ana": 300, "ben": -300}, [T("ben", "ana", 300)]),
        # At the table ana paid ben 10 and ben paid cal 10 (two payments); ben nets 0: one transfer.
        ({"ana": -10, "ben": 0, "cal": 10}, [T("ana", "cal", 10)]),
        # One creditor, two debtors: each debtor pays, 2 transfers.
        ({"ana": -500, "ben": -700, "cal": 1200}, [T("ana", "cal", 500), T("ben", "cal", 700)]),
        # Two zero-sum pairs inside four players: 2 transfers, not 3.
        ({"ana": 5, "ben": -7, "cal": -5, "dia": 7}, [T("ben", "dia", 7), T("cal", "ana", 5)]),
        # Groups {ana +5, ben -2, cal -3} and {dia +4, eve -4}: 2 + 1 transfers. Largest debtor
        # paying largest creditor over all five would take 4 (eve->ana 4, cal->dia 3, ben->ana 1, ben->dia 1).
        (
            {"ana": 5, "ben": -2, "cal": -3, "dia": 4, "eve": -4},
            [T("ben", "ana", 2), T("cal", "ana", 3), T("eve", "dia", 4)],
        ),
        # Nobody owes anything.
        ({"ana": 0, "ben": 0}, []),
        ({}, []),
    ],
)
def test_hand_worked_settlements(nets, expected):
    assert settle(nets) == expected


def test_without_the_exact_split_the_greedy_takes_one_more_transfer(monkeypatch):
    nets = {"ana": 5, "ben": -2, "cal": -3, "dia": 4, "eve": -4}
    monkeypatch.setattr(settlement, "EXACT_LIMIT", 0)
    assert settle(nets) == [T("ben", "ana", 1), T("ben", "dia", 1), T("cal", "dia", 3), T("eve", "ana", 4)]


def test_nets_that_do_not_sum_to_zero_are_refused_with_the_sum():
    with pytest.raises(ValueError, match="sum to 3"):
        settle({"ana": 10, "ben": -7})


def test_amounts_must_be_whole():
    with pytest.raises(TypeError, match="round_nets"):
        settle({"ana": 2.5, "ben": -2.5})


def test_fourteen_players_are_split_exactly():
    nets = {f"p{k:02}": k for k in range(1, 8)} | {f"q{k:02}": -k for k in range(1, 8)}
    assert settle(nets) == [T(f"q{k:02}", f"p{k:02}", k) for k in range(1, 8)]


# --- properties ----------------------------------------------------------------------


def named(values: list[int]) -> dict[str, int]:
    return {f"p{i}": value for i, value in enumerate(values)}


@st.composite
def balanced(draw, max_players: int = 7, max_amount: int = 6) -> dict[str, int]:
    """Nets summing to 0, often made of several zero-sum groups (the case the exact split is for)."""
    groups = draw(st.lists(st.lists(st.integers(-max_amount, max_amount), max_size=3), min_size=1, max_size=3))
    values = [value for group in groups for value in [*group, -sum(group)]][: max_players - 1]
    values.append(-sum(values))
    return named(draw(st.permutations(values)))


def fewest_by_partitions(nets: dict[str, int]) -> int:
    """Non-zero players minus the most zero-sum blocks of any partition of them, by trying every partition."""

    def partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for partition in partitions(rest):
            yield [[first], *partition]
            for i, block in enumerate(partition):
                yield [*partition[:i], [first, *block], *partition[i + 1 :]]

    values = [value for value in nets.values() if value]
    if not values:
        return 0
    return len(values) - max(len(p) for p in partitions(values) if all(sum(block) == 0 for block in p))


def fewest_by_search(nets: dict[str, int]) -> int:
    """Breadth-first search over every sequence of debtor-to-creditor payments, of any amount."""
    start = tuple(nets.values())
    seen, queue = {start}, deque([(start, 0)])
    while queue:
        state, steps = queue.popleft()
        if not any(state):
            return steps
        for payer, debt in enumerate(state):
            for payee, credit in enumerate(state):
                for amount in range(1, min(-debt, credit) + 1):
                    after = list(state)
                    after[payer] += amount
                    after[payee] -= amount
                    if tuple(after) not in seen:
                        seen.add(tuple(after))
                        queue.append((tuple(after), steps + 1))
    raise AssertionError("unreachable: nets summing to 0 can always be settled")


def apply(transfers: list[Transfer], nets: dict[str, int]) -> dict[str, int]:
    after = dict(nets)
    for transfer in transfers:
        after[transfer.payer] += transfer.amount
        after[transfer.payee] -= transfer.amount
    return after


@settings(deadline=None)
@given(balanced(max_players=20, max_amount=50))
def test_transfers_settle_everyone_with_positive_amounts_from_debtors_to_creditors(nets):
    transfers = settle(nets)
    assert all(value == 0 for value in apply(transfers, nets).values())
    assert all(t.amount > 0 and nets[t.payer] < 0 < nets[t.payee] for t in transfers)
    assert len({(t.payer, t.payee) for t in transfers}) == len(transfers)
    assert len(transfers) <= max(0, sum(1 for value in nets.values() if value) - 1)
    assert transfers == sorted(transfers, key=lambda t: (t.payer, t.payee))


@given(balanced())
def test_the_count_is_the_brute_force_minimum(nets):
    assert len(settle(nets)) == fewest_by_partitions(nets)


@settings(deadline=None)
@given(balanced(max_players=4, max_amount=3))
def test_the_count_is_the_fewest_any_payment_sequence_reaches(nets):
    assert len(settle(nets)) == fewest_by_search(nets)


@given(balanced(), st.randoms())
def test_the_result_does_not_depend_on_the_order_of_the_nets(nets, random):
    shuffled = list(nets.items())
    random.shuffle(shuffled)
    assert settle(dict(shuffled)) == settle(nets)


# --- Fapfap nets from stored hands ---------------------------------------------------------


def fapfap(seats: int, winner: int, multiplier: str) -> tuple[int, ...]:
    """The points a Fapfap hand stores, from the rules registry itself."""
    return GAMES["fapfap"].score_hand(seats, winner, {"multiplier": multiplier})


def test_fapfap_nets_worked_by_hand():
    hands = [fapfap(3, 1, "1"), fapfap(3, 0, "4"), fapfap(3, 1, "2"), (0, 0, 0)]  # the last one abandoned
    assert hands[:3] == [(0, 1, 0), (4, 0, 0), (0, 2, 0)]  # winner's entry is the multiplier
    # Stake 100, 3 seats: a winner takes 2 x 100 x m, each other pays 100 x m.
    # seat 0: -100 + 800 - 200 = 500; seat 1: 200 - 400 + 400 = 200; seat 2: -100 - 400 - 200 = -700.
    assert nets_from_hands(hands, 100) == [500, 200, -700]
    assert settle(named([500, 200, -700])) == [T("p2", "p0", 500), T("p2", "p1", 200)]


def test_no_hand_gives_no_nets():
    assert nets_from_hands([], 100) == []


@pytest.mark.parametrize(
    "hands, stake, message",
    [
        ([(1, 0)], 0, "at least 1"),
        ([(1, 0), (0, 1, 0)], 5, "Hand 2 has 3 seats"),
        ([(1, 2, 0)], 5, "one winner"),
        ([(-1, 0, 0)], 5, "one winner"),
    ],
)
def test_impossible_hands_are_refused(hands, stake, message):
    with pytest.raises(ValueError, match=message):
        nets_from_hands(hands, stake)


@given(
    st.integers(2, 7).flatmap(
        lambda seats: st.lists(
            st.tuples(st.integers(0, seats - 1), st.sampled_from("124")).map(lambda h: fapfap(seats, *h)), min_size=1
        )
    ),
    st.integers(1, 1000),
)
def test_fapfap_nets_sum_to_zero_and_follow_the_multipliers(hands, stake):
    nets = nets_from_hands(hands, stake)
    assert sum(nets) == 0
    seats = len(hands[0])
    # A seat's net is what it won (n - 1 shares of its multipliers) minus what it paid on the others' wins.
    every_multiplier = sum(sum(points) for points in hands)
    for seat, net in enumerate(nets):
        own = sum(points[seat] for points in hands)
        assert net == stake * (seats * own - every_multiplier)


def test_fapfap_nets_from_the_seats_totals_worked_by_hand():
    # The hands above: seat 0 won x4 (total 4), seat 1 x1 and x2 (total 3), seat 2 nothing; T = 7.
    # stake 100, n = 3: 100 x (3 x 4 - 7) = 500, 100 x (9 - 7) = 200, 100 x (0 - 7) = -700.
    assert nets_from_totals([4, 3, 0], 100) == [500, 200, -700]
    assert nets_from_totals([0, 0], 50) == [0, 0]
    with pytest.raises(ValueError, match="at least 1"):
        nets_from_totals([1, 0], 0)
    with pytest.raises(ValueError, match="never negative"):
        nets_from_totals([-1, 1], 5)


@given(
    st.integers(2, 7).flatmap(
        lambda seats: st.lists(
            st.tuples(st.integers(0, seats - 1), st.sampled_from("124")).map(lambda h: fapfap(seats, *h)), min_size=1
        )
    ),
    st.integers(1, 1000),
)
def test_the_seats_totals_give_the_nets_the_hands_give(hands, stake):
    totals = [sum(points[seat] for points in hands) for seat in range(len(hands[0]))]
    assert nets_from_totals(totals, stake) == nets_from_hands(hands, stake)


def test_a_settling_names_the_players_in_reading_order_whatever_their_keys():
    names = {2: "Ngono", 0: "Mbarga", 1: "Éloïse", 3: "Ateba"}  # keys: seat positions, in seat order or not
    result = settling(names, {0: -300, 1: -200, 2: 300, 3: 200}, unit="FCFA")
    assert result == Settling(
        unit="FCFA",
        chips=False,
        nets=(("Ateba", 200), ("Éloïse", -200), ("Mbarga", -300), ("Ngono", 300)),
        transfers=(T("Éloïse", "Ateba", 200), T("Mbarga", "Ngono", 300)),
    )
    assert settling({"a": "A", "b": "B"}, {"a": 4, "b": -4}, chips=True).transfers == (T("B", "A", 4),)
    with pytest.raises(ValueError, match="sum to 1"):
        settling({0: "A"}, {0: 1})


NAMES = st.lists(
    st.text("abcdefghijklmnopqrstuvwxyzÀÏé", min_size=1, max_size=6), min_size=1, max_size=7, unique_by=str.casefold
)


@st.composite
def nets_by_name(draw) -> dict[str, int]:
    names = draw(NAMES)
    values = draw(st.lists(st.integers(-6, 6), min_size=len(names) - 1, max_size=len(names) - 1))
    values.append(-sum(values))
    return dict(zip(names, values))


@given(nets_by_name(), st.randoms(use_true_random=False), st.randoms(use_true_random=False))
def test_permuting_or_rekeying_the_players_never_changes_the_payments(nets, first, second):
    """The match page keys its players by seat, the statistics page by player id, in another order:
    the payments are the same whatever the keys and their order, and both list them by payer, then
    payee, in reading order (names.name_order)."""

    def settled(random):
        names = list(nets)
        random.shuffle(names)
        keys = random.sample(range(1000), len(names))  # any keys, in any order
        key_of = dict(zip(names, keys))
        result = settling({key_of[n]: n for n in names}, {key_of[n]: nets[n] for n in names})
        assert list(result.transfers) == sorted(
            result.transfers, key=lambda t: (name_order(t.payer), name_order(t.payee))
        )
        assert [name for name, _net in result.nets] == sorted(nets, key=name_order)
        return result

    assert settled(first) == settled(second)


# --- rounding -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nets, expected",
    [
        # floors 2, 2, -5 take 1 away; ana and ben both lost .5: the unit goes to ana (by name).
        ({"ana": 2.5, "ben": 2.5, "cal": -5.0}, {"ana": 3, "ben": 2, "cal": -5}),
        # floors 1, -1, -2 take 2 away; fractions lost .7, .6, .7: ana and cal get them back.
        ({"ana": 1.7, "ben": -0.4, "cal": -1.3}, {"ana": 2, "ben": -1, "cal": -1}),
        ({"ana": 7, "ben": -7}, {"ana": 7, "ben": -7}),
        ({}, {}),
    ],
)
def test_rounding_worked_by_hand(nets, expected):
    assert round_nets(nets) == expected


@pytest.mark.parametrize("nets", [{"ana": 1.5, "ben": -1.0}, {"ana": float("nan"), "ben": 0.0}])
def test_rounding_refuses_nets_that_do_not_balance(nets):
    with pytest.raises(ValueError):
        round_nets(nets)


@given(st.lists(st.integers(-(10**6), 10**6), max_size=9), st.integers(1, 7))
def test_rounded_nets_sum_to_zero_and_stay_within_one(cents, divisor):
    nets = named([*cents, -sum(cents)])
    shares = {player: value / divisor for player, value in nets.items()}
    rounded = round_nets(shares)
    assert sum(rounded.values()) == 0
    assert all(abs(rounded[player] - share) < 1 for player, share in shares.items())
    assert settle(rounded) is not None  # whole and balanced: settle accepts it
