"""What two newcomers (one reading English, one French) tripped on in the second round, each as the
kind it belongs to: the screen says what happened, what it is about, and what still applies."""

import re

import pytest

from matches.domain import rules
from matches.models import Sitting

from tests.conftest import play, shown
from tests.web.test_views import HX, url

pytestmark = pytest.mark.django_db
NAMES = ["Ana", "Ben", "Chloé", "Dia"]


def tap(client, sitting, number, winner, **answers):
    return client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers}, **HX).content.decode()


def test_a_raised_threshold_is_said_in_the_notice_of_the_tap_that_raised_it(client):
    sitting = Sitting.start("eighty-three", ["A", "B", "C"])
    taps = [(1, {}), (2, {}), (1, {}), (2, {"ace": "1"}), (2, {"ace": "1", "last": "1"})]
    for number, (winner, answers) in enumerate(taps, start=1):
        assert "Tie at" not in tap(client, sitting, number, winner, **answers)
    tying = tap(client, sitting, 6, 1, ace="1", last="1", bonus="2")  # A 10, B 10: tie at 10
    assert "Tie at 10: now playing to 15." in tying


def test_the_notice_echoes_the_answer_tapped(client):
    sitting = Sitting.start("fapfap", NAMES[:3])
    assert "Hand 1 recorded: Ben (with a 3, last trick only: 2 stakes from each other player)." in shown(
        tap(client, sitting, 1, 2, multiplier="2")
    )
    corrected = client.post(url(sitting, "hands/1/"), {"number": 1, "winner": 2, "multiplier": "4"}, **HX)
    assert "Hand 1 corrected: Ben (with 3s, the last two tricks: 4 stakes from each other player)." in shown(
        corrected.content.decode()
    )


def test_a_correction_that_reopens_a_finished_match_says_so(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.WINS, 2))
    play(sitting, [0, 0])
    assert Sitting.objects.get(pk=sitting.pk).is_finished
    body = shown(client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 2}, **HX).content.decode())
    assert "Hand 2 corrected: Ben." in body and "The match is open again." in body


def test_a_finished_match_no_longer_states_how_it_will_end(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.HANDS, 2))
    assert "The match ends after 2 hands." in client.get(url(sitting)).content.decode()
    play(sitting, [0, 1])
    page = client.get(url(sitting)).content.decode()
    assert "Match over" in page and "The match ends after" not in page


def test_the_table_says_how_many_earlier_hands_the_history_holds(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [0, 1, 2, 3, 0, 1, 2, 3, 0])
    page = client.get(url(sitting)).content.decode()
    assert "and 3 earlier hands" in page and "All hands · corrections · CSV" in page


def test_the_correction_page_opens_no_answer_for_the_player(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [1])
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert '<details class="ask" open' not in page and '<details class="ask">' in page


def test_the_watch_screen_follows_the_rematch(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.end_match()
    rematch = sitting.rematch()
    poll = client.get(f"/w/{sitting.watch_token}/poll/", {"v": 1}, **HX)
    assert poll["HX-Redirect"] == f"/w/{rematch.watch_token}/" and rematch.token not in poll.content.decode()
    page = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert f'href="/w/{rematch.watch_token}/"' in page and rematch.token not in page


def test_making_new_links_asks_first_and_says_what_it_did(client):
    sitting = Sitting.start("agram", NAMES)
    page = client.get(url(sitting)).content.decode()
    assert re.search(r"<summary>A link leaked: make new links</summary>.*Yes, make new links", page, re.S)
    client.post(url(sitting, "links/"))
    sitting.refresh_from_db()
    assert "New links made: the old ones no longer work." in client.get(url(sitting)).content.decode()


def test_the_tap_panel_says_which_trick_decides_the_hand(client):
    page = client.get(url(Sitting.start("eighty-three", NAMES))).content.decode()
    assert "Whoever wins the 5th trick (not the last) wins the hand." in page


# --- round 4: a correction that moves the match end before hands already played -------------------


@pytest.mark.parametrize(
    "game, end, taps, correction, ended_at",
    [
        # Sipa, first to 6: Yao 2, Edem 1, Yao 4 (Yao 6 wins at hand 3); hand 2 corrected to Edem's 6
        # means Edem reached 6 first, at hand 2, before hand 3 was played.
        ("sipa", (rules.MatchEndKind.POINTS, 6), [(1, "last"), (2, "none"), (1, "two")], (2, 2, "three"), 2),
        # Agram, first to 2 hands won: Yao, Edem, Yao (Yao wins at hand 3); hand 2 given to Yao ends it at 2.
        ("agram", (rules.MatchEndKind.WINS, 2), [(1, None), (2, None), (1, None)], (2, 1, None), 2),
    ],
    ids=["sipa-points", "agram-wins"],
)
def test_a_correction_that_would_end_the_match_before_later_hands_is_refused_and_says_what_to_do(
    client, game, end, taps, correction, ended_at
):
    """The first to the target wins: a correction that makes someone reach it sooner, with hands
    played after that, would leave hands counted after the end (and a shared first place where one
    player won). Nothing changes; the message says to undo the later hands first."""
    sitting = Sitting.start(game, ["Yao", "Edem"], rules.MatchEnd(*end))
    for number, (winner, answer) in enumerate(taps, start=1):
        tap(client, sitting, number, winner, **({"sevens": answer} if answer else {}))
    before = Sitting.objects.get(pk=sitting.pk)
    assert before.is_finished
    totals = list(before.seats.order_by("position").values_list("total", flat=True))
    number, winner, answer = correction
    response = client.post(
        url(sitting, f"hands/{number}/"),
        {"number": number, "winner": winner, **({"sevens": answer} if answer else {})},
        **HX,
    )
    assert response.status_code == 409
    assert (
        f"With this change the match ends at hand {ended_at}, but hand 3 was played after it. "
        f"To make this change, undo that hand first, then correct hand {number} again."
    ) in shown(response.content.decode())
    after = Sitting.objects.get(pk=sitting.pk)
    assert list(after.seats.order_by("position").values_list("total", flat=True)) == totals
    assert after.is_finished and after.version == before.version
    assert list(after.hands.order_by("number").values_list("winner__player__name", flat=True)) == [
        ("Yao" if w == 1 else "Edem") for w, _ in taps
    ]


def test_the_same_correction_is_taken_once_the_later_hands_are_undone(client):
    sitting = Sitting.start("sipa", ["Yao", "Edem"], rules.MatchEnd(rules.MatchEndKind.POINTS, 6))
    for number, (winner, answer) in enumerate([(1, "last"), (2, "none"), (1, "two")], start=1):
        tap(client, sitting, number, winner, sevens=answer)
    sitting.refresh_from_db()
    sitting.undo_hand(3)
    response = client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 2, "sevens": "three"}, **HX)
    assert response.status_code == 200
    assert "Edem wins the match with 6 points." in shown(response.content.decode())


@pytest.mark.parametrize(
    "game, taps, words",
    [
        ("agram", [(1, {})], "Hand 1: Ana won it. Undo it? The win comes off the score"),  # hands won are the score
        ("sipa", [(1, {"sevens": "none"})], "Undo it? Its points come off the score"),
    ],
)
def test_the_undo_confirmation_says_what_comes_off_in_the_games_own_terms(client, game, taps, words):
    sitting = Sitting.start(game, NAMES[:2])
    for number, (winner, answers) in enumerate(taps, start=1):
        tap(client, sitting, number, winner, **answers)
    assert words in shown(client.get(url(sitting)).content.decode())


@pytest.mark.parametrize(
    "bonus, words",
    [
        (["2"], "Hand 1 recorded: Chloé (Ben held four of a kind or six of one suit)."),
        (["1", "2"], "Hand 1 recorded: Chloé (Ana and Ben: each held four of a kind or six of one suit)."),
    ],
)
def test_a_fact_about_other_players_names_them_first_so_it_never_reads_as_the_winners(client, bonus, words):
    sitting = Sitting.start("eighty-three", NAMES[:3])
    assert words in shown(tap(client, sitting, 1, 3, bonus=bonus))


def test_with_several_hands_after_the_new_end_the_refusal_names_them(client):
    sitting = Sitting.start("agram", ["Yao", "Edem", "Kofi"], rules.MatchEnd(rules.MatchEndKind.WINS, 2))
    for number, winner in enumerate([1, 2, 3, 1], start=1):  # Yao's second win ends it at hand 4
        tap(client, sitting, number, winner)
    response = client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 1}, **HX)  # Yao's second at hand 2
    assert response.status_code == 409 and (
        "With this change the match ends at hand 2, but hands 3 to 4 were played after it. To make this change, "
        "undo them first (the last one each time), then correct hand 2 again."
    ) in shown(response.content.decode())


def test_cat_tes_help_says_what_a_score_below_zero_means(client):
    sitting = Sitting.start("cat-te", NAMES[:3])
    assert "A player who owes more chips than they hold goes below 0" in client.get(url(sitting)).content.decode()


def test_fapfaps_score_table_says_what_a_stake_won_counts(client):
    """A hand won x1 at a table of four is 1 stake won, though three players pay it: said under the table."""
    sitting = Sitting.start("fapfap", NAMES, stake_amount=100, stake_label="FCFA")
    page = shown(tap(client, sitting, 1, 2, multiplier="1"))
    assert "Stakes won: the x1, x2 or x4 of each hand won; every other player pays the winner that many stakes." in page
    assert "Stakes won:" not in client.get(url(Sitting.start("sipa", NAMES[:2]))).content.decode()


def test_a_stake_match_says_what_a_stake_is_worth_before_its_first_hand(client):
    with_label = Sitting.start("fapfap", NAMES, stake_amount=1500, stake_label="FCFA")
    without_label = Sitting.start("fapfap", NAMES, stake_amount=100)
    assert "One stake is worth 1,500\u00a0FCFA." in shown(client.get(url(with_label)).content.decode())
    assert "One stake is worth 100." in shown(client.get(url(without_label)).content.decode())
    assert "One stake is worth" not in client.get(url(Sitting.start("fapfap", NAMES))).content.decode()


def test_a_match_ended_early_says_so_on_its_result_for_good(client):
    sitting = Sitting.start("agram", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.WINS, 3))
    play(sitting, [0, 1, 0])
    ended = client.post(url(sitting, "end/"), {"number": 4}, **HX).content.decode()
    later = client.get(url(sitting)).content.decode()
    for page in (ended, later, client.get(f"/w/{sitting.watch_token}/").content.decode()):
        assert "Ended early: hand 4 was not played." in page and "Match over" in page
    assert not re.search(r'<p class="notice', ended)  # not a notice above the same words in the standings
    assert "Ended early: hand 4 was not played." in shown(re.search(r"<textarea[^>]*>(.*?)</textarea>", ended, re.S)[1])


def test_a_match_ended_early_draws_no_point_for_the_hand_nobody_played(client):
    from tests.web.test_score_chart import TABLE_ROW, chart_of

    sitting = Sitting.start("agram", NAMES[:3])
    play(sitting, [1, 2])
    sitting.end_match(3)
    rows = TABLE_ROW.findall(chart_of(client.get(url(sitting)).content.decode()))
    assert [number for number, _ in rows] == ["0", "1", "2"]  # hand 3, abandoned, is not drawn
    nobody = Sitting.start("agram", NAMES[:3])
    nobody.end_match(1)
    assert chart_of(client.get(url(nobody)).content.decode()) == ""


def test_cat_tes_settlement_is_a_worth_owed_not_chips_to_pass_again(client):
    sitting = Sitting.start("cat-te", NAMES[:3], starting_chips=5)
    tap(client, sitting, 1, 1, how="last")
    page = client.get(url(sitting)).content.decode()
    assert "The chips stay where they are: this is what they come to" in shown(page)
    payments = re.search(r'<ul class="payments">(.*?)</ul>', shown(page), re.S)[1]
    assert "owes" in payments and "the worth of" in payments and "gives" not in payments  # not chips to pass again
