"""The CSV export says what the match table shows: each hand's points in the game's unit, then running
numbers under the score table's own columns (chips in front of each player, starting stack and re-issued
batches included; money at the stake), ending on the numbers of the table."""

import csv
import importlib
import io

import pytest
from django.apps import apps

from matches.models import Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import WORKED, play
from tests.pages import FR, HX, start, tally, tap, url

pytestmark = pytest.mark.django_db
SEPARATOR = {"en": ": ", "fr": "\u00a0: "}


def read_csv(client, sitting: Sitting, language: str = "en") -> list[list[str]]:
    body = b"".join(client.get(url(sitting, "hands.csv"), HTTP_ACCEPT_LANGUAGE=language).streaming_content).decode(
        "utf-8-sig"
    )
    return list(csv.reader(io.StringIO(body), delimiter=";" if language == "fr" else ","))


def last_numbers(rows: list[list[str]], names: list[str], headings: list[str], language: str) -> dict[str, list[int]]:
    """Per player, the file's last row under each score-table heading ("Aïcha: Chips")."""
    header, last = rows[0], rows[-1]
    columns = {name: [header.index(f"{name}{SEPARATOR[language]}{heading}") for heading in headings] for name in names}
    return {name: [int(last[column]) for column in found] for name, found in columns.items()}


def reissue(client, sitting: Sitting) -> None:
    sitting.refresh_from_db()
    response = client.post(url(sitting, "chips/"), {"seen": sitting.chips_reissued}, **HX)
    assert response.status_code == 200, response.content.decode()


# slug, start settings, steps: a tap (winner seat 1-based, answers) or "chips" (re-issue a batch)
EVERY_GAME = [
    ("agram", {"end_kind": "wins", "end_target": "2"}, [(1, {}), (2, {}), (1, {})]),
    ("sink-sink", {"end_kind": "hands", "end_target": "2"}, [(3, {}), (3, {})]),
    ("agram-mali", {"end_kind": "hands", "end_target": "2"}, [(1, {}), (2, {})]),
    (
        "fapfap",
        {"end_kind": "points", "end_target": "5", "stake_amount": "100", "stake_label": "FCFA"},
        [(2, {"multiplier": "4"}), (1, {"multiplier": "2"}), (2, {"multiplier": "1"})],
    ),
    ("fapfap", {"stake_amount": "1500"}, [(2, {"multiplier": "4"}), (1, {"multiplier": "2"})]),
    ("fapfap", {"stake_amount": "1", "stake_label": "€"}, [(2, {"multiplier": "4"}), (1, {"multiplier": "2"})]),
    ("fapfap", {}, [(3, {"multiplier": "2"})]),
    ("spar", {"end_kind": "points", "end_target": "5"}, [(1, {"card": "six"}), (2, {"card": "other"})]),
    ("sipa", {"end_kind": "points", "end_target": "10"}, [(1, {"sevens": "three"}), (2, {"sevens": "none"})]),
    (
        "cat-te",
        {"end_kind": "hands", "end_target": "4", "starting_chips": "2"},
        [
            (1, {"how": "flush"}),
            "chips",
            (2, {"how": "last"}),
            (3, {"how": "sweep", "aces": ["1"]}),
            (1, {"how": "last"}),
        ],
    ),
    (
        "cat-te",
        {"end_kind": "hands", "end_target": "6", "starting_chips": "1"},
        [(1, {"how": "last"}), "chips", (1, {"how": "flush"}), "chips", (2, {"how": "last"})],
    ),
    ("eighty-three", {"end_kind": "thresholds"}, [(1, {}), (1, {}), (1, {"ace": "1"})]),
    ("letzter-stich", {"end_kind": "hands", "end_target": "3"}, [(1, {}), (2, {}), (2, {})]),
]
NAMES = ["Aïcha", "Bako", "Chaibou"]


def play_through_the_views(client, slug: str, settings: dict, steps: list) -> Sitting:
    sitting = start(client, slug, settings, NAMES)
    number = 1
    for step in steps:
        if step == "chips":
            reissue(client, sitting)
            continue
        winner, answers = step
        tap(client, sitting, number, winner, answers)
        number += 1
    return sitting


@pytest.mark.engine
def test_csv_export_has_one_row_per_hand_with_points_and_running_totals(client, sitting):
    play(sitting, [2, 0, 2])
    sitting.end_match()
    response = client.get(url(sitting, "hands.csv"))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0] == [
        "hand",
        "status",
        "dealer",
        "winner",
        "how",
        *(f"{n}: wins this hand" for n in WORKED),
        *(f"{n}: Hands won" for n in WORKED),
    ]
    assert rows[1] == ["1", "won", "Aïcha", "Chaibou", "", "0", "0", "1", "0", "0", "0", "1", "0"]
    assert rows[3] == ["3", "won", "Aïcha", "Chaibou", "", "0", "0", "1", "0", "1", "0", "2", "0"]
    assert rows[4] == ["4", "abandoned", "Chaibou", "", "", "0", "0", "0", "0", "1", "0", "2", "0"]


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("slug, settings, steps", EVERY_GAME, ids=[f"{g[0]}-{i}" for i, g in enumerate(EVERY_GAME)])
def test_each_games_file_ends_on_the_numbers_its_score_table_shows(client, slug, settings, steps, language):
    sitting = play_through_the_views(client, slug, settings, steps)
    headings, shown = tally(client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode())
    rows = read_csv(client, sitting, language)
    assert last_numbers(rows, NAMES, headings, language) == shown
    assert len(rows[0]) == 5 + len(NAMES) * (1 + len(headings))  # hand facts, points this hand, the table's columns
    assert sitting.check_totals() == []


def test_cat_te_file_counts_the_starting_stack_and_each_batch_where_it_was_handed_out(client):
    """2 chips each; Aïcha's dealt flush empties Bako and Chaibou; a batch; Bako wins the last trick.
    Source: RULES.md, Cat Te (2 chips from each opponent for a flush, 1 for the last trick; a batch to all)."""
    sitting = play_through_the_views(
        client,
        "cat-te",
        {"end_kind": "hands", "end_target": "5", "starting_chips": "2"},
        [(1, {"how": "flush"}), "chips", (2, {"how": "last"})],
    )
    rows = read_csv(client, sitting)
    assert rows[0] == [
        "hand",
        "status",
        "dealer",
        "winner",
        "how",
        *(f"{name}: chips this hand" for name in NAMES),
        *(f"{name}: Chips" for name in NAMES),
        *(f"{name}: Hands won" for name in NAMES),
    ]
    assert rows[1:] == [
        ["1", "won", "Aïcha", "Aïcha", "dealt a flush", "4", "-2", "-2", "6", "0", "0", "1", "0", "0"],
        ["", "chips handed out", "", "", "2 chips to each player", "", "", "", "8", "2", "2", "1", "0", "0"],
        ["2", "won", "Aïcha", "Bako", "last trick", "-1", "2", "-1", "7", "4", "1", "1", "1", "0"],
        ["", "net", "", "", "", "3", "0", "-3", "7", "4", "1", "1", "1", "0"],  # chips won and lost, all told
    ]
    assert tally(client.get(url(sitting)).content.decode())[1] == {"Aïcha": [7, 1], "Bako": [4, 1], "Chaibou": [1, 0]}


def test_a_batch_is_dated_by_the_hand_open_when_it_was_handed_out(client):
    sitting = Sitting.start("cat-te", NAMES, MatchEnd(MatchEndKind.HANDS, 9), starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.reissue_chips(0)
    sitting.record_hand(2, 0, {"how": "last"})
    sitting.record_hand(3, 0, {"how": "last"})
    sitting.reissue_chips(1)
    sitting.refresh_from_db()
    assert (sitting.chips_reissued, sitting.reissued_before) == (2, [2, 4])
    rows = read_csv(client, sitting)
    assert [row[0] or row[1] for row in rows[1:]] == ["1", "chips handed out", "2", "3", "chips handed out", "net"]


def test_older_sittings_batches_are_dated_after_their_last_hand(client):
    """Migration 0003: a sitting that kept only a count gets its batches after its last hand, so its
    hand rows read as before and its last row matches the table."""
    migration = importlib.import_module("matches.migrations.0003_sitting_reissued_before")
    old = Sitting.start("cat-te", NAMES, MatchEnd(MatchEndKind.HANDS, 9), starting_chips=1)
    old.record_hand(1, 0, {"how": "last"})
    old.record_hand(2, 1, {"how": "last"})
    Sitting.objects.filter(pk=old.pk).update(chips_reissued=2, reissued_before=[])
    new = Sitting.start("cat-te", NAMES, MatchEnd(MatchEndKind.HANDS, 9), starting_chips=1)
    new.record_hand(1, 0, {"how": "last"})
    new.reissue_chips(0)
    migration.batches_after_the_last_hand(apps, None)
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.reissued_before, new.reissued_before) == ([3, 3], [2])
    rows = read_csv(client, old)
    assert [row[0] or row[1] for row in rows[1:]] == ["1", "2", "chips handed out", "chips handed out", "net"]
    assert [row[5:11] for row in rows[1:3]] == [["2", "-1", "-1", "3", "0", "0"], ["-1", "2", "-1", "2", "2", "-1"]]
    headings, shown = tally(client.get(url(old)).content.decode())
    assert last_numbers(rows, NAMES, headings, "en") == shown == {"Aïcha": [4, 1], "Bako": [4, 1], "Chaibou": [1, 0]}


def test_fapfap_file_has_money_columns_named_by_the_currency(client):
    sitting = play_through_the_views(
        client, "fapfap", {"stake_amount": "100", "stake_label": "FCFA"}, [(2, {"multiplier": "4"})]
    )
    english = read_csv(client, sitting)
    assert english[0][5:] == [
        *(f"{name}: FCFA this hand" for name in NAMES),
        *(f"{name}: Stakes won" for name in NAMES),
        *(f"{name}: FCFA" for name in NAMES),
        *(f"{name}: Hands won" for name in NAMES),
    ]
    # Money is each player's net: every other player pays the winner stake x multiplier (100 x 4),
    # so with 3 seats Bako nets +800 and Aïcha and Chaibou -400 each (stake x (3 x own - all 4)).
    # The hand's own columns say who paid and who was paid, in FCFA; the closing line the nets.
    assert english[1][5:] == ["-400", "800", "-400", "0", "4", "0", "-400", "800", "-400", "0", "1", "0"]
    assert english[2][:2] == ["", "net"] and english[2][5:8] == ["-400", "800", "-400"]
    french = read_csv(client, sitting, "fr")
    assert french[0][5] == "Aïcha\u00a0: FCFA de cette main" and french[0][11] == "Aïcha\u00a0: FCFA"
    assert b"".join(client.get(url(sitting, "hands.csv"), **FR).streaming_content).decode("utf-8-sig").count(";") > 10


@pytest.mark.parametrize(
    "slug, settings, per_hand, running",
    [
        ("agram", {}, "wins this hand", ["Hands won"]),
        ("spar", {}, "points this hand", ["Points", "Hands won"]),
        ("letzter-stich", {"end_kind": "hands", "end_target": "3"}, "points this hand", ["Points", "Hands won"]),
        # Even at a stake of 1 the money (a net: stake x (n x own - all)) differs from the stakes won.
        ("fapfap", {"stake_amount": "1", "stake_label": "€"}, "€ this hand", ["Stakes won", "€", "Hands won"]),
        ("fapfap", {}, "stakes this hand", ["Stakes won", "Hands won"]),
    ],
)
def test_the_files_headers_carry_the_screens_unit(client, slug, settings, per_hand, running):
    sitting = start(client, slug, settings, NAMES)
    header = read_csv(client, sitting)[0]
    assert header[5:] == [
        *(f"{name}: {per_hand}" for name in NAMES),
        *(f"{name}: {heading}" for heading in running for name in NAMES),
    ]
    assert tally(client.get(url(sitting)).content.decode())[0] == running


def test_the_file_is_streamed_and_words_each_answer_once(client, monkeypatch):
    """A long match is sent as it is read (constant memory), and a hand's answers are worded once per
    distinct answer, not once per row."""
    from matches.web.presenters.table_state import TableState

    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    for number in range(1, 41):
        sitting.record_hand(number, number % 3, {"multiplier": "2" if number % 2 else "1"})
    worded = []
    real = TableState.describe
    monkeypatch.setattr(
        TableState, "describe", lambda self, hand, **kw: worded.append(hand.number) or real(self, hand, **kw)
    )
    response = client.get(url(sitting, "hands.csv"))
    assert response.streaming and not worded  # nothing is read before the file is sent
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert [row[0] for row in rows[1:]] == [*(str(n) for n in range(1, 41)), ""]  # then the nets
    assert len(worded) == 2 and len({row[4] for row in rows[1:-1]}) == 2


def test_the_table_names_the_csv_on_its_way_to_it_once_a_hand_is_recorded(client):
    """The export is on the hands page; the table's button to it says so (not a link sent with every tap)."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    assert "CSV" not in client.get(url(sitting)).content.decode()
    sitting.record_hand(1, 0)
    tapped = client.post(url(sitting, "tap/"), {"number": 2, "winner": 2}, **HX, **FR)
    for answer in (client.get(url(sitting), **FR), tapped):
        page = answer.content.decode()
        assert f'<a class="button" href="{url(sitting, "hands/")}">Toutes les mains · corrections · CSV</a>' in page
    hands = client.get(url(sitting, "hands/"), **FR).content.decode()
    assert f'href="{url(sitting, "hands.csv")}" download>Toutes les mains (CSV)</a>' in hands


@pytest.mark.parametrize(
    "name, written",
    [
        ("|calc", "|calc"),  # not a formula in any spreadsheet: written as typed
        ("%Ali", "%Ali"),
        ("=1+2", "'=1+2"),
        ("+Ali", "'+Ali"),
        ("-Ali", "'-Ali"),
        ("@SUM(A1)", "'@SUM(A1)"),
    ],
)
def test_only_a_cell_a_spreadsheet_would_run_as_a_formula_is_neutralised(client, name, written):
    sitting = Sitting.start("fapfap", [name, "Bako"])
    sitting.record_hand(1, 0, {"multiplier": "2"})
    rows = read_csv(client, sitting)
    assert rows[1][2:4] == [written, written]  # dealer and winner
    assert rows[0][5] == f"{written}: stakes this hand"
    assert rows[1][5:7] == ["2", "-2"]  # a loss stays a number, never text
