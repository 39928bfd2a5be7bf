"""The speed trick of scorekeeper/asgi.py answers as the plain version does: a phone's requests sent to
the dispatcher (Django's WSGI handler in a pool of threads, the streams to Django's ASGI handler) get
the same answers as the same requests sent to Django's own ASGI handler."""

from __future__ import annotations

import asyncio
import ipaddress
import re
from urllib.parse import urlencode

import pytest
from django.core.asgi import get_asgi_application
from django.core.cache import caches
from django.test import override_settings

from matches.models import Sitting
from scorekeeper.asgi import BUFFERED, Dispatcher, held_by_the_loop
from tests.conftest import WORKED

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]
# What differs between any two sittings or requests: CSRF masks, a hand's stamp, the links' QR codes, the time.
MASKED = re.compile(rb'(csrfmiddlewaretoken" value="|X-CSRFToken": "|csrftoken=|name="stamp" value="|name="key" value="|class="qrline" stroke="#000" d=")[^";]+')


TIME = re.compile(rb"\b\d\d:\d\d\b")


class Phone:
    """One phone's cookies, sent to one ASGI app in this process."""

    def __init__(self, app) -> None:
        self.app, self.cookies, self.csrf = app, {}, ""

    def send(self, method: str, path: str, form: dict | None = None, body: bytes | None = None,
             query: bytes = b"", raw: list[tuple[bytes, bytes]] = [], **headers: str) -> tuple[int, dict, bytes]:
        body = urlencode(form).encode() if form is not None else (body or b"")
        sent = [(b"host", b"testserver"), (b"origin", b"http://testserver"), (b"x-csrftoken", self.csrf.encode())]
        sent += [(name.replace("_", "-").lower().encode(), value.encode()) for name, value in headers.items()]
        sent += raw  # as sent, underscores included
        if self.cookies:
            sent.append((b"cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()).encode()))
        if form is not None:
            sent.append((b"content-type", b"application/x-www-form-urlencoded"))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
                 "root_path": "", "headers": sent, "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
        chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)] or [b""]
        messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
        answer: dict = {"status": 0, "headers": {}, "body": b""}

        async def receive():
            if messages:
                return messages.pop(0)
            await asyncio.sleep(3600)

        async def send(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
                for name, value in message["headers"]:
                    if name.lower() == b"set-cookie":
                        cookie, _, kept = value.decode().partition(";")[0].partition("=")
                        self.cookies[cookie] = kept
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")

        asyncio.run(self.app(scope, receive, send))
        if found := re.search(rb'X-CSRFToken": "([^"]+)', answer["body"]):
            self.csrf = found.group(1).decode()
        return answer["status"], answer["headers"], answer["body"]


def a_night(app) -> list[tuple[int, str, bytes]]:
    """A table's requests: the page, taps (one again, one refused, one bad), a poll, the hands page."""
    sitting = Sitting.start("agram", WORKED)
    phone, base, hx = Phone(app), f"/s/{sitting.token}/", {"hx_request": "true"}
    steps = [
        phone.send("GET", base),
        phone.send("POST", base + "tap/", {"number": 1, "winner": 2}, **hx),
        phone.send("POST", base + "tap/", {"number": 1, "winner": 2}, **hx),  # the same tap again
        phone.send("POST", base + "tap/", {"number": 1, "winner": 3}, **hx),  # another phone's hand 1
        phone.send("POST", base + "tap/", {"number": "two", "winner": 3}, **hx),
        phone.send("POST", base + "tap/", {"number": 2, "winner": 1}),  # no htmx: redirected
        phone.send("GET", base + "poll/", query=b"v=1", **hx),
        phone.send("GET", base + "hands/"),
        phone.send("GET", "/s/nothing-here/"),
        phone.send("GET", base, query=b"q=%F0%9F%82%A1"),
    ]
    table = sitting.table()
    assert [seat.total for seat in table.seats] == [1, 1, 0, 0]  # hand 1 to seat 2, hand 2 to seat 1
    links = {sitting.token.encode(): b"T", sitting.watch_token.encode(): b"W"}
    return [(status, headers.get("content-type", ""), MASKED.sub(rb"\1-", re.sub(b"|".join(links), lambda m: links[m[0]], body)))
            for status, headers, body in steps]


def at_any_minute(body: bytes) -> bytes:
    """The two nights run seconds apart: a hand's time ("03:41") may fall in the next minute."""
    return TIME.sub(b"--:--", body)


def test_a_tables_requests_are_answered_as_djangos_asgi_handler_answers_them():
    dispatched = a_night(Dispatcher(threads=2))
    plain = a_night(get_asgi_application())
    assert [step[:2] for step in dispatched] == [step[:2] for step in plain]
    assert [status for status, _, _ in dispatched] == [200, 200, 200, 409, 400, 302, 200, 200, 404, 200]
    assert [(status, kind, at_any_minute(body)) for status, kind, body in dispatched] == [
        (status, kind, at_any_minute(body)) for status, kind, body in plain
    ]


@pytest.mark.parametrize(
    "path, held",
    [("/s/abcdefghijklmnop/events/", True), ("/w/abcdefghijklmnop/events/", True),
     ("/g/abcdefghijklmnop/events/", True), ("/gw/abcdefghijklmnop/events/", True),
     ("/s/abcdefghijklmnop/tap/", False), ("/s/abcdefghijklmnop/", False), ("/", False), ("/nowhere/", False),
     ("/static/app.js", False)],
)
def test_only_the_live_streams_are_held_by_the_event_loop(path, held):
    assert held_by_the_loop(path) is held


def test_a_body_bigger_than_the_buffer_still_reaches_its_view():
    phone = Phone(Dispatcher(threads=2))
    status, _, page = phone.send("GET", "/groups/import/")
    assert status == 200
    archive = b"x" * (BUFFERED + 70_000)
    boundary = "b0und"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"g.json\"\r\n"
            f"Content-Type: application/json\r\n\r\n").encode() + archive + f"\r\n--{boundary}--\r\n".encode()
    status, _, answer = phone.send("POST", "/groups/import/", body=body, content_type=f"multipart/form-data; boundary={boundary}")
    assert status == 400 and b"group_import" not in answer  # the import view's own refusal, not a crash


@pytest.mark.parametrize("query, status", [("q=é".encode(), 200), ("q=é".encode("latin-1"), 400), (b"v=\xff\xfe", 400)])
def test_a_query_string_that_is_not_ascii_is_answered_as_django_answers_it(query, status):
    sitting = Sitting.start("agram", WORKED)
    for app in (Dispatcher(threads=2), get_asgi_application()):
        assert Phone(app).send("GET", f"/s/{sitting.token}/", query=query)[0] == status


@override_settings(TRUSTED_PROXIES=[ipaddress.ip_network("127.0.0.1")], START_ADDRESS_RATE_LIMIT="2/h")
def test_a_header_named_with_underscores_is_dropped_as_djangos_asgi_handler_drops_it():
    """X_Forwarded_For would otherwise read as X-Forwarded-For, after the proxy's own (its right-most)."""
    def new_match(app, forged: str) -> int:
        phone = Phone(app)  # a new one each time: a phone's demo again is not a new match
        phone.send("GET", "/")
        raw = [(b"x-forwarded-for", b"203.0.113.1"), (b"x_forwarded_for", forged.encode())]
        return phone.send("POST", "/demo/", {}, raw=raw)[0]

    for app in (Dispatcher(threads=2), get_asgi_application()):
        caches["ratelimit"].clear()
        assert [new_match(app, f"198.51.100.{n}") for n in range(3)] == [302, 302, 429], app
