"""`make run` is how a table plays on a laptop: safe for strangers on the same Wi-Fi to reach."""

import re
import socket
import subprocess
import sys
import time

from tests import servers
from tests.servers import ROOT, Phone, clean_environment

MARKER = "sentry-like-secret-8f3e1c"  # an environment variable of the shell that started the server
DEBUG_SIGNS = ["URLconf", "urlpatterns", "Traceback", "DATABASES", "SECRET_KEY", "settings.py", "Request Method"]


def secret_key(env_file) -> str:
    return re.search(r"^SECRET_KEY=(.+)$", env_file.read_text(), re.M)[1]


def make_run(tmp_path, open_files: tuple[int, int] | None = None, **settings: str):
    """`make run` as a table's laptop runs it (a developer's old `.env` asking for DEBUG=1 included), from a
    shell with a secret in its environment; started with the (soft, hard) limit of `open_files` when given,
    and `settings` in its environment."""
    secret = f"https://{MARKER}@errors.example.org/1"
    return servers.make_run(tmp_path, open_files=open_files, SENTRY_DSN=secret, **settings)


def shows_nothing_private(body: str) -> None:
    for sign in [*DEBUG_SIGNS, MARKER]:
        assert sign not in body, sign


def test_make_run_shows_strangers_no_settings_urls_or_environment(tmp_path):
    (tmp_path / ".env").write_text("DEBUG=1\n")  # written by an older `make`: must not turn DEBUG on
    with make_run(tmp_path) as url:
        stranger = Phone()
        missing = stranger.get(f"{url}/no/such/page/")
        assert missing.status == 404 and "There is nothing at this address" in missing.body
        shows_nothing_private(missing.body)

        form = stranger.get(f"{url}/start/agram/")
        assert form.status == 200 and stranger.csrf
        fields = {f"field{i}": "x" for i in range(1500)}  # over Django's limit of 1,000 fields
        oversized = stranger.post(f"{url}/start/agram/", fields, htmx=False)
        assert oversized.status == 400 and "This request has too many fields" in oversized.body
        shows_nothing_private(oversized.body)

        stylesheet = re.search(r'href="(/static/app\.[0-9a-f]+\.css)"', form.body)[1]
        assert stranger.get(url + stylesheet).status == 200  # whitenoise, hashed names: DEBUG is off
        headers = {name.lower(): value for name, value in stranger.get(url + "/").headers.items()}
        assert headers.get("server") == "uvicorn"  # the ASGI server, not runserver
        # Phones open the laptop's plain-HTTP Wi-Fi address, where chromium ignores this header with a
        # console error: it is not sent there.
        assert "cross-origin-opener-policy" not in headers
    printed = (tmp_path / "make-run.log").read_text()
    assert "Phones on the same Wi-Fi open" in printed or "No local network found" in printed


def test_the_log_of_make_run_holds_no_link_token(tmp_path):
    """Refused requests, unknown links and a dropped connection are logged (the access log turned on
    too, as an operator may): by a label, never by the token that would let a reader change the table."""
    with make_run(tmp_path, GUNICORN_CMD_ARGS="--access-logfile -") as url:
        phone = Phone()
        phone.get(url + "/")
        demo = phone.post(url + "/demo/", {}, htmx=False)
        table = {name.lower(): value for name, value in demo.headers.items()}["location"]
        table = table if table.startswith("http") else url + table
        token = table.rstrip("/").rsplit("/", 1)[1]
        assert phone.get(table).status == 200
        assert Phone().post(table + "tap/", {"number": 2, "winner": 1}).status == 403  # no CSRF token
        assert phone.post(table + "poll/", {}).status == 405
        assert phone.post(table + "tap/", {"number": 99, "winner": 9}).status == 400
        assert phone.get(f"{url}/g/{token}/?next=%2Fs%2F{token}%2F").status == 404
        assert phone.get(f"{url}/gw/{token}/").status == 404
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as dropped:  # a phone that goes away mid-request
            dropped.sendall(f"POST /s/{token}/tap/ HTTP/1.1\r\nHost: {host}\r\nContent-Length: 99\r\n\r\nnum".encode())
        watch = Phone().get(table + "share/").body
        watch_token = re.search(r"/w/([A-Za-z0-9_-]+)/", watch)[1]
        assert phone.post(table + "links/", {}, htmx=False).status == 302  # the link leaked: new links
        assert phone.get(table).status == 404 and phone.get(f"{url}/w/{watch_token}/").status == 404
    logged = (tmp_path / "make-run.log").read_text()
    assert "/poll/" in logged and "Not Found" in logged  # the access log and Django's warnings are there
    assert token not in logged and watch_token not in logged, logged


def test_make_run_adds_its_key_to_an_env_file_without_a_last_newline(tmp_path):
    (tmp_path / ".env").write_text("TIME_ZONE=UTC")
    with make_run(tmp_path) as url:
        assert Phone().get(url + "/").status == 200
    assert (tmp_path / ".env").read_text().splitlines()[0] == "TIME_ZONE=UTC"


def test_a_few_idle_connections_do_not_hold_up_the_table(tmp_path):
    with make_run(tmp_path) as url:
        host, port = url.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port))) for _ in range(6)]
        for connection in idle:
            connection.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
        started = time.monotonic()
        assert Phone().get(url + "/").status == 200
        assert time.monotonic() - started < 5
        for connection in idle:
            connection.close()


def test_make_run_makes_a_secret_key_once_and_keeps_it(tmp_path):
    with make_run(tmp_path):
        first = secret_key(tmp_path / ".env")
    with make_run(tmp_path):
        assert secret_key(tmp_path / ".env") == first
    assert len(first) >= 50 and first != "dev-only-insecure-key-for-local-play"
    assert (tmp_path / ".env").stat().st_mode & 0o077 == 0  # readable by its owner alone


def test_make_run_answers_the_laptops_own_names_only(tmp_path):
    with make_run(tmp_path) as url:
        phone = Phone()
        assert phone.get(url + "/").status == 200
        assert phone.get(url + "/", headers={"Host": "localhost"}).status == 200
        assert phone.get(url + "/", headers={"Host": "evil.example.org"}).status == 400


def test_make_run_on_a_port_in_use_says_so_and_how_to_pick_another(tmp_path):
    """Before: the addresses were printed as if all was well, then gunicorn failed five times with
    "Connection in use". Now the port is checked first, and nothing else is done."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = clean_environment(
            PORT=str(port),
            ENV_FILE=str(tmp_path / ".env"),
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            STATIC_ROOT=str(tmp_path / "static"),
        )
        started = time.monotonic()
        run = subprocess.run(["make", "-s", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    printed = run.stdout + run.stderr
    assert run.returncode != 0, printed
    assert f"Port {port} is in use" in printed
    other = re.search(r"make run PORT=(\d+) \(or PORT=(\d+) make run\)", printed)  # how to pick another
    assert other and other[1] == other[2] and int(other[1]) != port
    for before in ("Last Trick on this computer", "Phones on the same Wi-Fi", "Connection in use"):
        assert before not in printed
    assert not (tmp_path / "db.sqlite3").exists()  # checked first: nothing set up
    assert time.monotonic() - started < 30


def test_bin_run_refuses_a_port_that_is_not_a_port(tmp_path):
    env = clean_environment(PORT="eighty", ENV_FILE=str(tmp_path / ".env"))
    run = subprocess.run(["bin/run", sys.executable], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "PORT=eighty is not a port" in run.stdout + run.stderr


def test_a_table_keeps_playing_while_two_hundred_clients_send_their_headers_a_byte_at_a_time(tmp_path):
    """Slow clients wait on the event loop, never on a request thread: with 200 of them trickling
    their headers, every tap is answered within 5 s. How much slower: `make bench`."""
    with make_run(tmp_path) as url:
        host, port = url.removeprefix("http://").split(":")
        phone = Phone()
        phone.get(url + "/")
        demo = phone.post(url + "/demo/", {}, htmx=False)
        table = {name.lower(): value for name, value in demo.headers.items()}["location"]
        table = table if table.startswith("http") else url + table
        phone.get(table)
        slow = [socket.create_connection((host, int(port))) for _ in range(200)]
        header = b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nX-Slow: " + b"x" * 200
        answered, dropped = [], set()
        for number in range(2, 12):  # the demo's hand 1 is recorded
            for at in range(2):  # two more bytes from every slow client between taps
                for connection in slow:
                    try:
                        sent = (number - 2) * 2 + at
                        connection.sendall(header[sent : sent + 1])
                    except OSError:
                        dropped.add(connection)
            started = time.monotonic()
            answer = phone.post(table + "tap/", {"number": number, "winner": number % 4 + 1})
            answered.append((answer.status, time.monotonic() - started))
        for connection in slow:
            connection.close()
    assert [status for status, _ in answered] == [200] * 10
    assert not dropped  # all 200 were held open meanwhile
    assert max(seconds for _, seconds in answered) < 5, answered


def address_of(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def logged(tmp_path, words: str, within: float = 20) -> str:
    """make run's log once it holds `words` (AssertionError with the log if not within `within` s)."""
    deadline = time.monotonic() + within
    while words not in (log := (tmp_path / "make-run.log").read_text()):
        assert time.monotonic() < deadline, f"{words!r} not in the log:\n{log[-3000:]}"
        time.sleep(0.1)
    return log


def answered(connection: socket.socket, host: str, within: float = 10) -> bytes:
    """The status line a complete request on `connection` gets."""
    connection.settimeout(within)
    connection.sendall(b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
    return connection.recv(64).split(b"\r\n", 1)[0]


def test_make_run_raises_its_open_files_limit_to_the_hard_limit_and_says_so(tmp_path):
    """Each phone's live stream holds a file descriptor: at the usual soft limit of 1,024 a worker
    stopped taking connections near 1,000 phones. Here 256 is raised to 2,048, and 600 connections
    are taken at once."""
    with make_run(tmp_path, open_files=(256, 2048)) as url:
        host, port = address_of(url)
        log = logged(tmp_path, "open files")
        assert re.search(r"open files: up to 2048 per process \(raised from 256\)", log), log
        held = [socket.create_connection((host, port)) for _ in range(600)]
        try:
            assert answered(held[-1], host) == b"HTTP/1.1 200 OK"
        finally:
            for connection in held:
                connection.close()


def test_a_worker_out_of_file_descriptors_says_so_in_the_log(tmp_path):
    """Before: uvloop's libuv accepted and closed what it had no descriptor for, and nothing was logged."""
    with make_run(tmp_path, open_files=(128, 128)) as url:
        host, port = address_of(url)
        held = [socket.create_connection((host, port)) for _ in range(200)]
        try:
            log = logged(tmp_path, "not accepting new connections")
            assert "Too many open files" in log and "open files limit 128" in log, log
        finally:
            for connection in held:
                connection.close()


def test_a_connection_that_never_finishes_its_request_headers_is_closed_within_the_header_timeout(tmp_path):
    with make_run(tmp_path, HEADER_TIMEOUT="2") as url:
        host, port = address_of(url)
        started = time.monotonic()
        half, silent = (socket.create_connection((host, port)) for _ in range(2))
        half.sendall(b"GET / HT")  # and never the rest
        for connection in (half, silent):
            connection.settimeout(15)
            try:
                assert connection.recv(64) == b""  # closed by the server, nothing answered
            except ConnectionResetError:
                pass
            connection.close()
        assert time.monotonic() - started < 2 + 5
        with socket.create_connection((host, port)) as whole:
            assert answered(whole, host) == b"HTTP/1.1 200 OK"  # a request sent whole is answered
