"""Phones at their tables (httpx, httpx-sse): the page loaded first, taps as htmx sends them, the app's event
stream or the peer's 5-second poll, and when each version of a table first showed on each phone."""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import time

import httpx
from httpx_sse import aconnect_sse

from common import BenchError, Meter, Server, Table

POLL_SECONDS = 5.0  # the peer's page: hx-trigger="every 5s"
PUSH_WAIT = 60.0  # seconds a new version may take to reach a phone before the run fails (a request's timeout)
BROWSER = {"User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/130.0.0.0 Mobile Safari/537.36", "Accept-Language": "en-GB,en;q=0.9", "Accept-Encoding": "gzip"}
NAVIGATE = {"Accept": "text/html,*/*;q=0.8", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
HTMX = {"Accept": "*/*", "HX-Request": "true", "HX-Target": "table", "Sec-Fetch-Mode": "cors"}


def transport() -> httpx.AsyncHTTPTransport:
    """One connection pool for many phones that keeps no idle connection: a phone's requests come seconds apart,
    past any keep-alive, so each request opens its connection as a phone's does."""
    return httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=None, max_keepalive_connections=0))


def version_of(table: Table, answer: httpx.Response) -> int:
    """The version an answer shows: the peer's ETag, the app's table region's data-version."""
    if table.side == "peer":
        return int(answer.headers.get("etag", '"0"').strip('"'))
    if found := re.search(r'data-version="(\d+)"', answer.text):
        return int(found.group(1))
    raise BenchError(f"app {table.token}: no data-version in {answer.text[:300]!r}")


class Phone:
    """One phone: its own cookies, the versions it showed and when, what ended its stream or poll."""

    def __init__(self, server: Server, pool: httpx.AsyncHTTPTransport):
        self.origin = f"http://127.0.0.1:{server.port}"
        self.http = httpx.AsyncClient(base_url=self.origin, transport=pool, headers=BROWSER, timeout=60)
        self.csrf, self.version, self.seen, self.changed, self.drops = "", 0, {}, asyncio.Event(), 0
        self.failure: Exception | None = None

    def show(self, version: int) -> None:
        if version > self.version:
            self.version, self.seen[version] = version, time.monotonic()
            self.changed.set()

    async def reached(self, version: int) -> float:
        """When this phone first showed `version` or a later one."""
        while self.version < version:
            self.changed.clear()
            await self.changed.wait()
        return min(when for shown, when in self.seen.items() if shown >= version)

    async def send(self, method: str, path: str, headers: dict, **extra) -> httpx.Response:
        try:
            answer = await self.http.request(method, path, headers=headers, **extra)
        except httpx.HTTPError as error:  # no answer within the timeout, a refused or dropped connection
            raise BenchError(f"{method} {self.origin}{path}: {error!r}") from None
        if not answer.is_success and answer.status_code != 304:
            raise BenchError(f"{method} {self.origin}{path}: {answer.status_code} {answer.text[:300]!r}")
        return answer

    async def open(self, table: Table) -> None:
        """The page, as a browser loads it first: cookies, the CSRF token htmx sends, the version shown."""
        answer = await self.send("GET", f"/s/{table.token}/", NAVIGATE)
        if not (found := re.search(r'"X-CSRFToken": "([^"]+)"', answer.text)):
            raise BenchError(f"{table.side}: no X-CSRFToken in the page of {table.token}")
        self.csrf = found.group(1)
        if table.side == "app":
            table.version = version_of(table, answer)
        self.show(table.next if table.side == "peer" else table.version)  # the peer's seeded version

    async def tap(self, table: Table) -> tuple[float, int, float]:
        """The next hand's tap as htmx posts it: (seconds to the answer, the version it shows, when it came)."""
        number, table.next = table.next, table.next + 1
        headers = {**HTMX, "X-CSRFToken": self.csrf, "Origin": self.origin,
                   "HX-Current-URL": f"{self.origin}/s/{table.token}/"}
        fields = {"number": number, "winner": table.winners[number % len(table.winners)]}
        if table.side == "app":  # as its page's form and app.js send it: the version of that table shown, the tap's key
            fields.update(seen=table.version, key=secrets.token_hex(12))
        started = time.perf_counter()
        answer = await self.send("POST", f"/s/{table.token}/tap/", headers, data=fields)
        seconds, version = time.perf_counter() - started, version_of(table, answer)
        table.version = version
        self.show(version)
        return seconds, version, time.monotonic()

    async def listen(self, table: Table, connected: asyncio.Event) -> None:
        """The app's page's EventSource on the table's stream; a dropped stream reconnects with Last-Event-ID."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        while True:
            try:
                async with aconnect_sse(self.http, "GET", f"/s/{table.token}/events/", params={"v": self.version},
                                        headers=headers, timeout=httpx.Timeout(60, read=None)) as source:
                    if source.response.status_code != 200:
                        raise BenchError(f"stream {table.token}: {source.response.status_code}")
                    connected.set()
                    async for event in source.aiter_sse():
                        if event.event == "gone":
                            raise BenchError(f"stream {table.token}: gone {event.data!r}")
                        if event.event == "table":
                            self.show(int(event.id))
            except (BenchError, httpx.TransportError) as error:
                self.failure = error
                if isinstance(error, BenchError):
                    raise
            self.drops += 1
            headers["Last-Event-ID"] = str(self.version)
            await asyncio.sleep(2)  # the stream's `retry`

    async def poll(self, table: Table, due: float) -> None:
        """The peer's page: its poll every 5 s with If-None-Match, the first at `due` (monotonic)."""
        while True:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            try:
                headers = {**HTMX, "If-None-Match": f'"{self.version}"'}
                answer = await self.send("GET", f"/s/{table.token}/poll/", headers)
            except BenchError as error:
                self.failure = error
                raise
            if answer.status_code == 200:
                self.show(version_of(table, answer))
            while due < time.monotonic():
                due += POLL_SECONDS


async def open_pages(tables: list[Table], server: Server, pool, phones: int = 4, batch: int = 200) -> None:
    """Each table's phones; its first loads the table's page (once: the cookies are kept across rounds)."""
    for table in tables:
        table.phones = table.phones or [Phone(server, pool) for _ in range(phones)]
    for i in range(0, len(tables), batch):
        await asyncio.gather(*(t.phones[0].open(t) for t in tables[i:i + batch] if not t.phones[0].csrf))
    for table in tables:
        for phone in table.phones:
            phone.show(table.phones[0].version)


async def connect(tables: list[Table], server: Server, pool, batch: int = 200) -> list[asyncio.Task]:
    """Every phone live: on the app each holds its table's stream (opened `batch` at a time), on the peer each
    polls, the polls spread evenly over the 5 s."""
    await open_pages(tables, server, pool)
    pairs = [(table, phone) for table in tables for phone in table.phones]
    if tables[0].side == "peer":
        phases = [POLL_SECONDS * i / len(pairs) for i in range(len(pairs))]
        random.Random(0).shuffle(phases)  # a table's phones out of step, as phones that opened the page apart
        start = time.monotonic()
        return [asyncio.create_task(phone.poll(table, start + phase)) for (table, phone), phase in zip(pairs, phases)]
    tasks = []
    for i in range(0, len(pairs), batch):
        flags = [asyncio.Event() for _ in pairs[i:i + batch]]
        tasks += [asyncio.create_task(p.listen(t, f)) for (t, p), f in zip(pairs[i:i + batch], flags)]
        await asyncio.wait([asyncio.create_task(f.wait()) for f in flags], timeout=60)
        if not all(f.is_set() for f in flags):
            await hang_up(tasks)
            raise BenchError(f"{sum(not f.is_set() for f in flags)} streams did not open within 60 s")
    return tasks


async def hang_up(tasks: list[asyncio.Task]) -> None:
    """Stop the phones' streams and polls; one that failed meanwhile fails the run."""
    failed = [t.exception() for t in tasks if t.done() and not t.cancelled() and t.exception()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if failed:
        raise failed[0]


async def close(pool: httpx.AsyncHTTPTransport) -> None:
    """Every stream, poll or tap still going is stopped, then their connections are closed."""
    going = asyncio.all_tasks() - {asyncio.current_task()}
    for task in going:
        task.cancel()
    await asyncio.gather(*going, return_exceptions=True)
    await pool.aclose()


async def tap_every_minute(tables: list[Table], seconds: float, meter: Meter) -> dict:
    """Each table's first phone taps once a minute, the tables' taps spread evenly over the minute, for
    `seconds`: the server's CPU over exactly that window (ms per table-minute), the taps' seconds, the seconds
    from each tap's answer to its version showing on each other phone, and how late this process woke."""
    taps, seen, lags = [], [], []

    async def one(at: float, table: Table) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        took, version, answered = await table.phones[0].tap(table)
        taps.append(took)
        try:
            when = await asyncio.wait_for(asyncio.gather(*(p.reached(version) for p in table.phones[1:])), PUSH_WAIT)
        except TimeoutError:
            why = "; ".join(repr(p.failure) for p in table.phones if p.failure)
            raise BenchError(f"{table.side} {table.token}: version {version} never reached every phone {why}") from None
        seen.extend(max(0.0, moment - answered) for moment in when)

    async def lag() -> None:  # the load generator's own delay, apart from the server's
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.05)
            lags.append(time.monotonic() - before - 0.05)

    meter.start()
    t0 = time.monotonic()
    slots = [(t0 + 60 * (minute + i / len(tables)), table) for minute in range(int(seconds // 60) + 1)
             for i, table in enumerate(tables)]
    tasks = [asyncio.create_task(one(at, table)) for at, table in slots if at < t0 + seconds]
    lagging = asyncio.create_task(lag())
    await asyncio.sleep(max(0.0, t0 + seconds - time.monotonic()))
    lagging.cancel()
    cpu, window = meter.stop(), time.monotonic() - t0
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    await hang_up(list(pending))
    for task in done:
        task.result()  # the first failure fails the round
    return {"cpu_ms": cpu * 1000 / (len(tables) * window / 60), "taps": taps, "seen": seen, "lags": lags}
