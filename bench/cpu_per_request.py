"""Figure 1: CPU per request, app / peer, of the tap and of the table page at 10, 1,000 and 10,000 hands (or the
most a match may hold, matches/domain/capacity.py, with the taps made here), the servers taking turns request
by request. Each sitting takes taps up to a tenth of its size (20 at 10 hands): every tap finds about that
many hands. A target, not gated."""

from __future__ import annotations

import asyncio
import math
import sys

from common import ROOT, Bench, Meter, note, spread
from phones import NAVIGATE, Phone, close, transport

sys.path.insert(0, str(ROOT))
from matches.domain.capacity import MATCH_HANDS  # noqa: E402  (pure Python, no Django)

LARGEST = min(10_000, MATCH_HANDS * 10 // 11 // 100 * 100)  # with a tenth more in taps, still a match's size
FULL = {"sizes": (10, 1_000, LARGEST), "rounds": 5, "tap": 100, "page": 40}
QUICK = {"sizes": (10, 200), "rounds": 2, "tap": 20, "page": 10}
WARM = 5  # requests of each kind before the rounds: templates loaded, connections made
TARGET = 1.0


def per_sitting(hands: int) -> int:
    return max(20, hands // 10)


def needs(quick: bool) -> dict:
    plan = QUICK if quick else FULL
    count = {h: math.ceil((plan["rounds"] * plan["tap"] + WARM) / per_sitting(h)) for h in plan["sizes"]}
    return {"app": count, "peer": count}


async def alternate(servers: dict, send, count: int, rounds: int) -> dict[str, list[float]]:
    """Rounds of `count` requests to each server, taking turns request by request: CPU ms per request."""
    cpu = {side: [] for side in servers}
    for _ in range(rounds):
        meters = {side: Meter(server).start() for side, server in servers.items()}
        for i in range(count):
            for side in ("app", "peer") if i % 2 == 0 else ("peer", "app"):
                await send(side)
        await asyncio.sleep(0.05)  # the last answer's connection closed on both
        for side, meter in meters.items():
            cpu[side].append(meter.stop() * 1000 / count)
    return cpu


async def measure(bench: Bench, quick: bool) -> tuple[list[dict], dict]:
    plan = QUICK if quick else FULL
    servers = {"app": bench.app("requests-app"), "peer": bench.peer("requests-peer")}
    pool = transport()
    rows, raw = [], {}
    try:
        for server in servers.values():
            server.start()
        for hands in plan["sizes"]:
            phones = {side: Phone(server, pool) for side, server in servers.items()}
            tables = {side: bench.take(side, hands, needs(quick)[side][hands]) for side in servers}
            for side, phone in phones.items():
                await phone.open(tables[side][0])
            queues = {side: [t for t in tables[side] for _ in range(per_sitting(hands))] for side in servers}

            async def page(side: str) -> None:
                await phones[side].send("GET", f"/s/{tables[side][0].token}/", NAVIGATE)

            async def tap(side: str) -> None:
                await phones[side].tap(queues[side].pop(0))

            for request, send, count in (("table page", page, plan["page"]), ("tap", tap, plan["tap"])):
                await alternate(servers, send, WARM, 1)
                cpu = await alternate(servers, send, count, plan["rounds"])
                ratio = spread([a / p for a, p in zip(cpu["app"], cpu["peer"])])
                app, peer = spread(cpu["app"], 2), spread(cpu["peer"], 2)
                note(f"{bench.name} {request} at {hands} hands: app {app['rounds']} peer {peer['rounds']} ms CPU")
                rows.append({"figure": f"{request} CPU per request at {hands:,} hands, app / peer", "value": ratio,
                             "shown": f"{app['median']:.2f} / {peer['median']:.2f} ms", "budget": TARGET,
                             "gated": False})
                raw[f"{request} {hands}"] = {"ratio": ratio, "app_ms": app, "peer_ms": peer}
    finally:
        await close(pool)
        for server in servers.values():
            server.stop()
    return rows, raw
