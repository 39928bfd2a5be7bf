"""Figure 4: slow clients. The app served exactly as `make run` serves it (bin/run, its default workers), on
core 0; a phone taps every half second, without, then with 200 connections that send their request headers a
byte a second (reopened when the server closes one), then with and without, and so on. The tap's median
with / without, per round."""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from common import Bench, Server, free_port, note, spread
from phones import Phone, close, transport

FULL = {"clients": 200, "rounds": 6, "seconds": 10.0}
QUICK = {"clients": 20, "rounds": 1, "seconds": 4.0}
RATIO_BUDGET = 2.0
DATABASES = ("sqlite",)  # make run's database


def needs(quick: bool) -> dict:
    return {"app": {10: 1}}


async def slow_client(port: int, counts: dict) -> None:
    """A request whose headers come a byte a second and never end."""
    request = f"GET /s/slow/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Padding: {'x' * 4000}\r\n\r\n".encode()
    while True:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(1)
            continue
        counts["open"] += 1
        try:
            for byte in request:
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    await asyncio.wait_for(reader.read(1024), 1.0)
                    break  # answered or closed by the server: open another
                except TimeoutError:
                    pass
        except OSError:
            pass
        finally:
            counts["open"] -= 1
            writer.close()


async def taps(phone: Phone, table, seconds: float) -> float:
    times, t0 = [], time.monotonic()
    while time.monotonic() - t0 < seconds:
        times.append((await phone.tap(table))[0] * 1000)
        await asyncio.sleep(0.5)
    return statistics.median(times)


async def measure(bench: Bench, quick: bool) -> tuple[list[dict], dict]:
    plan = QUICK if quick else FULL
    env = {**bench.app_env, "PORT": str(free_port())}
    del env["ALLOWED_HOSTS"]  # bin/run names this computer's hosts itself
    (table,) = bench.take("app", 10, 1)
    server = Server(f"make-run-{bench.name}", ["bin/run", sys.executable], bench.app_dir, env, bench, workers=2).start()
    pool = transport()
    phone = Phone(server, pool)
    rounds = []
    try:
        await phone.open(table)
        for _ in range(5):
            await phone.tap(table)
        for number in range(plan["rounds"]):  # without then with, then with then without, ...
            without = await taps(phone, table, plan["seconds"]) if number % 2 == 0 else None
            counts = {"open": 0}
            clients = [asyncio.create_task(slow_client(server.port, counts)) for _ in range(plan["clients"])]
            await asyncio.sleep(3)  # every slow connection open
            with_slow, held = await taps(phone, table, plan["seconds"]), counts["open"]
            for client in clients:
                client.cancel()
            await asyncio.gather(*clients, return_exceptions=True)
            without = without or await taps(phone, table, plan["seconds"])
            rounds.append({"without_ms": without, "with_ms": with_slow, "ratio": with_slow / without, "held": held})
            note(f"slow clients round {number + 1}: {rounds[-1]}")
    finally:
        await close(pool)
        server.stop()
    figures = {key: spread([r[key] for r in rounds]) for key in rounds[0]}
    row = {"figure": f"tap median with {plan['clients']} slow clients / without (make run)", "value": figures["ratio"],
           "shown": f"{figures['with_ms']['median']:.1f} / {figures['without_ms']['median']:.1f} ms; "
                    f"{figures['held']['median']:.0f} held open", "budget": RATIO_BUDGET, "gated": True}
    return [row], {**figures, "rounds": rounds}
