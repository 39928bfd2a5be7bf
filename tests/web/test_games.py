"""Each game started, played to its end through the match table's views and exported. How a match ends:
the table says its rule, then what it was played to; a member ending it early is asked first, the hand
being played is abandoned (never one undone) and later changes refused. What a game's table says of
its own: Eighty Three's threshold in force, Fapfap's stakes, and Cat Tê's chips, a batch for everyone
when someone runs out (asked for first, handed out once, dated by the hand open then), a score below
zero explained and what the chips come to, owed as their worth."""

import re

import pytest

from matches.domain import rules
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Sitting

from tests.conftest import play, shown, snapshot
from tests.csv_files import of_kind, read
from tests.pages import HX, NAMES, stamped, start, tapped, url, words

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
        "<strong>Boubacar</strong> wins the match with +800\u00a0FCFA (5 stakes won).",  # at a stake: the money first
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
    rows = read(client, url(sitting, "hands.csv"))
    assert len(of_kind(rows, "hand")) == len(taps) * len(names)  # a row per hand and player
    assert len(of_kind(rows, "net")) == len(names)
    assert sitting.check_totals() == []


# --- how a match ends -----------------------------------------------------------------------------


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


def test_a_finished_match_no_longer_states_how_it_will_end(client):
    sitting = Sitting.start("agram", NAMES, rules.MatchEnd(rules.MatchEndKind.HANDS, 2))
    assert "The match ends after 2 hands." in client.get(url(sitting)).content.decode()
    play(sitting, [0, 1])
    page = client.get(url(sitting)).content.decode()
    assert "Match over" in page and "The match ends after" not in page


def test_a_finished_match_says_what_it_was_played_to(client):
    sitting = start(client, "agram", {"end_kind": "wins", "end_target": "2"}, ["A", "B"])
    for number in (1, 2):
        client.post(url(sitting, "tap/"), {"number": number, "winner": 1})
    over = client.get(url(sitting)).content.decode()
    assert "Match over" in over and "Played to 2 hands won." in over


def test_end_match_asks_for_confirmation_first(client, sitting):
    response = client.get(url(sitting, "end/"))
    assert response.status_code == 200
    assert "Hand 1 will not count, even if it has started." in response.content.decode()
    assert not Sitting.objects.get(pk=sitting.pk).is_finished


@pytest.mark.parametrize("headers, status", [({}, 302), (HX, 200)], ids=["plain", "htmx"])
def test_end_early_abandons_the_open_hand_and_refuses_later_taps(client, sitting, headers, status):
    play(sitting, [2, 2, 1])
    response = client.post(url(sitting, "end/"), {"number": 4}, **headers)
    assert response.status_code == status
    sitting.refresh_from_db()
    assert sitting.is_finished
    assert sitting.hands.get(number=4).status == "abandoned"
    page = client.get(url(sitting)).content.decode()
    assert "<strong>Chaibou</strong> wins the match with 2 hands won." in page
    assert 'name="winner"' not in page and "Undo hand" not in page
    before = snapshot(sitting)
    refused = client.post(url(sitting, "tap/"), {"number": 4, "winner": 1}, **HX)
    assert refused.status_code == 409 and "This match is over" in refused.content.decode()
    again = client.post(url(sitting, "end/"), {"number": 4}, **HX)
    assert again.status_code == 409 and "already over" in again.content.decode()
    assert client.post(url(sitting, "undo/"), stamped(sitting, 3)).status_code == 409
    assert snapshot(sitting) == before


def test_a_stale_end_confirmation_ends_nothing(client, sitting):
    play(sitting, [2])
    before = snapshot(sitting)
    response = client.post(url(sitting, "end/"), {"number": 1}, **HX)  # the phone confirmed while hand 1 was open
    assert response.status_code == 409
    assert "Hand 2 is open now, not hand 1" in response.content.decode()
    assert snapshot(sitting) == before
    assert client.post(url(sitting, "end/"), {}, **HX).status_code == 400


def test_an_undone_hand_is_gone_from_every_list_once_the_match_is_ended(client, sitting):
    play(sitting, [0, 1, 2])
    assert client.post(url(sitting, "undo/"), stamped(sitting, 3), **HX).status_code == 200
    assert client.post(url(sitting, "end/"), {"number": 3}, **HX).status_code == 200
    pages = [client.get(url(sitting, path)).content.decode() for path in ("", "hands/")]
    body = b"".join(client.get(url(sitting, "hands.csv")).streaming_content).decode("utf-8-sig")
    for text in (*pages, body):
        assert "abandoned" not in text
    rows = read(client, url(sitting, "hands.csv"))
    assert [row["hand"] for row in of_kind(rows, "hand")] == ["1"] * 4 + ["2"] * 4  # two hands, then the nets
    assert len(of_kind(rows, "net")) == 4
    assert "Ended after hand 2." in pages[0]  # not "hand 3 was not played": it was undone


@pytest.mark.parametrize("slug, answers", [("fapfap", {"multiplier": "2"}), ("cat-te", {"how": "flush"})])
def test_a_match_ended_early_shows_its_abandoned_hand(client, slug, answers):
    """The abandoned hand has no answers; the table, history and CSV still render."""
    sitting = Sitting.start(slug, ["A", "B", "C"])
    sitting.record_hand(1, 0, answers)
    sitting.end_match()
    for path in ("", "hands/", "hands.csv"):
        assert client.get(url(sitting, path)).status_code == 200


# --- Eighty Three's threshold, Fapfap's stakes ----------------------------------------------------


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


def test_a_raised_threshold_is_said_in_the_notice_of_the_tap_that_raised_it(client):
    sitting = Sitting.start("eighty-three", ["A", "B", "C"])
    taps = [(1, {}), (2, {}), (1, {}), (2, {"ace": "1"}), (2, {"ace": "1", "last": "1"})]
    for number, (winner, answers) in enumerate(taps, start=1):
        assert "Tie at" not in tapped(client, sitting, number, winner, **answers)
    tying = tapped(client, sitting, 6, 1, ace="1", last="1", bonus="2")  # A 10, B 10: tie at 10
    assert "Tie at 10: now playing to 15." in tying


def test_fapfap_shows_totals_in_stakes_and_money(client):
    sitting = start(client, "fapfap", {"end_kind": "open", "stake_amount": "100", "stake_label": "FCFA"}, ["A", "B"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "multiplier": "4"})
    page = client.get(url(sitting)).content.decode()
    assert '<th scope="col" class="num">FCFA</th>' in page
    assert '<td class="num">4</td><td class="num">+400</td>' in page  # a net, signed as settling up
    assert "with 3s, the last two tricks" in page  # the hand row says how it was won


def test_fapfaps_score_table_says_what_a_stake_won_counts(client):
    """A hand won x1 at a table of four is 1 stake won, though three players pay it: said under the table."""
    sitting = Sitting.start("fapfap", NAMES, stake_amount=100, stake_label="FCFA")
    page = shown(tapped(client, sitting, 1, 2, multiplier="1"))
    assert "Stakes won: the x1, x2 or x4 of each hand won; every other player pays the winner that many stakes." in page
    assert "Stakes won:" not in client.get(url(Sitting.start("sipa", NAMES[:2]))).content.decode()


def test_a_stake_match_says_what_a_stake_is_worth_before_its_first_hand(client):
    with_label = Sitting.start("fapfap", NAMES, stake_amount=1500, stake_label="FCFA")
    without_label = Sitting.start("fapfap", NAMES, stake_amount=100)
    assert "One stake is worth 1,500\u00a0FCFA." in shown(client.get(url(with_label)).content.decode())
    assert "One stake is worth 100." in shown(client.get(url(without_label)).content.decode())
    assert "One stake is worth" not in client.get(url(Sitting.start("fapfap", NAMES))).content.decode()


# --- Cat Tê's chips -------------------------------------------------------------------------------


def test_handing_out_chips_asks_first_and_shows_as_a_row_of_the_hands(client):
    sitting = Sitting.start("cat-te", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 9), starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})  # Ben and Chloé have none left
    page = client.get(url(sitting)).content.decode()
    reissue = words(re.search(r'<details class="reissue">(.*?)</details>', page, re.S)[1])
    assert "Someone ran out: give everyone 2 chips" in reissue
    assert "Out of chips: Ben and Chloé." in reissue  # second newcomer round: who "someone" is
    assert "Every player gets 2 more chips, as at the start, not only whoever ran out." in reissue
    assert "Yes, give everyone 2 chips" in reissue
    answer = client.post(url(sitting, "chips/"), {"seen": 0}, **HX)
    assert "Everyone received 2 more chips." in words(answer)
    hands = re.search(r'<table class="hands">.*?</table>', answer.content.decode(), re.S)[0]
    assert '<tr class="batch">' in hands and "Everyone received 2 more chips." in hands
    sitting.record_hand(2, 1, {"how": "last"})
    rows = re.findall(r"<tr[^>]*>.*?</tr>", client.get(url(sitting, "hands/")).content.decode(), re.S)
    order = [("batch" if "batch" in row else words(row).split()[0]) for row in rows[1:]]
    assert order == ["2", "batch", "1"]  # newest first: the chips between the hands they came between


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


@pytest.mark.parametrize("seen", [-1, 2, "-0", "٠"])  # ("-0" and another script's 0: no page writes them)
def test_a_chips_count_no_page_showed_is_refused_as_a_stale_button_not_as_another_phone(client, seen):
    sitting = start(client, "cat-te", {"end_kind": "hands", "end_target": "9", "starting_chips": "2"}, ["A", "B", "C"])
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "how": "flush"})  # B and C: 0 chips
    answer = client.post(url(sitting, "chips/"), {"seen": seen}, **HX)
    text = answer.content.decode()
    assert answer.status_code == 400 and "reload the page" in text and "another phone" not in text
    sitting.refresh_from_db()
    assert sitting.chips_reissued == 0 and sitting.table().balances() == [6, 0, 0]


def test_a_batch_refused_leaves_the_dates_as_they_were(client):
    sitting = Sitting.start("cat-te", NAMES, MatchEnd(MatchEndKind.HANDS, 9), starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.reissue_chips(0)
    assert client.post(url(sitting, "chips/"), {"seen": 0}, **HX).status_code == 409  # a double tap
    sitting.refresh_from_db()
    assert sitting.reissued_before == [2]


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


def test_cat_tes_help_says_what_a_score_below_zero_means(client):
    sitting = Sitting.start("cat-te", NAMES[:3])
    assert "A player who owes more chips than they hold goes below 0" in client.get(url(sitting)).content.decode()


def test_cat_tes_settlement_is_a_worth_owed_not_chips_to_pass_again(client):
    sitting = Sitting.start("cat-te", NAMES[:3], starting_chips=5)
    tapped(client, sitting, 1, 1, how="last")
    page = client.get(url(sitting)).content.decode()
    assert "The chips stay where they are: this is what they come to" in shown(page)
    payments = re.search(r'<ul class="payments">(.*?)</ul>', shown(page), re.S)[1]
    assert "owes" in payments and "the worth of" in payments and "gives" not in payments  # not chips to pass again


@pytest.mark.parametrize("path", ["/start/", "group"])
def test_every_game_in_the_list_says_where_it_is_played_or_that_the_sources_do_not_say(client, path):
    """RULES.md and its sources name a country for every game but Eighty Three, which they call a close
    variant of Cat Tê: the list says so rather than leave it blank."""
    from matches.domain.rules import GAMES
    from matches.models import Group

    if path == "group":
        path = f"/g/{Group.create('Friday').token}/new/"
    page = client.get(path).content.decode()
    for game in GAMES.values():
        assert game.region, game.slug
    assert "Eighty Three</strong> <small>(origin not recorded; a close variant of Cat Tê)</small>" in page
