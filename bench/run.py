"""`make bench`: the figures of BENCHMARKS.md, each the app beside ../shared/peer in one run.

    bench/run.py [--quick] [--db sqlite|postgresql ...] [--figure NAME ...]

On SQLite, then on PostgreSQL when it answers (DATABASE_URL's server, else 127.0.0.1:5432): prints each figure
beside its budget, writes results.json beside this script, exits 1 when a gated budget is missed, 2 when the
run failed. --quick: SQLite, small counts, nothing gated (the figures of a shared machine move), but any
error fails it: a non-2xx answer, a push never seen, a server that does not start; it leaves
results.json as the last full run wrote it."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import cpu_per_request
import lighthouse
import slow_clients
import table_minute
import thousand
from common import CLIENT_CORE, PG_ADMIN, ROOT, Bench, BenchError, note, snapshot

FIGURES = {f.__name__: f for f in (cpu_per_request, table_minute, thousand, slow_clients, lighthouse)}


def postgres_admin() -> str | None:
    """The PostgreSQL server to make the bench databases on, or None when none answers."""
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    url = urlsplit(url)._replace(path="/postgres").geturl() if url.startswith("postgres") else PG_ADMIN
    try:
        psycopg.connect(url, connect_timeout=3).close()
        return url
    except psycopg.Error as error:
        note(f"PostgreSQL did not answer ({str(error).strip()}): SQLite only")


def verdict(row: dict, quick: bool) -> str:
    if row["budget"] is None or row["value"] is None:
        return ""
    met = row["value"]["median"] >= row["budget"] if row.get("at_least") else row["value"]["median"] <= row["budget"]
    if quick or not row["gated"]:
        missed = "below" if row.get("at_least") else "over"
        return ("within" if met else missed) + (" (quick: not gated)" if quick else " (a target, not gated)")
    return "met" if met else "MISSED"


def table(rows: list[dict], quick: bool) -> str:
    lines = ["| figure | database | median [lowest-highest round] | budget | | app / peer, and beside it |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        value, bound = row["value"], ">=" if row.get("at_least") else "<="
        budget = "" if row["budget"] is None else f"{bound} {row['budget']:g}"
        shown = f"{value['median']:g} [{value['spread'][0]:g}-{value['spread'][1]:g}]" if value else ""
        cells = (row["figure"], row["database"], shown, budget, verdict(row, quick), row["shown"])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def measure(databases: list[str], figures: list, quick: bool, admin: str) -> tuple[list[dict], dict]:
    """Each database in turn: its sittings seeded for every figure at once, then the figures."""
    rows, raw, scratch = [], {}, Path(tempfile.mkdtemp(prefix="lasttrick-bench-"))
    app_dir = snapshot(scratch)
    for database in databases:
        (scratch / database).mkdir()
        bench = Bench(database, scratch / database, admin, app_dir)
        chosen = [f for f in figures if database in getattr(f, "DATABASES", (database,))]
        needs: dict = {"app": {}, "peer": {}}
        for side, sizes in ((side, sizes) for f in chosen for side, sizes in f.needs(quick).items()):
            for hands, count in sizes.items():
                needs[side][hands] = needs[side].get(hands, 0) + count
        try:
            note(f"{database}: seeding {needs}")
            bench.seed(needs["app"], needs["peer"])
            for figure in chosen:
                note(f"{database}: {figure.__name__}")
                got, raw[f"{figure.__name__} {database}"] = asyncio.run(figure.measure(bench, quick))
                rows += [{**row, "database": database} for row in got]
        except BenchError as error:
            raise BenchError(f"{error}\n(the servers' logs are kept in {scratch})") from None
        finally:
            bench.close()
    shutil.rmtree(scratch)
    return rows, raw


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="SQLite, small counts, nothing gated")
    parser.add_argument("--db", action="append", choices=("sqlite", "postgresql"))
    parser.add_argument("--figure", action="append", choices=list(FIGURES))
    args = parser.parse_args()
    os.sched_setaffinity(0, {CLIENT_CORE})  # the load generator; the servers run on core 0
    databases = args.db or (["sqlite"] if args.quick else ["sqlite", "postgresql"])
    admin = postgres_admin() if "postgresql" in databases else None
    databases = [d for d in databases if d == "sqlite" or admin]
    load_before, started = os.getloadavg(), time.time()
    try:
        rows, raw = measure(databases, [FIGURES[f] for f in args.figure or FIGURES], args.quick, admin or PG_ADMIN)
    except BenchError as error:
        print(f"The bench failed: {error}", file=sys.stderr)
        return 2
    load_after = os.getloadavg()
    git = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    commit = git.stdout.strip() or "?"  # "-dirty": the run served uncommitted changes too
    print(table(rows, args.quick))
    when, minutes = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)), (time.time() - started) / 60
    print(f"\n{when}, commit {commit}, {minutes:.0f} min; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    if not args.quick:
        results = {"started": started, "commit": commit, "load_before": load_before, "load_after": load_after,
                   "rows": [{**row, "verdict": verdict(row, False)} for row in rows], "raw": raw}
        (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 1 if any(verdict(row, args.quick) == "MISSED" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
