"""A group's archive: the JSON of the whole group, which imports into another server as a new group (new
links, the same matches, figures and players, playing on) and exports again unchanged, by
`manage.py export_group` and `import_group` too. (A broken or hostile archive:
tests/services/test_broken_archives.py, tests/services/test_hostile_archives.py; the pages:
tests/web/test_group_files.py.)"""

import copy
import io
import json
import re
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Sitting
from matches.services.archive import ArchiveError, dumps, export_group, import_group, read_archive
from matches.web.presenters.table_state import TableState

from tests.groups import MEMBERS, index_of, played_group, same_document
from tests.rows import rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def group(db) -> Group:
    return played_group()


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


def test_an_import_counts_as_a_change_so_retention_keeps_the_group(group):
    Group.objects.filter(pk=group.pk).update(changed_at=timezone.now() - timedelta(days=900))
    imported = import_group(export_group(Group.objects.get(pk=group.pk)))
    assert timezone.now() - imported.changed_at < timedelta(minutes=1)


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


def test_the_import_works_where_bulk_inserts_return_no_ids(group, monkeypatch):
    """SQLite before 3.35 gives bulk-inserted rows no ids: the rows are then saved one by one."""
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    data = export_group(group)
    assert same_document(export_group(import_group(data)), data)


# --- the commands ---------------------------------------------------------------------------------


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
    before = rows()
    with pytest.raises(CommandError) as refused:
        call_command("import_group", str(path))
    assert "sittings[0].seats[2].total is 99, but replaying" in str(refused.value)
    assert "Nothing was imported." in str(refused.value)
    assert rows() == before


def test_a_match_whose_table_changed_goes_through_the_archive_and_back():
    """Latecomers, leavers and renames: the file keeps who played which hand, and the import agrees."""
    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=100)
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.seat_player("Djibo")
    sitting.record_hand(2, 3, {"multiplier": "1"})
    sitting.unseat_player(1)
    sitting.record_hand(3, 2, {"multiplier": "4"})
    sitting.rename_player(2, "Chloë")
    sitting.unseat_player(0)
    sitting.seat_player("Awa")  # a leave taken back before the next hand
    sitting.record_hand(4, 0, {"multiplier": "1"})
    data = export_group(group)
    copy = import_group(json.loads(dumps(data)))
    assert export_group(copy)["sittings"] == data["sittings"]
    imported = copy.sittings.get()
    assert imported.table().nets == sitting.table().nets and sum(imported.table().nets) == 0
    assert [change.kind for change in imported.table_changes.all()] == ["joined", "left", "renamed", "left", "joined"]


def test_the_receipts_of_a_matchs_changes_go_through_the_archive_and_an_archive_without_them_imports():
    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=100)
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 1, {"multiplier": "1"})
    sitting.correct_hand(1, 2, {"multiplier": "1"})
    sitting.undo_hand(2)
    data = export_group(group)
    assert [receipt["verb"] for receipt in data["sittings"][0]["receipts"]] == ["tap", "tap", "correct", "undo"]
    copy = import_group(json.loads(dumps(data)))
    assert export_group(copy)["sittings"] == data["sittings"]
    assert copy.sittings.get().receipts.get(verb="correct").before["winner"] == 0
    del data["sittings"][0]["receipts"]  # an archive from before receipts were kept
    older = import_group(json.loads(dumps(data)))
    assert not older.sittings.get().receipts.exists()


def test_a_players_receipts_go_through_the_archive_an_erased_ones_without_names():
    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    awa, bintou = (group.players.get(name=name).pk for name in ("Awa", "Bintou"))
    group.rename_player(awa, "Awa Diop", by="ph1")
    group.remove_player(awa, by="ph2")
    group.rename_player(bintou, "Bintou K", by="ph1")
    data = export_group(group)
    assert [c["verb"] for c in data["players"][0]["changes"]] == ["renamed", "removed"]
    copy = import_group(json.loads(dumps(data)))
    assert export_group(copy)["players"] == data["players"]
    data["players"][1]["erased"] = data["players"][1]["left"] = True  # edited: an erased player's names
    erased = import_group(json.loads(dumps(data)))
    assert [(c.before, c.after) for c in erased.players.get(erased=True).changes.all()] == [("", "")]
    edited = json.loads(dumps(data))
    edited["players"].append({"name": "AWA", "left": False, "erased": False})  # Awa Diop's name before a rename
    with pytest.raises(ArchiveError, match=r"players\[3\] \(AWA\) has the name players\[0\] \(Awa Diop\) had"):
        import_group(edited)
    del data["players"][0]["changes"]  # an archive from before these receipts
    assert not import_group(json.loads(dumps(data))).players.get(name="Awa Diop").changes.exists()
