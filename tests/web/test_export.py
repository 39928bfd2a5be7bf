"""A match's CSV, read by a script (csv.DictReader with its defaults) or a spreadsheet, whatever the phone's
language: fixed keys, one row per hand and player with the hand's own time, points apart from money, the
chips Cat Tê hands out on rows of their own, the nets on rows of their own that no column sum mixes with the
hands, and names a script reads as typed."""

import csv
import datetime
import importlib
import io
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps

from matches.models import Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.web.presenters.table_state import TableState

from tests.conftest import WORKED, play
from tests.csv_files import MATCH_KEYS, PHONES, agrees_with_the_table, as_typed, body_of, of_kind, read
from tests.pages import FR, HX, start, tally, tap, url

pytestmark = pytest.mark.django_db


def read_csv(client, sitting: Sitting, phone: str = "en") -> list[dict[str, str]]:
    return read(client, url(sitting, "hands.csv"), phone)


def in_order(rows: list[dict[str, str]]) -> list[tuple[str, str]]:
    """The file's rows as (row_type, hand), one entry per run of rows of the same hand or batch."""
    runs: list[tuple[str, str]] = []
    for row in rows:
        if row["seat"] == "1":
            runs.append((row["row_type"], row["hand"]))
    return runs


def per_seat(rows: list[dict[str, str]], *keys: str) -> list[list[str]]:
    return [[row[key] for key in keys] for row in rows]


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


@pytest.mark.parametrize("phone", PHONES)
def test_a_script_reads_the_file_by_the_same_keys_in_every_language(client, sitting, phone):
    play(sitting, [2, 0])
    body = body_of(client.get(url(sitting, "hands.csv"), **PHONES[phone]))
    assert body.startswith(b"\xef\xbb\xbf" + ",".join(MATCH_KEYS).encode() + b"\r\n")  # BOM for spreadsheets
    rows = read_csv(client, sitting, phone)
    assert per_seat(rows[:4], "row_type", "hand", "status", "winner", "player", "unit", "points") == [
        ["hand", "1", "won", "Chaibou", name, "wins", "1" if name == "Chaibou" else "0"] for name in WORKED
    ]


@pytest.mark.engine
def test_one_row_per_hand_and_player_then_a_net_row_per_player(client, sitting):
    play(sitting, [2, 0, 2])
    sitting.end_match()  # hand 4, open, is abandoned
    response = client.get(url(sitting, "hands.csv"))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = read_csv(client, sitting)
    assert in_order(rows) == [("hand", "1"), ("hand", "2"), ("hand", "3"), ("hand", "4"), ("net", "")]
    assert len(rows) == 5 * len(WORKED)
    assert rows[0] == {
        **dict.fromkeys(MATCH_KEYS, ""),
        "row_type": "hand",
        "hand": "1",
        "time": rows[0]["time"],
        "status": "won",
        "dealer": "Aïcha",
        "winner": "Chaibou",
        "seat": "1",
        "player": "Aïcha",
        "unit": "wins",
        "points": "0",
    }
    abandoned = of_kind(rows, "hand")[-4:]
    assert per_seat(abandoned, "status", "dealer", "winner", "how", "points") == [
        ["abandoned", "Chaibou", "", "", "0"]
    ] * 4
    assert per_seat(of_kind(rows, "net"), "player", "net_points", "hands_won") == [
        ["Aïcha", "1", "1"],
        ["Boubacar", "0", "0"],
        ["Chaibou", "2", "2"],
        ["Djibo", "0", "0"],
    ]


@pytest.mark.parametrize("phone", ["en", "fr"])
@pytest.mark.parametrize("slug, settings, steps", EVERY_GAME, ids=[f"{g[0]}-{i}" for i, g in enumerate(EVERY_GAME)])
def test_each_games_hand_rows_add_up_to_its_score_table_and_its_net_rows_to_its_settlement(
    client, slug, settings, steps, phone
):
    sitting = play_through_the_views(client, slug, settings, steps)
    state = TableState.of(Sitting.objects.get(pk=sitting.pk).table())
    _headings, shown = tally(client.get(url(sitting), **PHONES[phone]).content.decode())
    keys = [column.key for column in state.columns]
    rows = read_csv(client, sitting, phone)
    agrees_with_the_table(rows, {name: dict(zip(keys, numbers)) for name, numbers in shown.items()}, state.settling)
    hands = of_kind(rows, "hand")
    assert {row["unit"] for row in hands} == {sitting.rules.unit}  # the game's unit, in English
    assert {row["currency"] for row in hands} == {settings.get("stake_label", "")}
    assert sitting.check_totals() == []


def test_each_hand_row_carries_its_own_time_on_the_tables_clock(client):
    """A table in Hanoi (UTC+7) on a server in Niamey: each hand at the moment it was recorded, not the
    match's start, written ISO 8601 with the table's offset; a row of nets or chips has no time."""
    sitting = Sitting.start("fapfap", NAMES, stake_amount=100, stake_label="FCFA")
    hanoi = ZoneInfo("Asia/Ho_Chi_Minh")
    Sitting.objects.filter(pk=sitting.pk).update(
        time_zone="Asia/Ho_Chi_Minh", started_at=datetime.datetime(2026, 12, 31, 23, 30, tzinfo=hanoi)
    )
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 1, {"multiplier": "1"})
    sitting.end_match()  # hand 3 abandoned
    moments = {1: (2026, 12, 31, 23, 41, 7), 2: (2027, 1, 1, 0, 12, 59), 3: (2027, 1, 1, 0, 30, 0)}
    for number, moment in moments.items():
        sitting.hands.filter(number=number).update(recorded_at=datetime.datetime(*moment, tzinfo=hanoi))
    for phone in ("en", "fr"):
        rows = read_csv(client, sitting, phone)
        assert [row["time"] for row in of_kind(rows, "hand")] == [
            *["2026-12-31T23:41:07+07:00"] * 3,
            *["2027-01-01T00:12:59+07:00"] * 3,
            *["2027-01-01T00:30:00+07:00"] * 3,
        ]
        assert {row["time"] for row in of_kind(rows, "net")} == {""}
        assert [row["status"] for row in rows if row["seat"] == "1"] == ["won", "won", "abandoned", ""]


def test_cat_te_file_hands_out_the_starting_stack_and_each_batch_on_rows_of_their_own(client):
    """2 chips each; Aïcha's dealt flush empties Bako and Chaibou; a batch; Bako wins the last trick.
    Source: RULES.md, Cat Te (2 chips from each opponent for a flush, 1 for the last trick; a batch to all)."""
    sitting = play_through_the_views(
        client,
        "cat-te",
        {"end_kind": "hands", "end_target": "5", "starting_chips": "2"},
        [(1, {"how": "flush"}), "chips", (2, {"how": "last"})],
    )
    rows = read_csv(client, sitting)
    assert in_order(rows) == [("chips", ""), ("hand", "1"), ("chips", ""), ("hand", "2"), ("net", "")]
    columns = ("row_type", "how", "player", "points", "chips_received", "net_points", "hands_won")
    assert per_seat(rows, *columns) == [
        *(["chips", "2 chips to each player", name, "", "2", "", ""] for name in NAMES),
        ["hand", "dealt a flush", "Aïcha", "4", "", "", ""],
        ["hand", "dealt a flush", "Bako", "-2", "", "", ""],
        ["hand", "dealt a flush", "Chaibou", "-2", "", "", ""],
        *(["chips", "2 chips to each player", name, "", "2", "", ""] for name in NAMES),
        ["hand", "last trick", "Aïcha", "-1", "", "", ""],
        ["hand", "last trick", "Bako", "2", "", "", ""],
        ["hand", "last trick", "Chaibou", "-1", "", "", ""],
        ["net", "", "Aïcha", "", "", "3", "1"],  # chips won and lost, all told: the settlement in chips
        ["net", "", "Bako", "", "", "0", "1"],
        ["net", "", "Chaibou", "", "", "-3", "0"],
    ]
    assert tally(client.get(url(sitting)).content.decode())[1] == {"Aïcha": [7, 1], "Bako": [4, 1], "Chaibou": [1, 0]}


def test_cat_te_file_gives_a_batch_only_to_those_seated_when_it_was_handed_out(client):
    sitting = Sitting.start("cat-te", NAMES, starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})
    sitting.reissue_chips(0)
    sitting.seat_player("Hawa")  # after the batch, while hand 2 is open
    rows = read_csv(client, sitting)
    given = [(row["player"], row["how"]) for row in rows if row["row_type"] == "chips" and row["player"] == "Hawa"]
    assert given == [("Hawa", "2 chips on sitting down")]


def test_a_batch_is_dated_by_the_hand_open_when_it_was_handed_out(client):
    sitting = Sitting.start("cat-te", NAMES, MatchEnd(MatchEndKind.HANDS, 9), starting_chips=1)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.reissue_chips(0)
    sitting.record_hand(2, 0, {"how": "last"})
    sitting.record_hand(3, 0, {"how": "last"})
    sitting.reissue_chips(1)
    sitting.refresh_from_db()
    assert (sitting.chips_reissued, sitting.reissued_before) == (2, [2, 4])
    assert in_order(read_csv(client, sitting)) == [
        ("chips", ""),  # the starting stack
        ("hand", "1"),
        ("chips", ""),
        ("hand", "2"),
        ("hand", "3"),
        ("chips", ""),
        ("net", ""),
    ]


def test_older_sittings_batches_are_dated_after_their_last_hand(client):
    """Migration 0003: a sitting that kept only a count gets its batches after its last hand, so its
    hand rows read as before and its chips add up to the table."""
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
    assert in_order(rows) == [("chips", ""), ("hand", "1"), ("hand", "2"), ("chips", ""), ("chips", ""), ("net", "")]
    assert [row["points"] for row in of_kind(rows, "hand")] == ["2", "-1", "-1", "-1", "2", "-1"]
    state = TableState.of(old.table())
    tables = {row.seat.name: {column.key: value for column, value in row.cells} for row in state.tally}
    agrees_with_the_table(rows, tables, state.settling)
    assert tally(client.get(url(old)).content.decode())[1] == {"Aïcha": [4, 1], "Bako": [4, 1], "Chaibou": [1, 0]}


def test_fapfap_file_has_points_and_money_in_columns_of_their_own(client):
    sitting = play_through_the_views(
        client, "fapfap", {"stake_amount": "100", "stake_label": "FCFA"}, [(2, {"multiplier": "4"})]
    )
    # Money is each player's net: every other player pays the winner stake x multiplier (100 x 4),
    # so with 3 seats Bako nets +800 and Aïcha and Chaibou -400 each (stake x (3 x own - all 4)).
    # The points are the stakes won (Bako's multiplier), the money who paid and who was paid, in FCFA.
    columns = ("row_type", "player", "unit", "points", "currency", "money", "net_points", "net_money")
    for phone in ("en", "fr"):
        assert per_seat(read_csv(client, sitting, phone), *columns) == [
            ["hand", "Aïcha", "stakes", "0", "FCFA", "-400", "", ""],
            ["hand", "Bako", "stakes", "4", "FCFA", "800", "", ""],
            ["hand", "Chaibou", "stakes", "0", "FCFA", "-400", "", ""],
            ["net", "Aïcha", "stakes", "", "FCFA", "", "0", "-400"],
            ["net", "Bako", "stakes", "", "FCFA", "", "4", "800"],
            ["net", "Chaibou", "stakes", "", "FCFA", "", "0", "-400"],
        ]
    french = read_csv(client, sitting, "fr")
    assert french[0]["how"] == "avec des 3, les deux dernières levées"  # words in the phone's language


def test_the_file_is_streamed_and_words_each_answer_once(client, monkeypatch):
    """A long match is sent as it is read (constant memory), and a hand's answers are worded once per
    distinct answer, not once per row."""
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
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert in_order(rows) == [*(("hand", str(n)) for n in range(1, 41)), ("net", "")]
    assert len(worded) == 2 and len({row["how"] for row in of_kind(rows, "hand")}) == 2


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
        ("-Bo", "'-Bo"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("'Ali", "''Ali"),  # a ' of its own is kept: dropping one leading ' always gives the name back
    ],
)
def test_a_name_a_spreadsheet_would_run_is_guarded_and_a_script_reads_it_as_typed(client, name, written):
    sitting = Sitting.start("fapfap", [name, "Bako"], stake_amount=150, stake_label="-x")
    sitting.record_hand(1, 1, {"multiplier": "2"})
    for phone in ("en", "fr"):
        rows = read_csv(client, sitting, phone)
        assert [rows[0][key] for key in ("dealer", "player", "currency")] == [written, written, "'-x"]
        assert [as_typed(rows[0][key]) for key in ("dealer", "player", "currency")] == [name, name, "-x"]
        assert [row["money"] for row in of_kind(rows, "hand")] == ["-300", "300"]  # a loss stays a number
        assert [row["net_money"] for row in of_kind(rows, "net")] == ["-300", "300"]
