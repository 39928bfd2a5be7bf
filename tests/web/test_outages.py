"""A database connection lost under a request (in-process; tests/operations/test_faults.py ends real
servers' connections): served again on a new connection when nothing was written or the view is exact,
else a 503 "try again" with Retry-After; never a 500, never a wrong answer."""

from __future__ import annotations

import functools
import re
import sys
from unittest import mock

import pytest
from django.db import OperationalError, connection, transaction
from psycopg_pool import PoolTimeout
from django.test import RequestFactory, override_settings

from matches.models import Group, Hand, Sitting
from matches.services.archive import dumps, export_group
from matches.web import once, outages
from matches.web.views.errors import server_error
from tests.conftest import WORKED, shown
from tests.pages import HX, start_data, upload

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]  # the view runs outside a test's own transaction


class DropConnection:
    """An execute wrapper that fails the statements it is told (counted from 1, by their first word)
    as a lost connection does."""

    def __init__(self, *losses: tuple[str, int]) -> None:
        self.losses = {(word.upper(), n) for word, n in losses}
        self.seen: dict[str, int] = {}

    def __call__(self, execute, sql, params, many, context):
        word = sql.lstrip().split(None, 1)[0].upper()
        self.seen[word] = self.seen.get(word, 0) + 1
        if (word, self.seen[word]) in self.losses:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)


def lost(client, method: str, path: str, *losses: tuple[str, int], drop=None, **extra):
    """The request, its statements lost (`losses`, or by `drop`) as the database driver loses them: under the
    view's own wrappers."""
    drop = drop or DropConnection(*losses)

    class Losing(outages.Writes):
        def __call__(self, execute, sql, params, many, context):
            return super().__call__(functools.partial(drop, execute), sql, params, many, context)

    with mock.patch.object(outages, "Writes", Losing):
        return getattr(client, method)(path, **extra)


def test_a_page_whose_first_read_lost_its_connection_is_served_on_a_new_one(client):
    sitting = Sitting.start("agram", WORKED)
    response = lost(client, "get", f"/s/{sitting.token}/", ("SELECT", 1))
    assert response.status_code == 200 and "Aïcha" in shown(response.content.decode())


def test_a_tap_whose_connection_dropped_before_it_wrote_is_recorded_once(client):
    sitting = Sitting.start("agram", WORKED)
    response = lost(client, "post", f"/s/{sitting.token}/tap/", ("SELECT", 1), data={"number": 1, "winner": 2}, **HX)
    assert response.status_code == 200 and "Hand 1 recorded: Boubacar." in shown(response.content.decode())
    assert list(sitting.hands.values_list("number", "winner__position")) == [(1, 1)]


def test_a_tap_saved_before_the_connection_dropped_is_answered_as_recorded_not_refused(client):
    """The commit went through, then the read of the fresh table lost the connection: the second run
    finds the hand saved with the same winner and answers as if it had saved it itself."""
    sitting = Sitting.start("agram", WORKED)
    saved = ("SELECT", 4)  # the sitting, its lock, its seats, the hands; then the read after the commit
    response = lost(client, "post", f"/s/{sitting.token}/tap/", saved, data={"number": 1, "winner": 3}, **HX)
    assert Hand.objects.filter(sitting=sitting).count() == 1
    assert response.status_code == 200 and "Hand 1 recorded: Chaibou." in shown(response.content.decode())
    assert sitting.check_totals() == []


class DropAfterCommit:
    """An execute wrapper that loses the connection at the first statement after a commit that wrote."""

    def __init__(self) -> None:
        self.committed = self.watching = False

    def __call__(self, execute, sql, params, many, context):
        if self.committed:
            raise OperationalError("server closed the connection unexpectedly")
        if not self.watching and sql.lstrip()[:6].upper() in ("INSERT", "UPDATE"):
            self.watching = True
            transaction.on_commit(lambda: setattr(self, "committed", True), using=context["connection"].alias)
        return execute(sql, params, many, context)


def test_a_change_whose_outcome_is_unknown_is_a_503_try_again_never_a_500(client):
    """Ending a match is not exact: a second run would find the match over and say so, a wrong answer."""
    sitting = Sitting.start("agram", WORKED)
    with connection.execute_wrapper(DropAfterCommit()):
        response = client.post(f"/s/{sitting.token}/end/", {"number": 1}, **HX)
    assert response.status_code == 503 and response["Retry-After"].isdecimal()
    assert "look at the page again" in response.content.decode()
    sitting.refresh_from_db()
    assert sitting.finished_at is not None  # it was saved: the phone is told to look, not to end it again


def test_a_plain_form_the_database_was_too_busy_to_take_says_so_with_a_way_back_to_its_table(client):
    """SQLite's lock held by another writer past its wait (a backup, a long import): not a lost database."""

    class Locked(DropConnection):
        def __call__(self, execute, sql, params, many, context):
            raise OperationalError("database is locked")

    sitting = Sitting.start("agram", WORKED)
    response = lost(client, "post", f"/s/{sitting.token}/end/", drop=Locked(), data={"number": 1})
    page = response.content.decode()
    assert response.status_code == 503 and "too busy for a moment: nothing was changed" in shown(page)
    assert "lost its database" not in page and f'href="/s/{sitting.token}/"' in page
    sitting.refresh_from_db()
    assert sitting.finished_at is None
    for form in ("/groups/new/", "/start/agram/"):  # a form with a page of its own: back to it
        data = {"name": "Vendredi", "players": "Ana\nBen"} if "groups" in form else start_data(["Ana", "Ben"])
        page = lost(client, "post", form, drop=Locked(), data=data).content.decode()
        assert "too busy for a moment" in shown(page) and f'href="{form}"' in page


@pytest.mark.parametrize("path", ["end/", "/start/agram/"])
def test_a_change_that_lost_its_connection_inside_its_transaction_is_made_once_on_a_new_one(client, path):
    """The database drops an open transaction with its connection: nothing of it was saved, so the
    change runs again (its first write, whichever it is, lost: a pooled connection the database ended)."""
    sitting = Sitting.start("agram", WORKED)
    address = path if path.startswith("/") else f"/s/{sitting.token}/{path}"
    data = {"number": 1} if path == "end/" else start_data(["Ana", "Ben"], once=once.new_token())
    with mock.patch.object(once.Once, "made", side_effect=AssertionError("the run again waited on its own claim")):
        response = lost(client, "post", address, ("INSERT", 1), ("UPDATE", 1), data=data)
    assert response.status_code == 302, re.findall(r"class=\"notice[^>]*>([^<]*)", response.content.decode())
    sitting.refresh_from_db()
    if path == "end/":
        assert sitting.finished_at is not None and sitting.hands.count() == 1
    else:
        assert Sitting.objects.count() == 2 and Sitting.objects.exclude(pk=sitting.pk).get().seats.count() == 2


def test_a_database_away_for_every_run_answers_503_with_retry_after_and_the_page_reloads_itself(client):
    sitting = Sitting.start("agram", WORKED)
    response = lost(client, "get", f"/s/{sitting.token}/", *[("SELECT", n) for n in range(1, 10)])
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    body = response.content.decode()
    assert "nothing was changed" in body and f'http-equiv="refresh" content="{response["Retry-After"]}"' in body


def test_an_htmx_request_during_an_outage_gets_the_message_in_the_notice_area(client):
    sitting = Sitting.start("agram", WORKED)
    response = lost(client, "get", f"/s/{sitting.token}/", *[("SELECT", n) for n in range(1, 10)], **HX)
    assert response.status_code == 503 and response["HX-Retarget"] == "#notice"
    assert "http-equiv" not in response.content.decode()


def test_a_backing_service_error_outside_any_view_is_a_503_not_a_500():
    request = RequestFactory().post("/s/x/tap/")
    try:
        raise OperationalError("terminating connection due to administrator command")
    except OperationalError:
        response = server_error(request)
    assert sys.exc_info() == (None, None, None)
    assert response.status_code == 503 and "Retry-After" in response
    try:
        raise ValueError("a bug")
    except ValueError:
        assert server_error(request).status_code == 500


AWAY = {  # the shared cache's Redis: nothing listens there
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "ratelimit": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"},
}


@override_settings(CACHES=AWAY)
def test_a_tap_goes_through_while_the_rate_limits_cache_is_away(client):
    sitting = Sitting.start("agram", WORKED)
    response = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 1}, **HX)
    assert response.status_code == 200 and sitting.hands.count() == 1


@override_settings(CACHES=AWAY)
@pytest.mark.parametrize("form", ["start", "group-new", "group-start", "group-import"])
def test_a_form_that_makes_something_makes_it_while_the_shared_cache_is_away(client, form):
    """The guard against a form sent twice keeps its claims in the shared cache (Redis): with Redis away
    the form makes its thing (it answered 503, "the server lost its database"), once on this worker."""
    token = once.new_token()
    group = Group.create("Friday", ["Ana", "Ben"])
    path, data = {
        "start": ("/start/agram/", start_data(["Ana", "Ben"], once=token)),
        "group-new": ("/groups/new/", {"name": "Saturday", "players": "Ana\nBen", "once": token}),
        "group-start": (f"/g/{group.token}/new/agram/", {"seat": [f"m{p.pk}" for p in group.members()],
                                                          "action": "start", "end_kind": "open", "once": token}),
        "group-import": ("/groups/import/", {**upload(dumps(export_group(group)).encode()), "second_copy": "1",
                                             "once": token}),
    }[form]
    if form == "group-import":  # (its file is read once: the second post gets a copy of the form's data)
        again = {**data, **upload(dumps(export_group(group)).encode())}
    else:
        again = data
    response = client.post(path, data)
    assert response.status_code == 302, shown(response.content.decode())
    assert client.post(path, again)["Location"] == response["Location"]  # sent twice: the same thing
    assert Sitting.objects.count() + Group.objects.count() == 2


class Locked(DropConnection):
    """SQLite's write lock held by another process past the timeout, on every run."""

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            self.seen["runs"] = self.seen.get("runs", 0) + 1  # each run stops at its first write
            raise OperationalError("database is locked")
        return execute(sql, params, many, context)


def test_a_tap_that_cannot_get_the_write_lock_waits_its_timeout_once_not_once_per_run(client, caplog):
    sitting = Sitting.start("agram", WORKED)
    locked = Locked()
    with connection.execute_wrapper(locked):
        response = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 1}, **HX)
    assert response.status_code == 503 and not sitting.hands.exists()
    assert locked.seen["runs"] == 1  # the view ran once: the lock's wait (SQLITE_TIMEOUT) was the wait
    # The operator reads a busy database, not a lost connection (nothing to restart).
    assert "database busy" in caplog.text and "connection lost" not in caplog.text


def test_no_run_starts_once_the_request_has_waited_what_the_phone_allows(client, monkeypatch):
    from matches.web import once, outages

    clock = iter(range(0, 1000, 4))  # each look at the clock: 4 s later
    monkeypatch.setattr(outages, "monotonic", lambda: next(clock))
    sitting = Sitting.start("agram", WORKED)
    drops = DropConnection(("SELECT", 1), ("SELECT", 2), ("SELECT", 3))
    with connection.execute_wrapper(drops):
        response = client.get(f"/s/{sitting.token}/")
    assert response.status_code == 503 and drops.seen["SELECT"] == 2  # a second run (4 s in), no third (8 s)


class NoConnection:
    """The pool waited its time for a connection and got none (the database refuses them): every statement."""

    def __init__(self) -> None:
        self.tries = 0

    def __call__(self, execute, sql, params, many, context):
        self.tries += 1
        try:
            raise PoolTimeout("couldn't get a connection after 5.00 sec")
        except PoolTimeout as timeout:
            raise OperationalError(str(timeout)) from timeout


def test_a_tap_that_got_no_connection_from_the_pool_in_its_wait_is_not_run_again_to_wait_as_long(client):
    sitting = Sitting.start("agram", WORKED)
    refusing = NoConnection()
    response = lost(client, "post", f"/s/{sitting.token}/tap/", drop=refusing, data={"number": 1, "winner": 2}, **HX)
    assert response.status_code == 503 and refusing.tries == 1


def test_every_wait_a_tap_can_meet_ends_before_the_phone_gives_up(settings):
    """The phone's own timeout is 20 s (base.html): SQLite's lock, the pool, the runs, Redis all end first."""
    from matches.web.outages import RUNS_WITHIN_SECONDS

    phone = 20
    assert settings.DATABASES["default"].get("OPTIONS", {}).get("timeout", 10) <= 10 or connection.vendor != "sqlite"
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool", {}).get("timeout", 5)
    assert RUNS_WITHIN_SECONDS + pool < phone
    assert 3 * settings.REDIS_TIMEOUT <= 1  # the README's "at most a second"


@pytest.mark.parametrize("losses, read", [(1, True), (2, False)])
def test_a_push_whose_read_lost_its_connection_is_read_again_on_a_new_one_once(losses, read):
    """The database ended every connection (a restart, pg_terminate_backend): the table a push carries, and
    the versions the live checks read, are read once more on a new connection; twice lost, the stream waits."""
    from matches.web.live.regions import render_region, versions

    sitting = Sitting.start("agram", WORKED)
    sitting.record_hand(1, 2)
    for run in (lambda: render_region(sitting.pk, "en", False).version, lambda: versions([sitting.pk], [])[0][sitting.pk]):
        with connection.execute_wrapper(DropConnection(*(("SELECT", n) for n in range(1, losses + 1)))):
            if read:
                assert run() == 2
            else:
                with pytest.raises(OperationalError):
                    run()
