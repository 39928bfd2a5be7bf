"""Real servers for the tests that cross process boundaries: gunicorn (or `make run`) started on a
free loopback port, and phones that talk to them over HTTP with their own cookies."""

from __future__ import annotations

import functools
import http.client
import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_url() -> str:
    """The Redis database of this test process: `TEST_REDIS_URL`, else one of 127.0.0.1:6379's per leg
    and xdist worker, so that one process's flush never empties another's counts (`make test` runs
    the two legs side by side)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0) % 8
    leg = 8 if os.environ.get("DATABASE_URL", "").startswith("postgres") else 0
    return os.environ.get("TEST_REDIS_URL") or f"redis://127.0.0.1:6379/{15 - leg - worker}"


def database_url() -> str:
    """The test database as a DATABASE_URL, for a server to share it with the test."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{auth}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


def clean_environment(**changes: str) -> dict[str, str]:
    """This process's environment without what the test settings put there, plus `changes`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "CACHE_URL"}
    }
    env.update(changes)
    return env


def answers(port: int) -> bool:
    """Whether the server on `port` answers a request: gunicorn's arbiter listens (and the kernel accepts)
    before a worker has booted, which on a loaded machine takes seconds."""
    probe = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        probe.request("GET", "/")
        probe.getresponse().read()
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        probe.close()


@contextmanager
def serving(command: list[str], env: Mapping[str, str], port: int, log: Path) -> Iterator[str]:
    """Run `command` (a server listening on `port`) until the block ends; yields its base URL."""
    with open(log, "wb") as out:
        server = subprocess.Popen(
            command, cwd=ROOT, env=dict(env), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while not answers(port):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@contextmanager
def gunicorn(tmp_path: Path, workers: int = 1, **settings: str) -> Iterator[str]:
    """gunicorn with production settings on plain HTTP, sharing the test database; `settings` are
    environment variables (rates, CACHE_URL, ...). Static files are collected once per run."""
    static = tmp_path.parent / "collected-static"
    env = clean_environment(
        DJANGO_SETTINGS_MODULE="scorekeeper.settings",
        DEBUG="0",
        PLAIN_HTTP="1",
        SECRET_KEY="shared-by-every-server-of-one-deployment-" + "x" * 20,
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url(),
        STATIC_ROOT=str(static),
        RATELIMIT_DIR=str(tmp_path / "ratelimit"),
        ENV_FILE=str(tmp_path / "no.env"),
        **settings,
    )
    if not (static / "staticfiles.json").exists():
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "scorekeeper.asgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--worker-class", "scorekeeper.server.Worker", "--graceful-timeout", "3"]  # as bin/run serves
    with serving([*command, "--workers", str(workers)], env, port, tmp_path / f"gunicorn-{port}.log") as url:
        yield url


@contextmanager
def make_run(tmp_path: Path, open_files: tuple[int, int] | None = None, **settings: str) -> Iterator[str]:
    """`make run` on a free port, with its own .env, database and rate-limit counts, as a table's laptop
    runs it; started with the (soft, hard) limit of `open_files` when given; `settings` are environment
    variables. Yields the server's URL on 127.0.0.1."""
    command = ["make", "-s", "run"]
    if open_files:
        command = ["bash", "-c", f"ulimit -Sn {open_files[0]} && ulimit -Hn {open_files[1]} && exec make -s run"]
    for attempt in range(3):  # the free port may be taken by another process before make run checks it
        port = free_port()
        env = clean_environment(
            PORT=str(port),
            WORKERS="1",
            ENV_FILE=str(tmp_path / ".env"),
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            STATIC_ROOT=str(tmp_path / "static"),
            RATELIMIT_DIR=str(tmp_path / "ratelimit"),
            **settings,
        )
        with ExitStack() as stack:
            try:
                url = stack.enter_context(serving(command, env, port, tmp_path / "make-run.log"))
            except RuntimeError as refused:
                if f"Port {port} is in use" in str(refused) and attempt < 2:
                    continue
                raise
            yield url
            return


@dataclass
class Answer:
    status: int
    body: str
    headers: Mapping[str, str]


class Phone:
    """A browser on one phone: its own cookies (session, CSRF), requests as htmx sends them; `source`, a
    loopback address such as 127.0.0.2, connects from there (another machine, as the server sees it)."""

    def __init__(self, source: str = "") -> None:
        self.cookies = http.cookiejar.CookieJar()
        handlers = [urllib.request.HTTPCookieProcessor(self.cookies), NoRedirect()]
        if source:
            handlers.append(ConnectingFrom(source))
        self.opener = urllib.request.build_opener(*handlers)
        self.csrf = ""

    def request(
        self, url: str, data: Mapping[str, object] | None = None, htmx: bool = True, headers: Mapping = {}
    ) -> Answer:
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": self.csrf, **data}).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, headers=dict(headers))
        if htmx:
            request.add_header("HX-Request", "true")
        try:
            with self.opener.open(request, timeout=30) as response:
                answer = Answer(response.status, response.read().decode(), dict(response.headers))
        except urllib.error.HTTPError as error:
            answer = Answer(error.code, error.read().decode(), dict(error.headers))
        if match := CSRF_FIELD.search(answer.body):
            self.csrf = match[1]
        return answer

    def get(self, url: str, htmx: bool = False, headers: Mapping = {}) -> Answer:
        return self.request(url, htmx=htmx, headers=headers)

    def post(self, url: str, data: Mapping[str, object], htmx: bool = True) -> Answer:
        return self.request(url, data, htmx=htmx)


class ConnectingFrom(urllib.request.HTTPHandler):
    """Plain HTTP connections from one local address."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def http_open(self, request):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.source, 0)), request)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Answers are checked as sent: a redirect is an answer, not followed."""

    def redirect_request(self, *args, **kwargs):
        return None


@dataclass
class Event:
    name: str
    data: str
    id: str


class EventStream:
    """A phone's EventSource: one Server-Sent Events connection, read event by event."""

    def __init__(self, url: str, last_event_id: str = "", phone: Phone | None = None) -> None:
        headers = {"Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        request = urllib.request.Request(url, headers=headers)
        opener = phone.opener if phone else urllib.request.build_opener()
        self.response = opener.open(request, timeout=30)
        self.headers = self.response.headers  # (any case)
        self.comments = 0

    def next(self, timeout: float = 5.0, heartbeats: int = 0) -> Event | None:
        """The next event (heartbeats counted, not returned); TimeoutError if none comes in `timeout`.
        With `heartbeats`, None once that many more heartbeats came first."""
        deadline = time.monotonic() + timeout
        goal = self.comments + heartbeats
        name, data, ident = "message", [], ""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no event within {timeout} s")
            self.response.fp.raw._sock.settimeout(left)
            try:
                line = self.response.readline().decode()
            except (TimeoutError, socket.timeout):
                raise TimeoutError(f"no event within {timeout} s") from None
            if line == "":
                raise EOFError("the server closed the stream")
            line = line.rstrip("\n")
            if line == "" and name == "ping":  # a heartbeat: counted, not returned
                name, data, ident = "message", [], ""
                self.comments += 1
                if heartbeats and self.comments >= goal:
                    return None
                continue
            if line == "":
                if data or name != "message":
                    return Event(name, "\n".join(data), ident)
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "":
                continue  # a comment
            elif field == "event":
                name = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                ident = value

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
