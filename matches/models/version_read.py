"""The read of every idle poll: a sitting's version by one of its links, in one round trip.

Every phone at a table asks every few seconds, so this one read is the app's most frequent. On
PostgreSQL it goes through libpq itself (psycopg.pq) as a statement prepared once per connection:
psycopg's cursor machinery around this one-row read cost more than twice the read, and the server
parsed and planned it on every poll (BENCHMARKS.md). Elsewhere it goes through Django's cursor.
"""

from __future__ import annotations

import itertools
import time
import weakref
from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from psycopg import pq

from matches.models.sittings import Sitting


def sitting_version(column: str, token: str) -> int | None:
    """The version of the sitting whose link `column` is `token`, or None when none has it.

    `column` is "token" or "watch_token" (the caller's own constant, never the request's). Raises
    django.db.DatabaseError when the database refuses it (the connection is then health-checked
    before Django uses it again); a statement that failed is prepared again by the next call."""
    if connection.vendor == "postgresql":
        return _version_from_libpq(column, token)
    with connection.cursor() as cursor:
        cursor.execute(_read(column, "%s"), [token])
        row = cursor.fetchone()
    return None if row is None else row[0]


def _read(column: str, placeholder: str) -> str:
    """The version read by link `column`, its token as the driver's `placeholder`."""
    return f"SELECT version FROM {Sitting._meta.db_table} WHERE {column} = {placeholder}"


# Per psycopg connection, each link's poll statement prepared on it (on its first use), by name.
_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NAMES = itertools.count(1)  # a statement prepared again takes a new name: the old one may linger


def _version_from_libpq(column: str, token: str) -> int | None:
    wrapper = connections[DEFAULT_DB_ALIAS]
    wrapper.ensure_connection()
    database = wrapper.connection
    prepared = _PREPARED.setdefault(database, {})
    name = prepared.get(column)
    if name is None:
        name = f"lasttrick_poll_{column}_{next(_NAMES)}".encode()
        sql = _read(column, "$1")
        _sent(wrapper, f"PREPARE {name.decode()} AS {sql}", lambda: database.pgconn.prepare(name, sql.encode()))
        prepared[column] = name
    try:
        result = _sent(
            wrapper,
            f"EXECUTE {name.decode()}('{token}')",
            lambda: database.pgconn.exec_prepared(name, [token.encode()]),
        )
    except DatabaseError:
        # The server forgot it (a pooler's other connection, DEALLOCATE), or it no longer fits the
        # table (a migration changed a column): the next poll prepares it again, under a new name.
        del prepared[column]
        raise
    return int(result.get_value(0, 0)) if result.ntuples else None


def _sent(wrapper, sql: str, send: Callable[[], pq.abc.PGresult]) -> pq.abc.PGresult:
    """libpq's answer to `send`, logged as Django logs its queries (DEBUG, assertNumQueries) as `sql`.
    Raises DatabaseError when the database refused it."""
    started = time.monotonic()
    result = send()
    if wrapper.queries_logged:
        wrapper.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        wrapper.errors_occurred = True  # Django checks the connection before it uses it again
        raise DatabaseError(result.get_error_message())
    return result
