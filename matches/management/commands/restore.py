"""`manage.py restore PATH`: replace the whole database with a `manage.py backup` copy.

Stop the app first: changes since the backup are lost, and a tap meanwhile would be refused or lost.
SQLite: the backup API copies PATH over the live file (still WAL). PostgreSQL: `pg_restore --clean
--if-exists --no-owner --single-transaction`; a failure leaves the database as it was.
Asks for confirmation unless --noinput; errors raise CommandError.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.management.commands.backup import (
    PG_CUSTOM_MAGIC,
    SQLITE_MAGIC,
    VENDOR_NAMES,
    has_magic,
    live_database,
    open_sqlite,
    pg_connection,
    refuse_same_file,
    run_pg_tool,
)

PG_RESTORE_OPTIONS = ["--clean", "--if-exists", "--no-owner", "--single-transaction", "--exit-on-error"]


def check_sqlite_backup(path: Path) -> None:
    """CommandError unless `path` is a sound SQLite database holding Last Trick's sittings."""
    if not has_magic(path, SQLITE_MAGIC):
        raise CommandError(f"{path} is not a SQLite database: restore a file written by `manage.py backup`.")
    try:
        with closing(open_sqlite(path, read_only=True)) as backup:
            (check,) = backup.execute("PRAGMA quick_check").fetchone()
            tables = {name for (name,) in backup.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as error:
        raise CommandError(f"{path} cannot be read as a SQLite database: {error}.") from None
    if check != "ok":
        raise CommandError(f"{path} is damaged (SQLite quick_check: {check}).")
    if "matches_sitting" not in tables:
        raise CommandError(f"{path} holds no Last Trick sittings: it is not a backup of this app.")


def restore_sqlite(backup_path: Path, live_path: Path) -> None:
    """Copy the SQLite database `backup_path` over `live_path` with the backup API, in one step."""
    check_sqlite_backup(backup_path)
    try:
        with closing(open_sqlite(backup_path, read_only=True)) as backup, closing(open_sqlite(live_path)) as live:
            backup.backup(live)
    except sqlite3.Error as error:
        raise CommandError(f"Could not restore into {live_path} (is the app still running?): {error}.") from None


def restore_postgresql(backup_path: Path, settings_dict: dict) -> None:
    """Load the pg_dump custom-format archive `backup_path` into the configured database."""
    if not has_magic(backup_path, PG_CUSTOM_MAGIC):
        raise CommandError(f"{backup_path} is not a pg_dump custom-format archive: restore a file written by backup.")
    connection, env = pg_connection(settings_dict)
    run_pg_tool("pg_restore", [*PG_RESTORE_OPTIONS, *connection, str(backup_path)], env)


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup written by `manage.py backup PATH`. Stop the app first: "
        "changes since the backup are lost."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="Backup file written by `manage.py backup`.")
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive", help="Do not ask to confirm."
        )

    def handle(self, *args, path: Path, interactive: bool, **options) -> None:
        if not path.is_file():
            raise CommandError(f"There is no backup file at {path}.")
        vendor, settings_dict = live_database()
        if interactive and not self.confirmed(path, settings_dict["NAME"]):
            self.stdout.write("Restore cancelled: nothing changed.")
            return
        if vendor == "sqlite":
            refuse_same_file(path, Path(settings_dict["NAME"]))
            restore_sqlite(path, Path(settings_dict["NAME"]))
        else:
            restore_postgresql(path, settings_dict)
        self.stdout.write(f"Restored the {VENDOR_NAMES[vendor]} database {settings_dict['NAME']} from {path}.")

    def confirmed(self, path: Path, database: str) -> bool:
        answer = input(
            f"This replaces everything in the database {database} with {path}: changes made since that "
            "backup are lost. Stop the app first.\nType 'yes' to restore: "
        )
        return answer.strip().lower() == "yes"
