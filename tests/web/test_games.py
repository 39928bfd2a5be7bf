"""Each game started, played to its end through the match table's views, and exported; corrections,
chips and thresholds as the table shows them."""

import csv
import io
import re

import pytest

from matches.models import Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import shown
from tests.web.test_views import HX, snapshot, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]

# game, start settings, players, taps (winner seat 1-based, answers), end notice shown
GAMES_TO_THE_END = [
    (
        "agram",
        {"end_kind": "wins", "end_target": "2"},
        ["Aïcha", "Boubacar"],
        [(1, {}), (2, {}), (1, {})],
        "<strong>Aïcha</strong> wins the match with 2 hands won.",
    ),
    (
        "sink-sink",
        {"end_kind": "hands", "end_target": "2"},
        ["A", "B", "C"],
        [(3, {}), (3, {})],
        "<strong>C</strong> wins the match with 2 hands won.",
    ),
    (
        "agram-mali",
        {"end_kind": "hands", "end_target": "2"},
        ["A", "B"],
        [(1, {}), (2, {})],
        "Shared first place: <strong>A</strong> and <strong>B</strong>, with 1 hand won each.",
    ),
    (
        "fapfap",
        {"end_kind": "points", "end_target": "5", "stake_amount": "100", "stake_label": "FCFA"},
        ["Aïcha", "Boubacar", "Chaibou"],
        [(2, {"multiplier": "4"}), (1, {"multiplier": "2"}), (2, {"multiplier": "1"})],
        "<strong>Boubacar</strong> wins the match with +800 FCFA (5 stakes won).",  # at a stake: the money first
    ),
    (
        "spar",
        {"end_kind": "points", "end_target": "5"},
        ["A", "B"],
        [(1, {"card": "six"}), (2, {"card": "other"}), (1, {"card": "seven"})],
        "<strong>A</strong> wins the match with 5 points.",
    ),
    (
        "sipa",
        {"end_kind": "points", "end_target": "10"},
        ["A", "B"],
        [(1, {"sevens": "three"}), (2, {"sevens": "none"}), (1, {"sevens": "two"})],
        "<strong>A</strong> wins the match with 10 points.",
    ),
    (
        "cat-te",
        {"end_kind": "hands", "end_target": "3", "starting_chips": "20"},
        ["A", "B", "C"],
        [(1, {"how": "last"}), (2, {"how": "sweep", "aces": ["3"]}), (1, {"how": "flush"})],
        "<strong>A</strong> wins the match with 24 chips (+4).",  # 20 chips each, then +2, -2, +4
    ),
    (
        "eighty-three",
        {"end_kind": "thresholds"},
        ["A", "B", "C"],
        [(1, {}), (1, {}), (1, {"ace": "1"})],
        "<strong>A</strong> wins the match with 11 points.",
    ),
    (
        "letzter-stich",
        {"end_kind": "hands", "end_target": "3"},
        ["A", "B", "C"],
        [(1, {}), (2, {}), (2, {})],
        "<strong>B</strong> wins the match with 100 points.",
    ),
]


def start(client, slug, settings, names):
    data = {"action": "start", **settings}
    data.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    response = client.post(f"/start/{slug}/", data)
    assert response.status_code == 302, response.content.decode()
    return Sitting.objects.get(token=response["Location"].split("/")[2])


@pytest.mark.parametrize("slug, settings, names, taps, result", GAMES_TO_THE_END, ids=[g[0] for g in GAMES_TO_THE_END])
def test_each_game_played_to_its_end_and_exported(client, slug, settings, names, taps, result):
    sitting = start(client, slug, settings, names)
    for number, (winner, answers) in enumerate(taps, start=1):
        response = client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers}, **HX)
        assert response.status_code == 200, response.content.decode()
    page = client.get(url(sitting)).content.decode()
    assert "Match over" in page and result in page
    assert 'name="winner"' not in page
    refused = client.post(url(sitting, "tap/"), {"number": len(taps) + 1, "winner": 1, **taps[0][1]}, **HX)
    assert refused.status_code == 409
    rows = list(
        csv.reader(io.StringIO(b"".join(client.get(url(sitting, "hands.csv")).streaming_content).decode("utf-8-sig")))
    )
    assert len(rows) == len(taps) + 2  # the header, a row per hand, the nets
    assert sitting.check_totals() == []


def test_fapfap_shows_totals_in_stakes_and_money(client):
    sitting = start(client, "fapfap", {"end_kind": "open", "stake_amount": "100", "stake_label": "FCFA"}, ["A", "B"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "multiplier": "4"})
    page = client.get(url(sitting)).content.decode()
    assert '<th scope="col" class="num">FCFA</th>' in page
    assert '<td class="num">4</td><td class="num">+400</td>' in page  # a net, signed as settling up
    assert "with 3s, the last two tricks" in page  # the hand row says how it was won


def test_the_fapfap_answer_buttons_put_the_common_case_first_and_none_looks_chosen(client):
    sitting = start(client, "fapfap", {"end_kind": "open"}, ["A", "B"])
    page = client.get(url(sitting)).content.decode()
    first = page.index("With a 4 or higher: 1 stake")
    assert (
        first < page.index("With a 3, last trick only: 2 stakes") < page.index("With 3s, the last two tricks: 4 stakes")
    )
    assert 'class="answer primary"' not in page  # a newcomer might take a highlighted answer as chosen


@pytest.mark.parametrize(
    "slug, answers, message",
    [
        ("agram", {"multiplier": "2"}, "Agram records only the winner, not multiplier."),
        ("fapfap", {"multiplier": "3"}, "not 3"),
        ("fapfap", {}, "How was the last trick won? Tap one of the answers."),
        ("eighty-three", {"bonus": "7"}, "There is no seat 7 at this table."),
        ("cat-te", {"how": "last", "aces": "2"}, "Only asked when how is sweep."),
    ],
)
def test_answers_that_do_not_belong_are_refused_and_change_nothing(client, slug, answers, message):
    settings = {
        "agram": {"end_kind": "open"},
        "fapfap": {"end_kind": "open"},
        "eighty-three": {"end_kind": "thresholds"},
        "cat-te": {"end_kind": "hands", "end_target": "5"},
    }[slug]
    sitting = start(client, slug, settings, ["A", "B", "C"])
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, **answers}, **HX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert snapshot(sitting) == before


def test_eighty_three_shows_the_threshold_in_force(client):
    sitting = start(client, "eighty-three", {"end_kind": "thresholds"}, ["A", "B", "C"])
    assert "Playing to <strong>10</strong>." in client.get(url(sitting)).content.decode()
    taps = [
        (1, {}),
        (2, {}),
        (1, {}),
        (2, {"ace": "1"}),
        (2, {"ace": "1", "last": "1"}),
        (1, {"ace": "1", "last": "1", "bonus": "2"}),
    ]  # A 10, B 10: tie at 10
    for number, (winner, answers) in enumerate(taps, start=1):
        client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers})
    assert "Playing to <strong>15</strong> after a tie at 10." in client.get(url(sitting)).content.decode()
    number = len(taps)
    while not sitting.is_finished and number < 60:
        number += 1
        client.post(url(sitting, "tap/"), {"number": number, "winner": 1})
        sitting.refresh_from_db()
    over = client.get(url(sitting)).content.decode()
    assert "Match over" in over and "Played to <strong>15</strong> after a tie at 10." in over  # the result says it


def test_a_finished_match_says_what_it_was_played_to(client):
    sitting = start(client, "agram", {"end_kind": "wins", "end_target": "2"}, ["A", "B"])
    for number in (1, 2):
        client.post(url(sitting, "tap/"), {"number": number, "winner": 1})
    over = client.get(url(sitting)).content.decode()
    assert "Match over" in over and "Played to 2 hands won." in over


def test_cat_te_chips_can_be_reissued_once_when_someone_runs_out(client):
    sitting = start(client, "cat-te", {"end_kind": "hands", "end_target": "9", "starting_chips": "2"}, ["A", "B", "C"])
    assert client.post(url(sitting, "chips/"), {"seen": 0}, **HX).status_code == 409  # nobody ran out
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "how": "flush"})  # B and C: 0 chips
    page = client.get(url(sitting)).content.decode()
    assert "Someone ran out: give everyone 2 chips" in page
    assert client.post(url(sitting, "chips/"), {"seen": 0}, **HX).status_code == 200
    again = client.post(url(sitting, "chips/"), {"seen": 0}, **HX)  # a double tap
    assert again.status_code == 409 and "just re-issued" in again.content.decode()
    sitting.refresh_from_db()
    assert sitting.chips_reissued == 1 and sitting.table().balances() == [8, 2, 2]


def test_undoing_the_hand_before_a_chips_hand_out_dates_it_at_the_open_hand_and_the_group_still_moves(client):
    from matches.services.archive import export_group, import_group
    from matches.models import Group

    group = Group.create("Cat club", ["An", "Binh", "Chi"])
    an, binh, chi = (player.pk for player in group.members())
    sitting = group.start_match("cat-te", [an, binh, chi], MatchEnd(MatchEndKind.HANDS, 12), starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})  # Binh and Chi run out
    sitting.reissue_chips(seen=0)  # while hand 2 is open
    stamp = sitting.hands.get(number=1).stamp
    assert client.post(url(sitting, "undo/"), {"number": 1, "stamp": stamp}).status_code == 302
    sitting.refresh_from_db()
    assert sitting.reissued_before == [1] and sitting.table().balances() == [2, 2, 2]
    data = export_group(group)
    assert export_group(import_group(data))["sittings"] == data["sittings"]


def test_chips_dated_after_the_open_hand_by_an_earlier_undo_are_dated_at_it_by_the_migration():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("matches.migrations.0006_chips_dated_no_later_than_the_open_hand")
    sitting = Sitting.start("cat-te", ["An", "Binh", "Chi"], MatchEnd(MatchEndKind.HANDS, 12), starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.reissue_chips(seen=0)
    sitting.hands.filter(number=1).delete()  # as undo left it before: the batch still dated 2
    Sitting.objects.filter(pk=sitting.pk).update(reissued_before=[2])
    other = Sitting.start("cat-te", ["Dung", "Em", "Giang"], MatchEnd(MatchEndKind.HANDS, 12), starting_chips=1)
    other.record_hand(1, 0, {"how": "last"})
    other.reissue_chips(seen=0)  # dated 2, hand 2 open: as it should be
    migration.date_batches_no_later_than_the_open_hand(apps, None)
    sitting.refresh_from_db(), other.refresh_from_db()
    assert sitting.reissued_before == [1] and other.reissued_before == [2]


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


@pytest.mark.parametrize("seen", [-1, 2])
def test_a_chips_count_no_page_showed_is_refused_as_a_stale_button_not_as_another_phone(client, seen):
    sitting = start(client, "cat-te", {"end_kind": "hands", "end_target": "9", "starting_chips": "2"}, ["A", "B", "C"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "how": "flush"})  # B and C: 0 chips
    answer = client.post(url(sitting, "chips/"), {"seen": seen}, **HX)
    text = answer.content.decode()
    assert answer.status_code == 400 and "reload the page" in text and "another phone" not in text
    sitting.refresh_from_db()
    assert sitting.chips_reissued == 0 and sitting.table().balances() == [6, 0, 0]


def test_a_past_hand_can_be_corrected_and_later_totals_follow(client):
    sitting = start(client, "spar", {"end_kind": "points", "end_target": "4"}, ["A", "B"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "card": "six"})
    client.post(url(sitting, "tap/"), {"number": 2, "winner": 1, "card": "other"})  # A 4: match over
    sitting.refresh_from_db()
    assert sitting.is_finished
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert "Correct hand 1" in page and "(recorded)" in page
    response = client.post(url(sitting, "hands/1/"), {"number": 1, "winner": 2, "card": "seven"})
    assert response.status_code == 302
    sitting.refresh_from_db()
    assert not sitting.is_finished  # the deciding hand changed: the match reopens
    assert [s.total for s in sitting.table().seats] == [1, 2]
    assert sitting.hands.get(number=1).corrected_at is not None


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


@pytest.mark.parametrize(
    "path, data, status, message",
    [
        ("hands/9/", {"number": 9, "winner": 1}, 404, "Hand 9 has not been recorded"),
        ("hands/1/", {"number": 2, "winner": 1}, 400, "This correction is for another hand."),
        ("hands/1/", {"number": 1, "winner": 7}, 400, "Seat 7 is not at this table"),
        ("hands/1/", {"number": 1, "winner": 1, "card": "six"}, 400, "Agram records only the winner"),
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


def test_a_conflicting_tap_offers_to_correct_the_recorded_hand(client, sitting):
    sitting.record_hand(1, 2)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    body = shown(response.content.decode())
    assert "Hand 1 is already recorded: Chaibou." in body
    assert f'href="{url(sitting, "hands/1/")}">Correct hand 1</a>' in body


def test_a_tap_refused_for_a_hand_recorded_with_other_answers_says_the_answers_that_stood(client):
    """Two phones agreed on the winner, not on how: the phone whose tap did not stand reads both."""
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    sitting.record_hand(1, 2, {"multiplier": "2"})
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 3, "multiplier": "1"}, **HX)
    body = shown(response.content.decode())
    assert response.status_code == 409
    assert "Hand 1 is already recorded: Chaibou (with a 3, last trick only: 2 stakes from each other player)." in body
    assert f'href="{url(sitting, "hands/1/")}">Correct hand 1</a>' in body


@pytest.mark.parametrize("slug, answers", [("fapfap", {"multiplier": "2"}), ("cat-te", {"how": "flush"})])
def test_a_match_ended_early_shows_its_abandoned_hand(client, slug, answers):
    """The abandoned hand has no answers; the table, history and CSV still render."""
    sitting = Sitting.start(slug, ["A", "B", "C"])
    sitting.record_hand(1, 0, answers)
    sitting.end_match()
    for path in ("", "hands/", "hands.csv"):
        assert client.get(url(sitting, path)).status_code == 200


def test_the_correction_page_highlights_the_recorded_answer(client):
    sitting = Sitting.start("fapfap", ["A", "B"])
    sitting.record_hand(1, 1, {"multiplier": "2"})
    page = client.get(url(sitting, "hands/1/")).content.decode()
    assert re.search(r'class="answer primary"[^>]*>(?:<span>)?With a 3, last trick only: 2 stakes \(recorded\)', page)
    assert not re.search(r'class="answer primary"[^>]*>(?:<span>)?With a 4 or higher', page.split("(recorded)")[-1])


@pytest.mark.parametrize(
    "slug, end, line",
    [
        ("agram", {"end_kind": "hands", "end_target": "12"}, "The match ends after 12 hands."),
        ("agram", {"end_kind": "wins", "end_target": "3"}, "First to 3 hands won."),
        ("letzter-stich", {"end_kind": "points", "end_target": "500"}, "First to 500 points."),
        ("fapfap", {"end_kind": "points", "end_target": "9"}, "First to 9 stakes."),
    ],
)
def test_the_table_says_how_the_match_ends(client, slug, end, line):
    sitting = start(client, slug, end, ["A", "B", "C"])
    assert line in client.get(url(sitting)).content.decode()
