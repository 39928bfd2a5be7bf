"""A stand-in for the app's live updates, for checking bench/live_bench.py's load generator alone
(`bench/live_bench.py --stub`): a bare ASGI app, no Django, no database, that speaks the protocol of
issue 22 as the load generator sees it. A sitting is any token, at version 11 until tapped.

- GET  /s/<token>/             a page with hx-headers' X-CSRFToken, a csrftoken cookie, the #table region
- POST /s/<token>/tap/         the version goes up by one; answers the #table region (data-version)
- GET  /s/<token>/poll/?v=N    204 while N is the version, else the region
- GET  /s/<token>/events/?v=N  Server-Sent Events: `retry`, the region at once when N is not the
                               version (Last-Event-ID wins), then each change; `: ping` every 15 s
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

VERSIONS: dict[str, int] = {}
LISTENERS: dict[str, set[asyncio.Queue]] = {}
FIRST = 11


def region(token: str, version: int) -> str:
    rows = "".join(f"<tr><td>Player {n}</td><td>{version % (n + 2)}</td></tr>" for n in range(4))
    return (
        f'<section id="table" data-poll data-version="{version}" data-events="/s/{token}/events/" '
        f'hx-get="/s/{token}/poll/?v={version}">\n<h2>Hand {version - 10}</h2>\n<table>{rows}</table>\n</section>'
    )


async def answer(send, status: int, body: bytes = b"", headers: list | None = None) -> None:
    head = [(b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def events(scope, receive, send, token: str) -> None:
    query = parse_qs(scope["query_string"].decode())
    headers = dict(scope["headers"])
    shown = headers.get(b"last-event-id", b"").decode() or (query.get("v") or [""])[0]
    queue: asyncio.Queue = asyncio.Queue()
    LISTENERS.setdefault(token, set()).add(queue)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream"),
                (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
    version = VERSIONS.get(token, FIRST)
    if shown != str(version):
        queue.put_nowait(version)
    async def until_disconnect() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    disconnected = asyncio.ensure_future(until_disconnect())
    try:
        while True:
            got = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({got, disconnected}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
            if disconnected in done:
                got.cancel()
                await send({"type": "http.response.body", "body": b""})
                return
            if got in done:
                version = got.result()
                data = "".join(f"data: {line}\n" for line in region(token, version).splitlines())
                body = f"id: {version}\nevent: table\n{data}\n"
            else:
                got.cancel()
                body = ": ping\n\n"
            await send({"type": "http.response.body", "body": body.encode(), "more_body": True})
    finally:
        LISTENERS[token].discard(queue)


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while (message := await receive())["type"] != "lifespan.shutdown":
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) < 2 or parts[0] != "s":
        await answer(send, 404)
        return
    token, action = parts[1], (parts[2] if len(parts) > 2 else "")
    version = VERSIONS.get(token, FIRST)
    html = [(b"content-type", b"text/html; charset=utf-8")]
    if action == "" and scope["method"] == "GET":
        page = (
            f"<!doctype html><html><body hx-headers='{{\"X-CSRFToken\": \"stub{token[:8]}\"}}'>"
            f"{region(token, version)}</body></html>"
        )
        await answer(send, 200, page.encode(), [*html, (b"set-cookie", b"csrftoken=stubcookie; Path=/")])
    elif action == "tap" and scope["method"] == "POST":
        while (await receive()).get("more_body"):
            pass
        version = VERSIONS[token] = version + 1
        for queue in LISTENERS.get(token, ()):
            queue.put_nowait(version)
        await answer(send, 200, region(token, version).encode(), html)
    elif action == "poll":
        shown = (parse_qs(scope["query_string"].decode()).get("v") or [""])[0]
        if shown == str(version):
            await answer(send, 204)
        else:
            await answer(send, 200, region(token, version).encode(), html)
    elif action == "events":
        await events(scope, receive, send, token)
    else:
        await answer(send, 404)
