"""Benchmark of the match table's hot paths, with a budget. Not part of the test suite: `make bench`.

Measures in-process with Django's test client, on a file SQLite database and, when one answers,
on PostgreSQL, at 10, 1,000 and 10,000 hands: tap time (the median of 5 rounds' medians of
200 taps each, with their spread, and the p99 of all 1,000 taps; nothing paused), idle poll time,
SQL queries per tap and per poll, tap response bytes (raw and gzip), and the first load of the
match table with every static asset it loads, compressed as whitenoise serves them. Prints a
table, writes bench/results.json and exits 1 when a budget is missed.

Then, over HTTP, side by side with the peer (shared/peer): bench/http_bench.py. `--http-only` runs
that part alone (results.json keeps the in-process figures); `--quick` makes it a 1-3 minute check
on SQLite (add `--db postgresql` for both) that leaves results.json as it was; `--no-http` skips it.

Then the live updates beside the peer's poll (issue 22): bench/live_bench.py, written under "live".
`--live-only` runs that part alone (with `--quick`: a few minutes on SQLite, results.json kept);
`--no-live` skips it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10, 1_000, 10_000)
TAPS = 200
ROUNDS = 5
POLLS = 300
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/lasttrick_bench"
BUDGET = {
    "tap_ms_median": 4.0,
    "tap_ms_p99": 10.0,
    "tap_ratio_10000_to_10": 1.3,
    "queries_per_tap": 8,
    "queries_per_poll": 2,
    "poll_ms_median": 1.0,
    "tap_bytes_gzip": 1024,  # issue 13: a tap's answer <= 1 KB gzip apart from the score chart
    "first_load_bytes": 40 * 1024,
    "chart_bytes_gzip": 4096,  # the score chart in a tap's answer (1.5 KB at 50 hands: tests/test_score_chart.py)
    "group_page_ms_median": 50.0,  # a group of 12 players, 1,000 finished matches, 50,000 hands (SQLite)
}


# --- one database, in its own process (Django settings are per process) -------------------------------


def setup_django(database_url: str, static_root: str) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="scorekeeper.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        TAP_RATE_LIMIT="1000000/m",
        TAP_ADDRESS_RATE_LIMIT="1000000/m",
        RATELIMIT_DIR=os.path.join(static_root, "ratelimit"),
        DATABASE_URL=database_url,
        CONN_MAX_AGE="600",
    )
    sys.path.insert(0, str(ROOT))
    import django
    from django.conf import settings

    django.setup()
    settings.STATIC_ROOT = static_root
    from django.test.utils import setup_test_environment

    setup_test_environment()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # pages name hashed, compressed files
    import scorekeeper.wsgi  # noqa: F401 - as a gunicorn worker starts


def fill(hands: int):
    """A four-seat Agram sitting with `hands` won hands, written in bulk, totals kept in step."""
    from matches.models import Hand, Seat, Sitting

    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    seats = list(sitting.seats.order_by("position"))
    running = [0, 0, 0, 0]
    rows = []
    for n in range(1, hands + 1):
        running[n % 4] += 1
        rows.append(
            Hand(
                sitting=sitting,
                number=n,
                winner=seats[n % 4],
                dealer_position=(n - 1) % 4,
                points=[1 if p == n % 4 else 0 for p in range(4)],
                running=list(running),
            )
        )
    Hand.objects.bulk_create(rows, batch_size=2000)
    for seat in seats:
        seat.total = seat.hands_won = sum(1 for n in range(1, hands + 1) if n % 4 == seat.position)
    Seat.objects.bulk_update(seats, ["total", "hands_won"])
    sitting.version = hands + 1
    sitting.save(update_fields=["version"])
    assert sitting.check_totals() == []
    return sitting


CHART = re.compile(rb'<figure class="chart">.*?</figure>', re.DOTALL)
GROUP_PLAYERS, GROUP_MATCHES, HANDS_PER_MATCH = 12, 1_000, 50
PAGE_ROUNDS = 15


def fill_group(matches: int):
    """A group of 12 players with `matches` finished Agram matches of 4 or 5 of them, 50 hands
    each, written in bulk with totals and best runs as the verbs keep them."""
    import datetime

    from django.utils import timezone

    from matches.domain.replay import longest_run
    from matches.models import Group, Hand, Player, Seat, Sitting

    group = Group.create("Bench club", [f"Player {i + 1}" for i in range(GROUP_PLAYERS)])
    players = list(Player.objects.filter(group=group).order_by("pk"))
    start = timezone.now() - datetime.timedelta(days=matches)
    sittings = Sitting.objects.bulk_create(
        Sitting(
            group=group,
            game="agram",
            started_at=start + datetime.timedelta(days=m),
            finished_at=start + datetime.timedelta(days=m, hours=2),
            ended_how="match-end",
        )
        for m in range(matches)
    )
    seats, tables = [], []
    for m, sitting in enumerate(sittings):
        table = [players[(m + i * 5) % GROUP_PLAYERS] for i in range(4 + m % 2)]
        tables.append(table)
        winners = [(m * 7 + n * n) % len(table) for n in range(HANDS_PER_MATCH)]
        for position, player in enumerate(table):
            won = winners.count(position)
            seats.append(
                Seat(
                    sitting=sitting,
                    player=player,
                    position=position,
                    total=won,
                    hands_won=won,
                    best_run=longest_run(winners, position),
                )
            )
    seats = Seat.objects.bulk_create(seats, batch_size=2000)
    by_sitting: dict[int, list] = {}
    for seat in seats:
        by_sitting.setdefault(seat.sitting_id, []).append(seat)
    hands = []
    for m, sitting in enumerate(sittings):
        table = by_sitting[sitting.pk]
        running = [0] * len(table)
        for n in range(HANDS_PER_MATCH):
            winner = (m * 7 + n * n) % len(table)
            running[winner] += 1
            hands.append(
                Hand(
                    sitting=sitting,
                    number=n + 1,
                    winner=table[winner],
                    dealer_position=0,
                    points=[int(p == winner) for p in range(len(table))],
                    running=list(running),
                )
            )
    Hand.objects.bulk_create(hands, batch_size=5000)
    Group.objects.filter(pk=group.pk).update(hands=len(hands))  # (kept by the verbs; written in bulk here)
    return group


def measure_group() -> dict:
    """The group page and its statistics at 10 and 1,000 finished matches: median time (and its
    spread over the rounds) and queries, which must not grow with the matches."""
    from django.db import connection
    from django.test import Client

    result: dict = {}
    for matches in (10, GROUP_MATCHES):
        group = fill_group(matches)
        client = Client()
        for name, path in (("group_page", f"/g/{group.token}/"), ("group_stats", f"/g/{group.token}/stats/")):
            assert client.get(path).status_code == 200
            queries: list[str] = []  # every statement sent, counted at the driver

            def counted(execute, sql, params, many, context, queries=queries):
                queries.append(sql)
                return execute(sql, params, many, context)

            with connection.execute_wrapper(counted):
                client.get(path)
            times = []
            for _ in range(PAGE_ROUNDS):
                started = time.perf_counter()
                client.get(path)
                times.append((time.perf_counter() - started) * 1000)
            result[f"{name}_queries_{matches}"] = len(queries)
            result[f"{name}_ms_median_{matches}"] = round(statistics.median(times), 2)
            result[f"{name}_ms_spread_{matches}"] = [round(min(times), 2), round(max(times), 2)]
    return result


def tap(client, url: str, number: int):
    """One tap as htmx sends it: a urlencoded form POST with the HX-Request header."""
    body = f"number={number}&winner={1 + number % 4}"
    return client.post(url, body, content_type="application/x-www-form-urlencoded", HTTP_HX_REQUEST="true")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(hands: int) -> dict:
    import gzip

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    sitting = fill(hands)
    client = Client()
    client.get(sitting.get_absolute_url())  # the phone's first load: session and CSRF cookies
    tap_url, poll_url = f"/s/{sitting.token}/tap/", f"/s/{sitting.token}/poll/"
    for number in range(hands + 1, hands + 21):  # warm up: caches, connection, templates
        tap(client, tap_url, number)
    number = hands + 21
    rounds = []  # every round counts: the median of their medians, and their spread
    for _ in range(ROUNDS):
        times = []
        for _ in range(TAPS):
            start = time.perf_counter()
            response = tap(client, tap_url, number)
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, response.status_code
            number += 1
        rounds.append(times)
    medians = sorted(statistics.median(r) for r in rounds)
    times = [t for r in rounds for t in r]
    first = number
    raw = response.content
    # Queries are counted on further taps, apart: capturing them slows the database cursor down.
    queries = []
    for number in range(first, first + 20):
        with CaptureQueriesContext(connection) as captured:
            tap(client, tap_url, number)
        queries.append(len(captured))
    sitting.refresh_from_db()
    poll_times = []
    for _ in range(POLLS):
        start = time.perf_counter()
        poll = client.get(poll_url, {"v": sitting.version}, HTTP_HX_REQUEST="true")
        poll_times.append((time.perf_counter() - start) * 1000)
        assert poll.status_code == 204 and poll.content == b"", (poll.status_code, poll.content[:80])
    poll_queries = []
    for _ in range(20):
        with CaptureQueriesContext(connection) as captured:
            client.get(poll_url, {"v": sitting.version}, HTTP_HX_REQUEST="true")
        poll_queries.append(len(captured))
    return {
        "database": connection.vendor,
        "hands": hands,
        "tap_ms_median": round(statistics.median(medians), 3),
        "tap_ms_spread": [round(medians[0], 3), round(medians[-1], 3)],
        "tap_ms_p99": round(percentile(times, 0.99), 3),
        "poll_ms_median": round(statistics.median(poll_times), 3),
        "tap_ms_median_of_each_round": [round(statistics.median(r), 3) for r in rounds],
        "queries_per_tap": max(queries),
        "queries_per_poll": max(poll_queries),
        "poll_status": poll.status_code,
        "tap_bytes_raw": len(raw),
        # As the HTTPS proxy compresses it, apart from the score chart, which has its own budget.
        "tap_bytes_gzip": len(gzip.compress(CHART.sub(b"", raw))),
        "chart_bytes_gzip": len(gzip.compress(chart[0])) if (chart := CHART.search(raw)) else 0,
    }


def first_load() -> dict:
    """Bytes a phone downloads to open the match table: the page and every static asset it loads,
    each compressed as whitenoise serves it (the .gz file collectstatic wrote, when smaller)."""
    import gzip
    import re

    from django.conf import settings
    from django.test import Client

    from matches.models import Sitting

    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    page = Client().get(sitting.get_absolute_url())
    text = page.content.decode()
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', text)
    manifest = next((a for a in assets if a.endswith(".webmanifest")), None)
    if manifest:
        icons = json.loads(Path(settings.STATIC_ROOT, manifest.removeprefix("/static/")).read_text())["icons"]
        assets += ["/static/" + icon["src"] for icon in icons if icon["type"] == "image/png"]
    sizes = {"page (gzip, as the proxy sends it)": len(gzip.compress(page.content))}
    third_party = re.findall(r'(?:href|src)="(https?://[^"]+)"', text)
    for asset in dict.fromkeys(assets):
        path = Path(settings.STATIC_ROOT, asset.removeprefix("/static/"))
        gz = path.with_name(path.name + ".gz")
        sizes[asset] = min(path.stat().st_size, gz.stat().st_size if gz.exists() else path.stat().st_size)
    return {"first_load_bytes": sum(sizes.values()), "first_load": sizes, "third_party_requests": third_party}


def worker(database_url: str) -> None:
    with tempfile.TemporaryDirectory() as static_root:
        setup_django(database_url, static_root)
        result = {"runs": [measure(hands) for hands in SIZES]}
        result.update(first_load())
        if database_url.startswith("sqlite"):
            result["group"] = measure_group()
    print(json.dumps(result))


# --- the orchestrator -----------------------------------------------------------------------------


def postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    url = url if url.startswith(("postgres://", "postgresql://")) else PG_DEFAULT
    try:
        import dj_database_url
        from http_bench import admin_connection  # bench/ is this script's folder, first on sys.path

        s = dj_database_url.parse(url)
        with admin_connection(url) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{s["NAME"]}"')
            admin.execute(f'CREATE DATABASE "{s["NAME"]}"')
        return url
    except Exception as error:  # noqa: BLE001 - any failure means: no PostgreSQL leg
        print(f"PostgreSQL did not answer ({error}); measuring SQLite only.", file=sys.stderr)
        return None


def check(results: dict) -> list[str]:
    missed = []
    for run in results["runs"]:
        where = f"{run['database']} at {run['hands']} hands"
        if run["database"] == "sqlite":
            for key in ("tap_ms_median", "tap_ms_p99"):
                if run[key] > BUDGET[key]:
                    missed.append(f"{where}: {key} {run[key]} > {BUDGET[key]}")
        for key in ("queries_per_tap", "queries_per_poll", "poll_ms_median", "tap_bytes_gzip", "chart_bytes_gzip"):
            if key == "poll_ms_median" and run["database"] != "sqlite":
                continue
            if run[key] > BUDGET[key]:
                missed.append(f"{where}: {key} {run[key]} > {BUDGET[key]}")
    for database in {run["database"] for run in results["runs"]}:
        runs = {run["hands"]: run for run in results["runs"] if run["database"] == database}
        counts = {(run["queries_per_tap"], run["queries_per_poll"]) for run in runs.values()}
        if len(counts) > 1:
            missed.append(f"{database}: query counts differ between sizes: {sorted(counts)}")
        if database == "sqlite":
            ratio = runs[10_000]["tap_ms_median"] / runs[10]["tap_ms_median"]
            results["tap_ratio_10000_to_10"] = round(ratio, 3)
            if ratio > BUDGET["tap_ratio_10000_to_10"]:
                missed.append(f"sqlite: tap median at 10,000 hands is {ratio:.2f}x the one at 10")
    group = results.get("group", {})
    for page in ("group_page", "group_stats"):
        if group.get(f"{page}_ms_median_{GROUP_MATCHES}", 0) > BUDGET["group_page_ms_median"]:
            missed.append(f"{page} at {GROUP_MATCHES} matches: {group[f'{page}_ms_median_{GROUP_MATCHES}']} ms")
        if group and group[f"{page}_queries_10"] != group[f"{page}_queries_{GROUP_MATCHES}"]:
            missed.append(f"{page}: queries grow with the matches ({group[f'{page}_queries_10']} at 10)")
    if results["first_load_bytes"] > BUDGET["first_load_bytes"]:
        missed.append(f"first load {results['first_load_bytes']} bytes > {BUDGET['first_load_bytes']}")
    if results["third_party_requests"]:
        missed.append(f"third-party requests: {results['third_party_requests']}")
    return missed


def in_process() -> tuple[dict, list[str]] | None:
    """The in-process part: each database in its own process; None when a worker failed."""
    results: dict = {"runs": []}
    with tempfile.TemporaryDirectory() as scratch:
        urls = [f"sqlite:///{scratch}/bench.sqlite3"]
        if url := postgres_url():
            urls.append(url)
        for url in urls:
            out = subprocess.run(
                [sys.executable, __file__, "--worker", url], capture_output=True, text=True, cwd=ROOT, check=False
            )
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                return None
            measured = json.loads(out.stdout.strip().splitlines()[-1])
            results["runs"] += measured["runs"]
            for key in ("first_load_bytes", "first_load", "third_party_requests", "group"):
                if key in measured:
                    results.setdefault(key, measured[key])
    missed = check(results)
    results["budget"], results["missed"] = BUDGET, missed
    columns = (
        ("database", 10),
        ("hands", 7),
        ("tap med ms", 12),
        ("spread", 14),
        ("tap p99 ms", 12),
        ("poll ms", 9),
        ("q/tap", 7),
        ("q/poll", 8),
        ("tap B", 7),
        ("tap gz B", 10),
    )
    header = "".join(name.ljust(width) if name == "database" else name.rjust(width) for name, width in columns)
    print(header)
    for run in results["runs"]:
        print(
            f"{run['database']:<10}{run['hands']:>7}{run['tap_ms_median']:>12.3f}"
            f"{'-'.join(f'{ms:.2f}' for ms in run.get('tap_ms_spread', (0, 0))):>14}{run['tap_ms_p99']:>12.3f}"
            f"{run['poll_ms_median']:>9.3f}{run['queries_per_tap']:>7}{run['queries_per_poll']:>8}"
            f"{run['tap_bytes_raw']:>7}{run['tap_bytes_gzip']:>10}"
        )
    print(f"tap median ratio, 10,000 to 10 hands (SQLite): {results.get('tap_ratio_10000_to_10')}")
    print(f"first load of the match table: {results['first_load_bytes']} bytes compressed")
    for key, value in results.get("group", {}).items():
        print(f"  {key}: {value}")
    for asset, size in results["first_load"].items():
        print(f"  {size:>7}  {asset}")
    return results, missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", metavar="DATABASE_URL", help=argparse.SUPPRESS)
    parser.add_argument("--http-only", action="store_true", help="only the HTTP side by side with the peer")
    parser.add_argument("--no-http", action="store_true", help="only the in-process part")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="HTTP part: 3 rounds of 60 taps, SQLite only unless --db says, no wrk check; results.json kept",
    )
    parser.add_argument("--db", choices=("sqlite", "postgresql"), action="append", help="HTTP part: which databases")
    parser.add_argument("--live-only", action="store_true", help="only the live updates beside the peer's poll")
    parser.add_argument("--no-live", action="store_true", help="skip the live updates part")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return 0
    results_path = ROOT / "bench" / "results.json"
    missed: list[str] = []
    if args.http_only or args.live_only:
        results = json.loads(results_path.read_text()) if results_path.exists() else {}
    else:
        done = in_process()
        if done is None:
            return 2
        results, missed = done
        if args.no_http and results_path.exists():  # keep the HTTP figures of the last full run
            kept = json.loads(results_path.read_text())
            results.update({key: value for key, value in kept.items() if key not in results})
    if not args.no_http and not args.live_only:
        import http_bench  # bench/http_bench.py (bench/ is this script's folder, first on sys.path)

        databases = tuple(args.db or (("sqlite",) if args.quick else ("sqlite", "postgresql")))
        try:
            http = http_bench.run(quick=args.quick, databases=databases)
        except (http_bench.BenchError, subprocess.CalledProcessError, OSError) as error:
            print(f"HTTP bench failed: {error}", getattr(error, "stderr", "") or "", file=sys.stderr)
            return 2
        print()
        http_bench.report(http)
        if args.quick:
            print("(--quick: bench/results.json left as it was)")
        else:
            results.update(http)
        missed += http["http_missed"]
    if not args.no_live and not args.http_only and not args.no_http or args.live_only:
        import live_bench  # bench/live_bench.py

        databases = tuple(args.db or (("sqlite",) if args.quick else ("sqlite", "postgresql")))
        try:
            live = live_bench.run(quick=args.quick, databases=databases)
        except (live_bench.BenchError, subprocess.CalledProcessError, OSError) as error:
            print(f"Live bench failed: {error}", getattr(error, "stderr", "") or "", file=sys.stderr)
            return 2
        print()
        live_bench.report(live)
        if not args.quick:
            results["live"] = live
        missed += live.get("missed", [])
    if not args.quick:
        results_path.write_text(json.dumps(results, indent=2) + "\n")
    if missed:
        print("BUDGET MISSED:", *missed, sep="\n  ")
        return 1
    print("All budgets met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
