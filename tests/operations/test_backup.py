"""Backup and restore of the database in use (a SQLite file, or PostgreSQL on the second test leg): a
backup taken while hands are being recorded holds one consistent moment, and a restore (asked for
first) brings back exactly that moment; a path, a file or a missing tool that will not do is named."""

import json
import sqlite3
import subprocess
import threading
import time
from contextlib import closing
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections

from matches.management.commands.backup import pg_connection, run_pg_tool
from matches.models import Sitting

from tests.conftest import play
from tests.rows import rows_of

TABLES = ("matches_sitting", "matches_seat", "matches_hand", "matches_player")
Tables = dict[str, list[dict[str, object]]]
pytestmark = pytest.mark.engine  # the database in use is backed up and restored


def only_on(vendor: str) -> None:
    if connection.vendor != vendor:
        pytest.skip(f"runs on the {vendor} leg of the tests")


def sqlite_tables(path: str | Path) -> Tables:
    """Every row of the app's tables in the SQLite file `path`, by table, in id order."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        db.row_factory = sqlite3.Row
        return {table: [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY id")] for table in TABLES}


def copy_blocks(dump: str) -> Tables:
    """The rows of the `COPY table (columns) FROM stdin;` blocks in a plain SQL dump, in id order."""
    tables: Tables = {}
    lines = iter(dump.splitlines())
    for line in lines:
        if not line.startswith("COPY "):
            continue
        table = line.split()[1].removeprefix("public.")
        columns = [name.strip('"') for name in line[line.index("(") + 1 : line.index(")")].split(", ")]
        rows = []
        for row in iter(lines.__next__, "\\."):
            values = [None if value == "\\N" else value for value in row.split("\t")]
            rows.append(dict(zip(columns, values)))
        tables[table] = sorted(rows, key=lambda row: int(row["id"]))
    return tables


def pg_tables(program: str, *source: str) -> Tables:
    """The app's tables' rows as `program` (pg_dump: the live database; pg_restore: an archive) prints them."""
    args, env = pg_connection(connection.settings_dict)
    if program == "pg_restore":
        args = [arg for arg in args if not arg.startswith("--dbname")]  # print the archive, restore nothing
    tables = [f"--table={table}" for table in TABLES]
    dump = subprocess.run(
        [program, "--data-only", *tables, "--file=-", *args, *source],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return copy_blocks(dump)


def backup_tables(path: Path) -> Tables:
    return sqlite_tables(path) if connection.vendor == "sqlite" else pg_tables("pg_restore", str(path))


def live_tables() -> Tables:
    if connection.vendor == "sqlite":
        return sqlite_tables(connection.settings_dict["NAME"])
    return pg_tables("pg_dump")


def hands_held(tables: Tables, sitting: Sitting) -> int:
    """How many hands of `sitting` the rows hold, after checking they agree with each other:
    hands numbered 1..n, each seat's total and wins equal to its ledger, the version one per change."""
    hands = [row for row in tables["matches_hand"] if int(row["sitting_id"]) == sitting.pk]
    seats = {int(row["id"]): row for row in tables["matches_seat"] if int(row["sitting_id"]) == sitting.pk}
    (row,) = [row for row in tables["matches_sitting"] if int(row["id"]) == sitting.pk]
    assert sorted(int(hand["number"]) for hand in hands) == list(range(1, len(hands) + 1))
    for seat_id, seat in seats.items():
        position = int(seat["position"])
        assert int(seat["total"]) == sum(json.loads(hand["points"])[position] for hand in hands)
        assert int(seat["hands_won"]) == sum(
            hand["winner_id"] is not None and int(hand["winner_id"]) == seat_id for hand in hands
        )
    assert int(row["version"]) == 1 + len(hands)
    return len(hands)


class HandRecorder(threading.Thread):
    """A phone recording the next hand of a sitting again and again, on its own connection, until stopped."""

    def __init__(self, sitting: Sitting) -> None:
        super().__init__()
        self.sitting_pk, self.recorded, self.errors = sitting.pk, 0, []
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            sitting = Sitting.objects.get(pk=self.sitting_pk)
            while not self.stop.is_set():
                sitting.record_hand(sitting.table(recent=1).open_number, self.recorded % 4)
                self.recorded += 1
        except Exception as error:  # noqa: BLE001 - reported by the test
            self.errors.append(error)
        finally:
            connections.close_all()

    def wait_for(self, count: int) -> None:
        for _ in range(2000):
            if self.recorded >= count or self.errors:
                return
            time.sleep(0.005)


def back_up_while_recording(sitting: Sitting, path: Path) -> tuple[str, int, int]:
    """Back up to `path` while a thread records hands of `sitting`; (command output, hands recorded
    when the backup started, when it ended)."""
    recorder = HandRecorder(sitting)
    recorder.start()
    try:
        recorder.wait_for(5)
        before = recorder.recorded
        out = StringIO()
        call_command("backup", str(path), stdout=out)
        after = recorder.recorded
        recorder.wait_for(after + 3)
    finally:
        recorder.stop.set()
        recorder.join(60)
    assert not recorder.errors, recorder.errors
    return out.getvalue(), before, after


def round_trip(tmp_path: Path) -> None:
    """Backup while hands are recorded holds a consistent moment; restore brings back exactly that moment."""
    sitting = Sitting.start("agram", ["A", "B", "C", "D"])
    play(sitting, [0, 1, 2])
    path = tmp_path / "lasttrick.backup"

    out, before, after = back_up_while_recording(sitting, path)

    vendor = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[connection.vendor]
    assert out.strip() == f"Backed up the {vendor} database to {path} ({path.stat().st_size:,} bytes)."
    held = backup_tables(path)
    in_backup = hands_held(held, sitting)
    assert 3 + before <= in_backup <= 3 + after + 1 < sitting.hands.count()  # + 1: committed, not yet counted
    play(sitting, [3, 3])
    Sitting.start("sink-sink", ["Late", "Comer"])

    call_command("restore", str(path), interactive=False, stdout=StringIO())

    assert live_tables() == held
    assert sitting.check_totals() == []
    assert sitting.table(recent=1).open_number == in_backup + 1
    sitting.record_hand(in_backup + 1, 0)  # the restored database takes taps again


@pytest.mark.django_db(transaction=True)
def test_sqlite_backup_taken_while_hands_are_recorded_restores_exactly_what_it_held(tmp_path):
    only_on("sqlite")
    round_trip(tmp_path)
    with closing(sqlite3.connect(connection.settings_dict["NAME"])) as live:
        assert live.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.django_db(transaction=True)
def test_postgresql_backup_taken_while_hands_are_recorded_restores_exactly_what_it_held(tmp_path):
    only_on("postgresql")
    round_trip(tmp_path)


@pytest.mark.django_db(transaction=True)
def test_restore_asks_first_and_changes_nothing_unless_told_yes(tmp_path, monkeypatch):
    sitting = Sitting.start("agram", ["A", "B"])
    path = tmp_path / "lasttrick.backup"
    call_command("backup", str(path), stdout=StringIO())
    play(sitting, [0, 1])
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    out = StringIO()

    call_command("restore", str(path), stdout=out)

    assert "Restore cancelled" in out.getvalue()
    assert sitting.hands.count() == 2


# --- refused --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_backup_into_a_missing_folder_fails_with_a_clear_message(tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("backup", str(tmp_path / "no-such-folder" / "x.backup"))


@pytest.mark.django_db
def test_restore_of_a_missing_file_fails_with_a_clear_message(tmp_path):
    with pytest.raises(CommandError, match="There is no backup file at"):
        call_command("restore", str(tmp_path / "nothing.backup"), interactive=False)


@pytest.mark.django_db
def test_restore_refuses_a_file_that_is_no_backup_and_changes_nothing(tmp_path):
    sitting = Sitting.start("agram", ["A", "B"])
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all\n")

    expected = "is not a SQLite database" if connection.vendor == "sqlite" else "is not a pg_dump custom-format"
    with pytest.raises(CommandError, match=expected):
        call_command("restore", str(path), interactive=False)
    assert rows_of(sitting) == (1, 2, 0)


@pytest.mark.django_db
def test_sqlite_restore_refuses_a_sqlite_file_of_another_app(tmp_path):
    only_on("sqlite")
    path = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(path)) as other:
        other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    with pytest.raises(CommandError, match="holds no Last Trick sittings"):
        call_command("restore", str(path), interactive=False)


@pytest.mark.django_db
@pytest.mark.parametrize("command", ["backup", "restore"])
def test_sqlite_backup_and_restore_refuse_the_live_database_file_as_path(command):
    only_on("sqlite")
    sitting = Sitting.start("agram", ["A", "B"])
    with pytest.raises(CommandError, match="is the live database itself"):
        call_command(command, connection.settings_dict["NAME"], *(["--noinput"] if command == "restore" else []))
    assert rows_of(sitting) == (1, 2, 0)


def test_a_missing_postgresql_client_is_named_in_the_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CommandError, match="pg_dump is not installed"):
        run_pg_tool("pg_dump", ["--version"], {})


@pytest.mark.django_db
def test_postgresql_backup_failure_reports_pg_dump_message(tmp_path):
    only_on("postgresql")
    wrong = {**connection.settings_dict, "NAME": "no_such_database_here"}
    args, env = pg_connection(wrong)
    with pytest.raises(CommandError, match="pg_dump failed .*no_such_database_here"):
        run_pg_tool("pg_dump", ["--format=custom", f"--file={tmp_path / 'x'}", *args], env)
