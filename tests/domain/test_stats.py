"""Player statistics: a hand-made group of friends checked against figures worked out by hand, then properties."""

import datetime
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.domain import stats
from matches.domain.settlement import nets_from_hands
from matches.domain.stats import (
    COLUMNS,
    EXPLANATIONS,
    HandRecord,
    HeadToHead,
    MatchRecord,
    NightNets,
    PlayerStats,
    hand_shares,
    head_to_head,
    nightly_nets,
    hundredths,
    percent_of,
    player_stats,
    sort_rows,
    win_rate_over_time,
)

H = HandRecord
M = MatchRecord.from_hands  # the hand-made matches below are written hand by hand
ABANDONED = None


def one_win(seats: int, *winners: int | None) -> tuple[HandRecord, ...]:
    """Hands of a game where the winner scores 1 (Agram, Sink-Sink); None is an abandoned hand."""
    return tuple(H(w, tuple(int(seat == w) for seat in range(seats))) for w in winners)


def day(n: int) -> datetime.date:
    return datetime.date(2024, 3, n)


FAPFAP_HANDS = (  # stake 100; seats ana, cal, dia
    H(2, (0, 0, 2)),  # dia x2
    H(2, (0, 0, 4)),  # dia x4
    H(0, (1, 0, 0)),  # ana x1
    H(None, (0, 0, 0)),  # abandoned by End match
)
CAT_TE_HANDS = (  # seats ben, cal, dia; 20 chips each at the start
    H(0, (2, -1, -1)),  # ben, last trick
    H(2, (-2, -2, 4)),  # dia, dealt flush
    H(0, (2, -1, -1)),
    H(0, (2, -1, -1)),
)

GROUP = [
    # m1 Agram: winners ben, ana, cal, ana, ana -> ana 3, ben 1, cal 1. ana wins; ana's run of 2 ends the match.
    M("m1", "agram", day(1), ("ana", "ben", "cal"), (3, 1, 1), one_win(3, 1, 0, 2, 0, 0)),
    # m2 Agram, other seat order: winners ana, ana, ben, cal, ben -> ben 2, ana 2, cal 1: ben and ana share
    # the win. ana's run of 2 opens it: across matches it would be 4 with m1's, but runs stop at a match's end.
    M("m2", "agram", day(1), ("ben", "ana", "cal"), (2, 2, 1), one_win(3, 1, 1, 0, 2, 0)),
    # m3 Fapfap for 100, ended early with its open hand abandoned: ana 1, cal 0, dia 6 -> dia wins.
    # Money: dia x2 (+400, ana -200, cal -200), dia x4 (+800, -400, -400), ana x1 (+200, cal -100, dia -100):
    # ana -200 - 400 + 200 = -400, cal -200 - 400 - 100 = -700, dia 400 + 800 - 100 = 1100.
    M(
        "m3",
        "fapfap",
        day(8),
        ("ana", "cal", "dia"),
        (1, 0, 6),
        FAPFAP_HANDS,
        ended_early=True,
        money=(-400, -700, 1100),
    ),
    # m4 Cat Tê: chips ben 20 + 2 - 2 + 2 + 2 = 24, cal 20 - 1 - 2 - 1 - 1 = 15, dia 20 - 1 + 4 - 1 - 1 = 21.
    M("m4", "cat-te", day(8), ("ben", "cal", "dia"), (24, 15, 21), CAT_TE_HANDS, chips_net=(4, -5, 1)),
    # m5 Agram ended before any hand was won: counts nowhere (counted, it would be a shared win for both).
    M("m5", "agram", day(15), ("ana", "dia"), (0, 0), one_win(2, ABANDONED), ended_early=True),
    # m6 Sink-Sink: cal wins all three hands.
    M("m6", "sink-sink", day(15), ("cal", "dia"), (3, 0), one_win(2, 0, 0, 0)),
]


def test_the_fapfap_money_of_the_group_is_what_settlement_computes():
    assert nets_from_hands([hand.points for hand in FAPFAP_HANDS], 100) == [-400, -700, 1100]


def test_player_stats_of_the_group_worked_by_hand():
    assert player_stats(GROUP) == {
        # ana: m1 won, m2 shared, m3 lost (m5 not counted). Hands 5 + 5 + 3 (the abandoned one is not
        # played) = 13; won 3 + 2 + 1 = 6; points 3 + 2 + 1 = 6. Best run 2 (m1's last two, m2's first two).
        "ana": PlayerStats(
            matches_played=3,
            matches_won=2,
            win_rate=2 / 3,
            hands_played=13,
            hands_won=6,
            hand_share=6 / 13,
            points_per_hand=6 / 13,
            best_run=2,
            net_chips=None,
            net_money=-400,
            recent_form=("L", "W", "W"),
        ),
        # ben: m1 lost, m2 shared, m4 won. Hands 5 + 5 + 4 = 14; won 1 + 2 + 3 = 6; points 1 + 2 + (2 - 2 + 2 + 2)
        # = 7. Best run 2 (m4's hands 3 and 4; his two m2 wins are hands 3 and 5).
        "ben": PlayerStats(3, 2, 2 / 3, 14, 6, 6 / 14, 7 / 14, 2, 4, None, ("W", "W", "L")),
        # cal: lost m1 (1 against 3), m2, m3, m4; won m6. Hands 5 + 5 + 3 + 4 + 3 = 20; won 1 + 1 + 0 + 0 + 3 = 5;
        # points 1 + 1 + 0 + (-1 - 2 - 1 - 1) + 3 = 0. Best run 3 (m6).
        "cal": PlayerStats(5, 1, 1 / 5, 20, 5, 5 / 20, 0 / 20, 3, -5, -700, ("W", "L", "L", "L", "L")),
        # dia: won m3, lost m4 and m6 (m5 not counted). Hands 3 + 4 + 3 = 10; won 2 + 1 + 0 = 3;
        # points 6 + (-1 + 4 - 1 - 1) + 0 = 7. Best run 2 (m3's first two).
        "dia": PlayerStats(3, 1, 1 / 3, 10, 3, 3 / 10, 7 / 10, 2, 1, 1100, ("L", "L", "W")),
    }


def test_player_stats_of_one_game():
    agram = player_stats(GROUP, game="agram")
    # ana: m1 and m2 won (one shared): hands 10, won 5, points 5, best run 2.
    assert agram["ana"] == PlayerStats(2, 2, 1.0, 10, 5, 0.5, 0.5, 2, None, None, ("W", "W"))
    # ben: m1 lost, m2 shared; hands 10, won 1 + 2 = 3.
    assert agram["ben"] == PlayerStats(2, 1, 0.5, 10, 3, 0.3, 0.3, 1, None, None, ("W", "L"))
    # dia sat only at m5, where no hand was won: listed, with nothing counted.
    assert agram["dia"] == PlayerStats()
    assert agram["dia"].win_rate is None and agram["dia"].points_per_hand is None


def test_head_to_head_of_the_group_worked_by_hand():
    assert head_to_head(GROUP) == {
        ("ana", "ben"): HeadToHead(2, 1, 0, 1),  # m1 ana 3 > ben 1; m2 2 = 2
        ("ana", "cal"): HeadToHead(3, 3, 0, 0),  # m1 3 > 1, m2 2 > 1, m3 1 > 0
        ("ana", "dia"): HeadToHead(1, 0, 1, 0),  # m3 1 < 6 (m5 not counted)
        ("ben", "cal"): HeadToHead(3, 2, 0, 1),  # m1 1 = 1, m2 2 > 1, m4 24 > 15
        ("ben", "dia"): HeadToHead(1, 1, 0, 0),  # m4 24 > 21
        ("cal", "dia"): HeadToHead(3, 1, 2, 0),  # m3 0 < 6, m4 15 < 21, m6 3 > 0
    }
    assert head_to_head(GROUP, game="cat-te") == {
        ("ben", "cal"): HeadToHead(1, 1, 0, 0),
        ("ben", "dia"): HeadToHead(1, 1, 0, 0),
        ("cal", "dia"): HeadToHead(1, 0, 1, 0),
    }


def test_win_rate_over_time_worked_by_hand():
    assert win_rate_over_time(GROUP, "ana") == [("m1", 1.0), ("m2", 1.0), ("m3", 2 / 3)]
    assert win_rate_over_time(GROUP, "cal") == [("m1", 0.0), ("m2", 0.0), ("m3", 0.0), ("m4", 0.0), ("m6", 0.2)]
    assert win_rate_over_time(GROUP, "nobody") == []


def test_recent_form_keeps_the_last_ten_newest_first():
    # ana wins the odd-numbered matches 1..11 of 12, ben the even ones.
    matches = [
        M(f"k{n}", "agram", day(1), ("ana", "ben"), (n % 2, 1 - n % 2), one_win(2, 1 - n % 2)) for n in range(1, 13)
    ]
    stats = player_stats(matches)
    assert stats["ana"].recent_form == ("L", "W") * 5  # k12 .. k3
    assert stats["ana"].matches_played == 12


def test_sort_rows():
    stats = player_stats(GROUP)

    def order(column, descending=True):
        return [key for key, _ in sort_rows(stats, column, descending)]

    assert order("matches_played") == ["cal", "ana", "ben", "dia"]  # ana, ben, dia tie at 3: by key
    assert order("matches_played", descending=False) == ["ana", "ben", "dia", "cal"]
    assert order("net_money") == ["dia", "ana", "cal", "ben"]  # ben has no money figure: last
    assert order("net_money", descending=False) == ["cal", "ana", "dia", "ben"]
    agram = player_stats(GROUP, game="agram")
    assert [k for k, _ in sort_rows(agram, "win_rate", descending=False)] == ["cal", "ben", "ana", "dia"]


def test_sort_rows_refuses_an_unknown_column_and_lists_the_valid_ones():
    with pytest.raises(ValueError, match="choose one of matches_played, matches_won, win_rate"):
        sort_rows({}, "elo")


def test_every_figure_is_explained_in_one_plain_sentence():
    assert set(COLUMNS) <= set(EXPLANATIONS)
    assert all(isinstance(text, str) and text.endswith(".") for text in EXPLANATIONS.values())


def test_the_explanations_cover_the_matches_the_figures_count():
    """A match ended early counts (with its standings); one still being played is not read at all."""
    record = stats.MatchRecord(
        1, "agram", datetime.date(2025, 3, 8), (1, 2), (2, 1), (2, 1), (2, 1), (2, 1), ended_early=True
    )
    assert stats.player_stats([record])[1].matches_won == 1
    assert "ended early counts" in stats.EXPLANATIONS["matches_played"]
    assert "ended early" in stats.EXPLANATIONS["matches_won"]


@pytest.mark.parametrize(
    "match, message",
    [
        ({"players": ("ana", "ana"), "finals": (0, 0)}, "sits twice"),
        ({"players": ("ana", "ben"), "finals": (1,)}, "finals has 1 entries for 2 seats"),
        ({"players": ("ana", "ben"), "finals": (1, 0), "hands": (H(0, (1,)),)}, "hand 1 has 1 entries"),
        ({"players": ("ana", "ben"), "finals": (1, 0), "hands": (H(2, (0, 0)),)}, "hand 1 names seat 2"),
    ],
)
def test_records_that_do_not_fit_their_seats_are_refused(match, message):
    with pytest.raises(ValueError, match=message):
        M("x", "agram", day(1), **match)


@pytest.mark.parametrize(
    "summary, message",
    [
        ({"hands_won": (1,), "best_runs": (1, 0), "points": (1, 0)}, "hands_won has 1 entries for 2 seats"),
        ({"hands_won": (1, 0), "best_runs": (1, 0), "points": (1,)}, "points has 1 entries"),
        ({"hands_won": (1, 0), "best_runs": (2, 0), "points": (1, 0)}, "seat 0 has a best run of 2 in 1 hands won"),
        ({"hands_won": (1, 0), "best_runs": (1, 0), "points": (1, 0), "money": (5,)}, "money has 1 entries"),
    ],
)
def test_summaries_that_do_not_fit_are_refused(summary, message):
    with pytest.raises(ValueError, match=message):
        MatchRecord("x", "agram", day(1), ("ana", "ben"), (1, 0), **summary)


def test_a_record_from_per_seat_summaries_is_the_record_from_its_hands():
    """What the database keeps per seat (hands won, best run, total) makes the same record as the hands."""
    for match in GROUP:
        summed = MatchRecord(
            match.key,
            match.game,
            match.day,
            match.players,
            match.finals,
            hands_won=match.hands_won,
            best_runs=match.best_runs,
            points=match.points,
            ended_early=match.ended_early,
            money=match.money,
            chips_net=match.chips_net,
        )
        assert summed == match
    # m1: winners ben, ana, cal, ana, ana (seats ana, ben, cal)
    assert (GROUP[0].hands_won, GROUP[0].best_runs, GROUP[0].points, GROUP[0].hands_played) == (
        (3, 1, 1),
        (2, 1, 1),
        (3, 1, 1),
        5,
    )
    # m3's abandoned hand is no hand played; m5 has none at all and does not count.
    assert (GROUP[2].hands_played, GROUP[4].hands_played, GROUP[4].counts) == (3, 0, False)


def test_hand_shares_of_the_group_worked_by_hand():
    """Agram m1 + m2 (10 hands): ana 3 + 2, ben 1 + 2, cal 1 + 1; Fapfap m3 (3 hands played): ana 1,
    cal 0, dia 2; Cat Tê m4: ben 3, cal 0, dia 1 of 4; Sink-Sink m6: cal 3, dia 0 of 3. m5 counts nowhere."""
    assert hand_shares(GROUP) == {
        "agram": {"ana": 5 / 10, "ben": 3 / 10, "cal": 2 / 10},
        "fapfap": {"ana": 1 / 3, "cal": 0 / 3, "dia": 2 / 3},
        "cat-te": {"ben": 3 / 4, "cal": 0 / 4, "dia": 1 / 4},
        "sink-sink": {"cal": 3 / 3, "dia": 0 / 3},
    }


def test_money_in_one_currency_at_a_time():
    euros = M("e1", "fapfap", day(20), ("ana", "dia"), (0, 1), (H(1, (0, 1)),), money=(-5, 5), currency="€")
    group = [*GROUP, euros]
    assert player_stats(group)["dia"].net_money == 1100 + 5  # every currency added up: give one when they differ
    francs = player_stats(group, currency="")
    assert (francs["dia"].net_money, francs["ana"].net_money) == (1100, -400)
    assert player_stats(group, currency="€")["dia"].net_money == 5
    assert player_stats(group, currency="€")["cal"].net_money is None


def test_matches_must_come_oldest_first():
    with pytest.raises(ValueError, match="oldest first: m1"):
        player_stats([GROUP[2], GROUP[0]])


# --- properties ---------------------------------------------------------------------------

NAMES = ("ana", "ben", "cal", "dia", "eve")


@st.composite
def a_match(draw, number: int) -> MatchRecord:
    players = tuple(draw(st.permutations(NAMES))[: draw(st.integers(2, 4))])
    winners = draw(st.lists(st.one_of(st.none(), st.integers(0, len(players) - 1)), max_size=8))
    hands = []
    for winner in winners:
        points = [0] * len(players)
        if winner is not None:
            points[winner] = draw(st.integers(1, 4))
        hands.append(H(winner, tuple(points)))
    finals = tuple(sum(hand.points[seat] for hand in hands) for seat in range(len(players)))
    return M(f"m{number}", draw(st.sampled_from(["agram", "spar"])), day(1), players, finals, tuple(hands))


matches_lists = st.integers(0, 8).flatmap(lambda n: st.tuples(*[a_match(i) for i in range(n)]).map(list))


@given(matches_lists)
def test_counts_add_up(matches):
    stats = player_stats(matches)
    counted = [match for match in matches if any(match.hands_won)]
    assert sum(s.matches_won for s in stats.values()) >= len(counted)  # every counted match has a winner
    assert sum(s.matches_played for s in stats.values()) == sum(len(m.players) for m in counted)
    assert sum(s.hands_won for s in stats.values()) == sum(sum(m.hands_won) for m in counted)
    for s in stats.values():
        assert (s.win_rate is None) == (s.matches_played == 0)
        assert s.win_rate is None or 0 <= s.win_rate <= 1
        assert s.hand_share is None or 0 <= s.hand_share <= 1
        assert s.best_run <= s.hands_won <= s.hands_played
        assert len(s.recent_form) == min(10, s.matches_played)
        assert s.recent_form.count("W") <= s.matches_won


@given(matches_lists)
def test_hand_shares_are_each_games_player_stats_share(matches):
    shares = hand_shares(matches)
    for game in ("agram", "spar"):
        expected = {p: s.hand_share for p, s in player_stats(matches, game).items() if s.hand_share is not None}
        assert shares.get(game, {}) == expected


@given(matches_lists)
def test_head_to_head_is_symmetric(matches):
    pairs = head_to_head(matches)
    stats = player_stats(matches)
    for (first, second), record in pairs.items():
        assert first < second
        assert record.first_wins + record.second_wins + record.draws == record.matches
        assert record.matches <= min(stats[first].matches_played, stats[second].matches_played)
    # Renamed so that every pair sorts the other way round, the wins swap sides.
    flip = {name: f"z{len(NAMES) - i}" for i, name in enumerate(NAMES)}
    renamed = [replace(m, players=tuple(flip[p] for p in m.players)) for m in matches]
    flipped = head_to_head(renamed)
    assert len(flipped) == len(pairs)
    for (first, second), record in pairs.items():
        other = flipped[flip[second], flip[first]]
        assert (other.matches, other.first_wins, other.second_wins, other.draws) == (
            record.matches,
            record.second_wins,
            record.first_wins,
            record.draws,
        )


@given(matches_lists, st.sampled_from(NAMES))
def test_the_win_rate_over_time_ends_at_the_win_rate(matches, player):
    over_time = win_rate_over_time(matches, player)
    stats = player_stats(matches).get(player, PlayerStats())
    assert len(over_time) == stats.matches_played
    assert (over_time[-1][1] if over_time else None) == stats.win_rate


@given(matches_lists, st.sampled_from(COLUMNS), st.booleans())
def test_sort_rows_keeps_every_row_and_puts_none_last(matches, column, descending):
    stats = player_stats(matches)
    rows = sort_rows(stats, column, descending)
    assert sorted(key for key, _ in rows) == sorted(stats)
    values = [getattr(s, column) for _, s in rows]
    present = [v for v in values if v is not None]
    assert values == present + [None] * (len(values) - len(present))
    assert present == sorted(present, reverse=descending)


def test_nightly_nets_worked_by_hand():
    # The 8th: m3 in money (no currency named) and m4 in chips; the other nights moved neither.
    euros = M("e1", "fapfap", day(20), ("ana", "dia"), (0, 1), (H(1, (0, 1)),), money=(-5, 5), currency="€")
    empty = M("e2", "fapfap", day(20), ("ana", "dia"), (0, 0), (H(None, (0, 0)),), money=(0, 0), currency="€")
    assert nightly_nets([*GROUP, euros, empty]) == [
        NightNets(day(20), False, "€", ("e1",), {"ana": -5, "dia": 5}),  # newest first; e2 had no hand won
        NightNets(day(8), False, "", ("m3",), {"ana": -400, "cal": -700, "dia": 1100}),
        NightNets(day(8), True, "", ("m4",), {"ben": 4, "cal": -5, "dia": 1}),
    ]


@given(matches_lists)
def test_every_night_nets_to_zero(matches):
    with_money = [replace(m, money=tuple(len(m.players) * w - sum(m.hands_won) for w in m.hands_won)) for m in matches]
    for night in nightly_nets(with_money):
        assert sum(night.nets.values()) == 0


@pytest.mark.parametrize(
    "part, whole, percent", [(5, 8, 63), (1, 8, 13), (2, 3, 67), (1, 3, 33), (1, 200, 1), (0, 5, 0), (5, 5, 100)]
)
def test_a_share_is_a_whole_percent_rounded_as_people_round(part, whole, percent):
    assert percent_of(part / whole) == percent


@pytest.mark.parametrize(
    "part, whole, shown",
    [(2, 3, "0.67"), (1, 3, "0.33"), (1, 8, "0.13"), (-1, 8, "-0.13"), (201, 200, "1.01"), (5, 4, "1.25"), (0, 7, "0.00")],
)
def test_a_figure_per_hand_has_two_decimals_rounded_half_up_not_cut(part, whole, shown):
    assert str(hundredths(part / whole)) == shown
