"""The score chart on the match table: in every tap's answer, the same numbers as the tally (no point
for a hand nobody played), a few hundred bytes however long the match (its queries: the cost test of
tests/web/test_views.py)."""

import gzip
import re

import pytest

from matches.domain import rules
from matches.models import Sitting

from tests.conftest import play
from tests.pages import HX, chart_of, url

# The chart is drawn from the hands' running totals, the same on any engine: the SQLite leg only (the tap's
# answer with its chart, read under the tap's lock, byte for byte: tests/web/test_tap_answer.py, both legs).
pytestmark = pytest.mark.django_db
ROW = re.compile(r'<tr><th scope="row">([^<]+)</th>((?:<td>[^<]*</td>)+)</tr>')  # any row, its heading as said
TABLE_ROW = re.compile(r'<tr><th scope="row">(\d+)</th>((?:<td>[\u2212+]?[\d,]+</td>)+)</tr>')  # a negative: U+2212
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Fatouma", "Garba", "Habsatou", "Issoufou"]


def last_row(figure: str) -> tuple[int, list[int]]:
    number, cells = TABLE_ROW.findall(figure)[-1]
    return int(number), [int(v.replace("\u2212", "-").replace(",", "")) for v in re.findall(r"[\u2212+]?[\d,]+", cells)]


def test_no_chart_before_the_first_hand_and_one_in_every_taps_answer(client, sitting):
    assert chart_of(client.get(url(sitting)).content.decode()) == ""
    for number, winner in enumerate([3, 1, 3], start=1):
        body = client.post(url(sitting, "tap/"), {"number": number, "winner": winner}, **HX).content.decode()
        figure = chart_of(body)
        assert "<svg" in figure and last_row(figure)[0] == number
        assert all(name in figure for name in ["Aïcha", "Boubacar", "Chaibou", "Djibo"])  # each line named
    assert last_row(figure)[1] == [1, 0, 2, 0]


@pytest.mark.parametrize(
    "game, options, winners, answers",
    [
        ("cat-te", {}, [0, 1, 1, 2], {"how": "flush"}),
        ("fapfap", {"stake_amount": 100, "stake_label": "CFA"}, [0, 1, 1, 2], {"multiplier": "2"}),
        ("eighty-three", {}, [0, 1, 1, 2], {}),
        ("spar", {}, [0, 1, 1, 2], {"card": "six"}),
    ],
)
def test_the_charts_last_values_are_the_tallys(client, game, options, winners, answers):
    sitting = Sitting.start(game, NAMES[:3], **options)
    for number, winner in enumerate(winners, start=1):
        body = client.post(url(sitting, "tap/"), {"number": number, "winner": winner + 1, **answers}, **HX)
    state = Sitting.objects.get(pk=sitting.pk).table()
    expected = (  # chips in front of each; net money (every other player pays the winner); points
        state.balances()
        if sitting.rules.uses_chips
        else [sitting.stake_amount * (3 * s.total - sum(x.total for x in state.seats)) for s in state.seats]
        if sitting.stake_amount
        else [seat.total for seat in state.seats]
    )
    assert last_row(chart_of(body.content.decode()))[1] == expected
    if game == "eighty-three":
        assert 'class="steps"' in body.content.decode()


def test_chips_handed_out_again_are_a_step_of_their_own_after_the_hand_before(client):
    sitting = Sitting.start("cat-te", NAMES[:3], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})  # 2 from each: B and C run out
    sitting.reissue_chips(0)
    sitting.record_hand(2, 1, {"how": "last"})
    figure = chart_of(client.get(url(sitting), **HX).content.decode())
    rows = [
        (n, [int(v.replace("\u2212", "-")) for v in re.findall(r"\u2212?\d+", cells)])
        for n, cells in ROW.findall(figure)
    ]
    # Hand 1 as it ended (A won 2 from each), then the new stacks as a step of their own, then hand 2.
    assert rows == [("0", [2, 2, 2]), ("1", [6, 0, 0]), ("1, then new chips for everyone", [8, 2, 2]), ("2", [7, 4, 1])]


def test_chips_handed_out_before_hand_1_by_its_undo_are_a_step_after_the_start_and_said_under_hand_1(client):
    sitting = Sitting.start("cat-te", NAMES[:3], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})  # B and C run out
    sitting.reissue_chips(0)
    sitting.undo_hand(1, sitting.hands.get(number=1).stamp)  # the chips stay, dated before hand 1
    assert '<p class="hint"><em>Everyone received 2 more chips.</em></p>' in client.get(url(sitting), **HX).content.decode()
    sitting.record_hand(1, 1, {"how": "last"})
    page = client.get(url(sitting), **HX).content.decode()
    rows = [(n, [int(v.replace("\u2212", "-")) for v in re.findall(r"\u2212?\d+", cells)]) for n, cells in ROW.findall(chart_of(page))]
    assert rows == [("0", [2, 2, 2]), ("0, then new chips for everyone", [4, 4, 4]), ("1", [3, 6, 3])]
    hands = page[page.index('<table class="hands">') :]
    assert re.search(r"<td class=\"num\">1</td>.*Everyone received 2 more chips\.", hands, re.DOTALL)
    history = client.get(url(sitting, "hands/")).content.decode()
    assert re.search(r'<td class="num">1</td>.*Everyone received 2 more chips\.', history, re.DOTALL)
    assert "New stacks for everyone before hand 2" in history and "They count before hand 1 now: a hand before them was undone." in history


def test_a_latecomers_line_starts_where_they_sat_down_and_the_others_are_drawn_from_the_start(client):
    sitting = Sitting.start("agram", NAMES[:3])
    for number in (1, 2, 3):
        sitting.record_hand(number, 0)
    sitting.seat_player("Zeïnabou")  # plays from hand 4
    sitting.refresh_from_db()
    sitting.record_hand(4, 3)
    figure = chart_of(client.get(url(sitting), **HX).content.decode())
    rows = [(n, re.findall(r"<td>([^<]*)</td>", cells)) for n, cells in ROW.findall(figure)]
    assert rows == [
        ("0", ["0", "0", "0", ""]),
        ("1", ["1", "0", "0", ""]),
        ("2", ["2", "0", "0", ""]),
        ("3", ["3", "0", "0", "0"]),
        ("4", ["3", "0", "0", "1"]),
    ]
    lines = dict(re.findall(r'<polyline class="l(\d)" points="([^"]*)"', figure))
    assert len(lines["0"].split()) == 5 and len(lines["3"].split()) == 2  # from hand 3's end, and hand 4


@pytest.mark.parametrize(
    "game, options, answers", [("fapfap", {"stake_amount": 100}, {"multiplier": "2"}), ("cat-te", {}, {"how": "last"})]
)
def test_a_latecomer_at_a_money_or_chips_table_is_drawn_from_where_they_sat_down(client, game, options, answers):
    sitting = Sitting.start(game, NAMES[:3], **options)
    sitting.record_hand(1, 0, answers)
    sitting.seat_player("Zeïnabou")
    sitting.refresh_from_db()
    sitting.record_hand(2, 3, answers)
    figure = chart_of(client.get(url(sitting), **HX).content.decode())
    cells = [re.findall(r"<td>([^<]*)</td>", row) for _n, row in ROW.findall(figure)]
    assert [row[3] == "" for row in cells] == [True, False, False]


def test_undoing_a_hand_before_chips_handed_out_says_the_chips_stay(client):
    sitting = Sitting.start("cat-te", NAMES[:3], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})
    assert "received after it stay" not in client.get(url(sitting), **HX).content.decode()
    sitting.reissue_chips(0)
    undo = client.get(url(sitting), **HX).content.decode()
    assert "the hand is open to tap again. The chips everyone received after it stay.</p>" in undo


@pytest.mark.parametrize("hands, budget", [(50, 1500), (500, 4000)])
def test_the_chart_adds_little_to_a_taps_answer(client, hands, budget):
    """The worst case: the largest open table, a stake (money runs to large numbers), varied answers."""
    game = rules.GAMES["fapfap"]
    sitting = Sitting.start("fapfap", NAMES[: game.max_players], stake_amount=250, stake_label="CFA")
    for number in range(1, hands):
        sitting.record_hand(number, number * 3 % game.max_players, {"multiplier": "124"[number % 3]})
    body = client.post(url(sitting, "tap/"), {"number": hands, "winner": 1, "multiplier": "4"}, **HX)
    figure = chart_of(body.content.decode())
    assert last_row(figure)[0] == hands and len(TABLE_ROW.findall(figure)) <= 41
    assert len(gzip.compress(figure.encode())) <= budget


@pytest.mark.parametrize(
    "game, options, answers, title",
    [
        ("fapfap", {"stake_amount": 100, "stake_label": "CFA"}, {"multiplier": "2"}, "Money after each hand (CFA)"),
        ("fapfap", {"stake_amount": 100, "stake_label": ""}, {"multiplier": "2"}, "Money after each hand"),
        ("cat-te", {}, {"how": "last"}, "Chips after each hand"),
        ("agram", {}, {}, "Score after each hand"),
    ],
)
def test_the_chart_says_what_it_draws(client, game, options, answers, title):
    sitting = Sitting.start(game, NAMES[:3], **options)
    figure = chart_of(client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, **answers}, **HX).content.decode())
    assert f"<figcaption>{title}</figcaption>" in figure and f"<caption>{title}</caption>" in figure


def test_the_charts_table_writes_numbers_as_the_score_table_does(client):
    """Money with its sign and thousands grouped ("+1,150", "−350"), in every language's own way."""
    sitting = Sitting.start("fapfap", ["Ama", "Bola", "Chidi"], stake_amount=250, stake_label="CFA")
    page = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "multiplier": "4"}, **HX).content.decode()
    assert "<td>\u22121,000</td><td>\u22121,000</td><td>+2,000</td>" in page  # each other pays 250 x 4
    french = client.get(url(sitting), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "<td>\u22121\u00a0000</td><td>\u22121\u00a0000</td><td>+2\u00a0000</td>" in french


def test_a_match_ended_early_draws_no_point_for_the_hand_nobody_played(client):
    sitting = Sitting.start("agram", NAMES[:3])
    play(sitting, [1, 2])
    sitting.end_match(3)
    rows = TABLE_ROW.findall(chart_of(client.get(url(sitting)).content.decode()))
    assert [number for number, _ in rows] == ["0", "1", "2"]  # hand 3, abandoned, is not drawn
    nobody = Sitting.start("agram", NAMES[:3])
    nobody.end_match(1)
    assert chart_of(client.get(url(nobody)).content.decode()) == ""
