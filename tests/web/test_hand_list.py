"""The hands of a match and their corrections. The newest hands on the table, all of them on the history
page a page at a time (reaching any hand, at the same cost at 10 hands and at 5,000), each row saying
every player's points and who recorded it ("this phone", "another phone", a seat's name). A correction
page shows a hand as recorded, asking nothing until a tap; later totals follow and a match whose
deciding hand changed opens again, saying so; a correction is made once however often it is sent, and
refused, changing nothing, from an older screen, for another hand, past a match a member ended, when the
hand says it already, or where it would end the match before hands played since (saying which to undo first)."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.domain import rules
from matches.models import HANDS_ON_TABLE, Receipt, Sitting

from tests.big_groups import fill
from tests.conftest import WORKED, play, shown, snapshot
from tests.pages import HX, NAMES, stamped, start, tapped, url, watch_url, words

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
HANDS = re.compile(r'<table class="hands">(.*?)</table>', re.DOTALL)


def test_history_page_lists_every_hand_of_a_short_match(client, sitting):
    play(sitting, [0] * 9)
    page = client.get(url(sitting, "hands/")).content.decode()
    assert page.count('<tr><td class="num">') == 9
    assert page.count("Correct</a>") == 9 and "Older hands" not in page
    assert f'href="/s/{sitting.token}/hands.csv" download>Every hand (CSV)' in page  # the export sits with the hands
    assert "hands.csv" not in client.get(url(sitting)).content.decode()  # not on the table, sent on every tap
    table_page = client.get(url(sitting)).content.decode()
    assert table_page.count('<tr><td class="num">') == HANDS_ON_TABLE  # the match table keeps only the newest


def test_the_table_says_how_many_earlier_hands_the_history_holds(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [0, 1, 2, 3, 0, 1, 2, 3, 0])
    page = client.get(url(sitting)).content.decode()
    assert "and 3 earlier hands" in page and "All hands · corrections · CSV" in page


def test_the_history_shows_a_page_of_hands_newest_first_and_reaches_any_hand(client, sitting):
    from matches.web.views.table import HISTORY_PAGE as size

    last = 2 * size + 5
    fill(sitting, last)
    numbers = re.compile(r'<tr><td class="num">(\d+)</td>')
    first = client.get(url(sitting, "hands/")).content.decode()
    assert [int(n) for n in numbers.findall(first)] == list(range(last, last - size, -1))
    assert f'href="?from={last - size}"' in first and "Newer hands" not in first  # older ones a tap away
    page = client.get(url(sitting, "hands/"), {"from": 3}).content.decode()
    assert [int(n) for n in numbers.findall(page)] == [5, 4, 3, 2, 1]  # the oldest page, holding hand 3
    assert f'href="?from={5 + size}"' in page and "Older hands" not in page
    assert f'href="/s/{sitting.token}/hands/3/"' in page  # its correction
    middle = client.get(url(sitting, "hands/"), {"from": size + 4}).content.decode()
    assert [int(n) for n in numbers.findall(middle)] == list(range(size + 5, 5, -1))
    assert f'href="?from={last}"' in middle and 'href="?from=5"' in middle


def test_paging_the_history_back_and_forth_lands_on_the_same_pages(client, sitting):
    fill(sitting, 27)
    links = re.compile(r'href="\?from=(\d+)">(Newer|Older) hands<')
    numbers = re.compile(r'<tr><td class="num">(\d+)</td>')
    page, visited = None, []
    for step in ["Older", "Older", "Newer", "Newer"]:
        body = client.get(url(sitting, "hands/"), {"from": page} if page else {}).content.decode()
        shown = [int(n) for n in numbers.findall(body)]
        visited.append((shown[0], shown[-1]))
        page = dict((word, number) for number, word in links.findall(body))[step]
    body = client.get(url(sitting, "hands/"), {"from": page}).content.decode()
    visited.append((int(numbers.findall(body)[0]), int(numbers.findall(body)[-1])))
    assert visited == [(27, 18), (17, 8), (7, 1), (17, 8), (27, 18)]


@pytest.mark.parametrize("asked, first", [("00000000012", 17), ("٣", 7), ("0012", 17)])
def test_a_hand_number_with_leading_zeros_or_other_digits_finds_its_page(client, sitting, asked, first):
    fill(sitting, 27)
    body = client.get(url(sitting, "hands/"), {"from": asked})
    assert body.status_code == 200
    assert re.findall(r'<tr><td class="num">(\d+)</td>', body.content.decode())[0] == str(first)


@pytest.mark.parametrize("asked", ["0", "999", "abc", "-3", "1e9", "9" * 40, "²", "12\x00"])
def test_asking_the_history_for_a_hand_that_is_not_there_says_which_numbers_are(client, sitting, asked):
    fill(sitting, 12)
    response = client.get(url(sitting, "hands/"), {"from": asked})
    assert response.status_code == 400
    body = shown(response.content.decode())
    assert "type a hand number from 1 to 12" in body and body.count('<tr><td class="num">') == 10  # the newest page
    assert "\x00" not in response.content.decode()


def test_the_history_costs_the_same_queries_rows_and_bytes_at_10_and_5000_hands(client):
    from matches.web.views.table import HISTORY_PAGE

    counts, sizes, lengths = [], [], []
    for size in (10, 5000):
        sitting = Sitting.start("agram", WORKED)
        fill(sitting, size)
        with CaptureQueriesContext(connection) as captured:
            body = client.get(url(sitting, "hands/")).content
        counts.append(len(captured))
        sizes.append(body.count(b'<tr><td class="num">'))
        lengths.append(len(body))
    assert counts[0] == counts[1] and sizes == [HISTORY_PAGE, HISTORY_PAGE]
    assert lengths[1] <= 1.2 * lengths[0]  # the same rows, longer numbers and the links to other pages


# --- a hand's row ---------------------------------------------------------------------------------


def hand_row(page: str, number: int) -> str:
    """The words of hand `number`'s row in the page's hands list."""
    for row in re.findall(r"<tr>(.*?)</tr>", HANDS.search(page)[1], re.DOTALL):
        if re.match(rf'\s*<td class="num">{number}</td>', row):
            return words(row)
    raise AssertionError(f"no row for hand {number}")


def test_an_eighty_three_row_says_every_players_points_when_others_scored(client):
    sitting = Sitting.start("eighty-three", ["Ali", "Bintou", "Chloé"])
    sitting.record_hand(1, 0, {"ace": True, "last": True, "bonus": [2]})  # Ali 2, Bintou +1
    sitting.record_hand(2, 1, {"ace": True, "last": True})  # Bintou 2, nobody else
    for page in (client.get(url(sitting)).content.decode(), client.get(url(sitting, "hands/")).content.decode()):
        row = hand_row(page, 1)
        assert "Bintou held four of a kind or six of one suit" in row
        assert "This hand: Ali +2, Bintou +1" in row, row
        assert "This hand" not in hand_row(page, 2)  # only the winner scored: the points column says it all


def test_a_cat_te_row_says_what_each_player_paid(client):
    sitting = Sitting.start("cat-te", ["Ali", "Bintou", "Chloé"])
    sitting.record_hand(1, 0, {"how": "sweep", "aces": [2]})  # Ali +5; Bintou -3 (2 and an Ace), Chloé -2
    page = client.get(url(sitting)).content.decode()
    assert "This hand: Ali +5, Bintou \u22123, Chloé \u22122" in hand_row(page, 1)


def test_the_hand_a_members_end_leaves_reads_as_not_played_in_every_hand_list(client):
    """Ended after hand 8: hand 9 was not played, so no list shows it as a hand with no figure."""
    sitting = Sitting.start("fapfap", ["Ana", "Ben", "Cal"])
    for number in range(1, 9):
        sitting.record_hand(number, number % 3, {"multiplier": "2"})
    assert client.post(url(sitting, "end/"), {"number": 9}).status_code == 302  # the plain End match
    for path in (url(sitting), watch_url(sitting), url(sitting, "hands/")):
        page = client.get(path).content.decode()
        row = hand_row(page, 9)
        assert row.startswith("9 not played: the match was ended"), (path, row)
        assert "abandoned" not in row and "no figure" not in row and "recorded" not in row, (path, row)
    assert "Ended after hand 8." in words(client.get(url(sitting)))


def test_a_phone_can_say_which_seat_it_holds_and_its_taps_are_traced(client, sitting):
    client.get(url(sitting))
    assert client.post(url(sitting, "me/"), {"seat": 4}).status_code == 302
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    other = Client()
    other.post(url(sitting, "tap/"), {"number": 2, "winner": 1}, **HX)
    first, second = sitting.hands.order_by("number")
    assert first.recorded_by_seat == 3 and first.recorded_by_phone
    assert second.recorded_by_seat is None and second.recorded_by_phone not in ("", first.recorded_by_phone)
    history = shown(client.get(url(sitting, "hands/")).content.decode())
    assert "by Djibo" in history and "by another phone" in history and second.recorded_by_phone not in history
    client.post(url(sitting, "hands/1/"), stamped(sitting, 1, winner=2))
    assert "corrected" in client.get(url(sitting, "hands/")).content.decode()
    assert sitting.hands.get(number=1).corrected_by_seat == 3


def test_the_history_says_this_phone_or_another_phone(client):
    from django.test import Client

    sitting = Sitting.start("agram", NAMES)
    client.get(url(sitting))
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2}, **HX)
    Client().post(url(sitting, "tap/"), {"number": 2, "winner": 3}, **HX)
    mine, theirs = (hand.recorded_by_phone for hand in sitting.hands.order_by("number"))
    page = words(client.get(url(sitting, "hands/")))
    assert "by this phone" in page and "by another phone" in page
    assert mine not in page and theirs not in page  # a phone's code means nothing to a player
    french = words(client.get(url(sitting, "hands/"), HTTP_ACCEPT_LANGUAGE="fr"))
    assert "par ce téléphone" in french and "par un autre téléphone" in french


def test_a_hands_details_say_this_phone_or_another_phone_without_a_code(client, sitting):
    other = Client()
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    other.post(url(sitting, "tap/"), {"number": 2, "winner": 2})
    other.post(url(sitting, "me/"), {"seat": "4"})  # "I am Djibo"
    other.post(url(sitting, "tap/"), {"number": 3, "winner": 3})
    said = words(client.get(url(sitting, "hands/")).content.decode())
    assert "by this phone" in said
    assert "by another phone" in said and "by Djibo" in said
    assert not re.search(r"phone \(", said), said
    for hand in sitting.hands.all():
        assert hand.recorded_by_phone not in said


# --- corrections ----------------------------------------------------------------------------------


def test_a_past_hand_can_be_corrected_and_later_totals_follow(client):
    sitting = start(client, "spar", {"end_kind": "points", "end_target": "4"}, ["A", "B"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "card": "six"})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 1, "card": "other"})  # A 4: match over
    sitting.refresh_from_db()
    assert sitting.is_finished
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert "Correct hand 1" in page and "(recorded)" in page
    response = client.post(url(sitting, "hands/1/"), stamped(sitting, 1, winner=2, card="seven"))
    assert response.status_code == 302
    sitting.refresh_from_db()
    assert not sitting.is_finished  # the deciding hand changed: the match reopens
    assert [s.total for s in sitting.table().seats] == [1, 2]
    assert sitting.hands.get(number=1).corrected_at is not None


def test_a_correction_that_reopens_a_finished_match_says_so(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.WINS, 2))
    play(sitting, [0, 0])
    assert Sitting.objects.get(pk=sitting.pk).is_finished
    body = shown(client.post(url(sitting, "hands/2/"), stamped(sitting, 2, winner=2), **HX).content.decode())
    assert "Hand 2 corrected: Ben." in body and "The match is open again." in body


def test_the_correction_page_highlights_the_recorded_answer(client):
    sitting = Sitting.start("fapfap", ["A", "B"])
    sitting.record_hand(1, 1, {"multiplier": "2"})
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert re.search(r'class="answer primary"[^>]*>(?:<span>)?With a 3, last trick only: 2 stakes \(recorded\)', page)
    assert not re.search(r'class="answer primary"[^>]*>(?:<span>)?With a 4 or higher', page.split("(recorded)")[-1])


def test_the_correction_page_opens_no_answer_for_the_player(client):
    sitting = Sitting.start("agram", NAMES)
    play(sitting, [1])
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert '<details class="ask" open' not in page and '<details class="ask">' in page


def test_a_correction_sent_twice_is_made_once_and_the_second_says_it_was_made(client):
    sitting = start(client, "spar", {"end_kind": "points", "end_target": "21"}, ["Ann", "Bo", "Cy"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "card": "six"})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 2, "card": "seven"})
    page = client.get(url(sitting, "hands/1/")).content.decode()
    seen = re.search(r'name="stamp" value="([^"]+)"', page).group(1)
    correction = {"number": 1, "winner": 3, "card": "other", "stamp": seen}
    assert client.post(url(sitting, "hands/1/"), correction, **HX).status_code == 200
    after = snapshot(sitting)
    again = client.post(url(sitting, "hands/1/"), correction, **HX)  # a double tap, or a retry
    assert again.status_code == 200 and "Hand 1 corrected: Cy" in shown(again.content.decode())
    assert snapshot(sitting) == after
    long = client.post(url(sitting, "hands/1/"), {**correction, "stamp": "x" * 200}, **HX)
    assert long.status_code == 400 and "This button is from an older page" in long.content.decode()


def test_a_correction_from_a_screen_older_than_another_phones_correction_changes_nothing(client):
    sitting = start(client, "agram", {"end_kind": "wins", "end_target": "5"}, ["A", "B", "C"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 1})
    page = client.get(url(sitting, "hands/2/")).content.decode()  # phone 1 opens the correction
    seen = re.search(r'name="stamp" value="([^"]+)"', page).group(1)
    assert client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 2, "stamp": seen}).status_code == 302
    before = snapshot(sitting)  # phone 2 corrected hand 2 to B; phone 1 still shows A
    stale = client.post(url(sitting, "hands/2/"), {"number": 2, "winner": 3, "stamp": seen})
    text = shown(stale.content.decode())
    assert stale.status_code == 409 and "Hand 2 changed since your screen showed it (now B)" in text
    assert "Recorded: <strong>B</strong>" in text  # the page shows the hand as it is now, with its new stamp
    assert snapshot(sitting) == before


def test_a_correction_to_what_the_hand_says_already_changes_nothing_and_keeps_no_receipt(client, sitting):
    sitting.record_hand(1, 0)
    before = snapshot(sitting)
    answer = client.post(url(sitting, "hands/1/"), stamped(sitting, 1, winner=1), **HX)
    assert answer.status_code == 400
    assert "Hand 1 says this already: nothing was changed." in shown(answer.content.decode())
    assert snapshot(sitting) == before and sitting.hands.get(number=1).corrected_at is None
    assert not sitting.receipts.filter(verb=Receipt.Verb.CORRECT).exists()


def test_a_correction_that_ends_eighty_three_says_no_threshold_it_no_longer_plays_to(client):
    """A 10, B 10 (playing to 15); A 15, B 15 with B's bonus (to 20); without it A wins at 15."""
    sitting = Sitting.start("eighty-three", ["A", "B", "C"])
    taps = [(1, {}), (2, {}), (1, {}), (2, {"ace": "1"}), (2, {"ace": "1", "last": "1"})]
    taps += [(1, {"ace": "1", "last": "1", "bonus": "2"}), (1, {"ace": "1"}), (2, {})]
    taps += [(1, {"ace": "1", "last": "1", "bonus": "2"})]
    for number, (winner, answers) in enumerate(taps, start=1):
        tapped(client, sitting, number, winner, **answers)
    assert Sitting.objects.get(pk=sitting.pk).threshold == 20
    correction = stamped(sitting, 9, winner=1, ace="1", last="1")  # B's bonus taken off
    body = shown(client.post(url(sitting, "hands/9/"), correction, **HX).content.decode())
    assert Sitting.objects.get(pk=sitting.pk).is_finished and "Match over" in body
    assert "Hand 9 corrected: A" in body and "now playing to" not in body


@pytest.mark.parametrize(
    "path, data, status, message",
    [
        ("hands/9/", {"number": 9, "winner": 1}, 404, "Hand 9 has not been recorded"),
        ("hands/1/", {"number": 2, "winner": 1, "stamp": "AAAAAAAA"}, 400, "This correction is for another hand."),
        ("hands/1/", {"number": 1, "winner": 7, "stamp": "AAAAAAAA"}, 400, "Seat 7 is not at this table"),
        ("hands/1/", {"number": 1, "winner": 1, "card": "six", "stamp": "AAAAAAAA"}, 400, "Agram records only the"),
        ("hands/1/", {"number": 1, "winner": 2}, 400, "This button is from an older page"),  # no stamp: a stale screen
        ("hands/1/", {"number": 1, "winner": 2, "stamp": ""}, 400, "This button is from an older page"),
    ],
)
def test_bad_corrections_change_nothing(client, sitting, path, data, status, message):
    sitting.record_hand(1, 0)
    before = snapshot(sitting)
    response = client.post(url(sitting, path), data)
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot(sitting) == before


def test_a_match_ended_by_a_member_cannot_be_corrected(client, sitting):
    sitting.record_hand(1, 0)
    sitting.end_match()
    response = client.post(url(sitting, "hands/1/"), {"number": 1, "winner": 2})
    assert response.status_code == 409 and "can no longer change" in response.content.decode()


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
        tapped(client, sitting, number, winner, **({"sevens": answer} if answer else {}))
    before = Sitting.objects.get(pk=sitting.pk)
    assert before.is_finished
    totals = list(before.seats.order_by("position").values_list("total", flat=True))
    number, winner, answer = correction
    response = client.post(
        url(sitting, f"hands/{number}/"),
        stamped(sitting, number, winner=winner, **({"sevens": answer} if answer else {})),
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


def test_with_several_hands_after_the_new_end_the_refusal_names_them(client):
    sitting = Sitting.start("agram", ["Yao", "Edem", "Kofi"], rules.MatchEnd(rules.MatchEndKind.WINS, 2))
    for number, winner in enumerate([1, 2, 3, 1], start=1):  # Yao's second win ends it at hand 4
        tapped(client, sitting, number, winner)
    response = client.post(url(sitting, "hands/2/"), stamped(sitting, 2, winner=1), **HX)  # Yao's second at hand 2
    assert response.status_code == 409 and (
        "With this change the match ends at hand 2, but hands 3 to 4 were played after it. To make this change, "
        "undo them first (the last one each time), then correct hand 2 again."
    ) in shown(response.content.decode())


def test_the_same_correction_is_taken_once_the_later_hands_are_undone(client):
    sitting = Sitting.start("sipa", ["Yao", "Edem"], rules.MatchEnd(rules.MatchEndKind.POINTS, 6))
    for number, (winner, answer) in enumerate([(1, "last"), (2, "none"), (1, "two")], start=1):
        tapped(client, sitting, number, winner, sevens=answer)
    sitting.refresh_from_db()
    sitting.undo_hand(3)
    response = client.post(url(sitting, "hands/2/"), stamped(sitting, 2, winner=2, sevens="three"), **HX)
    assert response.status_code == 200
    assert "Edem wins the match with 6 points." in shown(response.content.decode())
