"""One consistent read of the database, so a page never shows a hand whose points are not yet in the
totals because a tap committed between two queries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def read_snapshot() -> Iterator[None]:
    """Run the block's queries in one read-only snapshot transaction: PostgreSQL REPEATABLE READ, READ ONLY;
    SQLite (WAL) a deferred transaction that never takes the write lock, so no writer waits on it.
    Inside a transaction already it adds nothing. Writes fail (PostgreSQL) or may fail (SQLite)."""
    if connection.in_atomic_block:
        yield
        return
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        mode, connection.transaction_mode = connection.transaction_mode, "DEFERRED"
        try:
            with transaction.atomic():
                connection.transaction_mode = mode
                yield
        finally:
            connection.transaction_mode = mode
        return
    if connection.vendor == "postgresql":
        # psycopg opens the transaction with these: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY, one
        # round trip (a SET TRANSACTION after BEGIN would be another), then puts them back for the next user.
        from psycopg import IsolationLevel

        connection.ensure_connection()
        raw = connection.connection
        before = (raw.isolation_level, raw.read_only)
        raw.isolation_level, raw.read_only = IsolationLevel.REPEATABLE_READ, True
        try:
            with transaction.atomic():
                yield
        finally:
            if connection.connection is raw and not raw.closed:
                raw.isolation_level, raw.read_only = before
        return
    with transaction.atomic():
        yield
