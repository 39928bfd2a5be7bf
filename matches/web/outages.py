"""A database that drops its connections (a restart, a failover, a pooler, a SQLite file locked by a
backup) costs a phone a retry, never an error page.

A view whose connection was lost before any write of it may be saved (none sent, or those sent were in a
transaction that the lost connection dropped) is run again on a new connection; so is a
view marked `exact` (the tap: its hand number makes a second run answer from what the database holds,
whether the first commit happened or not). Anything else gets a short "try again" (503 with
Retry-After), which the phone's script retries by itself. A full disk is no lost connection: nothing
is run again, the phone is told "not saved" and the operator's log says the disk is full."""

from __future__ import annotations

import logging
from time import monotonic
from collections.abc import Callable

from asgiref.sync import iscoroutinefunction
from django.db import InterfaceError, OperationalError, connection, transaction
from django.http import HttpRequest, HttpResponse
from psycopg_pool import PoolTimeout

from matches.web.views.errors import disk_full, not_saved, try_again

logger = logging.getLogger(__name__)

LOST = (OperationalError, InterfaceError)
RUNS = 3  # the first run and two more, each on a new connection
# No run starts this long after the first: with a run's own waits (the pool's, the lock's: settings) the
# phone has its answer before its own timeout (20 s) gives up on it.
RUNS_WITHIN_SECONDS = 5
READS = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "SET", "SHOW", "PRAGMA")


def exact(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark `view` as safe to run again after its commit's outcome was lost: its second run finds its
    own first write and answers as if it were the first."""
    view.run_again_after_lost_commit = True  # type: ignore[attr-defined]
    return view


class Writes:
    """A database execute wrapper noting whether a write may be saved (`sent`): one that was sent outside a
    transaction, or in one that committed or whose commit was lost. A write lost inside its transaction is
    not: the database drops that transaction with the connection, so the view may run again."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        """A new run."""
        self.sent = self.pending = self.lost_inside = False

    def saved(self) -> None:
        self.sent = True

    def unsure(self) -> bool:
        """After a lost connection: whether a write may be saved (a pending one: unless a statement of its
        own transaction was what failed, so its commit was never asked for)."""
        return self.sent or (self.pending and not self.lost_inside)

    def __call__(self, execute, sql, params, many, context):
        write = not sql.lstrip()[:9].upper().startswith(READS)
        inside = context["connection"].in_atomic_block
        try:
            result = execute(sql, params, many, context)
        except LOST:
            self.lost_inside = inside
            self.sent = self.sent or (write and not inside)  # sent alone: applied or not, nobody knows
            raise
        if write and inside and not self.pending:
            self.pending = True
            transaction.on_commit(self.saved, using=context["connection"].alias)
        elif write and not inside:
            self.sent = True
        return result


def start_afresh() -> None:
    """Let go of the lost connection; a pool also drops its idle connections that the database ended."""
    try:
        connection.close()
    except LOST:
        pass
    pool = getattr(connection, "pool", None)  # PostgreSQL with a pool (Django 5.1+)
    if pool is not None:
        try:
            pool.check()
        except Exception as error:  # the database is still away: the next run finds out and says so
            logger.warning("checking the pool's connections failed: %s", error)


def is_locked(error: Exception) -> bool:
    """SQLite's write lock held past its timeout (a backup, a long import): not a lost connection."""
    return "database is locked" in str(error)


class ServeThroughOutages:
    """Middleware (last in MIDDLEWARE, so that CSRF and the rest have looked at the request first):
    runs the view, and again on a new connection when the first run lost its database connection."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if iscoroutinefunction(view) or connection.in_atomic_block:  # the streams; a test's transaction
            return None
        again = getattr(view, "run_again_after_lost_commit", False)
        writes, started, busy = Writes(), monotonic(), False
        for run in range(1, RUNS + 1):
            writes.start()
            try:
                with connection.execute_wrapper(writes):
                    return view(request, *args, **kwargs)
            except (*LOST, OSError) as error:
                if disk_full(error):
                    return not_saved(request, error)
                if not isinstance(error, LOST):
                    raise
                busy = is_locked(error)
                what = "busy: another writer held it too long" if busy else "connection lost"
                logger.warning("database %s (run %d of %s %s): %s", what, run, request.method, request.path, error)
                start_afresh()
                if writes.unsure() and not again:
                    break  # its write may or may not be saved: the phone is told so
                waited = is_locked(error) or isinstance(error.__cause__, PoolTimeout)  # SQLITE_TIMEOUT; the pool's
                if waited or monotonic() - started > RUNS_WITHIN_SECONDS:
                    break  # it waited its time already: another run would only wait as long again
        return try_again(request, unsure=writes.unsure(), busy=busy)
