"""Group export: one CSV of every hand of every match (streamed), and a JSON archive of the whole group
that imports into another server and exports again unchanged, by `manage.py` command or by a page;
a broken archive is refused with what to fix and writes nothing."""

import copy
import csv
import io
import json
import re
from datetime import timedelta

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.http import StreamingHttpResponse
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from matches.services.archive import ArchiveError, dumps, export_group, import_group, read_archive
from matches.web.presenters.table_state import TableState
from matches.models import Group, Hand, Player, Recorder, Seat, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.web.views.group_export import MAX_ARCHIVE
from tests.conftest import shown

pytestmark = pytest.mark.django_db

MEMBERS = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


@pytest.fixture(autouse=True)
def fresh_counts():
    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()


def played_group() -> Group:
    """A group with a bit of everything, made by the model verbs as the pages make it."""
    group = Group.create("Les amis du jeudi", MEMBERS)
    ids = {player.name: player.pk for player in group.members()}
    a, b, c, d = (ids[name] for name in MEMBERS)
    k3xa, zz9 = Recorder(phone="k3Xa", seat=1), Recorder(phone="Zz9_")

    # Agram to 3 wins, with a newcomer; hand 5 corrected, which reaches the match end (Chaibou's third).
    agram = group.start_match("agram", [a, b, c, "Elhadji"], MatchEnd(MatchEndKind.WINS, 3))
    for number, winner in enumerate([2, 0, 2, 3, 0], start=1):
        agram.record_hand(number, winner, by=k3xa)
    agram.correct_hand(5, 2, by=zz9)
    assert agram.ended_how == Sitting.EndedHow.MATCH_END

    # Its rematch, ended early by a member: hand 3 abandoned.
    rematch = agram.rematch()
    rematch.record_hand(1, 3)
    rematch.record_hand(2, 1, by=zz9)
    rematch.end_match(open_number=3)

    # Cat Tê with 2 chips each: Aïcha runs out after hand 1, a batch is re-issued; a sweep with an Ace
    # held back; still in progress.
    cat_te = group.start_match("cat-te", [a, b, c], MatchEnd(MatchEndKind.HANDS, 6), starting_chips=2)
    cat_te.record_hand(1, 1, {"how": "flush"})
    cat_te.reissue_chips(seen=0)
    cat_te.record_hand(2, 2, {"how": "sweep", "aces": ["1"]})
    cat_te.record_hand(3, 0, {"how": "last"})

    # Fapfap for 100 FCFA a stake, to 5 stakes.
    fapfap = group.start_match(
        "fapfap", [a, b, d], MatchEnd(MatchEndKind.POINTS, 5), stake_amount=100, stake_label="FCFA"
    )
    fapfap.record_hand(1, 0, {"multiplier": "4"})
    fapfap.record_hand(2, 2, {"multiplier": "1"})
    fapfap.record_hand(3, 0, {"multiplier": "2"})
    assert fapfap.is_finished

    # Eighty Three: a tie at 10 raises the threshold to 15.
    eighty = group.start_match("eighty-three", [a, c], MatchEnd(MatchEndKind.THRESHOLDS))
    eighty.record_hand(1, 0, {})
    eighty.record_hand(2, 1, {})
    eighty.record_hand(3, 0, {"bonus": ["2"]})
    eighty.record_hand(4, 1, {})
    eighty.record_hand(5, 0, {"ace": "1", "last": "1", "bonus": ["2"]})
    eighty.refresh_from_db()
    assert (eighty.threshold, eighty.tied_at) == (15, 10)

    # A match played outside the group, then saved into it: "aïcha" is Aïcha, Fatou and Garba join.
    spar = Sitting.start("spar", ["aïcha", "Fatou", "Garba"], MatchEnd(MatchEndKind.POINTS, 21))
    spar.record_hand(1, 1, {"card": "six"})
    spar.record_hand(2, 0, {"card": "seven"})
    group.save_sitting(spar)

    group.add_player("Hawa")  # a member who never played
    group.remove_player(d)
    group.erase_player(Player.objects.get(group=group, name="Elhadji").pk)
    return group


@pytest.fixture
def group(db) -> Group:
    return played_group()


def counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Group, Player, Sitting, Seat, Hand))


def index_of(data: dict, game: str, occurrence: int = 0) -> int:
    return [number for number, s in enumerate(data["sittings"]) if s["game"] == game][occurrence]


# --- round trip ----------------------------------------------------------------------


def same_document(imported: dict, original: dict) -> bool:
    """Equal archives but for the group's `changed_at`, which an import sets to its own moment."""
    return {**imported, "changed_at": None} == {**original, "changed_at": None}


def test_an_import_counts_as_a_change_so_retention_keeps_the_group(group):
    Group.objects.filter(pk=group.pk).update(changed_at=timezone.now() - timedelta(days=900))
    imported = import_group(export_group(Group.objects.get(pk=group.pk)))
    assert timezone.now() - imported.changed_at < timedelta(minutes=1)


def test_export_import_export_gives_the_same_document(group):
    data = export_group(group)
    assert data["format"] == "last-trick-group" and data["version"] == 1
    assert len(data["sittings"]) == 6 and len(data["players"]) == 8
    text = dumps(data)
    assert group.token not in text and group.watch_token not in text
    assert not any(s.token in text or s.watch_token in text for s in group.sittings.all())

    imported = import_group(read_archive(text.encode("utf-8")))

    assert same_document(export_group(imported), data)
    assert imported.token != group.token and imported.watch_token != group.watch_token
    old_tokens = set(group.sittings.values_list("token", flat=True))
    assert not old_tokens & set(imported.sittings.values_list("token", flat=True))
    assert imported.version == 1 and set(imported.sittings.values_list("version", flat=True)) == {1}


def test_the_imported_group_has_the_same_figures_and_plays_on(group):
    imported = import_group(export_group(group))

    def figures(g: Group) -> list:
        out = []
        for sitting in g.sittings.order_by("started_at", "pk"):
            seats = list(sitting.seats.select_related("player").order_by("position"))
            positions = {seat.pk: seat.position for seat in seats}
            out.append(
                (
                    sitting.game,
                    sitting.match_end,
                    sitting.ended_how,
                    sitting.started_at,
                    sitting.finished_at,
                    sitting.threshold,
                    sitting.tied_at,
                    sitting.chips_reissued,
                    sitting.reissued_before,
                    sitting.stake_amount,
                    sitting.stake_label,
                    sitting.scores(),
                    [(s.name, s.total, s.hands_won, s.best_run) for s in seats],
                    [
                        (h.number, h.status, positions.get(h.winner_id), h.points, h.running, h.extras, h.stamp)
                        for h in sitting.hands.order_by("number")
                    ],
                    sitting.next_sitting.game if sitting.next_sitting else None,
                    TableState.of(sitting.table(recent=None)).result,
                )
            )
            assert sitting.check_totals() == []
        return out

    assert figures(imported) == figures(group)
    players = ["name", "left", "erased"]
    assert list(imported.players.order_by("pk").values_list(*players)) == list(
        group.players.order_by("pk").values_list(*players)
    )
    assert [p.name for p in imported.members()] == ["Aïcha", "Boubacar", "Chaibou", "Fatou", "Garba", "Hawa"]
    assert imported.players.get(name="Erased player 1").erased

    # The rematch link points at the imported rematch, not the old one.
    agram = imported.sittings.filter(game="agram").order_by("started_at").first()
    assert agram.next_sitting.group_id == imported.pk

    # The Cat Tê match in progress goes on where it was: hand 4, the re-issued chips counted.
    cat_te = imported.sittings.get(game="cat-te")
    assert cat_te.table().open_number == 4
    cat_te.record_hand(4, 1, {"how": "last"})
    assert cat_te.check_totals() == []
    # The match ended early stays final; the group starts new matches with its members.
    rematch = agram.next_sitting
    assert rematch.is_final
    members = {p.name: p.pk for p in imported.members()}
    new = imported.start_match("agram", [members["Aïcha"], members["Hawa"]])
    new.record_hand(1, 1)
    assert group.sittings.count() == 6 and imported.sittings.count() == 7


def test_a_rematch_started_outside_the_group_is_left_out(group):
    outside = Sitting.start("agram", ["X", "Y"])
    first = group.sittings.filter(game="cat-te").get()
    Sitting.objects.filter(pk=first.pk).update(next_sitting=outside)
    data = export_group(group)
    assert data["sittings"][index_of(data, "cat-te")]["next_sitting"] is None
    assert same_document(export_group(import_group(data)), data)


def test_an_empty_group_round_trips(db):
    group = Group.create("")
    data = export_group(group)
    assert data["players"] == [] and data["sittings"] == []
    assert same_document(export_group(import_group(data)), data)


def test_the_import_works_where_bulk_inserts_return_no_ids(group, monkeypatch):
    """SQLite before 3.35 gives bulk-inserted rows no ids: the rows are then saved one by one."""
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    data = export_group(group)
    assert same_document(export_group(import_group(data)), data)


# --- refusals -----------------------------------------------------------------------


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
        "sittings[3].hands[0].extras: How was the last trick won? Answer one of 1, 2, 4, not 3.",
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
def test_a_broken_archive_is_refused_with_what_to_fix_and_writes_nothing(group, change, message):
    data = export_group(group)
    broken = copy.deepcopy(data)
    change(broken)
    before = counts()
    with pytest.raises(ArchiveError) as refused:
        import_group(broken)
    assert message in refused.value.message
    assert isinstance(refused.value, ValueError)
    assert counts() == before


def test_a_hand_dealt_after_a_corrected_winner_imports_as_it_was_dealt(db):
    group = Group.create("Jeudi", MEMBERS[:3])
    a, b, c = (player.pk for player in group.members())
    fapfap = group.start_match("fapfap", [a, b, c], MatchEnd(MatchEndKind.POINTS, 20))
    fapfap.record_hand(1, 0, {"multiplier": "1"})
    fapfap.record_hand(2, 1, {"multiplier": "1"})  # dealt by seat 0, hand 1's winner then
    fapfap.correct_hand(1, 2, {"multiplier": "1"})  # now seat 2 won hand 1: the rules would have it deal hand 2
    data = export_group(group)
    assert [h["dealer_position"] for h in data["sittings"][0]["hands"]] == [0, 0]
    assert same_document(export_group(import_group(copy.deepcopy(data))), data)


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


def test_refusals_are_in_french_for_a_french_phone(group):
    broken = export_group(group)
    broken["sittings"][0]["hands"][0]["winner"] = 4
    with translation.override("fr"), pytest.raises(ArchiveError) as refused:
        import_group(broken)
    assert "sittings[0].hands[0].winner" in refused.value.message and "nombre entier" in refused.value.message


# --- the commands -------------------------------------------------------------------


def test_the_commands_move_a_group(group, tmp_path):
    out = io.StringIO()
    call_command("export_group", f"https://score.example.org/g/{group.token}/", stdout=out)
    data = json.loads(out.getvalue())
    assert data == export_group(group)

    path = tmp_path / "group.json"
    out = io.StringIO()
    call_command("export_group", group.token, "--output", str(path), stdout=out)
    assert f"to {path}" in out.getvalue() and "6 matches" in out.getvalue()
    assert json.loads(path.read_text(encoding="utf-8")) == data

    out = io.StringIO()
    call_command("import_group", str(path), stdout=out)
    printed = out.getvalue().strip()
    token = re.fullmatch(r"/g/([A-Za-z0-9_-]{22})/", printed)[1]
    assert same_document(export_group(Group.objects.get(token=token)), data)

    out = io.StringIO()
    call_command("export_group", printed, stdout=out)  # the printed path names the new group
    assert same_document(json.loads(out.getvalue()), data)


def test_the_commands_say_what_is_wrong(group, tmp_path):
    with pytest.raises(CommandError, match="No group has the link"):
        call_command("export_group", "/g/not-a-real-token-at-all/")
    with pytest.raises(CommandError, match="No group has the link"):
        call_command("export_group", f"/g/{group.watch_token}/")
    with pytest.raises(CommandError, match="Could not read"):
        call_command("import_group", str(tmp_path / "missing.json"))
    broken = export_group(group)
    broken["sittings"][0]["seats"][2]["total"] = 99
    path = tmp_path / "broken.json"
    path.write_text(dumps(broken), encoding="utf-8")
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_group", str(path))
    assert "sittings[0].seats[2].total is 99, but replaying" in str(refused.value)
    assert "Nothing was imported." in str(refused.value)
    assert counts() == before


# --- the pages ----------------------------------------------------------------------


def upload(data: bytes, name: str = "group.json") -> dict:
    return {"archive": SimpleUploadedFile(name, data, content_type="application/json")}


def test_the_import_page_creates_the_group_and_opens_it(group):
    phone = Client()
    page = phone.get("/groups/import/")
    assert page.status_code == 200
    assert 'enctype="multipart/form-data"' in page.content.decode() and 'name="archive"' in page.content.decode()

    data = export_group(group)
    response = phone.post("/groups/import/", upload(dumps(data).encode()))
    assert response.status_code == 302
    token = re.fullmatch(r"/g/([A-Za-z0-9_-]{22})/", response["Location"])[1]
    imported = Group.objects.get(token=token)
    assert same_document(export_group(imported), data)
    assert phone.session["groups"][0] == token
    assert phone.get(response["Location"]).status_code == 200


def test_a_file_this_phone_imported_before_is_said_with_its_groups_link_before_a_second_copy(group):
    data = dumps(export_group(group)).encode()
    phone = Client()
    first = phone.post("/groups/import/", upload(data))
    assert first.status_code == 302
    before = counts()
    again = phone.post("/groups/import/", upload(data))
    page = shown(again.content.decode())
    assert again.status_code == 409 and counts() == before
    assert f'This phone already has this group here, with the same matches: <a href="{first["Location"]}">' in page
    assert 'name="second_copy" value="1"' in page and "Import a second copy" in page
    second = phone.post("/groups/import/", {**upload(data), "second_copy": "1"})
    assert second.status_code == 302 and second["Location"] != first["Location"]
    assert Group.objects.count() == before[0] + 1
    other_phone = Client()  # knows no group here: nothing to say, and no link of another's group to give
    assert other_phone.post("/groups/import/", upload(data)).status_code == 302
    assert Group.objects.count() == before[0] + 2


def test_the_import_page_checks_its_csrf_token(group):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get("/groups/import/").content.decode()
    before = counts()
    assert phone.post("/groups/import/", upload(dumps(export_group(group)).encode())).status_code == 403
    assert counts() == before
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = phone.post(
        "/groups/import/", {**upload(dumps(export_group(group)).encode()), "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302


@pytest.mark.parametrize("size", [MAX_ARCHIVE + 1, MAX_ARCHIVE + 2 * 1024 * 1024])
def test_the_import_page_refuses_a_file_too_big(group, size):
    before = counts()
    response = Client().post("/groups/import/", upload(b" " * size))
    assert response.status_code == 413
    assert f"This file is larger than {MAX_ARCHIVE // (1024 * 1024)} MB" in response.content.decode()
    assert counts() == before


def test_the_import_page_refuses_a_broken_file_saying_why(group):
    broken = export_group(group)
    broken["sittings"][0]["hands"][0]["winner"] = 4
    before = counts()
    phone = Client()
    response = phone.post("/groups/import/", upload(dumps(broken).encode()))
    assert response.status_code == 400
    assert "sittings[0].hands[0].winner should be a whole number from 0 to 3, not 4." in response.content.decode()
    assert 'name="archive"' in response.content.decode()  # the form again, to choose another file
    response = phone.post("/groups/import/", upload(b"\x00garbage"))
    assert response.status_code == 400 and "This file is not" in response.content.decode()
    response = phone.post("/groups/import/", {})
    assert response.status_code == 400 and "Choose the group" in response.content.decode()
    assert counts() == before
    assert "groups" not in phone.session


def test_the_import_page_says_its_refusals_in_french(group):
    response = Client().post("/groups/import/", upload(b"{"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 400 and "Ce fichier" in response.content.decode()


@override_settings(START_RATE_LIMIT="1/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_an_import_counts_as_a_new_match(group):
    phone = Client()
    phone.get("/groups/import/")
    phone.post("/demo/")  # the phone gets its id (a phone without one is counted by its address only)
    caches["ratelimit"].clear()
    body = dumps(export_group(group)).encode()
    assert phone.post("/groups/import/", upload(body)).status_code == 302
    groups = Group.objects.count()
    answer = phone.post("/groups/import/", upload(body))
    assert answer.status_code == 429 and "Too many new matches and groups from this phone" in answer.content.decode()
    assert Group.objects.count() == groups


def test_the_group_json_download(group, client):
    response = client.get(f"/g/{group.token}/group.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert re.match(
        r'attachment; filename="last-trick-group-les-amis-du-jeudi-\d{4}-\d\d-\d\d\.json"',
        response["Content-Disposition"],
    )
    assert "no-store" in response["Cache-Control"]
    assert json.loads(response.content) == export_group(group)
    assert client.get(f"/g/{group.watch_token}/group.json").status_code == 404
    assert client.get("/g/not-a-real-token-at-all/group.json").status_code == 404
    assert client.post(f"/g/{group.token}/group.json").status_code == 405


def read_group_csv(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    body = b"".join(response.streaming_content)
    assert body.startswith(b"\xef\xbb\xbf")
    delimiter = ";" if response.wsgi_request.LANGUAGE_CODE == "fr" else ","
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=delimiter))


def test_the_group_csv_has_one_row_per_hand_and_streams(group, client):
    with CaptureQueriesContext(connection) as before_streaming:
        response = client.get(f"/g/{group.token}/hands.csv")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.match(
        r'attachment; filename="last-trick-group-les-amis-du-jeudi-\d{4}-\d\d-\d\d\.csv"',
        response["Content-Disposition"],
    )
    assert not any("matches_hand" in query["sql"] for query in before_streaming.captured_queries)  # read as sent

    rows = read_group_csv(response)
    header = rows[0]
    body = [row for row in rows[1:] if row[5] != "net"]
    nets = [row for row in rows[1:] if row[5] == "net"]
    played = ["Aïcha", "Boubacar", "Chaibou", "Erased player 1", "Djibo", "Fatou", "Garba"]
    assert header == [
        "started",
        "game",
        "unit",
        "match",
        "hand",
        "status",
        "dealer",
        "winner",
        "how",
        *sorted(played, key=str.casefold),
    ]
    assert len(body) == Hand.objects.filter(sitting__group=group).count() == 21
    assert [row[3] for row in body] == ["1"] * 5 + ["2"] * 3 + ["3"] * 3 + ["4"] * 3 + ["5"] * 5 + ["6"] * 2
    assert all(len(row) == len(rows[0]) for row in rows)
    assert [row[3] for row in nets] == ["1", "2", "3", "4", "5", "6"]  # a line of nets after each match
    assert rows[6] == nets[0]  # right after the five hands of the first match
    column = {name: header.index(name) for name in played}

    agram = body[:5]
    assert [row[4] for row in agram] == ["1", "2", "3", "4", "5"]
    assert [row[7] for row in agram] == ["Chaibou", "Aïcha", "Chaibou", "Erased player 1", "Chaibou"]  # 5 corrected
    assert [row[column["Chaibou"]] for row in agram] == ["1", "0", "1", "0", "1"]
    assert all(row[column["Djibo"]] == "" and row[column["Fatou"]] == "" for row in agram)
    assert agram[0][1:3] == ["Agram", "wins"] and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", agram[0][0])

    abandoned = body[7]
    assert abandoned[4:9] == ["3", "abandoned", "Erased player 1", "", ""]  # he won hand 2, so he dealt hand 3
    sweep = body[9]
    assert sweep[7:9] == ["Chaibou", "sweep of the first four tricks; Aïcha held back an Ace"]
    assert [sweep[column[name]] for name in ("Aïcha", "Boubacar", "Chaibou")] == ["-3", "-2", "5"]
    # Fapfap for 100 FCFA: each hand in FCFA, who paid and who was paid; then the match's nets.
    fapfap = body[11:14]
    assert [row[1:3] for row in fapfap] == [["Fapfap", "FCFA"]] * 3
    money = [[row[column[name]] for name in ("Aïcha", "Boubacar", "Djibo")] for row in fapfap]
    assert money == [["800", "-400", "-400"], ["-100", "-100", "200"], ["400", "-200", "-200"]]
    assert [nets[3][column[name]] for name in ("Aïcha", "Boubacar", "Djibo", "Chaibou")] == ["1100", "-700", "-400", ""]
    assert [row[column["Fatou"]] for row in body[-2:]] == ["3", "0"]


def test_the_group_csv_in_french(group, client):
    rows = read_group_csv(client.get(f"/g/{group.token}/hands.csv", HTTP_ACCEPT_LANGUAGE="fr"))
    assert rows[0][:4] == ["début", "jeu", "unité", "partie"]
    assert len(rows) == 1 + 21 + 6  # the header, every hand, a line of nets per match
    assert [row[5] for row in rows].count("bilan") == 6


def test_the_group_csv_of_an_unknown_group_is_404(db, client):
    assert client.get("/g/not-a-real-token-at-all/hands.csv").status_code == 404


def test_a_match_ended_right_after_an_undo_travels_without_an_abandoned_hand(group):
    """Ended after hand 2 was undone: no hand abandoned. Its archive imports, reads and exports as it was."""
    ids = {player.name: player.pk for player in group.members()}
    sitting = group.start_match("agram", [ids["Aïcha"], ids["Boubacar"]])
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)
    sitting.undo_hand(2)
    sitting.end_match(2)
    data = export_group(group)
    imported = import_group(read_archive(dumps(data).encode("utf-8")))
    assert same_document(export_group(imported), data)
    copy = imported.sittings.get(started_at=sitting.started_at)
    table = copy.table()
    assert [hand.number for hand in table.recent_hands] == [1] and table.open_number == 2
    assert copy.reopened == 2 and copy.check_totals() == []

