"""The phone that tests/operations/test_fuzzing.py sends its bad requests with (tests/raw_http.py's bare
socket, real cookies and CSRF token), what it counts as a failure, and the database's fingerprint that a
refused request must leave as it was."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from django import forms
from django.contrib.sessions.serializers import JSONSerializer
from django.core.validators import (
    MaxValueValidator,
    MinValueValidator,
    RegexValidator,
)
from django.core import signing
from django.db import connection

from tests.raw_http import RawAnswer, RawConnection, form, request_bytes

CSRF_FIELD = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
STATIC = re.compile(rb'href="(/static/app\.[0-9a-f]+\.css)"')
SERVERS_KEY = "shared-by-every-server-of-one-deployment-" + "x" * 20  # tests/servers.py's gunicorn() sets it
# Django's own words for a form field's refusal ("Enter a whole number."), cut at their first placeholder: a
# refusal says what to fix at this table in the app's words instead (a null character, which no phone types,
# may be refused in Django's: they say what to fix).
DJANGO_WORDS = [
    re.split(r"%\(", str(message))[0].encode()
    for kind in (forms.Field, forms.CharField, forms.IntegerField, forms.ChoiceField, forms.MultipleChoiceField)
    for message in kind.default_error_messages.values()
] + [
    re.split(r"%\(", str(validator.message))[0].encode()
    for validator in (MinValueValidator(0), MaxValueValidator(0), RegexValidator())
] + [b"Ensure this value has at most"]
PLAYER_STATES = 'COALESCE(SUM(CASE WHEN erased THEN 2 WHEN "left" THEN 1 ELSE 0 END), 0)'


def fingerprint(sittings: str = "1 = 1", ids: tuple = (), groups: bool = True, players: str = "1 = 1") -> tuple:
    """What a refused request must leave as it was, in one query: the sittings chosen by the SQL condition
    `sittings` (its %s the `ids`), their hands, and (`groups`) the groups and the `players`; every change
    adds or removes a row, or moves a version on."""
    chosen = f"SELECT id, version FROM matches_sitting WHERE {sittings}"
    parts = [
        f"SELECT COUNT(*), COALESCE(SUM(version), 0) FROM ({chosen}) AS s",
        "SELECT COUNT(*), COALESCE(SUM(number), 0) FROM matches_hand"
        f" WHERE sitting_id IN (SELECT id FROM ({chosen}) AS h)",
    ]
    if groups:
        parts.append("SELECT COUNT(*), COALESCE(SUM(version), 0) FROM matches_group")
        parts.append(f"SELECT COUNT(*), {PLAYER_STATES} FROM matches_player WHERE {players}")
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), [*ids, *ids])
        return tuple(cursor.fetchall())


def among(ids: tuple[int, ...]) -> str:
    """An SQL `IN` list of as many %s as `ids`."""
    return "(%s)" % ",".join(["%s"] * len(ids))


def signed_session(data: object) -> bytes:
    """A session cookie as the test server signs one (signed_cookies' salt, its key)."""
    salt = "django.contrib.sessions.backends.signed_cookies"
    value = signing.dumps(data, key=SERVERS_KEY, salt=salt, serializer=JSONSerializer, compress=True)
    return f"sessionid={value}".encode()


class Fuzzer:
    """One phone on one keep-alive connection, its CSRF cookie and token real. Notes every answer that
    is a 5xx or none at all, and every refused change (not GET or HEAD) after which `state()` differs."""

    def __init__(self, base: str, state: Callable[[], tuple] | None = None) -> None:
        self.connection = RawConnection(base)
        self.failures: list[str] = []
        self.sent, self.cookie, self.session, self.state_of = 0, b"", b"", state
        page = self.send("GET", "/start/agram/")
        self.csrf = CSRF_FIELD.search(page.body)[1].decode()
        self.cookie = f"csrftoken={page.cookies()['csrftoken']}".encode()
        self.static = STATIC.search(page.body)[1].decode()
        self.state = state() if state else None

    def send(self, method: str, target: str | bytes, headers=(), body: bytes = b"", what: str = "",
             stream: bool = False) -> RawAnswer:  # fmt: skip
        given = [value for name, value in headers if name.lower() == b"cookie"]
        headers = [(name, value) for name, value in headers if name.lower() != b"cookie"]
        mine = [cookie for cookie in (self.cookie, self.session) if cookie and not any(  # unless it carries its own
            cookie.split(b"=")[0] + b"=" in value for value in given)]  # fmt: skip
        if given or mine:
            headers.append((b"Cookie", b"; ".join([*given, *mine])))
        if body and not any(name.lower() == b"content-type" for name, _ in headers):
            headers.append((b"Content-Type", b"application/x-www-form-urlencoded"))
        raw = request_bytes(method, target, headers, body)
        self.sent += 1
        answer = self.connection.stream_head(raw) if stream else self.connection.send(raw, head=method == "HEAD")
        if "sessionid" in answer.cookies() and not given:  # a phone keeps its session (a demo is made once)
            self.session = f"sessionid={answer.cookies()['sessionid']}".encode()
        what = f"{method} {target[:150]!r} {what}"
        if answer.status == 0:
            self.failures.append(f"no answer: {what}")
        elif answer.status >= 500:
            self.failures.append(f"{answer.status}: {what}")
        elif answer.status >= 400 and (words := next((w for w in DJANGO_WORDS if w in answer.body), None)):
            self.failures.append(f"{answer.status} in Django's own words {words!r}: {what}")
        if self.state_of and method not in ("GET", "HEAD"):
            now = self.state_of()
            if answer.status >= 400 and now != self.state:
                self.failures.append(f"refused with {answer.status} but changed the database: {what}")
            self.state = now
        return answer

    def once(self, method: str, target: str, headers: list, body: bytes, what: str) -> None:
        """A request whose Content-Length lies, on a connection of its own: a shorter one is answered (the
        bytes after it are another, bad request), a longer one waits for bytes that never come; either
        way the server answers the next request."""
        headers = [(b"Cookie", self.cookie), (b"Content-Type", b"application/x-www-form-urlencoded"), *headers]
        alone = RawConnection(self.connection.base, timeout=1)
        try:
            answer = alone.send(request_bytes(method, target, headers, body))
        finally:
            alone.close()
        if answer.status >= 500:
            self.failures.append(f"{answer.status}: {method} {target} {what}")
        if self.send("GET", "/offline/").status != 200:
            self.failures.append(f"the server stopped answering after {method} {target} {what}")

    def post(self, target: str, fields: list, what: str = "", headers=()) -> RawAnswer:
        return self.send("POST", target, headers, form([("csrfmiddlewaretoken", self.csrf), *fields]), what)

    def form_headers(self) -> list[tuple[bytes, bytes]]:
        """What lets a PUT or DELETE past the CSRF check to its view: the token in htmx's header."""
        return [(b"X-CSRFToken", self.csrf.encode())]


def report(failures: list[str], sent: int) -> str:
    kinds = sorted(set(failures))
    return f"{len(kinds)} failures in {sent} requests:\n" + "\n".join(kind[:300] for kind in kinds[:60])


def fan_out(base: str, jobs: list, threads: int = 3, beside: Callable | None = None) -> tuple[list[str], int]:
    """Run each job(fuzzer) on `threads` phones at once (requests that change nothing: no fingerprints),
    and `beside`(fuzzer) meanwhile on one more phone watching the whole database; their failures, and how
    many requests were sent."""
    failures, sent, lock = [], [0], threading.Lock()

    def run(part: list, watched: bool = False) -> None:
        fuzzer = None
        try:
            fuzzer = Fuzzer(base, fingerprint if watched else None)
            for job in part:
                job(fuzzer)
        except Exception as error:  # noqa: BLE001 - a phone that stopped is a failure, not a silent pass
            with lock:
                failures.append(f"the fuzz stopped: {error!r}")
        finally:
            connection.close()  # this thread's own
            with lock:
                failures.extend(fuzzer.failures if fuzzer else [])
                sent[0] += fuzzer.sent if fuzzer else 0

    calls = [(run, (jobs[i::threads],)) for i in range(threads)]
    together([*calls, (run, ([beside], True))] if beside else calls)
    return failures, sent[0]


def together(calls: list[tuple[Callable, tuple]]) -> None:
    """Run each (function, arguments) in a thread of its own; return when all have ended."""
    threads = [threading.Thread(target=function, args=arguments) for function, arguments in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


