"""A speed trick, kept because `make bench` shows it (BENCHMARKS.md, live updates): on SQLite the live
check reads what changed in the last seconds four times a second, two ORM queries in a worker thread,
though most checks find nothing new. SQLite itself says whether anyone committed since it last asked
(`PRAGMA data_version`, one C call on a connection of our own that never writes): the check reads only
when something was committed. tests/web/test_sqlite_commits.py checks that no commit goes unseen."""

from __future__ import annotations

import sqlite3


class Commits:
    """Whether any connection, in any process, committed to the database file since the last ask."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.connection: sqlite3.Connection | None = None
        self.seen: int | None = None

    def since_last_ask(self) -> bool:
        """True when something may have been committed (always when SQLite cannot say)."""
        try:
            if self.connection is None:
                self.connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=0)
            (version,) = self.connection.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:
            self.close()  # opened again at the next ask: the file may come back (tests make it anew)
            return True
        changed, self.seen = version != self.seen, version
        return changed

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        self.connection, self.seen = None, None


def commits_of(settings_dict: dict) -> Commits | None:
    """For the database of `settings_dict`, when it is an SQLite file; None otherwise (in memory)."""
    name = str(settings_dict.get("NAME") or "")
    if settings_dict.get("ENGINE", "").endswith("sqlite3") and name and ":memory:" not in name and "mode=memory" not in name:
        return Commits(name)
    return None
