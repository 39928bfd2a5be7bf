"""A broken group archive is refused with what to fix, naming the field, in the reader's language, and
writes nothing: a field of the wrong shape, missing or unknown; totals, runs, thresholds, dealers or
points its hands' replay by the game's rules does not give; a match end not reached or passed;
rematches that are not later matches; two players of one name; dates that are not dates or not
possible; a file that is no archive at all."""

import copy

import pytest
from django.db import transaction
from django.utils import translation

from matches.services.archive import ArchiveError, export_group, import_group, read_archive

from tests.groups import index_of, played_group
from tests.rows import rows

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def played(django_db_setup, django_db_blocker) -> dict:
    """The archive of a group with a bit of everything, made by the verbs once for the module, then its
    rows rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        data = export_group(played_group())
        transaction.set_rollback(True)
    return data


@pytest.fixture
def archive(db, played) -> dict:
    """That archive, this test's own copy to break."""
    return copy.deepcopy(played)


def _set(path: str, value):
    """A change to the archive: `path` like "sittings.agram.hands.0.winner" (a game slug picks the
    first match of that game)."""

    def change(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = _step(data, node, key)
        if isinstance(node, list):
            last = int(last)
        node[last] = value(node[last]) if callable(value) else value

    return change


def _step(data, node, key):
    if isinstance(node, list):
        if key.lstrip("-").isdigit():
            return node[int(key)]
        return node[index_of(data, key)]
    return node[key]


def _delete(path: str):
    def change(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = _step(data, node, key)
        del node[int(last) if isinstance(node, list) else last]

    return change


def _both(*changes):
    def change(data: dict) -> None:
        for one in changes:
            one(data)

    return change


def _seat_twice(data):
    seats = data["sittings"][index_of(data, "agram")]["seats"]
    seats[1]["player"] = seats[0]["player"]


def _rematch_itself(data):
    number = index_of(data, "cat-te")
    data["sittings"][number]["next_sitting"] = number


def _two_rematches(data):
    agram, rematch = index_of(data, "agram"), index_of(data, "agram", 1)
    data["sittings"][index_of(data, "fapfap")]["next_sitting"] = rematch
    assert data["sittings"][agram]["next_sitting"] == rematch


def _two_members_called_aicha(data):
    hawa = next(p for p in data["players"] if p["name"] == "Hawa")
    hawa["name"] = "AÏCHA"


def _rematches_of_each_other(data):
    agram, rematch = index_of(data, "agram"), index_of(data, "agram", 1)
    assert data["sittings"][agram]["next_sitting"] == rematch
    data["sittings"][rematch]["next_sitting"] = agram


def _hawa_called_as_the_erased(data):
    next(p for p in data["players"] if p["name"] == "Hawa")["name"] = "Erased player 1"


def _hawa_called_as_djibo(data):
    hawa = next(p for p in data["players"] if p["name"] == "Hawa")
    assert next(p for p in data["players"] if p["name"] == "Djibo")["left"]
    hawa["name"] = "djibo"


BROKEN = [
    ("format", _set("format", "last-trick-sitting"), 'its "format" should be "last-trick-group"'),
    ("newer version", _set("version", 2), "This archive is version 2 of the format; this server reads version 1"),
    ("version true", _set("version", True), "This archive is version true"),
    ("no players", _delete("players"), 'The archive has no "players": add it.'),
    ("players not a list", _set("players", {}), "players should be a list [...], not {}."),
    (
        "a seat not an object",
        _set("sittings.agram.seats.0", 0),
        "sittings[0].seats[0] should be an object {...}, not 0.",
    ),
    ("unknown field", _set("token", "abc"), 'The archive has a field "token" that this format does not know'),
    ("missing field", _delete("sittings.agram.hands.0.stamp"), 'sittings[0].hands[0] has no "stamp": add it.'),
    (
        "unknown game",
        _set("sittings.agram.game", "poker"),
        'sittings[0].game is "poker", a game this server does not know',
    ),
    (
        "seat's player out of range",
        _set("sittings.agram.seats.0.player", 8),
        "sittings[0].seats[0].player should be a whole number from 0 to 7, not 8.",
    ),
    (
        "player seated twice",
        _seat_twice,
        "sittings[0].seats[1].player is players[0] again: each player holds one seat.",
    ),
    (
        "too few seats",
        _delete("sittings.cat-te.seats.2"),
        "sittings[2].seats: Cat Tê needs at least 3 players: add a name.",
    ),
    (
        "hand numbers with a gap",
        _delete("sittings.agram.hands.1"),
        "sittings[0].hands[1].number is hand 3 where hand 2 should be",
    ),
    (
        "winner not seated",
        _set("sittings.agram.hands.0.winner", 4),
        "sittings[0].hands[0].winner should be a whole number from 0 to 3, not 4.",
    ),
    (
        "points for too many seats",
        _set("sittings.agram.hands.0.points", lambda points: [*points, 0]),
        "sittings[0].hands[0].points lists 5 numbers for 4 seats",
    ),
    (
        "points that are not whole numbers",
        _set("sittings.agram.hands.0.points", [0, 0, 1.0, 0]),
        "sittings[0].hands[0].points[2] should be a whole number",
    ),
    (
        "a total that is not the sum of the hands",
        _set("sittings.agram.seats.2.total", lambda total: total + 1),
        "sittings[0].seats[2].total is 4, but replaying the match's hands by its game's rules gives 3.",
    ),
    (
        "hands won that are not the hands won",
        _set("sittings.fapfap.seats.0.hands_won", 1),
        "sittings[3].seats[0].hands_won is 1, but replaying",
    ),
    ("a best run", _set("sittings.agram.seats.2.best_run", 3), "sittings[0].seats[2].best_run is 3, but replaying"),
    ("running totals", _set("sittings.agram.hands.0.running", [0, 0, 0, 0]), "sittings[0].hands[0].running is"),
    ("a threshold", _set("sittings.eighty-three.threshold", 10), "sittings[4].threshold is 10, but replaying"),
    ("a tie", _set("sittings.eighty-three.tied_at", None), "sittings[4].tied_at is null, but replaying"),
    (
        "a match end that was not reached",
        _both(
            _set("sittings.cat-te.ended_how", "match-end"),
            _set("sittings.cat-te.finished_at", "2025-05-01T19:15:00+00:00"),
        ),
        "sittings[2] says its match end was reached, but its hands do not reach it.",
    ),
    (
        "a match end reached but still in progress",
        _both(_set("sittings.fapfap.ended_how", ""), _set("sittings.fapfap.finished_at", None)),
        "sittings[3] is in progress, but its hands reach its match end",
    ),
    (
        "finished without a reason",
        _set("sittings.fapfap.ended_how", ""),
        'sittings[3] has ended_how "" and finished_at',
    ),
    (
        "an abandoned hand in the middle",
        _both(
            _set("sittings.agram.hands.0.status", "abandoned"),
            _set("sittings.agram.hands.0.winner", None),
            _set("sittings.agram.hands.0.points", [0, 0, 0, 0]),
        ),
        "sittings[0].hands[0]: a hand is abandoned only when a member ends the match",
    ),
    (
        "extra facts the game does not take",
        _set("sittings.fapfap.hands.0.extras", {"multiplier": "3"}),
        "sittings[3].hands[0].extras: How was the last trick won? Answer with one of these: with a 4 or higher, "
        "with a 3, last trick only or with 3s, the last two tricks.",
    ),
    (
        "extra facts not as recorded",
        _set("sittings.eighty-three.hands.0.extras", {"ace": 0, "last": False, "bonus": []}),
        'sittings[4].hands[0].extras is {"ace": 0, "last": false, "bonus": []}, which this server records as',
    ),
    (
        "an Ace held back by the winner",
        _set("sittings.cat-te.hands.1.extras", {"how": "sweep", "aces": [2]}),
        "sittings[2].hands[1].extras: Sweep: who held back an Ace of the suit led (each pays 1 chip more)? The hand's winner cannot be one of them.",
    ),
    (
        "a date that is not one",
        _set("sittings.spar.started_at", "last Thursday"),
        "sittings[5].started_at should be a date and time with its offset from UTC",
    ),
    (
        "a date without its offset",
        _set("created_at", "2025-05-01T19:15:00"),
        "created_at should be a date and time with its offset from UTC",
    ),
    ("a rematch of itself", _rematch_itself, "sittings[2].next_sitting is 2: a rematch is a later match"),
    ("two matches with one rematch", _two_rematches, "sittings[3].next_sitting is 1: a rematch is a later match"),
    ("rematches of each other", _rematches_of_each_other, "sittings[1].next_sitting is 0: a rematch is a later"),
    ("a rematch of another game", _set("sittings.cat-te.next_sitting", 3), "sittings[2].next_sitting is 3: a"),
    ("version 1.0", _set("version", 1.0), "This archive is version 1.0"),
    (
        "a null character in a text",
        _set("sittings.fapfap.stake_label", "FC\u0000FA"),
        "sittings[3].stake_label holds a null",
    ),
    (
        "a null character in a stamp",
        _set("sittings.spar.hands.0.stamp", "a\u0000b"),
        "sittings[5].hands[0].stamp holds a null",
    ),
    ("a currency with spaces around", _set("sittings.fapfap.stake_label", " FCFA "), 'write it "FCFA"'),
    ("a member of an erased player's name", _hawa_called_as_the_erased, "(Erased player 1) name the same player"),
    (
        "a rematch outside the file",
        _set("sittings.agram.next_sitting", 6),
        "sittings[0].next_sitting should be a whole number from 0 to 5, or null, not 6.",
    ),
    ("two members of one name", _two_members_called_aicha, "(Aïcha) and players[7] (AÏCHA) name the same player"),
    ("a member of a former player's name", _hawa_called_as_djibo, "(djibo) name the same player: rename one."),
    ("erased but not left", _set("players.0.erased", True), "players[0] is erased but not left"),
    (
        "a name with spaces around it",
        _set("players.0.name", " Aïcha "),
        'players[0].name has spaces or invisible characters this server would not keep: write it "Aïcha".',
    ),
    ("an empty name", _set("players.0.name", "   "), "players[0].name is not a name"),
    (
        "a name with a character no one typed",
        _set("players.0.name", "A\ufffdcha"),
        "players[0].name: This name holds a character that could not be read",
    ),
    ("a group name the same", _set("name", "Jeu\ufffdi"), "name: This name holds a character that could not be read"),
    (
        "a too long group name",
        _set("name", "x" * 41),
        "name should be text of at most 40 characters",
    ),
    (
        "chips in a game without chips",
        _both(_set("sittings.agram.chips_reissued", 1), _set("sittings.agram.reissued_before", [2])),
        "sittings[0].chips_reissued: Agram is not played with chips.",
    ),
    (
        "chip batches not dated",
        _set("sittings.cat-te.reissued_before", []),
        "sittings[2].reissued_before should list, for each of the 1 batches of chips re-issued, the hand open",
    ),
    (
        "a stake in a game without stakes",
        _set("sittings.agram.stake_amount", 100),
        "sittings[0]: Agram is not played for a stake.",
    ),
    (
        "a match end the game does not have",
        _both(_set("sittings.cat-te.end_kind", "points"), _set("sittings.cat-te.end_target", 10)),
        "sittings[2].end_kind: Cat Tê cannot end that way",
    ),
    ("a recorder's seat not at the table", _set("sittings.spar.hands.0.recorded_by_seat", 3), "recorded_by_seat"),
    (
        "points the hand's facts do not give (a x4 hand made worth more)",
        _set("sittings.fapfap.hands.0.points", lambda points: [p * 50 for p in points]),
        "sittings[3].hands[0].points is [200, 0, 0], but its game's rules give [4, 0, 0]",
    ),
    (
        "a hand dealt by a seat the rules do not name",
        _set("sittings.agram.hands.1.dealer_position", lambda dealer: (dealer + 1) % 4),
        "sittings[0].hands[1].dealer_position is",
    ),
    (
        "hand 1 not dealt by the first seat",
        _set("sittings.spar.hands.0.dealer_position", 1),
        "sittings[5].hands[0].dealer_position is 1, but by its game's rules seat 0 deals this hand",
    ),
    (
        "a moment after today",
        _set("sittings.spar.started_at", "9999-12-31T23:59:59+00:00"),
        'sittings[5].started_at is "9999-12-31T23:59:59+00:00": a moment',
    ),
    ("a moment before 2000", _set("created_at", "0001-01-01T00:00:00+00:00"), 'created_at is "0001-01-01'),
]


@pytest.mark.parametrize("change, message", [case[1:] for case in BROKEN], ids=[case[0] for case in BROKEN])
def test_a_broken_archive_is_refused_with_what_to_fix_and_writes_nothing(archive, change, message):
    broken = archive
    change(broken)
    before = rows()
    with pytest.raises(ArchiveError) as refused:
        import_group(broken)
    assert message in refused.value.message
    assert isinstance(refused.value, ValueError)
    assert rows() == before


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"{not json", "This file is not JSON (line 1, column 2"),
        (b"\xff\xfe{}", "This file is not UTF-8 text"),
        (b"[" * 100_000, "This file is not a Last Trick group archive"),
        (b"[]", 'its "format" should be "last-trick-group"'),
    ],
)
def test_a_file_that_is_not_an_archive_is_refused(db, raw, message):
    with pytest.raises(ArchiveError) as refused:
        import_group(read_archive(raw))
    assert message in refused.value.message


def test_refusals_are_in_french_for_a_french_phone(archive):
    broken = archive
    broken["sittings"][0]["hands"][0]["winner"] = 4
    with translation.override("fr"), pytest.raises(ArchiveError) as refused:
        import_group(broken)
    assert "sittings[0].hands[0].winner" in refused.value.message and "nombre entier" in refused.value.message
