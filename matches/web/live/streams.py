"""The phones' live connections: Server-Sent Events, held by the ASGI server's event loop (no thread).

Each event's id is the sitting's version: a phone that reconnects sends it back (Last-Event-ID) and
gets the current table at once if it missed anything. A `ping` event as the stream opens and every
HEARTBEAT_SECONDS keeps carrier NATs and proxies from closing a quiet connection, and tells the page that a
quiet stream is alive: one silent past its heartbeat may be dead without an error (a Wi-Fi gone quiet),
and the page says so and reopens it (static/live.js). An event, not a comment: a page never sees those."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import lru_cache

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

from matches.models import Group, Sitting
from matches.web.live.feeds import hub
from matches.web.live.hub import GROUP, PENDING, SITTING, Hub, Listener
from matches.web.live.regions import Region, find, shown_version, versions
from matches.web.one_value import is_digits
from matches.web.tokens import link_field

RETRY_MS = 2000  # how soon a phone's browser reconnects after the connection drops
NOT_READ = object()  # the region could not be read (the database is away): read again at the next wake or soon
READ_AGAIN_SECONDS = 2.0  # the table's read, for all its phones here, while the database is away


@require_safe
async def sitting_events(request: HttpRequest, token: str) -> HttpResponse:
    return await sitting_stream(request, token, watching=False)


@require_safe
async def watch_events(request: HttpRequest, token: str) -> HttpResponse:
    return await sitting_stream(request, token, watching=True)


@require_safe
async def group_events(request: HttpRequest, token: str) -> HttpResponse:
    return await group_stream(request, link_field(watching=False), token)


@require_safe
async def group_watch_events(request: HttpRequest, token: str) -> HttpResponse:
    return await group_stream(request, link_field(watching=True), token)


def seen_version(request: HttpRequest) -> int | None:
    """The version the phone shows: Last-Event-ID when reconnecting, else the page's `?v=`."""
    seen = request.headers.get("Last-Event-ID") or request.GET.get("v", "")
    return int(seen) if is_digits(seen) and len(seen) < 12 else None


async def sitting_stream(request: HttpRequest, token: str, watching: bool) -> HttpResponse:
    try:
        found = await reached_by(Sitting, link_field(watching), token)
    except DatabaseError:
        return try_again()
    if found is None:
        return HttpResponse(status=404)  # EventSource gives up on a 404; the page's own links say why
    sitting_id, version, group_id = found
    live = hub()
    listener = live.listen(SITTING, sitting_id, version, group_id)
    events = table_events(live, listener, sitting_id, seen_version(request), translation.get_language(), watching, token)
    return event_stream(events)


async def reached_by(model: type[Sitting] | type[Group], link: str, token: str) -> tuple[int, int] | None:
    """(id, version, group id) of what the link reaches (regions.find); None for a token no link has."""
    return await sync_to_async(find, thread_sensitive=False)(model, link, token)


async def table_events(
    live: Hub, listener: Listener, sitting_id: int, seen: int | None, language: str, watching: bool, token: str
) -> AsyncIterator[str]:
    try:
        yield f"retry: {RETRY_MS}\n\n" + ping()
        while True:
            region = live.region_now(sitting_id, language, watching)
            if region is PENDING:
                # A read that waits for the database (its pool, its lock) still lets a heartbeat through.
                reading = retrieved(asyncio.ensure_future(live.region(sitting_id, language, watching)))
                while not (await asyncio.wait({reading}, timeout=settings.LIVE_HEARTBEAT_SECONDS))[0]:
                    yield ping()
                try:
                    region = reading.result()
                except DatabaseError:  # the database is away: say nothing new, try at the next wake or heartbeat
                    region = NOT_READ
            if region is NOT_READ:  # read again at the next change, or soon: the phone must not stay behind
                if not await woken(listener.changed, min(READ_AGAIN_SECONDS, settings.LIVE_HEARTBEAT_SECONDS)):
                    yield ping()
                continue
            if region is None or region.links[1 if watching else 0] != token:
                yield event("gone", "")  # deleted, or its links were made new: the page says so
                return
            if region.moved_to:
                yield event("gone", region.moved_to)
                return
            if region.version != seen:
                yield table_event(region)
                seen = region.version
            if not await woken(listener.changed):
                yield ping()
            elif live.region_now(sitting_id, language, watching, render=False) is PENDING:
                # A moment, for the tap's view to keep the region it renders after its commit (then changes a
                # moment apart make one push); one kept already goes at once.
                await asyncio.sleep(settings.LIVE_COALESCE_SECONDS)
    finally:
        live.leave(SITTING, sitting_id, listener)


async def group_stream(request: HttpRequest, link: str, token: str) -> HttpResponse:
    try:
        found = await reached_by(Group, link, token)
        if found is None:
            return HttpResponse(status=404)
        group_id, _, _ = found
        _, now = await sync_to_async(versions, thread_sensitive=False)([], [group_id])
    except DatabaseError:
        return try_again()
    # Its page names the version it shows, its matches' newest change included: a hand recorded while the
    # phone was away (the group's own version unchanged) is caught up too.
    missed = shown_version(now.get(group_id)) != request.GET.get("v", "")
    return event_stream(group_events_of(group_id, now.get(group_id), missed))


async def group_events_of(group_id: int, now: object, missed: bool) -> AsyncIterator[str]:
    """Only "changed": the page fetches its group region again (a group page changes rarely)."""
    live = hub()
    listener = live.listen(GROUP, group_id, now)
    try:
        yield f"retry: {RETRY_MS}\n\n" + ping()
        if missed:
            yield event("changed", "")
        while True:
            yield event("changed", "") if await woken(listener.changed) else ping()
    finally:
        live.leave(GROUP, group_id, listener)


def retrieved(task: asyncio.Future) -> asyncio.Future:
    """`task`, whose failure is taken note of even when no stream is left to read it (a phone gone)."""
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    return task


async def woken(changed: asyncio.Event, seconds: float | None = None) -> bool:
    """Wait for a change, at most `seconds` (default: a heartbeat); True if one came."""
    try:
        async with asyncio.timeout(seconds or settings.LIVE_HEARTBEAT_SECONDS):  # (wait_for costs a task each time)
            await changed.wait()
    except TimeoutError:
        return False
    changed.clear()
    return True


def try_again() -> HttpResponse:
    """The database did not answer: the phone's EventSource stops, and live.js tries again later."""
    response = HttpResponse(status=503)
    response["Retry-After"] = "5"
    add_never_cache_headers(response)
    return response


@lru_cache(maxsize=256)  # written once per version and language, whatever the number of phones
def table_event(region: Region) -> str:
    return f"id: {region.version}\n" + event("table", region.html)


def ping() -> str:
    """The heartbeat, its data the period in seconds: the page waits that long, and a half more, for the next."""
    return event("ping", f"{settings.LIVE_HEARTBEAT_SECONDS:g}")


def event(name: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {name}\n{lines}\n"


def event_stream(events: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    add_never_cache_headers(response)
    return response
