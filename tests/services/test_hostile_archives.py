"""Hostile group archives: numbers no field holds (5,000 digits, 1e999, NaN), nesting, wrong types in
every field, bytes that are not UTF-8 JSON, a field given twice, text no database keeps (a null
character, a lone surrogate), very long text and lists, and archives over the group limits. Each one
is refused with what to fix, on the import page (a 4xx page in the reader's language) and by
`manage.py import_group` (a CommandError, no traceback), and nothing is written."""

from __future__ import annotations

import copy
import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client

from matches.domain.capacity import ARCHIVE_BYTES, ARCHIVE_DEPTH, GROUP_MATCHES, GROUP_PLAYERS
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group
from matches.services.archive import ArchiveError, dumps, export_group, import_group, read_archive
from matches.web.views import group_export

from tests.pages import fresh_counts  # noqa: F401 - autouse
from tests.rows import rows

pytestmark = pytest.mark.django_db

RAW = "@@raw@@"  # a placeholder string, replaced in the file's text by a token JSON or Python cannot write


@pytest.fixture(scope="module")
def small_archive(django_db_setup, django_db_blocker) -> dict:
    """A small group's archive: a finished Agram match (a hand corrected), a Cat Tê match with extras and
    a batch of chips, an Eighty Three match ended early (its last hand abandoned). Made by the verbs once
    for the module, then its rows rolled back: the import is the only group "Jeudi"."""
    with django_db_blocker.unblock(), transaction.atomic():
        data = played_thursday()
        transaction.set_rollback(True)
    return data


@pytest.fixture
def archive(db, small_archive) -> dict:
    """The small group's archive, this test's own copy."""
    return copy.deepcopy(small_archive)


def played_thursday() -> dict:
    group = Group.create("Jeudi", ["Aïcha", "Boubacar", "Chaibou"])
    a, b, c = (player.pk for player in group.members())
    agram = group.start_match("agram", [a, b, c], MatchEnd(MatchEndKind.WINS, 2))
    agram.record_hand(1, 0)
    agram.record_hand(2, 1)
    agram.correct_hand(2, 0)
    cat_te = group.start_match("cat-te", [a, b, c], MatchEnd(MatchEndKind.HANDS, 6), starting_chips=2)
    cat_te.record_hand(1, 1, {"how": "flush"})
    cat_te.reissue_chips(seen=0)
    cat_te.record_hand(2, 2, {"how": "sweep", "aces": ["1"]})
    eighty = group.start_match("eighty-three", [a, c])
    eighty.record_hand(1, 0, {"bonus": ["2"]})
    eighty.end_match(open_number=2)
    return export_group(group)


def at(data, path: str):
    """The container holding `path` ("sittings.0.seats.1.total") and the last key."""
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, int(last) if isinstance(node, list) else last


def changed(path: str, value: object):
    """The archive with `path` set to `value` (a new field when the path names none)."""

    def make(data: dict) -> bytes:
        data = copy.deepcopy(data)
        node, key = at(data, path)
        node[key] = value
        return dumps(data).encode()

    return make


def raw(path: str, token: str):
    """The archive with `path` written as `token` in the file: what json.dumps cannot write."""

    def make(data: dict) -> bytes:
        return changed(path, RAW)(data).replace(f'"{RAW}"'.encode(), token.encode())

    return make


def text(transform):
    """The archive's text changed by `transform` (a function of the text)."""
    return lambda data: transform(dumps(data)).encode()


def nested(depth: int, opening: str, middle: str, closing: str):
    return lambda data: (opening * depth + middle + closing * depth).encode()


def many(path: str, count: int, entry: object):
    return changed(path, [entry] * count)


HOSTILE = [
    # Numbers no field holds: Python 3.11 refuses to read an int of over 4,300 digits (ValueError).
    ("a 5,000-digit version", raw("version", "1" * 5000), "version is a number of 5,000 digits"),
    ("a 5,000-digit total", raw("sittings.0.seats.1.total", "9" * 5000), "sittings[0].seats[1].total is a number of 5,000 digits"),
    ("a -5,000-digit point", raw("sittings.0.hands.0.points.0", "-" + "9" * 5000), "sittings[0].hands[0].points[0] is a number of 5,000 digits"),
    ("a 5,000-digit field name's value", raw("sittings.1.hands.0.extras.how", "7" * 5000), "sittings[1].hands[0].extras.how is a number of 5,000"),
    ("a 21-digit number", raw("sittings.0.hands.0.number", "1" * 21), "sittings[0].hands[0].number is a number of 21 digits"),
    ("a 20-digit number", raw("sittings.0.hands.0.number", "9" * 20), "sittings[0].hands[0].number should be a whole number from 1 to 2147483647, not 99999"),
    ("1e999", raw("sittings.0.end_target", "1e999"), "sittings[0].end_target is 1e999, which is not a number"),
    ("-1e999", raw("sittings.0.hands.0.winner", "-1e999"), "sittings[0].hands[0].winner is -1e999, which is not a number"),
    ("NaN", raw("created_at", "NaN"), "created_at is NaN, which is not a number"),
    ("Infinity", raw("players.0.left", "Infinity"), "players[0].left is Infinity, which is not a number"),
    ("-Infinity", raw("sittings.0.seats.0.player", "-Infinity"), "sittings[0].seats[0].player is -Infinity"),
    ("1e308", raw("sittings.0.hands.0.number", "1e308"), "sittings[0].hands[0].number should be a whole number from 1 to 2147483647, not 1e+308"),
    ("-0.0", raw("sittings.0.seats.2.hands_won", "-0.0"), "sittings[0].seats[2].hands_won should be a whole number from 0 to 2147483647, not -0.0"),
    ("1.0 as the version", raw("version", "1.0"), "This archive is version 1.0 of the format"),
    ("a float total", raw("sittings.0.seats.0.total", "2.0"), "sittings[0].seats[0].total should be a whole number"),
    ("a float running total", raw("sittings.0.hands.0.running.0", "1.0"), "sittings[0].hands[0].running is [1.0, 0, 0], but replaying"),
    # Wrong types: text for a number, a list for an object, null, true for a whole number (bool is an int).
    ("true as a seat's player", changed("sittings.0.seats.0.player", True), "sittings[0].seats[0].player should be a whole number from 0 to 2, not true"),
    ("false as a hand's number", changed("sittings.0.hands.1.number", False), "sittings[0].hands[1].number should be a whole number"),
    ("true as the version", changed("version", True), "This archive is version true of the format"),
    ("text as a number", changed("sittings.0.hands.0.dealer_position", "0"), 'sittings[0].hands[0].dealer_position should be a whole number from 0 to 2, not "0"'),
    ("text as a flag", changed("players.1.erased", "false"), 'players[1].erased should be true or false, not "false"'),
    ("1 as a flag", changed("players.1.left", 1), "players[1].left should be true or false, not 1"),
    ("a list as a player", changed("players.0", []), "players[0] should be an object {...}, not []"),
    ("an object as the players", changed("players", {}), "players should be a list [...], not {}"),
    ("text as the matches", changed("sittings", "none"), 'sittings should be a list [...], not "none"'),
    ("a list as a match", changed("sittings.1", [1, 2]), "sittings[1] should be an object {...}, not [1, 2]"),
    ("a list as a hand's extras", changed("sittings.1.hands.0.extras", ["flush"]), 'sittings[1].hands[0].extras should be an object {...}, not ["flush"]'),
    ("null as the name", changed("name", None), "name should be text of at most 40 characters, not null"),
    ("null as a seat", changed("sittings.2.seats.1", None), "sittings[2].seats[1] should be an object {...}, not null"),
    ("null as the hands", changed("sittings.2.hands", None), "sittings[2].hands should be a list [...], not null"),
    ("a number as a moment", changed("sittings.0.started_at", 1714590000), "sittings[0].started_at should be a date and time"),
    ("an object as the game", changed("sittings.0.game", {"slug": "agram"}), 'sittings[0].game should be text of at most 20 characters, not {"slug": "agram"}'),
    ("text as a re-issue", changed("sittings.1.reissued_before", ["2"]), "sittings[1].reissued_before should list"),
    ("a seat list of objects", changed("sittings.1.hands.1.extras.aces", [{"seat": 1}]), "sittings[1].hands[1].extras"),
    ("an object as the root", lambda data: b"[]", 'its "format" should be "last-trick-group"'),
    ("null as the root", lambda data: b"null", 'its "format" should be "last-trick-group"'),
    ("text as the root", lambda data: b'"last-trick-group"', 'its "format" should be "last-trick-group"'),
    # Nesting: too deep for Python's parser (RecursionError), or deeper than any archive nests.
    ("100,000 nested lists", nested(100_000, "[", "", "]"), f"nest more than {ARCHIVE_DEPTH} deep"),
    ("100,000 nested objects", nested(100_000, '{"a":', "1", "}"), f"nest more than {ARCHIVE_DEPTH} deep"),
    ("500 nested lists in a hand", raw("sittings.0.hands.0.extras", "[" * 500 + "]" * 500), f"nest more than {ARCHIVE_DEPTH} deep"),
    ("13 nested lists", raw("sittings.0.hands.0.extras", "[" * 13 + "]" * 13), f"nest more than {ARCHIVE_DEPTH} deep"),
    # Bytes: not UTF-8, not JSON, empty, a field given twice.
    ("an invalid UTF-8 byte", lambda data: dumps(data).encode().replace(b"Boubacar", b"Bou\xffbacar"), "not UTF-8 text (byte"),
    ("UTF-16", lambda data: dumps(data).encode("utf-16"), "This file is not UTF-8 text (byte 1)"),
    ("a UTF-8 BOM before no JSON", lambda data: b"\xef\xbb\xbfnot json", "This file is not JSON (line 1, column 1"),
    ("two UTF-8 BOMs", lambda data: b"\xef\xbb\xbf" + dumps(data).encode("utf-8-sig"), "This file is not JSON (line 1, column 1"),
    ("not JSON", lambda data: b"{not json", "This file is not JSON (line 1, column 2"),
    ("an archive cut short", lambda data: dumps(data).encode()[:-40], "This file is not JSON"),
    ("a NUL byte", lambda data: dumps(data).replace("Jeudi", "Jeu\x00di").encode(), "This file is not JSON"),
    ("an empty file", lambda data: b"", "This file is empty"),
    ("blanks only", lambda data: b" \n\t\r\n", "This file is empty"),
    ("the format given twice", text(lambda t: t.replace('{"format":', '{"format":"x","format":', 1)), 'This file gives the field "format" twice in one object: keep one.'),
    ("a hand's winner given twice", text(lambda t: t.replace('"winner":', '"winner":1,"winner":', 1)), 'This file gives the field "winner" twice'),
    # Text no database keeps: PostgreSQL refuses a null character and text with a lone surrogate.
    ("a NUL in a player's name", changed("players.0.name", "Aï\x00cha"), "players[0].name holds a null character: remove it."),
    ("a NUL in the group's time zone", changed("time_zone", "Africa/\x00Lome"), "time_zone holds a null character"),
    ("a NUL in a hand's extras", changed("sittings.1.hands.0.extras.how", "fl\x00ush"), "sittings[1].hands[0].extras.how holds a null character"),
    ("a NUL in a field's name", changed("sittings.0.hands.0.extras.a\x00b", 1), 'sittings[0].hands[0].extras["a\\u0000b"] holds a null character'),
    ("a lone high surrogate in the name", raw("name", '"Jeudi \\ud800"'), "name holds a broken character (a lone surrogate"),
    ("a lone low surrogate in a player's name", raw("players.1.name", '"Bou\\udc00"'), "players[1].name holds a broken character"),
    ("surrogates the wrong way round", raw("players.1.name", '"\\udc00\\ud800"'), "players[1].name holds a broken character"),
    ("a lone surrogate in a stamp", raw("sittings.2.hands.0.stamp", '"\\udfff"'), "sittings[2].hands[0].stamp holds a broken character"),
    ("a lone surrogate in a stake label", raw("sittings.1.stake_label", '"\\ud83d"'), "sittings[1].stake_label holds a broken character"),
    ("a lone surrogate in the time zone", raw("sittings.0.time_zone", '"\\udbff"'), "sittings[0].time_zone holds a broken character"),
    ("a lone surrogate in a field's name", text(lambda t: t.replace('{"format":', '{"\\ud800":1,"format":', 1)), '["\\ud800"] holds a broken character'),
    # Long text and lists: refused, and the refusal stays short.
    ("a name of a million letters", changed("name", "G" * 1_000_000), 'name should be text of at most 40 characters, not "GGGG'),
    ("a player's name of 100,000 letters", changed("players.2.name", "é" * 100_000), "players[2].name should be text of at most 40 characters"),
    ("an unknown field named with 100,000 letters", changed("x" * 100_000, 1), 'The archive has a field "xxxx'),
    ("a running total of a million numbers", changed("sittings.0.hands.0.running", [1] * 1_000_000), "sittings[0].hands[0].running is [1, 1, 1"),
    ("extras of 100,000 letters", changed("sittings.1.hands.0.extras", {"how": "f" * 100_000}), "sittings[1].hands[0].extras should be an object {...} of at most 200 characters"),
    ("a stamp of 100,000 letters", changed("sittings.0.hands.0.stamp", "s" * 100_000), "sittings[0].hands[0].stamp should be text of at most 12 characters"),
    # Over the limits of a group (matches.domain.capacity), counted before any entry is read.
    ("301 players", many("players", GROUP_PLAYERS + 1, {}), "The archive lists 301 players: a group keeps at most 300."),
    ("100,000 players (a 4 MB archive)", many("players", 100_000, {"name": "Joueur"}), "The archive lists 100,000 players: a group keeps at most 300."),
    ("5,001 matches", many("sittings", GROUP_MATCHES + 1, {}), "The archive lists 5,001 matches: a group keeps at most 5,000."),
    ("a match of 11,002 hands", many("sittings.0.hands", 11_002, {}), "sittings[0].hands holds 11,002 hands: a match keeps at most 11,000."),
    (
        "a group of 50,600 hands",
        changed("sittings", [{"hands": [{}] * 4_600}] * 11),
        "The archive's matches hold more hands than a group keeps (50,000 at most).",
    ),
]
IDS = [case[0] for case in HOSTILE]


def web(raw: bytes, **headers) -> tuple[int, str]:
    upload = SimpleUploadedFile("group.json", raw, content_type="application/json")
    response = Client().post("/groups/import/", {"archive": upload}, **headers)
    return response.status_code, html.unescape(response.content.decode())


def command(raw: bytes, tmp_path) -> str:
    path = tmp_path / "group.json"
    path.write_bytes(raw)
    with pytest.raises(CommandError) as refused:
        call_command("import_group", str(path))
    return str(refused.value)


@pytest.mark.parametrize("make, message", [case[1:] for case in HOSTILE], ids=IDS)
def test_a_hostile_archive_is_refused_on_the_page_saying_what_to_fix_and_writes_nothing(archive, make, message):
    hostile = make(archive)
    before = rows()
    status, page = web(hostile)
    assert status == 400 and message in page
    assert 'name="archive"' in page  # the form again, to choose another file
    assert "\x00" not in page and len(page) < 20_000  # the refusal is short, whatever the file holds
    assert rows() == before


@pytest.mark.parametrize("make, message", [case[1:] for case in HOSTILE], ids=IDS)
def test_a_hostile_archive_is_refused_by_the_command_saying_what_to_fix_and_writes_nothing(
    archive, make, message, tmp_path
):
    before = rows()
    said = command(make(archive), tmp_path)
    assert message in said and said.endswith("Nothing was imported.") and len(said) < 1_000
    assert rows() == before


@pytest.mark.parametrize(
    "make, message",
    [
        (raw("sittings.0.seats.1.total", "9" * 5000), "sittings[0].seats[1].total est un nombre de 5\xa0000 chiffres"),
        (nested(100_000, "[", "", "]"), "ses listes et objets s’imbriquent sur plus de 12 niveaux"),
        (raw("players.1.name", '"\\udc00"'), "players[1].name contient un caractère cassé"),
        (many("sittings", GROUP_MATCHES + 1, {}), "L’archive compte 5\xa0001 parties\xa0: un groupe en garde au plus 5\xa0000."),
        (text(lambda t: t.replace('{"format":', '{"format":"x","format":', 1)), "Ce fichier donne deux fois le champ"),
        (lambda data: b"hand;winner\n1;Ali\n", "Ce fichier n’est pas du JSON (ligne 1, colonne 1)\xa0: choisissez"),
    ],
)
def test_the_import_page_says_the_new_refusals_in_french(archive, make, message):
    before = rows()
    status, page = web(make(archive), HTTP_ACCEPT_LANGUAGE="fr")
    assert status == 400 and message in page
    assert rows() == before


def test_a_file_larger_than_an_archive_may_be_is_refused_by_the_command_unread(archive, tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as big:
        big.write(dumps(archive).encode())
        big.truncate(ARCHIVE_BYTES + 1)
    before = rows()
    with pytest.raises(CommandError, match=f"larger than {ARCHIVE_BYTES // (1024 * 1024)} MB"):
        call_command("import_group", str(path))
    assert rows() == before


# --- what is not hostile -------------------------------------------------------------------------


def test_an_archive_with_a_utf8_bom_imports(archive):
    imported = import_group(read_archive(b"\xef\xbb\xbf" + dumps(archive).encode()))
    assert export_group(imported)["sittings"] == archive["sittings"]


def test_minus_zero_reads_as_zero(archive):
    points = archive["sittings"][0]["hands"][0]["points"]
    zero = points.index(0)
    imported = import_group(read_archive(raw(f"sittings.0.hands.0.points.{zero}", "-0")(archive)))
    assert export_group(imported)["sittings"][0]["hands"][0]["points"] == points


def test_a_name_written_with_a_surrogate_pair_imports_as_its_one_character(archive):
    imported = import_group(read_archive(raw("players.1.name", '"Bouba \\ud83c\\udccf"')(archive)))
    assert export_group(imported)["players"][1]["name"] == "Bouba 🃏"


# --- every field, every wrong kind of value ------------------------------------------------------

WRONG = ["7", [], {}, None, True, 1.5, -1, 10**19, "\x00", "\ud800", float("inf"), [None]]


def leaves(value, path=()):
    """Every path into `value`, containers too; of players, seats and hands the first only, and a
    match's abandoned last hand."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        listed = path and path[-1] in ("players", "seats", "hands")
        for number, item in enumerate(value):
            if not listed or number == 0 or (path[-1] == "hands" and item["status"] == "abandoned"):
                yield from leaves(item, (*path, number))


def test_any_field_of_any_wrong_kind_is_refused_as_an_archive_error_or_imports_as_valid(archive):
    """Each field of the archive set to each kind of wrong value: import_group either refuses it with an
    ArchiveError, writing nothing, or (where the value is a valid one) imports it; nothing else is raised."""
    tried = refused = 0
    for path in list(leaves(archive))[1:]:
        for value in WRONG:
            hostile = copy.deepcopy(archive)
            node = hostile
            for key in path[:-1]:
                node = node[key]
            if json.dumps(node[path[-1]]) == json.dumps(value):
                continue
            node[path[-1]] = value
            before = rows()
            tried += 1
            try:
                import_group(read_archive(json.dumps(hostile).encode()))  # (text escaped: \ud800 stays one)
            except ArchiveError as refusal:
                refused += 1
                assert rows() == before and len(refusal.message) < 1_000, (path, value)
    assert tried > 1_000 and refused > 0.9 * tried


def test_an_import_while_another_is_being_checked_is_asked_to_come_back_and_writes_nothing(archive, monkeypatch):
    monkeypatch.setattr(group_export, "IMPORT_WAIT", 0.01)
    before = rows()
    with group_export.ONE_IMPORT:  # another phone's archive, being checked
        status, page = web(dumps(archive).encode())
    assert status == 503 and "This server is bringing in another group: try again in a minute." in page
    assert rows() == before
    assert web(dumps(archive).encode())[0] == 302  # once that one is in, this one goes in


def test_a_file_of_a_million_empty_objects_is_refused_before_it_costs_memory():
    """Within the size allowed, such a file would cost hundreds of MB once read: its values are counted
    first, as they stream by."""
    import tracemalloc

    raw = b"[" + b",".join([b"{}"] * 1_000_000) + b"]"
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError, match="holds more values than any group's archive"):
            read_archive(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak


def test_a_file_of_more_numbers_than_a_group_at_the_limits_holds_is_refused(monkeypatch):
    from matches.services.archive import reading

    monkeypatch.setattr(reading, "ARCHIVE_VALUES", 1_000)
    with pytest.raises(ArchiveError, match="over 1,000"):
        read_archive(b"[" + b",".join([b"0"] * 1_001) + b"]")
    assert read_archive(b"[" + b",".join([b"0"] * 1_000) + b"]") == [0] * 1_000
