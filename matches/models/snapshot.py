"""One consistent read of the database: every query inside sees the same committed state.

A page that reads a sitting's row, its seats' totals and its hands in separate queries must not
show a hand whose points are not in the totals because a tap committed between two of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def read_snapshot() -> Iterator[None]:
    """Run the block's queries in one read-only transaction that sees a single snapshot.

    PostgreSQL: REPEATABLE READ, READ ONLY (the snapshot is taken at the first query).
    SQLite (WAL): a deferred transaction, which never takes the write lock, so it waits for no
    writer and no writer waits for it. Inside a transaction already (a verb's, or an outer
    snapshot) it adds nothing: that transaction is consistent already.
    Writing inside the block fails (PostgreSQL) or may fail (SQLite): only read.
    """
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
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield
