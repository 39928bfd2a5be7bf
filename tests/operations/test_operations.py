"""The operator's tools: forgetting old sittings, the admin, and backup/restore of the database in use
(a SQLite file, or PostgreSQL on the second test leg)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import threading
import time
from contextlib import closing
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from matches.admin import tokens_in
from matches.management.commands.backup import pg_connection, run_pg_tool
from matches.models import Hand, Player, Seat, Sitting

from tests.conftest import play

CHANGELIST = "/admin/matches/sitting/"
PASSWORD = "a long operator passphrase"
TABLES = ("matches_sitting", "matches_seat", "matches_hand", "matches_player")
Tables = dict[str, list[dict[str, object]]]


def untouched_since(sitting: Sitting, days: float) -> None:
    """Make `sitting` look last changed `days` days ago."""
    Sitting.objects.filter(pk=sitting.pk).update(changed_at=timezone.now() - timedelta(days=days))


def forget(*args: str) -> str:
    out = StringIO()
    call_command("forget_old_sittings", *args, stdout=out)
    return out.getvalue()


def rows_of(sitting: Sitting) -> tuple[int, int, int]:
    """(sitting rows, seat rows, hand rows) left in the database for `sitting`."""
    return (
        Sitting.objects.filter(pk=sitting.pk).count(),
        Seat.objects.filter(sitting_id=sitting.pk).count(),
        Hand.objects.filter(sitting_id=sitting.pk).count(),
    )


def everything() -> tuple[int, int, int, int]:
    return Sitting.objects.count(), Seat.objects.count(), Hand.objects.count(), Player.objects.count()


# --- forget_old_sittings ---------------------------------------------------


@pytest.mark.django_db
def test_forget_deletes_only_sittings_untouched_for_more_than_the_days_given_with_their_seats_and_hands():
    old = Sitting.start("agram", ["A", "B", "C", "D"])
    play(old, [0, 1, 2])
    old.end_match()  # an abandoned hand: no winner
    untouched_since(old, 31)
    recent = Sitting.start("agram", ["E", "F", "G"])
    play(recent, [1, 1])
    untouched_since(recent, 29)
    fresh = Sitting.start("sink-sink", ["H", "I"])

    out = forget("--days", "30")

    assert out.strip() == "Forgot 1 sitting untouched for 30 days (4 hands)."
    assert rows_of(old) == (0, 0, 0)
    assert rows_of(recent) == (1, 3, 2) and rows_of(fresh) == (1, 2, 0)
    assert recent.check_totals() == []


@pytest.mark.django_db
def test_forget_counts_days_from_the_retention_setting_by_default(settings):
    settings.RETENTION_DAYS = 10
    gone, kept = Sitting.start("agram", ["A", "B"]), Sitting.start("agram", ["C", "D"])
    untouched_since(gone, 11)
    untouched_since(kept, 9)

    assert forget().strip() == "Forgot 1 sitting untouched for 10 days (0 hands)."
    assert rows_of(gone) == (0, 0, 0) and rows_of(kept) == (1, 2, 0)


@pytest.mark.django_db
def test_forget_removes_players_left_without_a_seat_and_keeps_players_seated_elsewhere():
    first = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    play(first, [0])
    rematch = first.rematch()  # the same three Player rows, seated again
    loner = Sitting.start("agram", ["Djibo", "Fati"])
    untouched_since(first, 400)
    untouched_since(loner, 400)

    forget("--days", "365")

    assert set(Player.objects.values_list("name", flat=True)) == {"Aïcha", "Boubacar", "Chaibou"}
    assert [seat.name for seat in rematch.table().seats] == ["Aïcha", "Boubacar", "Chaibou"]


@pytest.mark.django_db
def test_forget_leaves_a_kept_sitting_whose_rematch_was_forgotten_without_a_rematch():
    kept, forgotten = Sitting.start("agram", ["A", "B"]), Sitting.start("agram", ["C", "D"])
    Sitting.objects.filter(pk=kept.pk).update(next_sitting=forgotten)
    untouched_since(forgotten, 400)

    forget("--days", "365")

    kept.refresh_from_db()
    assert kept.next_sitting_id is None and rows_of(kept) == (1, 2, 0)


@pytest.mark.django_db
def test_forget_dry_run_lists_what_would_go_and_deletes_nothing():
    old = Sitting.start("agram", ["A", "B", "C", "D"])
    play(old, [0, 1, 2])
    untouched_since(old, 400)
    Sitting.start("agram", ["E", "F"])
    before = everything()

    out = forget("--days", "365", "--dry-run")

    assert everything() == before
    assert f"#{old.pk} agram" in out and "3 hands" in out
    assert out.splitlines()[-1] == (
        "Dry run: would forget 1 sitting untouched for 365 days (3 hands); nothing was deleted."
    )
    assert old.token not in out and old.watch_token not in out  # links open the table: never printed


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["--days 0", "RETENTION_DAYS=0"])
def test_forget_with_0_days_keeps_every_sitting(settings, how):
    sitting = Sitting.start("agram", ["A", "B"])
    play(sitting, [0, 1])
    untouched_since(sitting, 10_000)
    settings.RETENTION_DAYS = 0 if how == "RETENTION_DAYS=0" else 365
    before = everything()

    out = forget("--days", "0") if how == "--days 0" else forget()

    assert everything() == before
    assert "no sitting was forgotten" in out


@pytest.mark.django_db
def test_forget_refuses_negative_days():
    with pytest.raises(CommandError, match="--days must be 0"):
        forget("--days", "-1")


@pytest.mark.django_db
@pytest.mark.parametrize("days", ["800000", "99999999999"])
def test_forget_refuses_days_beyond_the_calendar_with_a_message(days):
    with pytest.raises(CommandError, match="--days must be at most"):
        forget("--days", days)


# --- admin -------------------------------------------------------------------


@pytest.fixture
def operator(db) -> Client:
    """A superuser's client, logged in through the admin's own login form."""
    User.objects.create_superuser("operator", "operator@example.org", PASSWORD)
    client = Client()
    response = client.post("/admin/login/", {"username": "operator", "password": PASSWORD, "next": "/admin/"})
    assert response.status_code == 302 and response["Location"] == "/admin/", response.content[:500]
    return client


def listed(client: Client, **query: str) -> list[int]:
    """Primary keys of the sittings the admin's changelist shows for `query`."""
    response = client.get(CHANGELIST, query)
    assert response.status_code == 200
    return [sitting.pk for sitting in response.context["cl"].result_list]


def test_a_superuser_sees_the_sittings_with_game_dates_state_and_hand_counts(operator):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(sitting, [2, 0, 1])
    ended = Sitting.start("sink-sink", ["A", "B"])
    ended.end_match()

    response = operator.get(CHANGELIST)

    assert response.status_code == 200
    rows = {s.pk: s for s in response.context["cl"].result_list}
    assert rows[sitting.pk].hand_count == 3 and rows[ended.pk].hand_count == 1
    page = response.content.decode()
    for text in ("Agram", "Sink-Sink", "in progress", "ended by a member", "Started at", "Changed at"):
        assert text.lower() in page.lower(), text


@pytest.fixture
def three_sittings(db) -> list[Sitting]:
    return [Sitting.start("agram", [f"{n}1", f"{n}2"]) for n in "ABC"]


@pytest.mark.parametrize(
    "pasted",
    [
        "https://score.example.org/s/{token}/",
        "https://score.example.org/s/{token}/hands/3/",
        "  /s/{token}/poll/ ",
        "{token}",
        "https://score.example.org/w/{watch_token}/",
        "http://192.168.1.20:8000/w/{watch_token}/poll/",
    ],
)
def test_admin_search_finds_exactly_the_sitting_of_a_pasted_member_or_watch_link(operator, three_sittings, pasted):
    wanted = three_sittings[1]

    found = listed(operator, q=pasted.format(token=wanted.token, watch_token=wanted.watch_token))

    assert found == [wanted.pk]


def test_admin_search_with_a_link_to_no_sitting_finds_nothing(operator, three_sittings):
    assert listed(operator, q="https://score.example.org/s/AAAAAAAAAAAAAAAAAAAAAA/") == []
    assert listed(operator, q="agram") == []


def test_tokens_are_pulled_out_of_links_and_not_out_of_other_path_parts():
    token = "abcDEF123_-abcDEF123_-"
    assert tokens_in(f"https://h/s/{token}/hands.csv") == [token]
    assert tokens_in(f"https://h/w/{token}") == [token]
    assert tokens_in("https://h/start/agram-in-mali-long-slug/") == []
    assert tokens_in(f"https://h/s/{token}x{'y' * 40}/") == []  # longer than any token


def test_admin_change_page_shows_seats_and_hands_and_edits_nothing(operator):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(sitting, [2, 0, 1])
    page = f"{CHANGELIST}{sitting.pk}/change/"

    response = operator.get(page)

    assert response.status_code == 200
    shown = {
        formset.opts.model: [form.original for form in formset] for formset in response.context["inline_admin_formsets"]
    }
    assert [seat.name for seat in shown[Seat]] == ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
    assert [(hand.number, hand.winner.name) for hand in shown[Hand]] == [(1, "Chaibou"), (2, "Aïcha"), (3, "Boubacar")]
    body = response.content.decode()
    controls = re.findall(r"<(?:input|select|textarea)\b[^>]*>", body)
    assert [c for c in controls if 'type="hidden"' not in c and 'id="nav-filter"' not in c] == []
    assert 'name="_save"' not in body and f"{CHANGELIST}{sitting.pk}/delete/" in body
    assert f"/s/{sitting.token}/" in body and f"/w/{sitting.watch_token}/" in body
    assert operator.post(page, {"game": "sink-sink"}).status_code == 403
    assert Sitting.objects.get(pk=sitting.pk).game == "agram"


def test_admin_cannot_add_a_sitting(operator):
    assert operator.get(f"{CHANGELIST}add/").status_code == 403


def test_admin_delete_view_removes_the_sitting_its_seats_hands_and_lone_players(operator):
    doomed = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(doomed, [2, 0, 1])
    other = Sitting.start("agram", ["Eve", "Fodé"])
    play(other, [1])
    delete = f"{CHANGELIST}{doomed.pk}/delete/"

    confirm = operator.get(delete)
    assert confirm.status_code == 200 and not confirm.context["protected"]
    assert "4 seats" in confirm.content.decode() and "3 hands" in confirm.content.decode()
    response = operator.post(delete, {"post": "yes"})

    assert response.status_code == 302 and response["Location"] == CHANGELIST
    assert rows_of(doomed) == (0, 0, 0)
    assert set(Player.objects.values_list("name", flat=True)) == {"Eve", "Fodé"}
    assert rows_of(other) == (1, 2, 1)


def test_admin_delete_selected_action_removes_the_chosen_sittings_only(operator, three_sittings):
    for sitting in three_sittings:
        play(sitting, [0, 1])
    chosen = [three_sittings[0].pk, three_sittings[2].pk]

    response = operator.post(CHANGELIST, {"action": "delete_selected", "_selected_action": chosen, "post": "yes"})

    assert response.status_code == 302
    assert list(Sitting.objects.values_list("pk", flat=True)) == [three_sittings[1].pk]
    assert Hand.objects.count() == 2 and Seat.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/admin/", CHANGELIST])
def test_anonymous_visitor_is_sent_to_the_admin_login(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_staff_who_are_not_superusers_cannot_enter_the_admin(client):
    sitting = Sitting.start("agram", ["A", "B"])
    user = User.objects.create_user("helper", password=PASSWORD, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_sitting", "delete_sitting"]))
    client.force_login(user)
    for path in ("/admin/", CHANGELIST, f"{CHANGELIST}{sitting.pk}/delete/"):
        assert client.get(path).status_code == 302, path
    assert client.post(f"{CHANGELIST}{sitting.pk}/delete/", {"post": "yes"}).status_code == 302
    assert Sitting.objects.filter(pk=sitting.pk).exists()


@pytest.mark.django_db
def test_a_logged_in_user_who_is_not_staff_cannot_enter_the_admin(client):
    Sitting.start("agram", ["A", "B"])
    user = User.objects.create_user("player", password=PASSWORD)
    client.force_login(user)

    for path in ("/admin/", CHANGELIST):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), path
    refused = client.post("/admin/login/", {"username": "player", "password": PASSWORD, "next": "/admin/"})
    assert refused.status_code == 200 and "staff account" in refused.content.decode()


# --- backup and restore --------------------------------------------------------


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


@pytest.mark.django_db
def test_forget_keeps_a_groups_old_matches_while_the_group_plays_on_and_keeps_its_members():
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Idle"])  # Idle never played
    members = {p.name: p.pk for p in group.members()}
    old = group.start_match("agram", [members["Ana"], members["Ben"]])
    recent = group.start_match("agram", [members["Ana"], members["Ben"]])
    long_ago = timezone.now() - timedelta(days=400)
    Sitting.objects.filter(pk=old.pk).update(changed_at=long_ago)
    Group.objects.filter(pk=group.pk).update(changed_at=long_ago)
    forget("--days", "365")
    assert set(Sitting.objects.values_list("pk", flat=True)) == {old.pk, recent.pk}  # the group still plays
    Sitting.objects.filter(pk=recent.pk).update(changed_at=long_ago)
    out = forget("--days", "365")
    assert not Sitting.objects.exists() and not Group.objects.exists() and "Forgot 1 group" in out
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_forget_never_deletes_a_groups_member_who_never_played():
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Idle"])
    stale = Sitting.start("agram", ["X", "Y"])
    Sitting.objects.filter(pk=stale.pk).update(changed_at=timezone.now() - timedelta(days=400))
    forget("--days", "365")
    assert sorted(group.players.values_list("name", flat=True)) == ["Ana", "Ben", "Idle"]
