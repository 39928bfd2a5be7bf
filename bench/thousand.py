"""Figure 3: 1,000 tables, 4,000 event streams on ONE app worker, a tap per table a minute: the tap's p99 per
round, and the worker's memory (RSS) and threads before and after the streams open."""

from __future__ import annotations

import asyncio
import statistics

from common import Bench, Meter, note, percentile, spread
from phones import close, connect, hang_up, open_pages, tap_every_minute, transport

FULL = {"tables": 1_000, "rounds": 2, "seconds": 60.0}
QUICK = {"tables": 40, "rounds": 1, "seconds": 6.0}
TAP_P99_BUDGET_MS = 200.0


def needs(quick: bool) -> dict:
    return {"app": {10: (QUICK if quick else FULL)["tables"] + 1}}


async def measure(bench: Bench, quick: bool) -> tuple[list[dict], dict]:
    plan = QUICK if quick else FULL
    warm, *tables = bench.take("app", 10, plan["tables"] + 1)
    server = bench.app("thousand-app")
    pool = transport()
    rounds = []
    try:
        server.start()
        phones = await connect([warm], server, pool)  # a fresh worker, warmed by one table: page, stream, taps
        for _ in range(5):
            await warm.phones[0].tap(warm)
        await asyncio.sleep(1)
        await hang_up(phones)
        await asyncio.sleep(2)
        await open_pages(tables, server, pool)  # pages first: the request threads and sessions are not the streams'
        await asyncio.sleep(2)
        worker = server.worker()
        before = {"rss_mb": worker.memory_info().rss / 2**20, "threads": worker.num_threads()}
        phones = await connect(tables, server, pool)
        await asyncio.sleep(5)
        streams = len(phones)
        after = {"rss_mb": worker.memory_info().rss / 2**20, "threads": worker.num_threads()}
        note(f"{bench.name} {len(tables)} tables: {streams} streams; worker {before} -> {after}")
        for number in range(plan["rounds"]):
            measured = await tap_every_minute(tables, plan["seconds"], Meter(server))
            taps_ms = [t * 1000 for t in measured["taps"]]
            rounds.append({"tap_p99_ms": percentile(taps_ms, 99), "tap_ms": statistics.median(taps_ms),
                           "seen_p95": percentile(measured["seen"], 95),
                           "cpu_ms_per_table_minute": measured["cpu_ms"],
                           "client_late_p99_ms": percentile(measured["lags"], 99) * 1000})
            note(f"{bench.name} {len(tables)} tables round {number + 1}: {rounds[-1]}")
        drops = sum(p.drops for t in tables for p in t.phones)
        await hang_up(phones)
    finally:
        await close(pool)
        server.stop()
    figures = {key: spread([r[key] for r in rounds]) for key in rounds[0]}
    per_phone_kb = (after["rss_mb"] - before["rss_mb"]) * 1024 / streams
    rows = [
        {"figure": f"{len(tables):,} tables on one worker: tap p99 (ms)", "value": figures["tap_p99_ms"],
         "shown": f"median {figures['tap_ms']['median']:.1f} ms; seen p95 {figures['seen_p95']['median']:.3f} s; "
                  f"the load generator's own wake-up late p99 {figures['client_late_p99_ms']['median']:.0f} ms",
         "budget": TAP_P99_BUDGET_MS, "gated": True},
        {"figure": f"{len(tables):,} tables: worker memory per phone, threads", "value": None, "budget": None,
         "shown": f"{per_phone_kb:.1f} kB ({before['rss_mb']:.0f} -> {after['rss_mb']:.0f} MB); "
                  f"threads {before['threads']} -> {after['threads']}; stream drops {drops}"},
    ]
    return rows, {**figures, "before": before, "after": after, "streams": streams, "drops": drops, "rounds": rounds}
