"""`manage.py backup PATH`: a consistent copy of the live database while the app runs.

SQLite: the sqlite3 backup API in one step from a read-only connection (WAL lets the app keep
writing); the copy is one self-contained file. PostgreSQL: `pg_dump --format=custom` with
settings.DATABASES["default"], the password via PGPASSWORD, never the command line.
Written beside PATH then renamed, so PATH is never half-written. Errors raise CommandError.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections
from django.db.backends.postgresql.client import DatabaseClient

VENDOR_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_CUSTOM_MAGIC = b"PGDMP"


def live_database() -> tuple[str, dict]:
    """(vendor, settings dict) of the default database: "sqlite" or "postgresql", else CommandError."""
    connection = connections["default"]
    if connection.vendor not in VENDOR_NAMES:
        raise CommandError(f"Backups know SQLite and PostgreSQL databases, not {connection.vendor}.")
    return connection.vendor, connection.settings_dict


def sqlite_file(settings_dict: dict) -> Path:
    """The live SQLite database file; CommandError when there is none."""
    path = Path(settings_dict["NAME"])
    if not path.is_file():
        raise CommandError(f"There is no SQLite database file at {path}: check DATABASE_URL.")
    return path


def refuse_same_file(path: Path, live: Path) -> None:
    """CommandError when `path` is the live database file itself."""
    if path.resolve() == live.resolve():
        raise CommandError(f"{path} is the live database itself: name another file.")


def open_sqlite(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A connection to the SQLite file `path`, waiting up to 20 s for another writer's lock."""
    mode = "ro" if read_only else "rwc"
    return sqlite3.connect(f"file:{quote(str(path))}?mode={mode}", uri=True, timeout=20)


def has_magic(path: Path, magic: bytes) -> bool:
    with path.open("rb") as file:
        return file.read(len(magic)) == magic


def pg_connection(settings_dict: dict) -> tuple[list[str], dict[str, str]]:
    """(pg_dump/pg_restore options, environment with password and SSL options) from Django's settings dict."""
    _, secrets = DatabaseClient.settings_to_cmd_args_env(settings_dict, [])
    names = (("dbname", "NAME"), ("host", "HOST"), ("port", "PORT"), ("username", "USER"))
    options = [f"--{option}={settings_dict[key]}" for option, key in names if settings_dict.get(key)]
    return ["--no-password", *options], {**os.environ, **(secrets or {})}


def run_pg_tool(program: str, args: list[str], env: dict[str, str]) -> None:
    """Run a PostgreSQL client program; CommandError when it is missing or fails (with its message)."""
    if shutil.which(program) is None:
        raise CommandError(
            f"{program} is not installed: install the PostgreSQL client (apt-get install postgresql-client)."
        )
    result = subprocess.run([program, *args], env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise CommandError(f"{program} failed (exit {result.returncode}): {result.stderr.strip()}")


def write_into_place(path: Path, write: Callable[[Path], None]) -> None:
    """Call write(temporary file beside `path`), then rename it to `path`; remove it on failure."""
    if not path.parent.is_dir():
        raise CommandError(f"The folder {path.parent} does not exist.")
    partial = path.with_name(f".{path.name}.partial")
    try:
        write(partial)
        os.replace(partial, path)
    except OSError as error:
        raise CommandError(f"Could not write {path}: {error.strerror or error}.") from None
    finally:
        partial.unlink(missing_ok=True)


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy the SQLite database `source` to the new file `target` with the backup API, in one step."""
    try:
        with closing(open_sqlite(source, read_only=True)) as live, closing(open_sqlite(target)) as copy:
            live.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error as error:
        raise CommandError(f"Could not back up {source}: {error}.") from None


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the database to PATH while the app runs: SQLite's backup API, "
        "or pg_dump --format=custom on PostgreSQL. Put it back with `manage.py restore PATH`."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="File to write (replaced if it exists).")

    def handle(self, *args, path: Path, **options) -> None:
        vendor, settings_dict = live_database()
        if vendor == "sqlite":
            source = sqlite_file(settings_dict)
            refuse_same_file(path, source)
            write_into_place(path, lambda partial: copy_sqlite(source, partial))
        else:
            connection, env = pg_connection(settings_dict)
            write_into_place(
                path, lambda partial: run_pg_tool("pg_dump", ["--format=custom", f"--file={partial}", *connection], env)
            )
        self.stdout.write(f"Backed up the {VENDOR_NAMES[vendor]} database to {path} ({path.stat().st_size:,} bytes).")
