"""Faults on a production-style server (gunicorn, 3 workers) while phones tap and poll: the database's
connections ended again and again (PostgreSQL: pg_terminate_backend, as a restart, a failover or a
pooler does; SQLite: the file write-locked by another process past the app's wait, as a backup does).
Wanted: no 500 nor any other 5xx, a 503 only with Retry-After (the phone then sends the same tap
again), every acknowledged tap saved once and in order, totals right."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
from collections import Counter

import pytest
from django.db import connection

from matches.models import Sitting
from tests.conftest import WORKED
from tests.servers import EventStream, Phone, free_port, gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]
TABLES, HANDS, FAULTS = 4, 25, 4
RATES = {"TAP_RATE_LIMIT": "10000/h", "TAP_ADDRESS_RATE_LIMIT": "100000/h", "SQLITE_TIMEOUT": "1"}


def end_connections() -> int:
    """Whatever this database's app connections are, ended now; how many were."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            )
            return cursor.fetchone()[0]
    locker = sqlite3.connect(connection.settings_dict["NAME"], timeout=5)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        time.sleep(1.6)  # past the app's SQLITE_TIMEOUT of 1 s: its writes fail as "database is locked"
        locker.rollback()
    finally:
        locker.close()
    return 1


class Table:
    """One table's phones: one taps hand after hand, sending a tap again after a 503 as the page
    does; another loads the page and polls. Every answer's status is kept."""

    def __init__(self, base: str, sitting: Sitting) -> None:
        self.url = f"{base}/s/{sitting.token}/"
        self.sitting = sitting
        self.statuses: Counter[int] = Counter()
        self.without_retry_after = 0
        self.acknowledged: list[tuple[int, int]] = []  # (hand number, winner's seat 1-based)

    def seen(self, answer) -> None:
        self.statuses[answer.status] += 1
        headers = {name.lower(): value for name, value in answer.headers.items()}
        if answer.status == 503 and not headers.get("retry-after", "").isdecimal():
            self.without_retry_after += 1

    def tap(self, faulted: threading.Event | None = None) -> None:
        """Hand after hand until HANDS are in and the faults have all been made (a fast machine
        would otherwise finish its hands before the faults are done)."""
        phone = Phone()
        self.seen(phone.get(self.url))
        number = 0
        while number < HANDS or (faulted and not faulted.is_set() and number < 50 * HANDS):
            number += 1
            winner = number % len(WORKED) + 1
            while True:
                answer = phone.post(self.url + "tap/", {"number": number, "winner": winner})
                self.seen(answer)
                if answer.status != 503:
                    break
                time.sleep(0.2)  # (the page waits Retry-After; shortened here)
            if answer.status == 200:
                self.acknowledged.append((number, winner))
            time.sleep(0.05)

    def watch(self, done: threading.Event) -> None:
        phone = Phone()
        while not done.is_set():
            self.seen(phone.get(self.url))
            self.seen(phone.get(self.url + "poll/", htmx=True))
            time.sleep(0.1)


def test_phones_keep_playing_while_the_databases_connections_are_ended_again_and_again(tmp_path):
    sittings = [Sitting.start("agram", WORKED) for _ in range(TABLES)]
    with gunicorn(tmp_path, workers=3, **RATES) as base:
        tables = [Table(base, sitting) for sitting in sittings]
        done = threading.Event()
        faulted = threading.Event()
        tappers = [threading.Thread(target=table.tap, args=(faulted,)) for table in tables]
        watchers = [threading.Thread(target=table.watch, args=(done,)) for table in tables]
        for thread in tappers + watchers:
            thread.start()
        deadline = time.monotonic() + 120
        while min(len(table.acknowledged) for table in tables) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # the workers are up and every phone is playing
        ended = []
        while any(thread.is_alive() for thread in tappers) and time.monotonic() < deadline:
            ended.append(end_connections())
            if len([n for n in ended if n]) >= FAULTS:
                faulted.set()
            time.sleep(1.0)
        faulted.set()
        for thread in tappers:
            thread.join(max(1, deadline - time.monotonic()))
        done.set()
        for thread in watchers:
            thread.join(30)
        log = next(tmp_path.glob("gunicorn-*.log")).read_text()

    statuses = sum((table.statuses for table in tables), Counter())
    print(f"answers: {dict(statuses)}; faults: {ended}")
    assert not [status for status in statuses if status >= 500 and status != 503], statuses
    said = "database connection lost" if connection.vendor == "postgresql" else "database busy"  # (SQLite: locked)
    assert len([n for n in ended if n]) >= FAULTS and said in log, ended  # they hit
    assert sum(table.without_retry_after for table in tables) == 0
    for table in tables:
        hands = list(table.sitting.hands.order_by("number").values_list("number", "winner__position"))
        assert [(number, seat + 1) for number, seat in hands] == table.acknowledged
        assert len(table.acknowledged) >= HANDS and table.sitting.check_totals() == []


def test_a_phone_showing_the_table_gets_each_tap_soon_after_the_databases_connections_were_ended(tmp_path):
    """The table a push carries is read on a connection the database may have ended (the pool's idle ones all
    die at once): read again at once on a new one, never left for the next heartbeat (a minute here)."""
    sitting = Sitting.start("agram", WORKED)
    with gunicorn(tmp_path, workers=2, LIVE_HEARTBEAT_SECONDS="60", **RATES) as base:
        url, tapper = f"{base}/s/{sitting.token}/", Phone()
        tapper.get(url)
        others = [EventStream(f"{url}events/?v={sitting.version}") for _ in range(4)]  # (on either worker)
        try:
            for number in range(1, 4):
                end_connections()
                time.sleep(1.5)  # the workers' feeds are listening again, their pools' idle connections dead
                while (answer := tapper.post(url + "tap/", {"number": number, "winner": 1})).status == 503:
                    time.sleep(0.2)  # (the page waits Retry-After; shortened here)
                assert answer.status == 200, answer.status
                sitting.refresh_from_db()
                for other in others:
                    while other.next(timeout=10).id != str(sitting.version):
                        pass  # (an older version first: a feed reconnected and read it again)
        finally:
            for other in others:
                other.close()


def start_redis(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(0.5)
    return server


def test_phones_keep_playing_while_redis_goes_away_and_comes_back(tmp_path):
    """Redis holds the rate limits and carries the live updates between servers: while it is away
    nothing is counted (the table keeps playing) and the feed reconnects once it is back."""
    if shutil.which("redis-server") is None:
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            raise RuntimeError("redis-server is missing")
        pytest.skip("no redis-server here")
    sitting = Sitting.start("agram", WORKED)
    port = free_port()
    redis = start_redis(port)
    try:
        with gunicorn(tmp_path, workers=3, CACHE_URL=f"redis://127.0.0.1:{port}/0", **RATES) as base:
            table = Table(base, sitting)
            done = threading.Event()
            tapper = threading.Thread(target=table.tap)
            watcher = threading.Thread(target=table.watch, args=(done,))
            tapper.start(), watcher.start()
            while len(table.acknowledged) < 5:
                time.sleep(0.05)
            os.killpg(redis.pid, signal.SIGKILL)
            redis.wait()
            while len(table.acknowledged) < 15 and tapper.is_alive():
                time.sleep(0.05)
            redis = start_redis(port)  # back, empty
            tapper.join(120)
            done.set()
            watcher.join(30)
    finally:
        os.killpg(redis.pid, signal.SIGKILL)
        redis.wait()
    assert not [status for status in table.statuses if status >= 500], table.statuses
    assert len(table.acknowledged) == HANDS and sitting.hands.count() == HANDS and sitting.check_totals() == []
