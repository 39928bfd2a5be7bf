"""HTTP side by side with the peer (issue 13): Last Trick and the yardstick in shared/peer, each under
ONE gunicorn sync worker pinned to core 0 (`taskset -c 0`), driven from core 1 by a Python client
(http.client, one request at a time as a phone's htmx sends them, with the headers, cookies and CSRF
token a browser sends). gunicorn's sync worker closes every connection after its answer, so each
request opens a TCP connection, for both servers alike (the bare-gunicorn floor shows that cost).

For each database (SQLite; PostgreSQL when it answers, a bench database for each server), each size
(10, 1,000, 10,000 hands) and each request (tap: each a new hand, on fresh seeded sittings so that
hand counts stay near the size; idle poll: version unchanged; table page: the full page): rounds of
N requests to each server. Per round: CPU ms per request from /proc/<pid>/schedstat (time on CPU)
of the gunicorn worker, plus, on PostgreSQL, of the backend serving its persistent connection; and
the client-measured median and p99 latency.
Within a round the two servers take turns request by request (app, peer, peer, app, ...), so both
meet the same minute of a shared machine; each server's CPU counter counts its own work only.
Each figure is the median over the rounds, with its min-max spread; the ratio is app / peer.

Also: the app's idle poll header bytes, its history page at 10 and 10,000 hands, the CSV export's
worker RSS growth, statements per request counted at the driver (gunicorn_probe.py), profiles of
the app's tap inside the worker (sampled, and cProfile: bench/http_profile.txt), the floors (bare
gunicorn request CPU, a raw SQL tap transaction, and the app's tap cut short beside the peer's whole
tap: stopped as its view starts, and once recorded with no answer: bench/unanswered_urls.py), and
once a check of the Python client against wrk (Debian's package, installed by this script with
apt-get when missing).

Run from bench/run.py (`make bench`), or alone: `bench/run.py --http-only [--quick]`.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import io
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# The app is served from a copy of the working tree taken when the run starts (others edit the tree
# meanwhile: one run measures one version of the code). run() points APP at that copy.
APP = ROOT
SNAPSHOT_IGNORE = shutil.ignore_patterns(
    ".venv",
    ".git",
    "node_modules",
    "tests",
    "staticfiles",
    "__pycache__",
    "*.sqlite3*",
    ".ratelimit",
    ".pytest_cache",
    ".env",
)
PEER_SOURCE = Path(os.environ.get("PEER_DIR") or ROOT.parent / "shared" / "peer")
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"
SERVER_CORE, CLIENT_CORE = "0", 1
REQUESTS = ("tap", "poll", "table_page")
SETTLE = 0.05  # seconds before reading CPU counters: the worker finishes closing the last request


@dataclass(frozen=True)
class Plan:
    rounds: int
    taps: int
    polls: int
    pages: int
    history: int
    sizes: tuple[int, ...] = (10, 1_000, 10_000)
    profile_taps: int = 200
    wrk_seconds: int = 2


FULL = Plan(rounds=5, taps=200, polls=300, pages=40, history=7)
QUICK = Plan(rounds=3, taps=60, polls=100, pages=12, history=3, profile_taps=60)
PROFILE_HANDS = 1_000


def budget_for(request: str, hands: int) -> float:
    """The highest app/peer CPU ratio allowed for a cell."""
    if request == "tap":
        return 0.5 if hands >= 10_000 else 0.6
    return 0.6 if request == "poll" else 1.0


POLL_HEADER_BUDGET = 350
TAP_STOPS = {  # where bench/unanswered_urls.py stops the tap view: the floors of a tap
    "entry": "a tap answered as its view starts (request, middleware, limits, decorators)",
    "recorded": "a tap answered once recorded (its form and verb too, no table region)",
}


class BenchError(Exception):
    pass


def page_tokens(text: str) -> tuple[str, str]:
    """The CSRF token of a page's <body hx-headers> (htmx sends it), and of its first form ("" if none)."""
    header = re.search(r'"X-CSRFToken":\s*"([^"]+)"', text)
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)
    return header.group(1) if header else "", field.group(1) if field else ""


STARTED = time.monotonic()


def note(text: str) -> None:
    print(f"  [{time.monotonic() - STARTED:5.0f} s] {text}", file=sys.stderr, flush=True)


# --- what a browser sends -------------------------------------------------------------------------

USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0.0.0 Mobile Safari/537.36"
)
COMMON = {"User-Agent": USER_AGENT, "Accept-Language": "en-GB,en;q=0.9", "Accept-Encoding": "gzip, deflate"}
NAVIGATE = {
    **COMMON,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Upgrade-Insecure-Requests": "1",
    "Sec-Fetch-Site": "none",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Dest": "document",
}
HTMX = {
    **COMMON,
    "Accept": "*/*",
    "HX-Request": "true",
    "HX-Target": "table",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Dest": "empty",
}


class Browser:
    """One phone: a cookie jar and one connection at a time (reopened when the server closes it)."""

    def __init__(self, port: int):
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookies: dict[str, str] = {}

    def send(self, method: str, path: str, headers: dict, body: str | None = None):
        headers = dict(headers)
        headers["Host"] = f"127.0.0.1:{self.port}"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        start = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise
        seconds = time.perf_counter() - start
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            value = rest.split(";", 1)[0]
            if value and "max-age=0" not in cookie.lower():
                self.cookies[name.strip()] = value
            else:
                self.cookies.pop(name.strip(), None)
        if response.will_close:
            self.conn.close()
        return response.status, data, seconds, response

    def raw_header_bytes(self, method: str, path: str, headers: dict) -> tuple[int, list[str]]:
        """The exact bytes of a response's status line and headers (through the blank line)."""
        headers = {"Host": f"127.0.0.1:{self.port}", **headers, "Connection": "close"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        request = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            sock.sendall(request.encode("latin-1"))
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        head = data.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
        return len(head), head.decode("latin-1").split("\r\n")[:-2]


# --- servers --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    if path.exists():
        return [int(p) for p in path.read_text().split()]
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def cpu_ns(pid: int) -> int:
    """Nanoseconds on CPU of every thread of process `pid` (/proc/<pid>/task/*/schedstat, first field)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError):
            pass
    return total


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError(f"no VmRSS for {pid}")


class Server:
    """One gunicorn master with ONE sync worker, pinned to core 0."""

    def __init__(self, label: str, module: str, cwd: Path, env: dict, scratch: Path, config: str | None = None):
        self.label, self.module, self.cwd, self.env, self.scratch, self.config = (
            label,
            module,
            cwd,
            env,
            scratch,
            config,
        )
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.worker = 0
        self.backends: list[int] = []
        self.database = ""  # PostgreSQL database name, to find the worker's backend

    def start(self) -> Server:
        self.port = free_port()
        command = ["taskset", "-c", SERVER_CORE, sys.executable, "-m", "gunicorn", self.module]
        if self.config:
            command += ["-c", self.config]
        command += ["--workers", "1", "--worker-class", "sync", "--bind", f"127.0.0.1:{self.port}"]
        command += ["--timeout", "300", "--graceful-timeout", "10", "--log-level", "warning"]
        self.log_path = self.scratch / f"{self.label}.log"
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(command, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"{self.label}: gunicorn exited: {self.log_tail()}")
            workers = children(self.proc.pid)
            if workers:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    self.worker = workers[0]
                    return self
                except OSError:
                    pass
            time.sleep(0.05)
        raise BenchError(f"{self.label}: gunicorn did not start: {self.log_tail()}")

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def check_worker(self) -> None:
        if children(self.proc.pid) != [self.worker]:
            raise BenchError(f"{self.label}: the worker was replaced (timeout or crash): {self.log_tail()}")

    def find_backends(self, admin) -> None:
        if not self.database:
            return
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend' "
            "AND pid <> pg_backend_pid()",
            (self.database,),
        ).fetchall()
        self.backends = sorted(row[0] for row in rows)
        if len(self.backends) != 1:
            raise BenchError(f"{self.label}: expected one PostgreSQL backend for the worker, found {self.backends}")

    def cpu_ns(self) -> int:
        return cpu_ns(self.worker) + sum(cpu_ns(pid) for pid in self.backends)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --- the two sides --------------------------------------------------------------------------------


@dataclass
class Sitting:
    token: str
    next: int
    winners: list  # what a tap posts as `winner`, by seat
    version: str = ""  # the version the page shows (the app's poll asks with it)
    etag: str = ""  # the peer's


@dataclass
class Side:
    """What differs between the app and the peer: how a tap, a poll and the page are asked for."""

    name: str
    server: Server
    pool: dict[int, list[Sitting]]
    browser: Browser | None = None
    csrf_header: str = ""
    csrf_field: str = ""
    reads: dict[int, Sitting] = field(default_factory=dict)  # per size: the sitting polled and paged
    warms: dict[int, Sitting] = field(default_factory=dict)  # per size: the sitting of warm-up taps

    def connect(self) -> None:
        self.browser = Browser(self.server.port)

    def take(self, hands: int) -> Sitting:
        if not self.pool[hands]:
            raise BenchError(f"{self.name}: no seeded sitting of {hands} hands left")
        return self.pool[hands].pop()

    def page_request(self, sitting: Sitting):
        return ("GET", f"/s/{sitting.token}/", NAVIGATE, None)

    def open_page(self, sitting: Sitting) -> None:
        """Load the match table as a phone does first: cookies, CSRF token, the version shown."""
        status, data, _, response = self.browser.send(*self.page_request(sitting))
        if status != 200:
            raise BenchError(f"{self.name} page {sitting.token}: {status} {data[:300]!r}")
        text = data.decode()
        header, field = page_tokens(text)
        if not header:
            raise BenchError(f"{self.name}: no X-CSRFToken in the page's hx-headers")
        self.csrf_header, self.csrf_field = header, field or self.csrf_field
        if found := re.search(r"poll/\?v=(\d+)", text):
            sitting.version = found.group(1)
        sitting.etag = response.headers.get("ETag", "") or f'"{sitting.next}"'

    def htmx(self, sitting: Sitting) -> dict:
        return {**HTMX, "HX-Current-URL": f"{self.browser.origin}/s/{sitting.token}/"}

    def tap_request(self, sitting: Sitting):
        number = sitting.next
        sitting.next += 1
        winner = sitting.winners[number % len(sitting.winners)]
        headers = {
            **self.htmx(sitting),
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": self.browser.origin,
            "X-CSRFToken": self.csrf_header,
        }
        if self.name == "app":  # the form's fields, in its order, then the button pressed
            body = urlencode([("csrfmiddlewaretoken", self.csrf_field), ("number", number), ("winner", winner)])
        else:
            body = urlencode([("number", number), ("winner", winner)])
        return ("POST", f"/s/{sitting.token}/tap/", headers, body)

    def poll_request(self, sitting: Sitting):
        headers = {**self.htmx(sitting), "HX-Trigger": "table"}
        if self.name == "app":
            return ("GET", f"/s/{sitting.token}/poll/?v={sitting.version}", headers, None)
        return ("GET", f"/s/{sitting.token}/poll/", {**headers, "If-None-Match": sitting.etag}, None)

    def expected(self, request: str) -> int:
        return {"tap": 200, "table_page": 200, "poll": 204 if self.name == "app" else 304}[request]

    def requests(self, request: str, hands: int, count: int) -> list[tuple]:
        if request == "poll":
            return [self.poll_request(self.reads[hands])] * count
        if request == "table_page":
            return [self.page_request(self.reads[hands])] * count
        per_sitting = taps_per_sitting(hands, count)
        made = []
        while len(made) < count:
            sitting = self.take(hands)
            made += [self.tap_request(sitting) for _ in range(min(per_sitting, count - len(made)))]
        return made


def taps_per_sitting(hands: int, taps: int) -> int:
    """Taps on one seeded sitting before moving to a fresh one: hand counts stay near the size
    (10 -> 30, 1,000 -> 1,100, 10,000 -> 10,200 at most)."""
    return min(taps, max(20, hands // 10))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def run_round(side: Side, requests: list[tuple], expect: int, extra_headers: dict | None = None) -> dict:
    server, browser = side.server, side.browser
    time.sleep(SETTLE)
    before = server.cpu_ns()
    times = []
    gc.collect()
    gc.disable()  # the client's own pauses are not the server's time
    try:
        for method, path, headers, body in requests:
            if extra_headers:
                headers = {**headers, **extra_headers}
            status, data, seconds, _ = browser.send(method, path, headers, body)
            if status != expect:
                raise BenchError(
                    f"{side.name} {method} {path}: {status}, expected {expect}: {data[:400].decode(errors='replace')}"
                )
            times.append(seconds * 1000)
    finally:
        gc.enable()
    time.sleep(SETTLE)
    after = server.cpu_ns()
    server.check_worker()
    return {
        "cpu_ms": (after - before) / 1e6 / len(requests),
        "median_ms": statistics.median(times),
        "p99_ms": percentile(times, 0.99),
    }


def summary(rounds: list[dict]) -> dict:
    out = {}
    for key in ("cpu_ms", "median_ms", "p99_ms"):
        values = [r[key] for r in rounds]
        out[key] = round(statistics.median(values), 3)
        out[f"{key}_spread"] = [round(min(values), 3), round(max(values), 3)]
    return out


def run_pairs(sides: list[Side], requests: dict[str, list[tuple]], expect: dict[str, int]) -> dict[str, dict]:
    """One round, the two servers interleaved request by request (app, peer, then peer, app, ...), so
    that both meet the same minute of a shared machine; each server's CPU counter counts only its
    own work, read before and after the round."""
    time.sleep(SETTLE)
    before = {side.name: side.server.cpu_ns() for side in sides}
    times: dict[str, list[float]] = {side.name: [] for side in sides}
    count = len(requests[sides[0].name])
    gc.collect()
    gc.disable()
    try:
        for index in range(count):
            for side in sides if index % 2 == 0 else sides[::-1]:
                method, path, headers, body = requests[side.name][index]
                status, data, seconds, _ = side.browser.send(method, path, headers, body)
                if status != expect[side.name]:
                    raise BenchError(
                        f"{side.name} {method} {path}: {status}, expected {expect[side.name]}: "
                        f"{data[:400].decode(errors='replace')}"
                    )
                times[side.name].append(seconds * 1000)
    finally:
        gc.enable()
    time.sleep(SETTLE)
    out = {}
    for side in sides:
        side.server.check_worker()
        out[side.name] = {
            "cpu_ms": (side.server.cpu_ns() - before[side.name]) / 1e6 / count,
            "median_ms": statistics.median(times[side.name]),
            "p99_ms": percentile(times[side.name], 0.99),
        }
    return out


def measure_cell(database: str, request: str, hands: int, sides: list[Side], plan: Plan) -> dict:
    count = {"tap": plan.taps, "poll": plan.polls, "table_page": plan.pages}[request]
    rounds: dict[str, list[dict]] = {side.name: [] for side in sides}
    for _ in range(plan.rounds):
        measured = run_pairs(
            sides,
            {side.name: side.requests(request, hands, count) for side in sides},
            {side.name: side.expected(request) for side in sides},
        )
        for side in sides:
            rounds[side.name].append(measured[side.name])
    app, peer = summary(rounds["app"]), summary(rounds["peer"])
    return {
        "database": database,
        "request": request,
        "hands": hands,
        "cpu_ratio": round(app["cpu_ms"] / peer["cpu_ms"], 3),
        "median_ratio": round(app["median_ms"] / peer["median_ms"], 3),
        "p99_ratio": round(app["p99_ms"] / peer["p99_ms"], 3),
        "cpu_ratio_per_round": [round(a["cpu_ms"] / p["cpu_ms"], 3) for a, p in zip(rounds["app"], rounds["peer"])],
        "budget_cpu_ratio": budget_for(request, hands),
        "requests_per_round": count,
        "rounds": plan.rounds,
        "app": app,
        "peer": peer,
    }


# --- databases, environments, seeding -------------------------------------------------------------


def base_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    env.pop("PYTHONPATH", None)
    return env


def app_env(database_url: str, scratch: Path) -> dict:
    env = base_env()
    env.update(
        DJANGO_SETTINGS_MODULE="scorekeeper.settings",
        DEBUG="0",
        PLAIN_HTTP="1",
        SECURE_SSL_REDIRECT="0",
        SECRET_KEY="bench-only-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
        ENV_FILE=str(scratch / "app.env"),  # not the checkout's .env
        ALLOWED_HOSTS="127.0.0.1",
        TAP_RATE_LIMIT="1000000/m",
        TAP_ADDRESS_RATE_LIMIT="1000000/m",
        START_RATE_LIMIT="1000000/h",
        START_ADDRESS_RATE_LIMIT="1000000/h",
        RATELIMIT_DIR=str(scratch / "ratelimit"),
        STATIC_ROOT=str(scratch / "static"),
        DATABASE_URL=database_url,
        CONN_MAX_AGE="600",
    )
    return env


def peer_env(database_url: str) -> dict:
    env = base_env()
    env.update(
        DJANGO_SETTINGS_MODULE="peer.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-peer-key",
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url,
        CONN_MAX_AGE="600",
    )
    return env


def postgres_urls() -> tuple[dict, str] | None:
    """A bench database for each server on the PostgreSQL server (DATABASE_URL's, or 127.0.0.1:5432),
    made anew; None when no server answers."""
    import dj_database_url
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    url = url if url.startswith(("postgres://", "postgresql://")) else PG_DEFAULT
    s = dj_database_url.parse(url)
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    server = f"{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
    try:
        admin = admin_connection(url)
        with admin:
            for name in ("lasttrick_http_app", "lasttrick_http_peer"):
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as error:
        print(f"PostgreSQL did not answer ({error}); HTTP bench on SQLite only.", file=sys.stderr)
        return None
    urls = {side: f"postgres://{auth}@{server}/lasttrick_http_{side}" for side in ("app", "peer")}
    return urls, url


def admin_connection(url: str):
    import dj_database_url
    import psycopg

    s = dj_database_url.parse(url)
    return psycopg.connect(
        host=s["HOST"] or "127.0.0.1",
        port=s["PORT"] or 5432,
        user=s["USER"],
        password=s["PASSWORD"],
        dbname="postgres",
        connect_timeout=3,
        autocommit=True,
    )


def sittings_needed(plan: Plan, hands: int, database: str) -> int:
    per_round = math.ceil(plan.taps / taps_per_sitting(hands, plan.taps))
    extra = 2  # warm-up (and counted taps), and the sitting polled, paged, exported
    extra += len(TAP_STOPS) * (plan.rounds * per_round + 2)  # the taps cut short (measure_tap_floors)
    if hands == PROFILE_HANDS:  # profiled taps: sampled, then cProfile
        extra += 2 * math.ceil(plan.profile_taps / taps_per_sitting(hands, plan.profile_taps))
    if hands == WRK_HANDS and database == "sqlite":  # the wrk check's taps
        extra += WRK_REPS * (math.ceil(WRK_PYTHON["tap"] / taps_per_sitting(hands, WRK_PYTHON["tap"])) + 2)
    return plan.rounds * per_round + extra


def seed(plan: Plan, database: str, urls: dict, scratch: Path, peer_dir: Path, first: bool) -> tuple[dict, dict, dict]:
    """Fill both databases at once (a process each): the app's sittings with bench/run.py's fill(),
    the peer's with its own `seed` command."""
    counts = {hands: sittings_needed(plan, hands, database) for hands in plan.sizes}
    spec = {"sizes": counts, "collectstatic": first, "floor": True}
    app = subprocess.Popen(
        [
            "taskset",
            "-c",
            SERVER_CORE,
            sys.executable,
            str(APP / "bench" / "http_bench.py"),
            "--seed-app",
            json.dumps(spec),
        ],
        cwd=APP,
        env=app_env(urls["app"], scratch),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    penv = peer_env(urls["peer"])
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=peer_dir, env=penv, check=True, capture_output=True)
    peer: dict[int, list[Sitting]] = {}
    for hands, count in counts.items():
        out = subprocess.run(
            [*manage, "seed", "--hands", str(hands), "--sittings", str(count)],
            cwd=peer_dir,
            env=penv,
            check=True,
            capture_output=True,
            text=True,
        )
        rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        peer[hands] = [Sitting(row["token"], row["next"], row["winners"]) for row in rows]
    stdout, stderr = app.communicate()
    if app.returncode:
        raise BenchError(f"seeding the app failed: {stderr[-3000:]}")
    made = json.loads(stdout.strip().splitlines()[-1])
    pool = {
        int(hands): [Sitting(s["token"], s["next"], [1, 2, 3, 4]) for s in sittings]
        for hands, sittings in made["sittings"].items()
    }
    return pool, peer, made["floor"]


def seed_app(spec_text: str) -> None:
    """In the seeding process (the app's settings from the environment): migrate, collect the static
    files, fill the sittings asked for, ANALYZE on PostgreSQL, and time a raw SQL tap."""
    spec = json.loads(spec_text)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from run import fill

    call_command("migrate", verbosity=0)
    if spec.get("collectstatic"):
        call_command("collectstatic", interactive=False, verbosity=0)
    out: dict = {"sittings": {}}
    for hands, count in spec["sizes"].items():
        out["sittings"][hands] = [{"token": fill(int(hands)).token, "next": int(hands) + 1} for _ in range(count)]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    if spec.get("floor"):
        out["floor"] = raw_sql_tap(fill)
    print(json.dumps(out))


def raw_sql_tap(fill, count: int = 500) -> dict:
    """The floor of a tap's write: its transaction in raw SQL on the DB-API connection, no ORM (bump
    the sitting's version, insert the hand as a copy of the last row with the next number, add the
    winner's point), timed from BEGIN to COMMIT returned."""
    from django.db import connection

    from matches.models import Hand, Seat
    from matches.models import Sitting as SittingModel

    sitting = fill(10)
    seat = sitting.seats.order_by("position").first()
    last = sitting.hands.order_by("-number").first()
    q = connection.ops.quote_name
    mark = "?" if connection.vendor == "sqlite" else "%s"
    columns = [f.column for f in Hand._meta.concrete_fields if not f.primary_key]
    picked = ", ".join(mark if column == "number" else q(column) for column in columns)
    hand_table = q(Hand._meta.db_table)
    statements = [
        (f"UPDATE {q(SittingModel._meta.db_table)} SET {q('version')} = {q('version')} + 1 WHERE {q('id')} = {mark}",),
        (
            f"INSERT INTO {hand_table} ({', '.join(map(q, columns))}) SELECT {picked} FROM {hand_table} WHERE id = {mark}",
        ),
        (
            (
                f"UPDATE {q(Seat._meta.db_table)} SET {q('total')} = {q('total')} + 1, "
                f"{q('hands_won')} = {q('hands_won')} + 1 WHERE {q('id')} = {mark}"
            ),
        ),
    ]
    connection.ensure_connection()
    raw = connection.connection
    times = []
    for number in range(11, 11 + count):
        params = [(sitting.pk,), (number, last.pk), (seat.pk,)]
        start = time.perf_counter()
        if connection.vendor == "sqlite":
            raw.execute("BEGIN IMMEDIATE")
            for (sql,), args in zip(statements, params):
                raw.execute(sql, args)
            raw.execute("COMMIT")
        else:
            with raw.transaction():
                for (sql,), args in zip(statements, params):
                    raw.execute(sql, args)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "raw_sql_tap_ms_median": round(statistics.median(times), 3),
        "raw_sql_tap_ms_p99": round(percentile(times, 0.99), 3),
        "statements": 5,
        "transactions": count,
    }


# --- one database: seed, serve, measure -----------------------------------------------------------


def warm(side: Side, hands: int) -> None:
    """The page of the sitting read at this size (cookies, CSRF, version), then taps on another
    sitting and polls, until templates, caches and the connection are warm."""
    side.reads[hands] = side.take(hands)
    side.open_page(side.reads[hands])
    side.warms[hands] = side.take(hands)
    for _ in range(10):
        status, data, _, _ = side.browser.send(*side.tap_request(side.warms[hands]))
        if status != 200:
            raise BenchError(f"{side.name} warm-up tap: {status}: {data[:400].decode(errors='replace')}")
    for _ in range(10):
        status, data, _, _ = side.browser.send(*side.poll_request(side.reads[hands]))
        if status != side.expected("poll"):
            raise BenchError(f"{side.name} warm-up poll: {status}: {data[:400].decode(errors='replace')}")


def measure_database(
    database: str,
    urls: dict,
    admin_url: str | None,
    plan: Plan,
    scratch: Path,
    peer_dir: Path,
    first: bool,
    wrk: bool,
    profile: bool,
) -> dict:
    started = time.monotonic()
    app_pool, peer_pool, floor = seed(plan, database, urls, scratch, peer_dir, first)
    note(f"{database}: seeded in {time.monotonic() - started:.0f} s")
    app_server = Server(f"app-{database}", "scorekeeper.wsgi", APP, app_env(urls["app"], scratch), scratch)
    peer_server = Server(f"peer-{database}", "peer.wsgi", peer_dir, peer_env(urls["peer"]), scratch)
    if database == "postgresql":
        app_server.database, peer_server.database = "lasttrick_http_app", "lasttrick_http_peer"
    result: dict = {"floor": floor}
    try:
        sides = [Side("app", app_server.start(), app_pool), Side("peer", peer_server.start(), peer_pool)]
        for side in sides:
            side.connect()
            for hands in plan.sizes:
                warm(side, hands)
        if database == "postgresql":
            with admin_connection(admin_url) as admin:
                for side in sides:
                    side.server.find_backends(admin)
        result["backends"] = {side.name: side.server.backends for side in sides}
        cells = []
        for hands in plan.sizes:
            for request in REQUESTS:
                cell = measure_cell(database, request, hands, sides, plan)
                cells.append(cell)
                note(
                    f"{database:<10} {request:<10} {hands:>6}: cpu {cell['app']['cpu_ms']:.3f} / "
                    f"{cell['peer']['cpu_ms']:.3f} ms = {cell['cpu_ratio']:.2f}; median "
                    f"{cell['app']['median_ms']:.3f} / {cell['peer']['median_ms']:.3f} ms = {cell['median_ratio']:.2f}"
                )
        if database == "postgresql":  # the persistent connections stayed the same all along
            with admin_connection(admin_url) as admin:
                for side in sides:
                    before = side.server.backends
                    side.server.find_backends(admin)
                    if side.server.backends != before:
                        raise BenchError(
                            f"{side.name}: its PostgreSQL backend changed: {before} -> {side.server.backends}"
                        )
        result["cells"] = cells
        app = sides[0]
        result["history"] = measure_history(app, plan)
        note(f"{database}: history page measured")
        result["poll_headers"] = {
            side.name: side.browser.raw_header_bytes(*side.poll_request(side.reads[plan.sizes[0]])[:3])
            for side in sides
        }
        if wrk and WRK_HANDS in plan.sizes:
            result["wrk_check"] = wrk_check(sides, plan)
            note(f"{database}: wrk check done")
        app_server.stop()  # its database connection too: the next server's backend is the only one
        result["tap_floors"] = {
            stop: measure_tap_floor(stop, database, urls, admin_url, plan, scratch, app_pool, sides[1])
            for stop in TAP_STOPS
        }
    finally:
        app_server.stop()
        peer_server.stop()
    result["queries"] = count_queries(database, sides, scratch, profile, plan)
    note(f"{database}: statements counted" + (", tap profiled" if profile else ""))
    result["csv_rss"] = csv_rss(database, sides[0], scratch)
    note(f"{database}: CSV export measured")
    return result


def measure_tap_floor(
    stop: str, database: str, urls: dict, admin_url: str | None, plan: Plan, scratch: Path, pool: dict, peer: Side
) -> list[dict]:
    """A floor of the app's tap, beside the peer's whole tap: the same request, its view stopped at
    `stop` (bench/unanswered_urls.py: "entry" or "recorded") and answered with an empty 200. Per
    size: app / peer CPU and median ratios."""
    env = {
        **app_env(urls["app"], scratch),
        "DJANGO_SETTINGS_MODULE": "bench.unanswered_settings",
        "BENCH_TAP_STOP": stop,
    }
    server = Server(f"tap-{stop}-{database}", "scorekeeper.wsgi", APP, env, scratch)
    server.database = "lasttrick_http_app" if database == "postgresql" else ""
    cells = []
    try:
        side = Side("app", server.start(), pool)
        side.connect()
        for hands in plan.sizes:
            warm(side, hands)
        if database == "postgresql":
            with admin_connection(admin_url) as admin:
                server.find_backends(admin)
        for hands in plan.sizes:
            cell = measure_cell(database, "tap", hands, [side, peer], plan)
            cells.append(
                {
                    **{key: cell[key] for key in ("database", "hands", "cpu_ratio", "median_ratio")},
                    "app_cpu_ms": cell["app"]["cpu_ms"],
                    "peer_cpu_ms": cell["peer"]["cpu_ms"],
                    "cpu_ratio_per_round": cell["cpu_ratio_per_round"],
                }
            )
            note(f"{database:<10} tap stopped at {stop:<9}{hands:>6}: cpu {cell['cpu_ratio']:.2f} of the peer's tap")
    finally:
        server.stop()
    return cells


def measure_history(app: Side, plan: Plan) -> dict:
    """The history page (every hand, newest first): client median ms and worker CPU ms per request
    (its template warmed on the small sitting first)."""
    out = {}
    sizes = [hands for hands in (10, 10_000) if hands in app.reads]
    if sizes:
        app.browser.send("GET", f"/s/{app.reads[sizes[0]].token}/hands/", NAVIGATE, None)
    for hands in sizes:
        request = ("GET", f"/s/{app.reads[hands].token}/hands/", NAVIGATE, None)
        measured = run_round(app, [request] * plan.history, 200)
        out[str(hands)] = {"median_ms": round(measured["median_ms"], 2), "cpu_ms": round(measured["cpu_ms"], 2)}
    return out


def csv_rss(database: str, app: Side, scratch: Path) -> dict:
    """VmRSS of a fresh worker before and after exporting a sitting's CSV once (MB, 1 MB = 1024 kB);
    the sitting is the one polled and paged, so it holds exactly its size's hands."""
    out = {}
    for hands in (10, 10_000):
        if hands not in app.reads:
            continue
        server = Server(f"app-csv-{database}-{hands}", app.server.module, app.server.cwd, app.server.env, scratch)
        try:
            app.server = server.start()
            app.connect()
            sitting = app.reads[hands]
            app.open_page(sitting)
            for _ in range(3):
                app.browser.send(*app.poll_request(sitting))
            time.sleep(SETTLE)
            before = rss_kb(server.worker)
            status, data, seconds, _ = app.browser.send("GET", f"/s/{sitting.token}/hands.csv", NAVIGATE, None)
            if status != 200:
                raise BenchError(f"CSV export: {status} {data[:300]!r}")
            time.sleep(SETTLE)
            after = rss_kb(server.worker)
            out[str(hands)] = {
                "rss_growth_mb": round((after - before) / 1024, 2),
                "rss_before_mb": round(before / 1024, 1),
                "csv_bytes": len(data),
                "ms": round(seconds * 1000, 1),
            }
        finally:
            server.stop()
    return out


# --- statements per request, and the tap's profile, on probe servers -------------------------------


def count_queries(database: str, sides: list[Side], scratch: Path, profile: bool, plan: Plan) -> dict:
    """Statements per tap, poll and page as the driver sends them (BEGIN and COMMIT included), on
    probe servers (gunicorn_probe.py) at 1,000 hands; and, on the app's, a cProfile of its taps."""
    out: dict = {}
    hands = PROFILE_HANDS if PROFILE_HANDS in plan.sizes else plan.sizes[0]
    for side in sides:
        log = scratch / f"queries-{side.name}-{database}.jsonl"
        log.unlink(missing_ok=True)
        env = {**side.server.env, "BENCH_QUERY_LOG": str(log)}
        stats = scratch / f"profile-{side.name}-{database}.prof"
        profiling = profile and side.name == "app"
        if profiling:
            env["BENCH_PROFILE"] = str(stats)
        server = probe_server(f"probe-{side.name}-{database}", side, env, scratch, hands)
        try:
            read, warm = side.reads[hands], side.warms[hands]
            count = {"X-Bench-Count": "1"}
            run_round(side, [side.tap_request(warm) for _ in range(10)], 200, count)
            run_round(side, [side.poll_request(read)] * 10, side.expected("poll"), count)
            run_round(side, [side.page_request(read)] * 3, 200, count)
            if profiling:
                run_round(side, side.requests("tap", hands, plan.profile_taps), 200, {"X-Bench-Profile": "1"})
        finally:
            server.stop()
        records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        kinds: dict[str, list] = {"tap": [], "poll": [], "table_page": []}
        for record in records:
            kind = "tap" if record["method"] == "POST" else "poll" if "/poll/" in record["path"] else "table_page"
            kinds[kind].append(record["statements"])
        counted = {
            f"statements_per_{kind}": max((len(s) for s in lists), default=None) for kind, lists in kinds.items()
        }
        counted["example_tap"] = kinds["tap"][-1] if kinds["tap"] else []
        counted["example_poll"] = kinds["poll"][-1] if kinds["poll"] else []
        counted["example_table_page"] = kinds["table_page"][-1] if kinds["table_page"] else []
        out[side.name] = counted
        if profiling and stats.exists():
            text = sampled_profile(database, side, scratch, plan, hands)
            text += profile_text(
                stats,
                f"{database}, cProfile by the CPU clock",
                plan.profile_taps,
                hands,
                ("cumulative", "app", "tottime"),
            )
            out["profile_text"] = text
    return out


def probe_server(name: str, side: Side, env: dict, scratch: Path, hands: int) -> Server:
    """`side`'s server restarted under the probe (gunicorn_probe.py, told what to do by `env`), its
    connection open on the sitting of `hands` hands, its page loaded and five taps made: warm. The
    caller stops it."""
    server = Server(name, side.server.module, side.server.cwd, env, scratch, config=str(BENCH / "gunicorn_probe.py"))
    side.server = server.start()
    try:
        side.connect()
        side.open_page(side.reads[hands])
        run_round(side, [side.tap_request(side.warms[hands]) for _ in range(5)], 200)
    except BaseException:
        server.stop()
        raise
    return server


def sampled_profile(database: str, app: Side, scratch: Path, plan: Plan, hands: int) -> str:
    """The app's taps under the sampling profiler (gunicorn_probe.py, BENCH_SAMPLE): by CPU time,
    where the tap's CPU goes, in ms per tap; by wall time, what it also waits for."""
    stats = scratch / f"samples-app-{database}.json"
    env = {**app.server.env, "BENCH_SAMPLE": str(stats)}
    for name in ("BENCH_QUERY_LOG", "BENCH_PROFILE"):
        env.pop(name, None)
    server = probe_server(f"probe-sample-{database}", app, env, scratch, hands)
    try:
        measured = run_round(app, app.requests("tap", hands, plan.profile_taps), 200, {"X-Bench-Profile": "1"})
    finally:
        server.stop()
    if not stats.exists():
        return ""
    samples = json.loads(stats.read_text())
    taps = plan.profile_taps
    sections = []
    for clock in ("cpu", "wall"):
        total = sum(sample[clock] for sample in samples)
        cumulative: dict[str, float] = {}
        own: dict[str, float] = {}
        areas: dict[str, float] = {}
        for sample in samples:
            for frame in set(sample["stack"]):
                cumulative[frame] = cumulative.get(frame, 0.0) + sample[clock]
            own[sample["stack"][-1]] = own.get(sample["stack"][-1], 0.0) + sample[clock]
            area = area_of(sample["stack"])
            areas[area] = areas.get(area, 0.0) + sample[clock]

        def rows(table: dict[str, float], count: int, keep=lambda frame, seconds: True, total=total) -> str:
            top = sorted(((f, v) for f, v in table.items() if keep(f, v)), key=lambda item: -item[1])[:count]
            return "\n".join(
                f"{seconds * 1000 / taps:8.3f} {100 * seconds / total:6.1f}%  {short_path(frame)}"
                for frame, seconds in top
            )

        def below_chain(frame: str, seconds: float, total=total) -> bool:  # gunicorn, middleware, view wrappers
            return seconds < 0.8 * total

        if clock == "cpu":
            sections.append(
                f"== {database}, sampled every 0.5 ms, CPU time: {taps} taps at {hands} hands; "
                f"{total * 1000 / taps:.2f} ms CPU per tap inside the WSGI call (the worker's schedstat: "
                f"{measured['cpu_ms']:.2f} ms per tap, with gunicorn's accept, parse and close and the "
                f"sampler's own cost; the client: {measured['median_ms']:.2f} ms median) ==\n"
                f"-- by area (each sample to the innermost frame of a known area): ms per tap, share --\n"
                f"{rows(areas, 20)}\n"
                f"-- top 25 by cumulative, below the middleware chain (frames under 80% of the samples) --\n"
                f"{rows(cumulative, 25, below_chain)}\n"
                f"-- top 25 by cumulative, matches/ only --\n"
                f"{rows(cumulative, 25, lambda frame, seconds: '/matches/' in frame)}\n"
                f"-- top 15 by own time (the Python frame running, C calls included) --\n{rows(own, 15)}\n"
            )
        else:
            sections.append(
                f"== {database}, the same samples by wall time: {total * 1000 / taps:.2f} ms per tap (waits "
                f"included: files, locks, the database server) ==\n"
                f"-- by area: ms per tap, share --\n{rows(areas, 20)}\n"
                f"-- top 15 by cumulative, below the middleware chain --\n{rows(cumulative, 15, below_chain)}\n"
                f"-- top 10 by own time --\n{rows(own, 10)}\n"
            )
    return "".join(sections)


AREAS = (
    ("the sampler itself (its signal handler)", ("/bench/gunicorn_probe.py",)),
    (
        "database driver: execute, fetch (SQLite's work is in-process)",
        ("/django/db/backends/", "/django/db/utils.py", "/sqlite3/", "/psycopg/"),
    ),
    ("ORM: queries built, rows made into models", ("/django/db/models/", "/django/db/transaction.py")),
    ("templates", ("/django/template/", "/template_partials/", "/django/templatetags/", "/matches/templatetags/")),
    (
        "rate limits: counted in the file cache",
        ("/django_ratelimit/", "/matches/counting_cache.py", "/cache/backends/"),
    ),
    ("forms", ("/django/forms/",)),
    ("translation", ("/django/utils/translation/",)),
    ("sessions, CSRF, signing", ("/django/contrib/sessions/", "/django/middleware/csrf.py", "/django/core/signing.py")),
    ("headers: CSP, cache, vary, security", ("/csp/", "/django/utils/cache.py", "/django/middleware/security.py")),
    ("Last Trick's own code", ("/matches/",)),
    ("Django, the rest (middleware, URLs, request, response, utilities)", ("/django/",)),
    ("gunicorn: parse, write", ("/gunicorn/",)),
)


# Helpers that do their callers' work: a sample in them counts for the frame that called them.
TRANSPARENT = (
    "/django/utils/functional.py",
    "/django/utils/safestring.py",
    "/django/utils/connection.py",
    "/django/dispatch/",
    "/asgiref/",
)


def area_of(stack: list[str]) -> str:
    """The innermost frame that belongs to an area decides (the standard library and the helpers
    above count for their callers)."""
    for frame in reversed(stack):
        if any(mark in frame for mark in TRANSPARENT):
            continue
        for name, marks in AREAS:
            if any(mark in frame for mark in marks):
                return name
    return "other"


def short_path(text: str) -> str:
    text = text.replace(sysconfig.get_paths()["purelib"] + "/", "")
    text = text.replace(str(APP) + "/", "").replace(str(ROOT) + "/", "")
    return re.sub(r"/usr/(local/)?lib/python3\.\d+/", "", text)


def profile_text(path: Path, title: str, taps: int, hands: int, views: tuple[str, ...]) -> str:
    """Top 25 of a cProfile dump: by cumulative time, by cumulative time within the app's own code
    (matches/), by own time."""
    import pstats

    sections = [
        (
            f"== {title}: {taps} taps at {hands} hands, inside the gunicorn worker (cProfile's own cost "
            "inflates code that makes many small calls: read it for what calls what) =="
        )
    ]
    for view in views:
        buffer = io.StringIO()
        stats = pstats.Stats(str(path), stream=buffer)
        if view == "app":
            stats.sort_stats("cumulative").print_stats(r"/matches/", 25)
            key = "cumulative, matches/ only"
        else:
            stats.sort_stats(view).print_stats(25)
            key = view
        text = short_path(buffer.getvalue())
        body = text[text.find("   ncalls") :] if "   ncalls" in text else text
        head = next((line.strip() for line in text.splitlines() if "function calls" in line), "")
        sections.append(f"-- top 25 by {key} ({head}) --\n{body.rstrip()}")
    return "\n".join(sections) + "\n"


# --- the check of the Python client against wrk ----------------------------------------------------


def ensure_wrk() -> str | None:
    """wrk from Debian's package, installed here when missing (the script runs as root on these
    machines); None, with the reason printed, when it cannot be had."""
    if found := shutil.which("wrk"):
        return found
    if os.geteuid() != 0:
        print("wrk is missing and this is not root: no wrk check.", file=sys.stderr)
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "wrk"]
    for step in (install, ["apt-get", "update", "-q"], install):
        done = subprocess.run(step, env=env, capture_output=True, text=True, check=False)
        if step is install and done.returncode == 0:
            break
    return shutil.which("wrk") or print(f"apt-get could not install wrk: {done.stderr[-500:]}", file=sys.stderr)


WRK_REPS = 5
# At 1,000 hands neither app's tap cost moves as a sitting grows by a few hundred hands (wrk taps one
# sitting for its whole run; at 10 hands, 10 -> 400 hands would draw a longer score chart).
WRK_HANDS = 1_000
# python: bursts of the Python client; wrk: back to back; wrk_paced: 1 ms between requests, so the
# worker waits between them as it does for phones (and for the Python client, and in the cells).
WRK_CLIENTS = ("python", "wrk", "wrk_paced")
WRK_PYTHON = {"poll": 300, "tap": 100}  # requests in each Python burst, about as long as a wrk run


def wrk_check(sides: list[Side], plan: Plan) -> dict:
    """Idle polls and taps at 1,000 hands measured by wrk (one thread, one connection, on core 1) and by
    the Python client, in short alternating bursts on each server (Python, then wrk, five times):
    CPU per request should agree; latency differs by the client's own cost per request."""
    wrk = ensure_wrk()
    if not wrk:
        return {"skipped": "wrk unavailable"}
    out: dict = {"reps": WRK_REPS, "wrk_seconds": plan.wrk_seconds, "python_requests": WRK_PYTHON}
    for request in ("poll", "tap"):
        runs: dict[str, dict[str, list]] = {side.name: {client: [] for client in WRK_CLIENTS} for side in sides}
        for rep in range(WRK_REPS):
            for side in sides if rep % 2 == 0 else sides[::-1]:
                made = side.requests(request, WRK_HANDS, WRK_PYTHON[request])
                runs[side.name]["python"].append(run_round(side, made, side.expected(request)))
                runs[side.name]["wrk"].append(run_wrk(wrk, side, request, plan))
                runs[side.name]["wrk_paced"].append(run_wrk(wrk, side, request, plan, pause_ms=1))
        for side in sides:
            out[f"{side.name}_{request}"] = {client: summary(runs[side.name][client]) for client in WRK_CLIENTS}
            out[f"{side.name}_{request}"]["wrk_requests"] = [r["requests"] for r in runs[side.name]["wrk"]]
        a, p = out[f"app_{request}"], out[f"peer_{request}"]
        out[f"{request}_ratios"] = {
            f"{client}_{key}_ratio": round(a[client][f"{key}_ms"] / p[client][f"{key}_ms"], 3)
            for client in WRK_CLIENTS
            for key in ("cpu", "median")
        }
    return out


def run_wrk(wrk: str, side: Side, request: str, plan: Plan, pause_ms: int = 0) -> dict:
    if request == "tap":
        sitting = side.take(WRK_HANDS)
        method, path, headers, body = side.tap_request(sitting)
        body = re.sub(r"number=\d+", "number={n}", body)
        body = re.sub(r"winner=\d+", "winner={w}", body)
        start, winners = sitting.next - 1, sitting.winners  # the number tap_request took
    else:
        method, path, headers, body = side.poll_request(side.reads[WRK_HANDS])
        start, winners = 1, [1]
    headers = {**headers, "Host": f"127.0.0.1:{side.server.port}"}
    if side.browser.cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in side.browser.cookies.items())
    env = {
        **os.environ,
        "WRK_METHOD": method,
        "WRK_PATH": path,
        "WRK_HEADERS": "\n".join(f"{k}: {v}" for k, v in headers.items()),
        "WRK_BODY": body or "",
        "WRK_START": str(start),
        "WRK_WINNERS": ",".join(map(str, winners)),
        "WRK_DELAY_MS": str(pause_ms),
    }
    command = ["taskset", "-c", str(CLIENT_CORE), wrk, "-t1", "-c1", f"-d{plan.wrk_seconds}s"]
    command += ["-s", str(BENCH / "wrk_requests.lua"), side.browser.origin]
    time.sleep(SETTLE)
    before = side.server.cpu_ns()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    time.sleep(SETTLE)
    after = side.server.cpu_ns()
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("{")), None)
    if done.returncode or not line:
        raise BenchError(f"wrk failed: {(done.stderr or done.stdout)[-800:]}")
    got = json.loads(line)
    errors = sum(value for key, value in got.items() if key.endswith("errors") or key == "timeouts")
    if errors or not got["requests"]:
        raise BenchError(f"wrk {side.name} {request}: {got}")
    return {
        "cpu_ms": (after - before) / 1e6 / got["requests"],
        "median_ms": got["p50_us"] / 1000,
        "p99_ms": got["p99_us"] / 1000,
        "requests": got["requests"],
    }


# --- the floor: a bare gunicorn request -------------------------------------------------------------


def bare_gunicorn(scratch: Path, plan: Plan) -> dict:
    server = Server("floor", "floor_app:application", BENCH, base_env(), scratch)
    try:
        server.start()
        side = Side("floor", server, {})
        side.connect()
        request = ("GET", "/", COMMON, None)
        for _ in range(50):
            side.browser.send(*request)
        rounds = [run_round(side, [request] * plan.polls, 204) for _ in range(plan.rounds)]
    finally:
        server.stop()
    return {"bare_gunicorn_" + key: value for key, value in summary(rounds).items()}


# --- the whole run ---------------------------------------------------------------------------------


def run(
    quick: bool = False,
    databases: tuple[str, ...] = ("sqlite", "postgresql"),
    wrk: bool | None = None,
    profile: bool = True,
) -> dict:
    plan = QUICK if quick else FULL
    wrk = (not quick) if wrk is None else wrk
    try:
        os.sched_setaffinity(0, {CLIENT_CORE})  # the load generator's core; servers are on core 0
    except OSError:
        pass
    results: dict = {
        "peer_ratios": [],
        "http_cells": [],
        "http_plan": {
            "rounds": plan.rounds,
            "taps_per_round": plan.taps,
            "polls_per_round": plan.polls,
            "pages_per_round": plan.pages,
            "quick": quick,
            "client": "Python http.client, one request at a time, latency measured at the client",
        },
        "history_ms": {},
        "history_cpu_ms": {},
        "csv_rss_growth_mb": {},
        "queries_http": {},
        "http_floor": {},
    }
    profiles = []
    global APP
    with tempfile.TemporaryDirectory(prefix="lasttrick-http-") as scratch_name:
        scratch = Path(scratch_name)
        APP = scratch / "app"
        shutil.copytree(ROOT, APP, ignore=SNAPSHOT_IGNORE)
        results["http_app_snapshot"] = snapshot_of(ROOT)
        peer_dir = scratch / "peer"
        shutil.copytree(PEER_SOURCE, peer_dir, ignore=shutil.ignore_patterns("*.sqlite3*", "__pycache__"))
        pg = postgres_urls() if "postgresql" in databases else None
        targets = []
        if "sqlite" in databases:
            targets.append(("sqlite", {s: f"sqlite:///{scratch}/{s}.sqlite3" for s in ("app", "peer")}, None))
        if pg:
            targets.append(("postgresql", *pg))
        results["http_floor"].update(bare_gunicorn(scratch, plan))
        for number, (database, urls, admin_url) in enumerate(targets):
            measured = measure_database(
                database, urls, admin_url, plan, scratch, peer_dir, number == 0, wrk and database == "sqlite", profile
            )
            for cell in measured["cells"]:
                results["http_cells"].append(cell)
                results["peer_ratios"].append(
                    {k: cell[k] for k in ("database", "request", "hands", "cpu_ratio", "median_ratio")}
                )
            results["history_ms"][database] = {k: v["median_ms"] for k, v in measured["history"].items()}
            results["history_cpu_ms"][database] = {k: v["cpu_ms"] for k, v in measured["history"].items()}
            results["csv_rss_growth_mb"][database] = {k: v["rss_growth_mb"] for k, v in measured["csv_rss"].items()}
            results.setdefault("csv_export", {})[database] = measured["csv_rss"]
            size, lines = measured["poll_headers"]["app"]
            results.setdefault("poll_headers", {})[database] = {
                "app": {"bytes": size, "lines": lines},
                "peer": {"bytes": measured["poll_headers"]["peer"][0], "lines": measured["poll_headers"]["peer"][1]},
            }
            results["http_floor"][database] = {**measured["floor"], "tap_stopped_at": measured["tap_floors"]}
            if database == "postgresql":
                results["http_pg_backends"] = measured["backends"]
            queries = measured["queries"]
            if "profile_text" in queries:
                profiles.append(queries.pop("profile_text"))
            results["queries_http"][database] = queries
            if "wrk_check" in measured:
                results["wrk_check"] = {"database": database, "hands": WRK_HANDS, **measured["wrk_check"]}
        if pg:
            with admin_connection(pg[1]) as admin:
                for name in ("lasttrick_http_app", "lasttrick_http_peer"):
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    results["poll_header_bytes"] = max(v["app"]["bytes"] for v in results["poll_headers"].values())
    if profiles:
        path = BENCH / "http_profile.txt"
        path.write_text("".join(profiles))
        results["http_profile"] = str(path.relative_to(ROOT))
    results["http_missed"] = check(results)
    return results


def snapshot_of(root: Path) -> dict:
    """Which code the HTTP part measured: the commit, and how many files differed from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "--short", "HEAD"), "files_changed_since": len(status.splitlines())}


def check(results: dict) -> list[str]:
    missed = []
    for cell in results["http_cells"]:
        if cell["cpu_ratio"] > cell["budget_cpu_ratio"]:
            missed.append(
                f"{cell['database']} {cell['request']} at {cell['hands']} hands: app/peer CPU "
                f"{cell['cpu_ratio']:.2f} > {cell['budget_cpu_ratio']}"
            )
    if results["poll_header_bytes"] > POLL_HEADER_BUDGET:
        missed.append(f"idle poll headers: {results['poll_header_bytes']} B > {POLL_HEADER_BUDGET}")
    return missed


def report(results: dict) -> None:
    print("HTTP, side by side with the peer: one gunicorn sync worker each on core 0, client on core 1")
    print("CPU ms/request (worker + PostgreSQL backend), client median ms: median of rounds [min-max]")
    head = f"{'database':<11}{'request':<11}{'hands':>6}  {'app cpu':<20}{'peer cpu':<20}{'cpu x':>6}  "
    head += f"{'app median':<20}{'peer median':<20}{'med x':>6}{'p99 x':>7}{'budget':>9}"
    print(head)

    def spread(part: dict, key: str) -> str:
        low, high = part[f"{key}_spread"]
        return f"{part[key]:.2f} [{low:.2f}-{high:.2f}]"

    for cell in results["http_cells"]:
        flag = "ok" if cell["cpu_ratio"] <= cell["budget_cpu_ratio"] else "MISS"
        print(
            f"{cell['database']:<11}{cell['request']:<11}{cell['hands']:>6}  "
            f"{spread(cell['app'], 'cpu_ms'):<20}{spread(cell['peer'], 'cpu_ms'):<20}{cell['cpu_ratio']:>6.2f}  "
            f"{spread(cell['app'], 'median_ms'):<20}{spread(cell['peer'], 'median_ms'):<20}"
            f"{cell['median_ratio']:>6.2f}{cell['p99_ratio']:>7.2f}{'<=' + str(cell['budget_cpu_ratio']):>9} {flag}"
        )
    print(f"idle poll response headers (app): {results['poll_header_bytes']} B (budget {POLL_HEADER_BUDGET})")
    print(f"history page, client median ms: {results['history_ms']}")
    print(f"CSV export, worker RSS growth MB: {results['csv_rss_growth_mb']}")
    for database, sides in results["queries_http"].items():
        line = ", ".join(
            f"{name} {q.get('statements_per_tap')}/{q.get('statements_per_poll')}/{q.get('statements_per_table_page')}"
            for name, q in sides.items()
        )
        print(f"statements per tap/poll/page at the driver, {database}: {line}")
    floor = results["http_floor"]
    print(
        f"floor: bare gunicorn request {floor['bare_gunicorn_cpu_ms']:.3f} ms CPU, "
        f"{floor['bare_gunicorn_median_ms']:.3f} ms median; raw SQL tap transaction "
        + ", ".join(
            f"{db} {floor[db]['raw_sql_tap_ms_median']:.3f} ms" for db in ("sqlite", "postgresql") if db in floor
        )
    )
    for database in ("sqlite", "postgresql"):
        for stop, cells in floor.get(database, {}).get("tap_stopped_at", {}).items():
            print(
                f"floor, {database}: {TAP_STOPS[stop]}, CPU app / the peer's whole tap at "
                + ", ".join(f"{c['hands']:,} hands {c['cpu_ratio']:.2f}" for c in cells)
            )
    if wrk := results.get("wrk_check"):
        if "skipped" in wrk:
            print(f"wrk check skipped: {wrk['skipped']}")
        for request in ("poll", "tap"):
            if f"{request}_ratios" not in wrk:
                continue
            a, p, r = wrk[f"app_{request}"], wrk[f"peer_{request}"], wrk[f"{request}_ratios"]
            print(
                f"client check, {request} ({wrk['database']}, {wrk['hands']} hands, medians of {wrk['reps']} "
                "alternate bursts): CPU ms app/peer = ratio; median ms app/peer"
            )
            for client in WRK_CLIENTS:
                print(
                    f"  {client:<10} {a[client]['cpu_ms']:6.2f} / {p[client]['cpu_ms']:6.2f} = "
                    f"{r[f'{client}_cpu_ratio']:.2f};  {a[client]['median_ms']:6.2f} / {p[client]['median_ms']:6.2f}"
                )
            for cell in results["http_cells"]:
                if (cell["database"], cell["request"], cell["hands"]) == (wrk["database"], request, wrk["hands"]):
                    print(
                        f"  {'cells':<10} {cell['app']['cpu_ms']:6.2f} / {cell['peer']['cpu_ms']:6.2f} = "
                        f"{cell['cpu_ratio']:.2f};  {cell['app']['median_ms']:6.2f} / {cell['peer']['median_ms']:6.2f}"
                        "  (the table above: Python client, the servers taking turns)"
                    )
    if results.get("http_profile"):
        print(f"profile of the app's tap inside the worker: {results['http_profile']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed-app", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--db", choices=("sqlite", "postgresql"), action="append", help="default: both; with --quick, SQLite only"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results there")
    parser.add_argument("--wrk", action=argparse.BooleanOptionalAction, help="check the client against wrk")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    if args.seed_app:
        seed_app(args.seed_app)
        return 0
    databases = tuple(args.db or (("sqlite",) if args.quick else ("sqlite", "postgresql")))
    results = run(quick=args.quick, databases=databases, wrk=args.wrk, profile=args.profile)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if results["http_missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
