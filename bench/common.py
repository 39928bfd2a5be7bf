"""What the figures share: a database for each server (the app and ../shared/peer) with their seeded sittings,
the servers pinned to core 0, the CPU of a server's processes (psutil), medians with their spread."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
# The peer: PEER_DIR, else beside the checkout (../shared/peer), else this machine's (a clone made elsewhere).
PEERS = [Path(p) for p in (os.environ.get("PEER_DIR"), ROOT.parent / "shared" / "peer", "/work/shared/peer") if p]
PEER = next((p for p in PEERS if (p / "manage.py").exists()), PEERS[0])
SERVER_CORE, CLIENT_CORE = 0, 1
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"


class BenchError(Exception):
    """A run that cannot give its figures: a server that does not start, a non-2xx answer, a push never seen."""


def note(text: str) -> None:
    print(f"  {time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def spread(values: list[float], digits: int = 3) -> dict:
    """The median over rounds with the lowest and the highest round: never the best round alone."""
    rounds = [round(v, digits) for v in values]
    return {"median": round(statistics.median(values), digits), "spread": [min(rounds), max(rounds)], "rounds": rounds}


def percentile(values: list[float], share: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[share - 1] if len(values) > 1 else values[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A gunicorn master and its workers on core 0 (`taskset -c 0`); on PostgreSQL, its database's backends too."""

    def __init__(self, label: str, command: list[str], cwd: Path, env: dict, bench: Bench, workers: int = 1):
        self.label, self.cwd, self.env, self.workers, self.bench = label, cwd, env, workers, bench
        self.port = int(env.get("PORT") or free_port())
        self.command = [c.replace("{port}", str(self.port)) for c in command]
        self.log = bench.scratch / f"{label}.log"
        self.database = urlsplit(env["DATABASE_URL"]).path.strip("/") if bench.postgres else ""
        self.pg, self.proc = None, None  # the connection that finds the backends; gunicorn's master

    def start(self) -> Server:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(["taskset", "-c", str(SERVER_CORE), *self.command], cwd=self.cwd,
                                         env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.proc.poll() is None:
            if len(psutil.Process(self.proc.pid).children()) >= self.workers:
                try:  # any answer: a worker has booted
                    httpx.get(f"http://127.0.0.1:{self.port}/", timeout=10)
                    return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.1)
        self.stop()
        raise BenchError(f"{self.label} did not start: {self.log_tail()}")

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def worker(self) -> psutil.Process:
        return psutil.Process(self.proc.pid).children()[0]

    def processes(self) -> list[psutil.Process]:
        if self.proc.poll() is not None:
            raise BenchError(f"{self.label} exited (code {self.proc.returncode}): {self.log_tail()}")
        master = psutil.Process(self.proc.pid)
        found = [master, *master.children(recursive=True)]
        if self.database:
            self.pg = self.pg or self.bench.admin()
            for (pid,) in self.pg.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,)):
                try:
                    found.append(psutil.Process(pid))
                except psutil.Error:  # a backend that has just ended
                    pass
        return found

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.pg:
            self.pg.close()
            self.pg = None


class Meter:
    """CPU seconds (user + system) a server spends over a window: its process tree and its database's backends,
    read twice a second from a thread, so that a process started meanwhile counts from zero and one that
    ends counts too."""

    def __init__(self, server: Server):
        self.server = server

    def start(self) -> Meter:
        self.t0, self.first, self.last, self.done = time.time(), {}, {}, threading.Event()
        self.sample()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()
        return self

    def run(self) -> None:
        while not self.done.wait(0.5):
            self.sample()

    def sample(self) -> None:
        for proc in self.server.processes():
            try:
                with proc.oneshot():
                    key, cpu = (proc.pid, proc.create_time()), sum(proc.cpu_times()[:2])
            except psutil.Error:
                continue
            self.first.setdefault(key, 0.0 if key[1] > self.t0 else cpu)
            self.last[key] = cpu

    def stop(self) -> float:
        self.done.set()
        self.thread.join()
        self.sample()
        return sum(self.last[key] - self.first[key] for key in self.last)


@dataclass
class Table:
    """A seeded sitting: its token, the next hand's number, what a tap posts as `winner`, its phones."""

    side: str
    token: str
    next: int
    winners: list
    phones: list = field(default_factory=list)
    version: int = 0  # the app's: the version its tapping phone shows (a phone's tap sends its own table's)


def snapshot(scratch: Path) -> Path:
    """The app's code as the run starts, served from a copy: the tree may be edited during the run."""
    skip = shutil.ignore_patterns(".git", ".venv", ".hypothesis", "tests", "staticfiles", "__pycache__", "*.sqlite3*",
                                  ".env*", ".ratelimit", ".pytest_cache")
    return Path(shutil.copytree(ROOT, scratch / "app", ignore=skip))


class Bench:
    """One database engine: a database of this run for each server, their settings, their seeded tables."""

    def __init__(self, database: str, scratch: Path, admin_url: str, app_dir: Path):
        self.name, self.scratch, self.admin_url, self.app_dir = database, scratch, admin_url, app_dir
        self.postgres = database == "postgresql"
        urls = {side: f"sqlite:///{scratch}/{side}.sqlite3" for side in ("app", "peer")}
        self.databases = {side: f"lasttrick_bench_{side}_{os.getpid()}" for side in urls} if self.postgres else {}
        for side, name in self.databases.items():  # of this run alone: another may run meanwhile
            with self.admin() as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            urls[side] = urlsplit(admin_url)._replace(path=f"/{name}").geturl()
        # Only these settings: no stray variable of this shell changes a figure. Rate limits out of the way.
        base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
        self.app_env = {**base, "DATABASE_URL": urls["app"], "DJANGO_SETTINGS_MODULE": "scorekeeper.settings",
                        "DEBUG": "0", "PLAIN_HTTP": "1", "SECRET_KEY": "bench-only-" + "x" * 50,
                        "ENV_FILE": str(scratch / "app.env"), "ALLOWED_HOSTS": "127.0.0.1",
                        "STATIC_ROOT": str(scratch / "static"), "RATELIMIT_DIR": str(scratch / "ratelimit"),
                        "TAP_RATE_LIMIT": "100000/m", "TAP_ADDRESS_RATE_LIMIT": "100000/m"}
        self.peer_env = {**base, "DATABASE_URL": urls["peer"], "DJANGO_SETTINGS_MODULE": "peer.settings",
                         "DEBUG": "0", "SECRET_KEY": "bench-only-peer", "ALLOWED_HOSTS": "127.0.0.1"}
        self.peer_dir = Path(shutil.copytree(PEER, scratch / "peer", ignore=shutil.ignore_patterns("*.sqlite3*")))
        self.pools: dict[str, dict[int, list[Table]]] = {"app": {}, "peer": {}}

    def admin(self):
        import psycopg

        return psycopg.connect(self.admin_url, autocommit=True, connect_timeout=3)

    def close(self) -> None:
        for name in self.databases.values():
            with self.admin() as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def seed(self, app: dict[int, int], peer: dict[int, int]) -> None:
        """The app's sittings through its own verbs (bench/seed_app.py, on core 0 while no server runs there),
        the peer's by its `manage.py seed` meanwhile."""
        python, seed_app = sys.executable, str(self.app_dir / "bench" / "seed_app.py")
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
        seeding = subprocess.Popen(["taskset", "-c", str(SERVER_CORE), python, seed_app, json.dumps(app)],
                                   cwd=self.app_dir, env=self.app_env, **pipes)
        peer_run = {"cwd": self.peer_dir, "env": self.peer_env, "capture_output": True, "text": True}
        done = subprocess.run([python, "manage.py", "migrate", "-v0"], **peer_run)
        for hands, count in peer.items():
            if done.returncode == 0:
                done = subprocess.run([python, "manage.py", "seed", "--hands", str(hands), "--sittings", str(count)],
                                      **peer_run)
                rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
                self.pools["peer"][hands] = [Table("peer", r["token"], r["next"], r["winners"]) for r in rows]
        out, err = seeding.communicate()
        if seeding.returncode or done.returncode:
            raise BenchError(f"seeding failed: {err[-2000:]} {done.stderr[-2000:]}")
        for row in map(json.loads, out.splitlines()):
            table = Table("app", row["token"], row["next"], [1, 2, 3, 4], version=row["version"])
            self.pools["app"].setdefault(row["hands"], []).append(table)

    def take(self, side: str, hands: int, count: int) -> list[Table]:
        pool = self.pools[side].get(hands, [])
        if len(pool) < count:
            raise BenchError(f"{side}: {count} sittings of {hands} hands asked for, {len(pool)} seeded")
        taken, pool[:] = pool[:count], pool[count:]
        return taken

    def app(self, label: str) -> Server:
        """The app as production serves it: gunicorn, the app's uvicorn worker on scorekeeper.asgi (one here)."""
        command = [sys.executable, "-m", "gunicorn", "scorekeeper.asgi:application", "--worker-class",
                   "scorekeeper.server.Worker", "--workers", "1", "--bind", "127.0.0.1:{port}",
                   "--graceful-timeout", "5", "--log-level", "warning"]
        return Server(f"{label}-{self.name}", command, self.app_dir, self.app_env, self)

    def peer(self, label: str) -> Server:
        command = [sys.executable, "-m", "gunicorn", "peer.wsgi", "--workers", "1", "--worker-class", "sync",
                   "--bind", "127.0.0.1:{port}", "--log-level", "warning"]
        return Server(f"{label}-{self.name}", command, self.peer_dir, self.peer_env, self)
