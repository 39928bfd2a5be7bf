"""Live updates beside the peer (issue 22, Speed): Last Trick's Server-Sent Events from one ASGI worker
(gunicorn + uvicorn-worker) and the peer's 5-second poll (../shared/peer, one gunicorn sync worker),
each server pinned to core 0, this load generator on core 1 (asyncio streams, one process).

1. Seen on every phone (`table_minute`): 100 tables of 4 connected phones (the app: 4 SSE streams a
   table; the peer: 4 phones polling `/s/<token>/poll/` every 5 s with If-None-Match, their polls
   spread evenly over the 5 s), one tap a minute per table by its first phone (the page loaded first:
   cookies, X-CSRFToken, HX-Request). From the tap's answer to the new version reaching each of the
   three other phones (the app: the `table` event whose id is the new version; the peer: the first
   poll that answers it): p50 and p95, per round.
2. What a table costs (`table_minute`, the same rounds): CPU of the server's process tree (master and
   worker, /proc/<pid>/task/*/schedstat) and, on PostgreSQL, of every backend of its database, per
   table-minute; app / peer, rounds of the two servers alternating so both meet the same minutes.
3. One real point (`thousand`): 1,000 tables, 4,000 SSE streams on ONE app worker, a tap per table a
   minute: tap p99, fan-out p50/p95, the worker's RSS per connected phone ((RSS with 4,000 streams -
   RSS with none) / 4,000).
4. Slow clients (`slowloris`): the app served as `make run` serves it (bin/run's own command, its
   default workers), a phone's taps, then the same with 200 connections that send their request
   headers a byte a second: tap median with / without, per round.
5. The tap's own CPU beside the peer's (`tap_cpu`, nobody connected): http_bench's cell, the two
   servers taking turns tap by tap.

Figures are medians over rounds with their spread [lowest-highest round]; the ratios gate (CPU per
table-minute app/peer <= 0.2, slow clients with/without <= 2), the times are reported beside their
budget (fan-out p95 <= 1 s, tap p99 at 1,000 tables <= 200 ms).

Run from bench/run.py (`make bench`), or alone: `bench/live_bench.py [--quick] [--db sqlite]
[--part table_minute ...] [--stub]`. `--stub` serves bench/live_stub.py in the app's place (checks the
load generator when the app has no stream yet). --quick: SQLite, 2 rounds of 30 s, a couple of minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
import http_bench as hb  # noqa: E402  (bench/http_bench.py: servers' environments, seeding, the CPU clock)

SERVER_CORE, CLIENT_CORE = "0", 1
PG_NAMES = {"app": "lasttrick_livebench", "peer": "peer_livebench"}
POLL_SECONDS = 5.0
BUDGET = {
    "cpu_per_table_minute_ratio": 0.2,  # gates
    "slow_clients_tap_median_ratio": 2.0,  # gates
    "fanout_p95_s": 1.0,  # reported
    "thousand_tap_p99_ms": 200.0,  # reported
}
APP_SERVER = ["-k", "uvicorn_worker.UvicornWorker"]
APP_MODULE = "scorekeeper.asgi:application"


@dataclass(frozen=True)
class Plan:
    tables: int = 100
    rounds: int = 3
    seconds: float = 60.0  # each table-minute round
    thousand_tables: int = 1_000
    thousand_rounds: int = 2
    thousand_seconds: float = 60.0
    slow_clients: int = 200
    slow_rounds: int = 3
    slow_seconds: float = 30.0
    slow_tap_every: float = 0.5
    tap_rounds: int = 3
    taps: int = 60
    profile_seconds: float = 30.0


FULL = Plan()
QUICK = Plan(rounds=2, seconds=30.0, thousand_rounds=1, thousand_seconds=30.0, slow_rounds=2, slow_seconds=12.0,
             tap_rounds=2, taps=40, profile_seconds=0)
PARTS = ("table_minute", "tap_cpu", "thousand", "slowloris")
STARTED = time.monotonic()


class BenchError(Exception):
    pass


class ServerGone(BenchError):
    """The server's processes changed during a window: the round does not count and is run again."""


def note(text: str) -> None:
    print(f"  [{time.monotonic() - STARTED:5.0f} s] {text}", file=sys.stderr, flush=True)


# --- pure helpers (tests/operations/test_live_bench_helpers.py) --------------------------------------


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (0 < share <= 1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def over_rounds(values: list[float], digits: int = 3) -> dict:
    """The median of per-round figures and their spread (lowest, highest): never the best round."""
    return {
        "median": round(statistics.median(values), digits),
        "spread": [round(min(values), digits), round(max(values), digits)],
        "rounds": [round(v, digits) for v in values],
    }


class ChunkedDecoder:
    """HTTP/1.1 chunked transfer coding, fed as bytes arrive; `done` once the last chunk is read."""

    def __init__(self) -> None:
        self.buffer = b""
        self.left = 0  # bytes of the current chunk still to come (then its CRLF)
        self.done = False

    def feed(self, data: bytes) -> bytes:
        self.buffer += data
        out = bytearray()
        while not self.done:
            if self.left > 0:
                take = self.buffer[: self.left]
                out += take
                self.buffer = self.buffer[len(take):]
                self.left -= len(take)
                if self.left:
                    break
                self.left = -2  # the CRLF after the chunk
            if self.left == -2:
                if len(self.buffer) < 2:
                    break
                self.buffer, self.left = self.buffer[2:], 0
            line, sep, rest = self.buffer.partition(b"\r\n")
            if not sep:
                break
            size = int(line.split(b";", 1)[0].strip() or b"0", 16)
            self.buffer = rest
            if size == 0:
                self.done = True
                break
            self.left = size
        return bytes(out)


@dataclass
class Event:
    event: str = "message"
    id: str | None = None
    data: str = ""
    retry: int | None = None


class SSEParser:
    """Server-Sent Events as the browser reads them (the WHATWG rules): lines ending in LF, CRLF or CR;
    `field: value` (one space after the colon dropped); a blank line dispatches; comments counted."""

    def __init__(self) -> None:
        self.text = ""
        self.comments = 0
        self.last_id: str | None = None
        self._reset()
        self.retry: int | None = None

    def _reset(self) -> None:
        self.event, self.data, self.id_seen, self.has_data = "", [], False, False

    def feed(self, chunk: str) -> list[Event]:
        self.text += chunk
        events = []
        while True:
            match = re.search(r"\r\n|\n|\r", self.text)
            if not match or (match.group() == "\r" and match.end() == len(self.text)):
                break  # a CR at the end may be the start of a CRLF
            line, self.text = self.text[: match.start()], self.text[match.end():]
            if line == "":
                if self.has_data or self.event:
                    if self.has_data:
                        events.append(Event(self.event or "message", self.last_id, "\n".join(self.data), self.retry))
                self._reset()
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, colon, value = line.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if name == "event":
                self.event = value
            elif name == "data":
                self.data.append(value)
                self.has_data = True
            elif name == "id" and "\0" not in value:
                self.last_id = value
            elif name == "retry" and value.isdigit():
                self.retry = int(value)
        return events


def parse_head(head: bytes) -> tuple[int, dict[str, list[str]]]:
    """An HTTP/1.1 response's status and headers (lower-case names, every value kept)."""
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
    return status, headers


def shown_version(body: str) -> int | None:
    """The version a #table region shows (data-version, or the poll's ?v= before issue 22)."""
    found = re.search(r'data-version="(\d+)"', body) or re.search(r"poll/\?v=(\d+)", body)
    return int(found.group(1)) if found else None


def even_phases(count: int, period: float, seed: int = 22) -> list[float]:
    """Start offsets of `count` pollers spread evenly over `period`, handed out in a shuffled order
    (so the phones of one table are not in step)."""
    phases = [period * i / count for i in range(count)]
    random.Random(seed).shuffle(phases)
    return phases


# --- a light HTTP/1.1 client on asyncio streams ---------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes
    seconds: float

    def header(self, name: str, default: str = "") -> str:
        return (self.headers.get(name) or [default])[-1]

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class Connection:
    """One keep-alive connection; reopened when the server closes it (gunicorn's sync worker does
    after every answer)."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        # One request at a time, as a browser's connection: a tap while a slow poll is still out waits.
        self.busy = asyncio.Lock()

    async def request(self, method: str, path: str, headers: dict, body: bytes = b"") -> Answer:
        """As a browser: a kept connection the server has closed meanwhile (its keep-alive timeout) is
        reopened and the request sent again at once; the time counts from the request that answered."""
        async with self.busy:
            reused = self.writer is not None
            try:
                return await self._request(method, path, headers, body)
            except (OSError, asyncio.IncompleteReadError) as error:
                if not reused or (isinstance(error, asyncio.IncompleteReadError) and error.partial):
                    raise
                return await self._request(method, path, headers, body)

    async def _request(self, method: str, path: str, headers: dict, body: bytes = b"") -> Answer:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        started = time.perf_counter()
        try:
            self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            status, got, data = await self._read(method)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            self.close()
            raise
        seconds = time.perf_counter() - started
        if (got.get("connection") or [""])[-1].lower() == "close":
            self.close()
        if (got.get("content-encoding") or [""])[-1] == "gzip":
            data = gzip.decompress(data)
        return Answer(status, got, data, seconds)

    async def _read(self, method: str):
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, got = parse_head(head[:-4])
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return status, got, b""
        if "chunked" in (got.get("transfer-encoding") or [""])[-1].lower():
            decoder, data = ChunkedDecoder(), b""
            while not decoder.done:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise asyncio.IncompleteReadError(data, None)
                data += decoder.feed(chunk)
            return status, got, data
        if "content-length" in got:
            return status, got, await self.reader.readexactly(int(got["content-length"][-1]))
        data = await self.reader.read()
        got["connection"] = ["close"]
        return status, got, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Phone:
    """A phone at a table: its cookies, and when it first showed each version."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.seen: dict[int, float] = {}  # version -> monotonic time first shown
        self.version = 0
        self.changed = asyncio.Event()
        self.csrf = ""
        self.csrf_field = ""
        self.conn = Connection(port)
        self.connected = False
        self.reconnects = 0

    def show(self, version: int, when: float) -> None:
        if version > self.version:
            self.version = version
            self.seen.setdefault(version, when)
            self.changed.set()

    async def reached(self, version: int) -> float:
        """When this phone first showed `version` or a later one."""
        while self.version < version:
            self.changed.clear()
            await self.changed.wait()
        return min(t for v, t in self.seen.items() if v >= version)

    def cookie_header(self) -> dict:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}

    def keep_cookies(self, answer: Answer) -> None:
        for cookie in answer.headers.get("set-cookie", []):
            name, _, rest = cookie.partition("=")
            value = rest.split(";", 1)[0]
            if value and "max-age=0" not in cookie.lower():
                self.cookies[name.strip()] = value
            else:
                self.cookies.pop(name.strip(), None)

    async def send(self, method: str, path: str, headers: dict, body: bytes = b"") -> Answer:
        answer = await self.conn.request(method, path, {**headers, **self.cookie_header()}, body)
        self.keep_cookies(answer)
        return answer


@dataclass
class Table:
    token: str
    next: int  # the next hand's number
    winners: list
    phones: list[Phone] = field(default_factory=list)
    version: int = 0


def origin(port: int) -> str:
    return f"http://127.0.0.1:{port}"


async def open_page(table: Table, phone: Phone, side: str) -> None:
    """The first phone loads the page as a browser does: cookies, the CSRF token, the version shown."""
    answer = await phone.send("GET", f"/s/{table.token}/", hb.NAVIGATE)
    if answer.status != 200:
        raise BenchError(f"{side} page {table.token}: {answer.status} {answer.body[:300]!r}")
    text = answer.text()
    header, field_token = hb.page_tokens(text)
    if not header:
        raise BenchError(f"{side}: no X-CSRFToken in the page's hx-headers")
    phone.csrf, phone.csrf_field = header, field_token or phone.csrf_field
    if side == "peer":
        version = int(answer.header("etag", '""').strip('"') or 0) or table.next
    else:
        version = shown_version(text)
    if version is None:
        raise BenchError(f"{side}: no version on the page of {table.token}")
    table.version = max(table.version, version)
    phone.show(version, time.monotonic())


async def tap(table: Table, side: str) -> tuple[Answer, int, float]:
    """One tap by the table's first phone, as htmx sends it; returns the answer, the new version and
    the monotonic time the answer was read."""
    phone = table.phones[0]
    number = table.next
    table.next += 1
    winner = table.winners[number % len(table.winners)]
    fields = [("number", number), ("winner", winner)]
    if phone.csrf_field:
        fields.insert(0, ("csrfmiddlewaretoken", phone.csrf_field))
    headers = {
        **hb.HTMX,
        "HX-Current-URL": f"{origin(phone.port)}/s/{table.token}/",
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": origin(phone.port),
        "X-CSRFToken": phone.csrf,
    }
    answer = await phone.send("POST", f"/s/{table.token}/tap/", headers, urlencode(fields).encode())
    done = time.monotonic()
    if answer.status != 200:
        raise BenchError(f"{side} tap {table.token} #{number}: {answer.status} {answer.body[:300]!r}")
    if side == "peer":
        version = int(answer.header("etag").strip('"'))
    else:
        version = shown_version(answer.text())
        if version is None:
            raise BenchError(f"{side} tap: no version in its answer: {answer.body[:300]!r}")
    table.version = max(table.version, version)
    phone.show(version, done)
    return answer, version, done


# --- the phones' side of the live updates ---------------------------------------------------------

SSE_HEADERS = {
    **hb.COMMON,
    "Accept": "text/event-stream",
    "Cache-Control": "no-cache",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Dest": "empty",
}


class Stats:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.events = 0
        self.event_bytes = 0
        self.pings = 0
        self.polls = 0
        self.polls_changed = 0


async def listen(table: Table, phone: Phone, stats: Stats, connected: asyncio.Event | None = None) -> None:
    """The app's phone: one EventSource on the sitting's stream, reconnecting with Last-Event-ID as the
    browser does after `retry` ms; shows each `table` event's version."""
    path = f"/s/{table.token}/events/?v={phone.version}"
    last_id: str | None = None
    retry = 2.0
    while True:
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", phone.port, limit=1 << 20)
            headers = {
                **SSE_HEADERS,
                "Referer": f"{origin(phone.port)}/s/{table.token}/",
                **phone.cookie_header(),
                **({"Last-Event-ID": last_id} if last_id else {}),
            }
            request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{phone.port}\r\n"
            request += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            writer.write(request.encode("latin-1"))
            head = await reader.readuntil(b"\r\n\r\n")
            status, got = parse_head(head[:-4])
            kind = (got.get("content-type") or [""])[-1]
            if status != 200 or not kind.startswith("text/event-stream"):
                body = await asyncio.wait_for(reader.read(300), 2)
                raise BenchError(f"stream {table.token}: {status} {kind} {body!r}")
            chunked = "chunked" in (got.get("transfer-encoding") or [""])[-1].lower()
            decoder = ChunkedDecoder() if chunked else None
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if (got.get("content-encoding") or [""])[-1] == "gzip" else None
            parser = SSEParser()
            phone.connected = True
            if connected is not None:
                connected.set()
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                now = time.monotonic()
                if decoder:
                    data = decoder.feed(data)
                if inflate:
                    data = inflate.decompress(data)
                pings = parser.comments
                for event in parser.feed(data.decode("utf-8", "replace")):
                    stats.event_bytes += len(event.data)
                    if event.event == "table" and event.id and event.id.isdigit():
                        stats.events += 1
                        phone.show(int(event.id), now)
                    elif event.event == "gone":
                        stats.errors.append(f"gone on {table.token}: {event.data[:80]}")
                stats.pings += parser.comments - pings
                last_id = parser.last_id or last_id
                retry = (parser.retry or 2000) / 1000
                if decoder and decoder.done:
                    break
        except asyncio.CancelledError:
            raise
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError) as error:
            stats.errors.append(f"stream {table.token}: {type(error).__name__} {error}")
        finally:
            phone.connected = False
            if writer is not None:
                writer.close()
        phone.reconnects += 1
        await asyncio.sleep(retry)


async def poll_loop(table: Table, phone: Phone, phase: float, stats: Stats, start: float) -> None:
    """The peer's phone: its htmx page polls every 5 s with If-None-Match (the ETag it last showed)."""
    due = start + phase
    while True:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        headers = {
            **hb.HTMX,
            "HX-Trigger": "table",
            "HX-Current-URL": f"{origin(phone.port)}/s/{table.token}/",
            "If-None-Match": f'"{phone.version}"',
        }
        try:
            answer = await phone.send("GET", f"/s/{table.token}/poll/", headers)
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            stats.errors.append(f"poll {table.token}: {type(error).__name__} {error}")
        else:
            stats.polls += 1
            if answer.status == 200:
                stats.polls_changed += 1
                phone.show(int(answer.header("etag").strip('"')), time.monotonic())
            elif answer.status != 304:
                stats.errors.append(f"poll {table.token}: {answer.status}")
        due += POLL_SECONDS
        while due < time.monotonic():  # a late poll does not make the next ones bunch up
            due += POLL_SECONDS


# --- servers and their CPU -------------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            todo += hb.children(current)
        except OSError:
            pass
    return found


TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def process_cpu_ns(pid: int) -> int:
    """utime + stime of the whole process from /proc/<pid>/stat: threads that have ended count too
    (a uvicorn worker runs each request's Django code in a thread that may be gone when the window
    closes, and /proc/<pid>/task/*/schedstat forgets it); clock ticks of 10 ms, over windows of seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int((int(fields[11]) + int(fields[12])) * TICK_NS)


def tree_cpu_ns(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += process_cpu_ns(pid)
        except OSError:
            pass
    return total


class Backends:
    """PostgreSQL backends of one database, their CPU read from /proc while a window is open; sampled
    every second from a thread, so that backends that come and go meanwhile are counted too."""

    def __init__(self, admin_url: str, database: str):
        self.admin_url, self.database = admin_url, database
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def pids(self, admin) -> list[int]:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (self.database,)
        ).fetchall()
        return [row[0] for row in rows]

    def sample(self, admin, first: bool = False) -> None:
        for pid in self.pids(admin):
            try:
                ns = hb.cpu_ns(pid)
            except OSError:
                continue
            self.first.setdefault(pid, ns if first else 0)
            self.last[pid] = ns

    def start(self) -> None:
        self.first, self.last = {}, {}
        self.stop.clear()
        admin = hb.admin_connection(self.admin_url)
        self.sample(admin, first=True)

        def run() -> None:
            with admin:
                while not self.stop.wait(1.0):
                    self.sample(admin)
                self.sample(admin)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finish(self) -> int:
        self.stop.set()
        self.thread.join()
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


class Server:
    """A gunicorn master and its worker(s), pinned to core 0; CPU of the whole process tree (and of
    its database's backends on PostgreSQL)."""

    def __init__(self, label: str, command: list[str], cwd: Path, env: dict, scratch: Path, port: int = 0,
                 pin: bool = True):
        self.label, self.command, self.cwd, self.env, self.scratch = label, command, cwd, env, scratch
        self.port = port or hb.free_port()
        self.pin = pin
        self.proc: subprocess.Popen | None = None
        self.backends: Backends | None = None
        self._window: tuple[list[int], int] | None = None

    def start(self, workers: int = 1) -> Server:
        command = [c.replace("{port}", str(self.port)) for c in self.command]
        if self.pin:
            command = ["taskset", "-c", SERVER_CORE, *command]
        self.log = self.scratch / f"{self.label}.log"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(command, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"{self.label} exited: {self.log_tail()}")
            if len(self.workers()) >= workers:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    return self
                except OSError:
                    pass
            time.sleep(0.1)
        raise BenchError(f"{self.label} did not start: {self.log_tail()}")

    def master(self) -> int:
        """gunicorn's master: the process itself, or (bin/run) the gunicorn under it."""
        pids = tree(self.proc.pid)
        for pid in pids:
            try:
                if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return self.proc.pid

    def workers(self) -> list[int]:
        try:
            return hb.children(self.master())
        except OSError:
            return []

    def worker(self) -> int:
        workers = self.workers()
        if len(workers) != 1:
            raise BenchError(f"{self.label}: expected one worker, found {workers}")
        return workers[0]

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def cpu_start(self) -> None:
        pids = tree(self.proc.pid)
        self._window = (pids, tree_cpu_ns(pids))
        if self.backends:
            self.backends.start()

    def cpu_finish(self) -> float:
        """ms of CPU since cpu_start: the process tree, plus the database's backends."""
        pids, before = self._window
        now = tree(self.proc.pid)
        if sorted(now) != sorted(pids):
            if self.backends:
                self.backends.finish()
            raise ServerGone(f"{self.label}: its processes changed during a window ({pids} -> {now}): {self.log_tail()}")
        total = tree_cpu_ns(pids) - before
        if self.backends:
            total += self.backends.finish()
        return total / 1e6

    # http_bench's Side reads these two
    def cpu_ns(self) -> int:
        total = tree_cpu_ns(tree(self.proc.pid))
        if self.backends:
            admin = hb.admin_connection(self.backends.admin_url)
            with admin:
                total += sum(hb.cpu_ns(pid) for pid in self.backends.pids(admin))
        return total

    def check_worker(self) -> None:
        if self.proc.poll() is not None:
            raise BenchError(f"{self.label} exited: {self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM to gunicorn's master (it stops its workers), then SIGKILL to what is left of the tree."""
        if self.proc and self.proc.poll() is None:
            pids = tree(self.proc.pid)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            for pid in pids[1:]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def revive(server: Server) -> str:
    """A server found gone at a round's start is started again (and said so in the figures): the round
    measures a fresh worker, warmed by the phones' connections before its window."""
    if server.proc.poll() is None:
        return ""
    tail = server.log_tail()[-600:]
    note(f"{server.label} had exited (code {server.proc.returncode}); started again. Its log: {tail}")
    server.start()
    return f"exit code {server.proc.returncode}: {tail}"


def gunicorn(module: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gunicorn", module, *extra, "--workers", "1", "--bind", "127.0.0.1:{port}",
            "--timeout", "300", "--graceful-timeout", "5", "--log-level", "warning"]


# --- one database: seeding ------------------------------------------------------------------------


def seed_app(app_dir: Path, env: dict, count: int, collectstatic: bool) -> list[Table]:
    """`count` four-seat sittings of 10 hands, made as http_bench.py makes them (bench/run.py's fill())."""
    spec = {"sizes": {"10": count}, "collectstatic": collectstatic}
    done = subprocess.run(
        ["taskset", "-c", SERVER_CORE, sys.executable, str(app_dir / "bench" / "http_bench.py"), "--seed-app",
         json.dumps(spec)],
        cwd=app_dir, env=env, capture_output=True, text=True, check=False,
    )
    if done.returncode:
        raise BenchError(f"seeding the app failed: {done.stderr[-3000:]}")
    made = json.loads(done.stdout.strip().splitlines()[-1])
    return [Table(s["token"], s["next"], [1, 2, 3, 4]) for s in made["sittings"]["10"]]


def seed_peer(peer_dir: Path, env: dict, count: int) -> list[Table]:
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=peer_dir, env=env, check=True, capture_output=True)
    out = subprocess.run([*manage, "seed", "--hands", "10", "--sittings", str(count)], cwd=peer_dir, env=env,
                         check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return [Table(row["token"], row["next"], row["winners"]) for row in rows]


def stub_tables(count: int) -> list[Table]:
    return [Table(os.urandom(16).hex(), 11, [1, 2, 3, 4]) for _ in range(count)]


def pg_reset(admin_url: str, names: list[str]) -> None:
    with hb.admin_connection(admin_url) as admin:
        for name in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')


def pg_admin_url() -> str | None:
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    url = url if url.startswith(("postgres://", "postgresql://")) else hb.PG_DEFAULT
    try:
        with hb.admin_connection(url) as admin:
            admin.execute("SELECT 1")
    except psycopg.Error as error:
        note(f"PostgreSQL did not answer ({error}): SQLite only")
        return None
    return url


def pg_url(admin_url: str, name: str) -> str:
    import dj_database_url

    s = dj_database_url.parse(admin_url)
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"


# --- 1 and 2: the table-minute rounds -------------------------------------------------------------


async def connect_phones(side: str, tables: list[Table], port: int, stats: Stats, start: float,
                         phones_per_table: int = 4, batch: int = 200) -> list[asyncio.Task]:
    """Every table's phones: the first loads the page once (kept across rounds); the app's open their
    streams (in batches, each waiting for its answer), the peer's start polling at their phase."""
    for table in tables:
        if not table.phones:
            table.phones = [Phone(port) for _ in range(phones_per_table)]
    missing = [t for t in tables if not t.phones[0].csrf]
    for i in range(0, len(missing), batch):
        await asyncio.gather(*(open_page(t, t.phones[0], side) for t in missing[i:i + batch]))
    tasks: list[asyncio.Task] = []
    if side == "peer":
        phases = even_phases(len(tables) * phones_per_table, POLL_SECONDS)
        for t_index, table in enumerate(tables):
            for p_index, phone in enumerate(table.phones):
                phone.show(table.version, time.monotonic())
                phase = phases[t_index * phones_per_table + p_index]
                tasks.append(asyncio.create_task(poll_loop(table, phone, phase, stats, start)))
        return tasks
    pairs = [(table, phone) for table in tables for phone in table.phones]
    for i in range(0, len(pairs), batch):
        flags = []
        for table, phone in pairs[i:i + batch]:
            phone.show(table.version, time.monotonic())
            flag = asyncio.Event()
            flags.append(flag)
            tasks.append(asyncio.create_task(listen(table, phone, stats, flag)))
        try:
            await asyncio.wait_for(asyncio.gather(*(f.wait() for f in flags)), 60)
        except asyncio.TimeoutError:
            raise BenchError(f"{side}: streams did not open within 60 s: {stats.errors[-5:]}") from None
    return tasks


async def stop_tasks(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def fan_out(table: Table, version: int, answered: float, latencies: list[float], late: list[int],
                  wait: float = 20.0) -> None:
    """From the tap's answer to each of the three other phones showing the new version (0 when the
    push arrived before the answer)."""
    for phone in table.phones[1:]:
        try:
            seen = await asyncio.wait_for(phone.reached(version), wait)
            latencies.append(max(0.0, seen - answered))
        except asyncio.TimeoutError:
            late.append(version)


async def table_minute_round(side: str, server: Server, tables: list[Table], seconds: float,
                             settle: float) -> dict:
    """One round: every table's four phones connected, one tap a minute per table (the tables' taps
    spread evenly over the minute) for `seconds`; the server's CPU over exactly that window."""
    stats = Stats()
    restarted = revive(server)
    start = time.monotonic()
    tasks = await connect_phones(side, tables, server.port, stats, start)
    await asyncio.sleep(settle)
    taps: list[float] = []
    fanout: list[float] = []
    late: list[int] = []
    followers: list[asyncio.Task] = []
    errors_before = len(stats.errors)
    server.cpu_start()
    t0 = time.monotonic()
    slots = sorted((t0 + minute * 60 + 60 * i / len(tables), i)
                   for minute in range(int(seconds // 60) + 1) for i in range(len(tables)))
    slots = [(at, i) for at, i in slots if at < t0 + seconds]

    async def one(at: float, table: Table) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        answer, version, answered = await tap(table, side)
        taps.append(answer.seconds * 1000)
        followers.append(asyncio.create_task(fan_out(table, version, answered, fanout, late)))

    tappers = [asyncio.create_task(one(at, tables[i])) for at, i in slots]
    await asyncio.sleep(max(0.0, t0 + seconds - time.monotonic()))
    gone = None
    try:
        cpu_ms = server.cpu_finish()
    except ServerGone as error:
        gone = error
    window = time.monotonic() - t0
    failed = [r for r in await asyncio.gather(*tappers, return_exceptions=True) if isinstance(r, BaseException)]
    if gone is None:
        await asyncio.wait_for(asyncio.gather(*followers), 30)
    await stop_tasks(tasks + followers)
    for table in tables:
        for phone in table.phones:
            phone.conn.close()
    if gone is not None:
        raise gone
    if failed:
        raise BenchError(f"{side}: {len(failed)} taps failed: {failed[0]!r}")
    table_minutes = len(tables) * window / 60
    return {
        "cpu_ms": round(cpu_ms, 1),
        "window_s": round(window, 2),
        "cpu_ms_per_table_minute": round(cpu_ms / table_minutes, 3),
        "taps": len(taps),
        "tap_ms_median": round(statistics.median(taps), 2),
        "tap_ms_p99": round(percentile(taps, 0.99), 2),
        "fanout_samples": len(fanout),
        "fanout_s_p50": round(percentile(fanout, 0.5), 4),
        "fanout_s_p95": round(percentile(fanout, 0.95), 4),
        "fanout_late": len(late),
        "events": stats.events,
        "pings": stats.pings,
        "polls": stats.polls,
        "polls_changed": stats.polls_changed,
        "errors": len(stats.errors) - errors_before,
        "error_examples": stats.errors[:3],
        "restarted_before": restarted,
        "_fanout": fanout,
    }


def summarize_side(rounds: list[dict]) -> dict:
    out = {
        key: over_rounds([r[key] for r in rounds], 4 if key.startswith("fanout_s") else 3)
        for key in ("cpu_ms_per_table_minute", "fanout_s_p50", "fanout_s_p95", "tap_ms_median", "tap_ms_p99")
    }
    pooled = [v for r in rounds for v in r["_fanout"]]
    out["fanout_s_pooled"] = {"p50": round(percentile(pooled, 0.5), 4), "p95": round(percentile(pooled, 0.95), 4),
                              "samples": len(pooled)}
    out["per_round"] = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rounds]
    return out


async def table_minute(servers: dict[str, Server], tables: dict[str, list[Table]], plan: Plan, database: str) -> dict:
    rounds: dict[str, list[dict]] = {name: [] for name in servers}
    order = list(servers)
    for number in range(plan.rounds):
        for name in order if number % 2 == 0 else order[::-1]:
            for attempt in range(3):
                try:
                    measured = await table_minute_round(name, servers[name], tables[name], plan.seconds,
                                                        settle=POLL_SECONDS + 1 if name == "peer" else 3.0)
                    break
                except ServerGone as error:
                    note(f"{database} round {number + 1} {name}: the server's processes changed in the window, "
                         f"round run again ({str(error)[:300]})")
                    if attempt == 2:
                        raise
            measured["attempts"] = attempt + 1
            rounds[name].append(measured)
            note(f"{database} table-minute round {number + 1} {name}: {measured['cpu_ms_per_table_minute']:.2f} ms "
                 f"CPU/table-minute, fan-out p50 {measured['fanout_s_p50']:.3f} s p95 {measured['fanout_s_p95']:.3f} s"
                 f" ({measured['fanout_samples']} samples, {measured['fanout_late']} late), tap median "
                 f"{measured['tap_ms_median']:.1f} ms, {measured['errors']} errors")
    out = {name: summarize_side(r) for name, r in rounds.items()}
    if "app" in out and "peer" in out:
        a, p = out["app"]["cpu_ms_per_table_minute"]["median"], out["peer"]["cpu_ms_per_table_minute"]["median"]
        out["cpu_ratio"] = round(a / p, 3)
        out["cpu_ratio_per_round"] = [round(x["cpu_ms_per_table_minute"] / y["cpu_ms_per_table_minute"], 3)
                                      for x, y in zip(rounds["app"], rounds["peer"])]
    out["tables"] = plan.tables
    out["round_seconds"] = plan.seconds
    return out


# --- 3: a thousand tables on one worker -------------------------------------------------------------


def py_spy() -> str | None:
    for candidate in (shutil.which("py-spy"), "/tmp/pyspy/bin/py-spy"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


PURPOSES = (  # what a sample was for: the first of these found in its stack, from the innermost frame out
    ("the check of the sittings' versions (SQLite, every LIVE_CHECK_SECONDS)", ("/live/feeds.py", ";versions (")),
    ("the region rendered once per change, for the pushes", (";render_region (", "/live/hub.py")),
    ("the tap and other requests' views", ("/matches/web/views/",)),
    ("the streams: opened (find), events written", ("/live/streams.py",)),
    ("Django's request handling around the views (middleware, handler)", ("/django/core/handlers/", "/django/utils/deprecation.py")),
    ("uvicorn: connections, parsing, writing", ("/uvicorn/", "/httptools/")),
)


def collapse(path: Path, top: int = 25) -> str:
    """py-spy's raw (collapsed) stacks: shares of the samples by purpose (what the work was for), by
    area (http_bench's areas: which code ran), and the top frames by own samples."""
    areas: dict[str, int] = {}
    purposes: dict[str, int] = {}
    own: dict[str, int] = {}
    threads = 0
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        n = int(count)
        total += n
        files = [re.sub(r"^(.*) \((.*)\)$", r"\2 \1", frame) for frame in frames]
        innermost = files[-1]
        if innermost.endswith(" Runner.run"):
            area = "the event loop (uvloop: sockets, callbacks, in C)"
        elif "/threading.py" in innermost or "/concurrent/futures/" in innermost:
            area = "threads: started, handed work, woken (threading, concurrent.futures)"
        else:
            area = hb.area_of(files)
            if area == "other" and any(m in stack for m in ("asyncio", "uvicorn", "uvloop", "httptools")):
                area = "asyncio, uvicorn: the streams' and requests' plumbing"
        areas[area] = areas.get(area, 0) + n
        purpose = next((name for name, marks in PURPOSES if any(m in ";" + stack for m in marks)), None)
        if innermost.endswith(" Runner.run"):
            purpose = "the event loop itself (uvloop, in C: sockets read and written, callbacks run)"
        elif "/threading.py" in innermost or "/concurrent/futures/" in innermost:
            purpose = ("threads: started and stopped (one per request context), handed work, woken; each start "
                       "and stop scans the lock of every live thread")
        elif purpose is None:
            purpose = ("the event loop (uvloop, in C) outside the above" if innermost.endswith(" Runner.run")
                       else "other")
        purposes[purpose] = purposes.get(purpose, 0) + n
        if "/threading.py" in innermost or "/concurrent/futures/" in innermost:
            threads += n
        own[innermost] = own.get(innermost, 0) + n
    if not total:
        return "(no samples)\n"
    lines = [f"{total} samples (the thread holding the GIL)", "-- by purpose (the first found in the stack) --"]
    lines += [f"{100 * n / total:6.1f}%  {name}" for name, n in sorted(purposes.items(), key=lambda x: -x[1])]
    lines += [f"  of all samples, {100 * threads / total:.1f}% had threading/concurrent.futures as the innermost frame"]
    lines += ["-- by area (the innermost frame of a known area) --"]
    lines += [f"{100 * n / total:6.1f}%  {name}" for name, n in sorted(areas.items(), key=lambda x: -x[1])]
    lines += ["-- top frames by own samples --"]
    lines += [f"{100 * n / total:6.1f}%  {hb.short_path(name)}" for name, n in sorted(own.items(), key=lambda x: -x[1])[:top]]
    return "\n".join(lines) + "\n"


async def thousand(server: Server, tables: list[Table], plan: Plan, database: str, scratch: Path,
                   profile: bool) -> dict:
    worker = server.worker()
    # warm: one table's page, taps and a stream, then none connected
    stats = Stats()
    warm = tables[0]
    warm_tasks = await connect_phones("app", [warm], server.port, stats, time.monotonic())
    for _ in range(5):
        await tap(warm, "app")
    await asyncio.sleep(1)
    await stop_tasks(warm_tasks)
    await asyncio.sleep(2)
    rss_none = hb.rss_kb(worker)
    threads_none = len(list(Path(f"/proc/{worker}/task").iterdir()))
    started = time.monotonic()
    tasks = await connect_phones("app", tables, server.port, stats, time.monotonic())
    connect_s = time.monotonic() - started
    await asyncio.sleep(5)
    phones = sum(len(t.phones) for t in tables)
    connected = sum(p.connected for t in tables for p in t.phones)
    rss_connected = hb.rss_kb(worker)
    threads_connected = len(list(Path(f"/proc/{worker}/task").iterdir()))
    note(f"{database} 1,000 tables: {connected} streams open in {connect_s:.0f} s; worker RSS {rss_none / 1024:.0f} "
         f"-> {rss_connected / 1024:.0f} MB, threads {threads_none} -> {threads_connected}")
    # the streams alone, no tap: what holding a table costs between taps (heartbeats, the checks)
    idle_seconds = min(30.0, plan.thousand_seconds / 2)
    server.cpu_start()
    t_idle = time.monotonic()
    await asyncio.sleep(idle_seconds)
    idle_ms = server.cpu_finish()
    idle_per_table_minute = idle_ms / (len(tables) * (time.monotonic() - t_idle) / 60)
    note(f"{database} 1,000 tables, no tap for {idle_seconds:.0f} s: {idle_per_table_minute:.2f} ms CPU/table-minute")
    rounds = []
    spy = None
    for number in range(plan.thousand_rounds + (1 if profile else 0)):
        profiling = profile and number == plan.thousand_rounds
        if profiling:
            raw = scratch / f"pyspy-{database}.txt"
            seconds = plan.profile_seconds or 30
            spy = subprocess.Popen([py_spy(), "record", "--pid", str(worker), "--duration", str(int(seconds)),
                                    "--rate", "100", "--gil", "--format", "raw", "--nonblocking", "--full-filenames", "-o", str(raw)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        else:
            seconds = plan.thousand_seconds
        taps: list[float] = []
        fanout: list[float] = []
        late: list[int] = []
        followers = []
        server.cpu_start()
        t0 = time.monotonic()
        slots = [(t0 + 60 * i / len(tables), tables[i]) for i in range(len(tables)) if 60 * i / len(tables) < seconds]

        async def one(at: float, table: Table) -> None:
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            answer, version, answered = await tap(table, "app")
            taps.append(answer.seconds * 1000)
            followers.append(asyncio.create_task(fan_out(table, version, answered, fanout, late)))

        await asyncio.gather(*(one(at, table) for at, table in slots))
        await asyncio.sleep(max(0.0, t0 + seconds - time.monotonic()))
        cpu_ms = server.cpu_finish()
        window = time.monotonic() - t0
        await asyncio.gather(*followers)
        if profiling:
            try:  # py-spy walks every thread of the worker: slow when it holds thousands
                _, err = await asyncio.to_thread(spy.communicate, timeout=seconds + 60)
            except subprocess.TimeoutExpired:
                spy.kill()
                _, err = spy.communicate()
            text = collapse(raw) if raw.exists() else f"(py-spy wrote nothing: {err[-400:]!r})\n"
            profile_text = (f"== the app worker under py-spy (100 Hz, the thread holding the GIL), {database}, {len(tables):,} "
                            f"tables, {phones:,} streams, {len(taps)} taps in {seconds:.0f} s ==\n{text}")
            continue
        rounds.append({
            "taps": len(taps),
            "tap_ms_median": round(statistics.median(taps), 2),
            "tap_ms_p99": round(percentile(taps, 0.99), 2),
            "fanout_s_p50": round(percentile(fanout, 0.5), 4) if fanout else None,
            "fanout_s_p95": round(percentile(fanout, 0.95), 4) if fanout else None,
            "fanout_late": len(late),
            "cpu_ms_per_table_minute": round(cpu_ms / (len(tables) * window / 60), 3),
            "worker_cpu_share": round(cpu_ms / 1000 / window, 3),
        })
        note(f"{database} 1,000 tables round {number + 1}: tap median {rounds[-1]['tap_ms_median']} ms p99 "
             f"{rounds[-1]['tap_ms_p99']} ms, fan-out p95 {rounds[-1]['fanout_s_p95']} s, "
             f"{rounds[-1]['cpu_ms_per_table_minute']} ms CPU/table-minute")
    rss_after = hb.rss_kb(worker)
    connected_end = sum(p.connected for t in tables for p in t.phones)
    reconnects = sum(p.reconnects for t in tables for p in t.phones)
    await stop_tasks(tasks)
    for table in tables:
        for phone in table.phones:
            phone.conn.close()
    out = {
        "tables": len(tables),
        "phones": phones,
        "streams_open_at_start": connected,
        "streams_open_at_end": connected_end,
        "reconnects": reconnects,
        "connect_s": round(connect_s, 1),
        "idle_cpu_ms_per_table_minute": round(idle_per_table_minute, 3),
        "idle_seconds": idle_seconds,
        "worker_threads_none": threads_none,
        "worker_threads_connected": threads_connected,
        "rss_none_mb": round(rss_none / 1024, 1),
        "rss_connected_mb": round(rss_connected / 1024, 1),
        "rss_after_taps_mb": round(rss_after / 1024, 1),
        "rss_kb_per_phone": round((rss_connected - rss_none) / phones, 2),
        "rss_kb_per_phone_after_taps": round((rss_after - rss_none) / phones, 2),
        "errors": len(stats.errors),
        "error_examples": stats.errors[:3],
        "rounds": rounds,
    }
    for key in ("tap_ms_median", "tap_ms_p99", "fanout_s_p50", "fanout_s_p95", "cpu_ms_per_table_minute"):
        values = [r[key] for r in rounds if r[key] is not None]
        if values:
            out[key] = over_rounds(values)
    if profile and spy is not None:
        out["profile_text"] = profile_text
    return out


# --- 4: slow clients ---------------------------------------------------------------------------------


async def slow_client(port: int, stop: asyncio.Event, counters: dict) -> None:
    """Request headers a byte a second (never finished), reopened when the server closes them."""
    padding = "x" * 4000
    request = (f"GET /s/slow/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: {hb.USER_AGENT}\r\n"
               f"X-Padding: {padding}\r\n\r\n").encode()
    rng = random.Random(id(counters) + len(counters))
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            counters["refused"] += 1
            await asyncio.sleep(1)
            continue
        counters["open"] += 1
        try:
            for byte in request:
                if stop.is_set():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    if await asyncio.wait_for(reader.read(1024), 0.8 + 0.4 * rng.random()) == b"":
                        counters["closed_by_server"] += 1
                        break
                    counters["answered"] += 1
                    break
                except asyncio.TimeoutError:
                    pass
        except OSError:
            counters["closed_by_server"] += 1
        finally:
            counters["open"] -= 1
            writer.close()


async def slowloris(server: Server, table: Table, plan: Plan) -> dict:
    rounds = []
    for number in range(plan.slow_rounds):
        measured = {}
        for phase in ("without", "with"):
            stop = asyncio.Event()
            counters = {"open": 0, "refused": 0, "closed_by_server": 0, "answered": 0}
            slow = []
            if phase == "with":
                for i in range(plan.slow_clients):
                    slow.append(asyncio.create_task(slow_client(server.port, stop, counters)))
                    if i % 20 == 19:
                        await asyncio.sleep(0.1)
                await asyncio.sleep(3)
            times = []
            t0 = time.monotonic()
            while time.monotonic() - t0 < plan.slow_seconds:
                answer, _, _ = await tap(table, "app")
                times.append(answer.seconds * 1000)
                await asyncio.sleep(plan.slow_tap_every)
            open_at_end = counters["open"]
            stop.set()
            await stop_tasks(slow)
            measured[phase] = {"tap_ms_median": round(statistics.median(times), 2),
                               "tap_ms_p99": round(percentile(times, 0.99), 2), "taps": len(times)}
            if phase == "with":
                measured[phase].update(slow_open_at_end=open_at_end, **{k: v for k, v in counters.items() if k != "open"})
        measured["ratio"] = round(measured["with"]["tap_ms_median"] / measured["without"]["tap_ms_median"], 3)
        rounds.append(measured)
        note(f"slow clients round {number + 1}: tap median {measured['without']['tap_ms_median']} ms without, "
             f"{measured['with']['tap_ms_median']} ms with {plan.slow_clients} ({measured['with']['slow_open_at_end']} "
             f"open at the end): x{measured['ratio']}")
    return {
        "ratio": over_rounds([r["ratio"] for r in rounds]),
        "without_ms": over_rounds([r["without"]["tap_ms_median"] for r in rounds]),
        "with_ms": over_rounds([r["with"]["tap_ms_median"] for r in rounds]),
        "slow_clients": plan.slow_clients,
        "rounds": rounds,
    }


def run_command(app_dir: Path) -> list[str]:
    """bin/run's server command (its last `exec ... gunicorn ...` line), as `make run` starts it."""
    text = (app_dir / "bin" / "run").read_text()
    found = re.search(r"^exec \"\$py\" -m gunicorn (.*?)(?<!\\)$", text, re.M | re.S)
    return [found.group(0)] if found else []


# --- 5: the tap's own CPU (http_bench's cell) --------------------------------------------------------


def tap_cpu(servers: dict[str, Server], pools: dict[str, list[Table]], plan: Plan, database: str) -> dict:
    sides = []
    for name in ("app", "peer"):
        pool = {10: [hb.Sitting(t.token, t.next, t.winners) for t in pools[name]]}
        side = hb.Side(name, servers[name], pool)
        side.connect()
        hb.warm(side, 10)
        sides.append(side)
    cell = hb.measure_cell(database, "tap", 10, sides, hb.Plan(rounds=plan.tap_rounds, taps=plan.taps, polls=0,
                                                               pages=0, history=0, sizes=(10,)))
    note(f"{database} tap alone: app {cell['app']['cpu_ms']:.2f} ms CPU, peer {cell['peer']['cpu_ms']:.2f} ms: "
         f"x{cell['cpu_ratio']:.2f}")
    return cell


# --- the whole run -----------------------------------------------------------------------------------


def app_has_stream(app_dir: Path) -> bool:
    text = "".join(p.read_text(errors="replace") for p in (app_dir / "matches").rglob("*.py"))
    return "events/" in text and "text/event-stream" in text


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # servers started from here inherit it
    if hard < 9000:
        note(f"open files limited to {hard}: 4,000 streams need about 4,100 on each side")


def taps_needed(plan: Plan) -> int:
    return 2 + plan.tap_rounds * -(-plan.taps // hb.taps_per_sitting(10, plan.taps))


async def measure_database(database: str, plan: Plan, parts: tuple[str, ...], scratch: Path, app_dir: Path,
                           peer_dir: Path, admin_url: str | None, stub: bool, first: bool, profile: bool) -> dict:
    out: dict = {}
    if database == "sqlite":
        urls = {side: f"sqlite:///{scratch}/live-{side}.sqlite3" for side in ("app", "peer")}
    else:
        pg_reset(admin_url, list(PG_NAMES.values()))
        urls = {side: pg_url(admin_url, PG_NAMES[side]) for side in ("app", "peer")}
    app_env = hb.app_env(urls["app"], scratch)
    # The app's own connection settings, as `make run` and production have them: under ASGI each request's
    # Django code runs in a thread of its own, so no persistent connection (CONN_MAX_AGE 0) and, on
    # PostgreSQL, the worker's connection pool (settings.py); http_bench's CONN_MAX_AGE=600 would turn it off.
    app_env.pop("CONN_MAX_AGE", None)
    peer_env = hb.peer_env(urls["peer"])
    need_app = plan.tables * ("table_minute" in parts) + taps_needed(plan) * ("tap_cpu" in parts)
    need_app += plan.thousand_tables * ("thousand" in parts) + 2 * ("slowloris" in parts and database == "sqlite")
    need_peer = plan.tables * ("table_minute" in parts) + taps_needed(plan) * ("tap_cpu" in parts)
    started = time.monotonic()
    app_tables = stub_tables(need_app) if stub else seed_app(app_dir, app_env, need_app, first)
    peer_tables = seed_peer(peer_dir, peer_env, need_peer) if need_peer else []
    note(f"{database}: seeded {need_app} + {need_peer} sittings in {time.monotonic() - started:.0f} s")
    if stub:
        app_command, app_cwd = gunicorn("live_stub:application", *APP_SERVER), BENCH
    else:
        app_command, app_cwd = gunicorn(APP_MODULE, *APP_SERVER), app_dir
    servers = {
        "app": Server(f"live-app-{database}", app_command, app_cwd, app_env, scratch),
        "peer": Server(f"live-peer-{database}", gunicorn("peer.wsgi", "--worker-class", "sync"), peer_dir,
                       peer_env, scratch),
    }
    if database == "postgresql":
        for name, server in servers.items():
            server.backends = Backends(admin_url, PG_NAMES[name])
    out["servers"] = {name: " ".join(server.command[2:]) for name, server in servers.items()}
    try:
        for server in servers.values():
            server.start()
        if "table_minute" in parts:
            tables = {"app": app_tables[: plan.tables], "peer": peer_tables[: plan.tables]}
            del app_tables[: plan.tables], peer_tables[: plan.tables]
            out["table_minute"] = await table_minute(servers, tables, plan, database)
        if "tap_cpu" in parts:
            n = taps_needed(plan)
            pools = {"app": app_tables[:n], "peer": peer_tables[:n]}
            del app_tables[:n], peer_tables[:n]
            out["tap_cpu"] = await asyncio.to_thread(tap_cpu, servers, pools, plan, database)
        servers["peer"].stop()
        if "thousand" in parts:
            servers["app"].stop()  # a fresh worker: its memory before any stream
            servers["app"] = Server(f"live-app-1000-{database}", app_command, app_cwd, app_env, scratch)
            if database == "postgresql":
                servers["app"].backends = Backends(admin_url, PG_NAMES["app"])
            servers["app"].start()
            chosen = app_tables[: plan.thousand_tables]
            del app_tables[: plan.thousand_tables]
            out["thousand"] = await thousand(servers["app"], chosen, plan, database, scratch,
                                             profile and py_spy() is not None)
    finally:
        for server in servers.values():
            server.stop()
        keep_logs(scratch)
    if "slowloris" in parts and database == "sqlite":
        out["slowloris"] = await slow_clients_on_make_run(app_dir, app_env, app_tables[:1], plan, scratch, stub)
    return out


async def slow_clients_on_make_run(app_dir: Path, env: dict, tables: list[Table], plan: Plan, scratch: Path,
                                   stub: bool) -> dict:
    """bin/run as `make run` runs it (its server command, its default workers), the same database."""
    port = hb.free_port()
    env = {**env, "PORT": str(port)}
    if stub:
        command, cwd, workers = gunicorn("live_stub:application", *APP_SERVER), BENCH, 1
        described = "the stub under one uvicorn worker"
    else:
        command, cwd = ["bin/run", sys.executable], app_dir
        workers = int(env.get("WORKERS", "2"))
        described = "bin/run: " + " ".join(" ".join(run_command(app_dir)).replace("\\\n", " ").split())[:300]
    server = Server("live-make-run", command, cwd, env, scratch, port=port)
    try:
        server.start(workers=workers)
        table = tables[0]
        table.phones = [Phone(port)]
        await open_page(table, table.phones[0], "app")
        for _ in range(5):
            await tap(table, "app")
        out = await slowloris(server, table, plan)
    finally:
        server.stop()
        keep_logs(scratch)
    out["server"] = described
    out["workers"] = workers
    return out


LOGS = Path(tempfile.gettempdir()) / "lasttrick-live-logs"


def keep_logs(scratch: Path) -> None:
    """The servers' logs outside the scratch folder (it goes at the end of the run)."""
    LOGS.mkdir(exist_ok=True)
    for log in scratch.glob("*.log"):
        shutil.copy(log, LOGS / log.name)


def check(live: dict) -> tuple[list[str], list[str]]:
    """(missed gates, missed reported budgets)."""
    gates, times = [], []
    for database, measured in live.get("databases", {}).items():
        tm = measured.get("table_minute", {})
        if "cpu_ratio" in tm and tm["cpu_ratio"] > BUDGET["cpu_per_table_minute_ratio"]:
            gates.append(f"{database}: CPU per table-minute app/peer {tm['cpu_ratio']:.2f} > "
                         f"{BUDGET['cpu_per_table_minute_ratio']}")
        if "app" in tm and tm["app"]["fanout_s_p95"]["median"] > BUDGET["fanout_p95_s"]:
            times.append(f"{database}: fan-out p95 {tm['app']['fanout_s_p95']['median']:.2f} s > {BUDGET['fanout_p95_s']} s")
        th = measured.get("thousand", {})
        if "tap_ms_p99" in th and th["tap_ms_p99"]["median"] > BUDGET["thousand_tap_p99_ms"]:
            times.append(f"{database}: tap p99 at 1,000 tables {th['tap_ms_p99']['median']:.0f} ms > "
                         f"{BUDGET['thousand_tap_p99_ms']:.0f} ms")
        sl = measured.get("slowloris", {})
        if "ratio" in sl and sl["ratio"]["median"] > BUDGET["slow_clients_tap_median_ratio"]:
            gates.append(f"slow clients: tap median x{sl['ratio']['median']:.2f} > {BUDGET['slow_clients_tap_median_ratio']}")
    return gates, times


def run(quick: bool = False, databases: tuple[str, ...] | None = None, parts: tuple[str, ...] = PARTS,
        stub: bool = False, profile: bool = True, source: Path = ROOT) -> dict:
    plan = QUICK if quick else FULL
    databases = databases or (("sqlite",) if quick else ("sqlite", "postgresql"))
    raise_file_limit()
    try:
        os.sched_setaffinity(0, {CLIENT_CORE})
    except OSError:
        pass
    live: dict = {"plan": {**plan.__dict__, "quick": quick}, "budget": BUDGET, "stub": stub, "databases": {},
                  "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
    with tempfile.TemporaryDirectory(prefix="lasttrick-live-") as name:
        scratch = Path(name)
        app_dir = scratch / "app"
        shutil.copytree(source, app_dir, ignore=hb.SNAPSHOT_IGNORE)
        live["app_snapshot"] = {**hb.snapshot_of(source), "tree": str(source)}
        peer_dir = scratch / "peer"
        shutil.copytree(hb.PEER_SOURCE, peer_dir, ignore=shutil.ignore_patterns("*.sqlite3*", "__pycache__"))
        if not stub and not app_has_stream(app_dir):
            live["skipped"] = "the app has no stream views yet (no /events/ with text/event-stream in matches/)"
            note(live["skipped"] + ": nothing measured (try --stub)")
            return live
        admin_url = pg_admin_url() if "postgresql" in databases else None
        try:
            import uvloop

            runner = uvloop.run
        except ImportError:
            runner = asyncio.run
        for number, database in enumerate(databases):
            if database == "postgresql" and not admin_url:
                continue
            live["databases"][database] = runner(measure_database(
                database, plan, parts, scratch, app_dir, peer_dir, admin_url, stub, number == 0, profile))
        if admin_url:
            with hb.admin_connection(admin_url) as admin:
                for db in PG_NAMES.values():
                    admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    profiles = [m["thousand"].pop("profile_text") for m in live["databases"].values()
                if "profile_text" in m.get("thousand", {})]
    if profiles and not quick:
        (BENCH / "live_profile.txt").write_text("".join(profiles))
        live["profile"] = "bench/live_profile.txt"
    elif profiles:
        live["profile_text"] = "".join(profiles)
    live["finished_utc"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    live["missed"], live["time_budgets_missed"] = check(live)
    return live


def fmt(part: dict, digits: int = 2, scale: float = 1.0) -> str:
    low, high = part["spread"]
    return f"{part['median'] * scale:.{digits}f} [{low * scale:.{digits}f}-{high * scale:.{digits}f}]"


def report(live: dict) -> None:
    print("Live updates beside the peer (issue 22): one worker each on core 0, load generator on core 1;"
          " median of rounds [lowest-highest]" + ("  ** app = STUB **" if live.get("stub") else ""))
    if live.get("skipped"):
        print(f"  skipped: {live['skipped']}")
        return
    for database, measured in live["databases"].items():
        tm = measured.get("table_minute")
        if tm:
            print(f"{database}: {tm['tables']} tables x 4 phones, 1 tap/table-minute, rounds of {tm['round_seconds']:.0f} s")
            for name in ("app", "peer"):
                if name in tm:
                    s = tm[name]
                    print(f"  {name:<5} CPU ms/table-minute {fmt(s['cpu_ms_per_table_minute'])}   seen on the other "
                          f"phones p50 {fmt(s['fanout_s_p50'], 3)} s  p95 {fmt(s['fanout_s_p95'], 3)} s   tap median "
                          f"{fmt(s['tap_ms_median'], 1)} ms")
            if "cpu_ratio" in tm:
                flag = "ok" if tm["cpu_ratio"] <= BUDGET["cpu_per_table_minute_ratio"] else "MISSED"
                print(f"  CPU per table-minute app/peer {tm['cpu_ratio']:.3f} (rounds {tm['cpu_ratio_per_round']}), "
                      f"budget <= {BUDGET['cpu_per_table_minute_ratio']}: {flag}")
        if tc := measured.get("tap_cpu"):
            print(f"  tap alone (nobody connected): CPU ms app {tc['app']['cpu_ms']:.2f} [{tc['app']['cpu_ms_spread'][0]:.2f}-"
                  f"{tc['app']['cpu_ms_spread'][1]:.2f}] peer {tc['peer']['cpu_ms']:.2f} [{tc['peer']['cpu_ms_spread'][0]:.2f}-"
                  f"{tc['peer']['cpu_ms_spread'][1]:.2f}] = x{tc['cpu_ratio']:.2f} (not gated)")
        if th := measured.get("thousand"):
            line = f"  {th['tables']:,} tables, {th['streams_open_at_start']:,} streams on one worker: "
            if "tap_ms_p99" in th:
                line += (f"tap median {fmt(th['tap_ms_median'], 1)} ms p99 {fmt(th['tap_ms_p99'], 1)} ms; fan-out p95 "
                         f"{fmt(th['fanout_s_p95'], 3)} s; ")
            line += f"no tap: {th.get('idle_cpu_ms_per_table_minute')} ms CPU/table-minute; threads {th.get('worker_threads_connected')}; "
            line += (f"RSS {th['rss_none_mb']} -> {th['rss_connected_mb']} MB = {th['rss_kb_per_phone']} kB/phone "
                     f"({th['rss_kb_per_phone_after_taps']} after the taps); {th['reconnects']} reconnects")
            print(line)
        if sl := measured.get("slowloris"):
            print(f"  slow clients ({sl['slow_clients']}, {sl['server'][:80]}): tap median {fmt(sl['without_ms'], 1)} ms "
                  f"without, {fmt(sl['with_ms'], 1)} ms with: x{fmt(sl['ratio'])}")
    for line in live.get("missed", []):
        print(f"  GATE MISSED: {line}")
    for line in live.get("time_budgets_missed", []):
        print(f"  time budget missed (reported, not gated): {line}")


def markdown(live: dict) -> str:
    """The tables of BENCHMARKS.md's live section, from a run's figures."""
    rows = ["| database | server | CPU ms per table-minute | seen on the 3 other phones, p50 s | p95 s | tap median ms |",
            "| --- | --- | --- | --- | --- | --- |"]
    ratios = []
    for database, measured in live["databases"].items():
        tm = measured.get("table_minute")
        if not tm:
            continue
        for name in ("app", "peer"):
            if name in tm:
                s = tm[name]
                rows.append(f"| {database} | {name} | {fmt(s['cpu_ms_per_table_minute'])} | {fmt(s['fanout_s_p50'], 3)} | "
                            f"{fmt(s['fanout_s_p95'], 3)} | {fmt(s['tap_ms_median'], 1)} |")
        if "cpu_ratio" in tm:
            ratios.append(f"| {database} | {tm['cpu_ratio']:.3f} | {', '.join(f'{r:.3f}' for r in tm['cpu_ratio_per_round'])} | "
                          f"<= {BUDGET['cpu_per_table_minute_ratio']}: "
                          f"{'met' if tm['cpu_ratio'] <= BUDGET['cpu_per_table_minute_ratio'] else '**missed**'} |")
    out = "\n".join(rows) + "\n\n"
    if ratios:
        out += "| database | CPU per table-minute, app / peer | per round | budget |\n| --- | --- | --- | --- |\n"
        out += "\n".join(ratios) + "\n\n"
    tap_rows = []
    for database, measured in live["databases"].items():
        if tc := measured.get("tap_cpu"):
            tap_rows.append(f"| {database} | {tc['app']['cpu_ms']:.2f} [{tc['app']['cpu_ms_spread'][0]:.2f}-"
                            f"{tc['app']['cpu_ms_spread'][1]:.2f}] | {tc['peer']['cpu_ms']:.2f} [{tc['peer']['cpu_ms_spread'][0]:.2f}-"
                            f"{tc['peer']['cpu_ms_spread'][1]:.2f}] | {tc['cpu_ratio']:.2f} | {tc['app']['median_ms']:.1f} / "
                            f"{tc['peer']['median_ms']:.1f} |")
    if tap_rows:
        out += ("| database | tap alone, app CPU ms | peer CPU ms | app / peer (not gated) | median ms app / peer |\n"
                "| --- | --- | --- | --- | --- |\n" + "\n".join(tap_rows) + "\n\n")
    th_rows = []
    for database, measured in live["databases"].items():
        if th := measured.get("thousand"):
            if "tap_ms_p99" not in th:
                continue
            th_rows.append(f"| {database} | {th['streams_open_at_start']:,} / {th['streams_open_at_end']:,} | "
                           f"{fmt(th['tap_ms_median'], 1)} | {fmt(th['tap_ms_p99'], 1)} | {fmt(th['fanout_s_p95'], 3)} | "
                           f"{fmt(th['cpu_ms_per_table_minute'])} ({th.get('idle_cpu_ms_per_table_minute', '-')} with no tap) | {th['rss_none_mb']} -> {th['rss_connected_mb']} "
                           f"({th['rss_after_taps_mb']} after the taps) | {th['rss_kb_per_phone']} ({th['rss_kb_per_phone_after_taps']}) |")
    if th_rows:
        out += ("| database | streams open (start / end) | tap median ms | tap p99 ms | seen p95 s | CPU ms per table-minute "
                "| worker RSS MB, none -> 4,000 streams | kB per phone (after the taps) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n"
                + "\n".join(th_rows) + "\n\n")
    for database, measured in live["databases"].items():
        if sl := measured.get("slowloris"):
            out += (f"Slow clients ({sl['slow_clients']} connections sending their headers a byte a second; {sl['server']}, "
                    f"{sl['workers']} workers): tap median {fmt(sl['without_ms'], 1)} ms without, {fmt(sl['with_ms'], 1)} ms "
                    f"with: x{fmt(sl['ratio'])} (budget <= {BUDGET['slow_clients_tap_median_ratio']}: "
                    f"{'met' if sl['ratio']['median'] <= BUDGET['slow_clients_tap_median_ratio'] else '**missed**'}).\n")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="SQLite, short rounds; results.json left as it was")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), action="append")
    parser.add_argument("--part", choices=PARTS, action="append")
    parser.add_argument("--stub", action="store_true", help="serve bench/live_stub.py in the app's place")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the app's tree to copy and serve (default: this one)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures there")
    parser.add_argument("--save", action="store_true", help="write them under 'live' in bench/results.json")
    parser.add_argument("--markdown", metavar="JSON", help="print BENCHMARKS.md's tables from a run's figures, and stop")
    args = parser.parse_args()
    if args.markdown:
        figures = json.loads(Path(args.markdown).read_text())
        print(markdown(figures.get("live", figures)))
        return 0
    live = run(args.quick, tuple(args.db) if args.db else None, tuple(args.part or PARTS), args.stub,
               not args.no_profile, args.app_dir.resolve())
    report(live)
    if args.json:
        Path(args.json).write_text(json.dumps(live, indent=2) + "\n")
    if args.save and not args.quick and not args.stub:
        path = BENCH / "results.json"
        results = json.loads(path.read_text()) if path.exists() else {}
        results["live"] = live
        path.write_text(json.dumps(results, indent=2) + "\n")
    return 1 if live.get("missed") else 0


if __name__ == "__main__":
    sys.exit(main())
