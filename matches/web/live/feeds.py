"""How an app process hears that a sitting or group changed, wherever the change was made.

PostgreSQL: LISTEN on one connection per process (models.announce NOTIFYs in each change's transaction).
Redis (CACHE_URL): SUBSCRIBE, the same. SQLite (one machine): read the versions of the sittings and
groups changed in the last seconds, every LIVE_CHECK_SECONDS, one query each. Whatever the feed, every
LIVE_SWEEP_SECONDS each process also reads the versions of all it shows, in case a message was lost (a
Redis restart, a dropped connection) or a change wrote no time (a sitting deleted), and every
AWAY_SWEEP_SECONDS while the feed's server is away."""

from __future__ import annotations

import asyncio
import logging
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from matches.models.announce import CHANNEL
from matches.web.live.hub import GROUP, SITTING, Hub
from matches.web.live.regions import recent_changes, versions
from matches.web.live.sqlite_commits import commits_of

logger = logging.getLogger(__name__)
RECONNECT_SECONDS = 1.0
PING_SECONDS = 1.0  # a Redis feed quiet this long is asked whether it is still there
STILL_AWAY_SECONDS = 300  # while a feed's server stays away, the log says so again this often
AWAY_SWEEP_SECONDS = 1.0  # while it is away, the sweep is the feed: every phone hears of a change within a second
# A change is looked for this long after its time: a tap's transaction may commit a little after the
# time it wrote, and a check may come late on a busy machine.
RECENT_SECONDS = 5.0


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """This process's hub, its feed running (one per event loop: a test's loop gets its own)."""
    loop = asyncio.get_running_loop()
    if loop not in _hubs:
        for old in [old for old in _hubs if old.is_closed()]:
            del _hubs[old]
        _hubs[loop] = Hub()
    live = _hubs[loop]
    if live.feed is None or live.feed.done():  # started, or started again after a failure
        live.feed = loop.create_task(run_feed(live))
    return live


async def run_feed(hub: Hub) -> None:
    listen = {"postgres": listen_postgres, "redis": listen_redis}.get(settings.LIVE_FEED, check_recent)
    checks = asyncio.get_running_loop().create_task(check_versions(hub, settings.LIVE_SWEEP_SECONDS))
    try:
        await listen(hub)
    finally:
        checks.cancel()


async def check_recent(hub: Hub) -> None:
    """SQLite: every LIVE_CHECK_SECONDS, the sittings and groups changed in the last few seconds (one
    indexed range query each, however many tables this process shows), each change heard once. Read only
    while someone listens here and SQLite says something was committed since (sqlite_commits)."""
    read = sync_to_async(recent_changes, thread_sensitive=False)
    heard_of: dict[str, int] = {}  # what the last reads returned, so a change still in the window is not heard again
    commits = commits_of(connections["default"].settings_dict)
    while True:
        await asyncio.sleep(settings.LIVE_CHECK_SECONDS)
        if not hub.listeners or (commits is not None and not commits.since_last_ask()):
            continue
        try:
            sittings, groups = await read(RECENT_SECONDS)
        except Exception as error:  # the database is away: try at the next interval
            logger.warning("live check failed: %s", error)
            if commits is not None:
                commits.close()  # so the next check reads whatever it says
            continue
        now, renamed, touched = {}, set(), set()  # groups changed themselves, groups whose matches changed
        for pk, version, group_id in sittings:
            now[f"s{pk}"] = version
            if heard_of.get(f"s{pk}") != version:
                hub.changed(SITTING, pk, version)
                touched.add(group_id)
        for pk, version in groups:
            now[f"g{pk}"] = version
            if heard_of.get(f"g{pk}") != version:
                renamed.add(pk)
        heard_of = now
        # A group page shows its version with its newest match change: one opened since the change (still in
        # the window) shows it already, and is not woken to fetch the same again.
        watched = (renamed | touched) & set(hub.watched(GROUP))
        shown = await group_versions(watched)
        for pk in renamed:
            hub.group_changed(pk, shown.get(pk))
        for pk in watched - renamed:
            hub.changed(GROUP, pk, shown.get(pk))


def heard(hub: Hub, payload: str) -> None:
    """`s<id>:<version>:<group id>` or `g<id>`, as models.announce sends them; anything else is ignored."""
    kind, _, rest = payload.partition(":")
    if not kind[1:].isdecimal():
        return
    if kind[0] == "g":
        hub.changed(GROUP, int(kind[1:]))
    elif kind[0] == "s":
        version, _, group = rest.partition(":")
        hub.changed(SITTING, int(kind[1:]), int(version) if version.isdecimal() else None)
        if group.isdecimal():
            hub.changed(GROUP, int(group))


async def sweep(hub: Hub) -> None:
    """Read the versions of all this process shows: wake the phones behind, not those that show it."""
    sittings, groups = hub.watched(SITTING), hub.watched(GROUP)
    if not sittings and not groups:
        return
    now, group_now = await sync_to_async(versions, thread_sensitive=False)(sittings, groups)
    for pk in sittings:
        hub.changed(SITTING, pk, now.get(pk))  # gone (None): its phones are told
    for pk in groups:
        hub.changed(GROUP, pk, group_now.get(pk))


async def check_versions(hub: Hub, interval: float) -> None:
    last = time.monotonic()
    while True:
        await asyncio.sleep(min(interval, AWAY_SWEEP_SECONDS))
        if not hub.feed_away and time.monotonic() - last < interval:
            continue
        last = time.monotonic()
        try:
            await sweep(hub)
        except Exception as error:  # the database is away: try at the next interval
            logger.warning("live check failed: %s", error)


async def caught_up(hub: Hub) -> None:
    """Once LISTEN or SUBSCRIBE holds, what changed before it did: every table looks again at once (its
    stream pushes only a newer version); a group page only when its version moved (its push has the phone
    fetch the page), read, or every one when the read fails."""
    for pk in hub.watched(SITTING):
        hub.changed(SITTING, pk)
    groups = hub.watched(GROUP)
    now = await group_versions(groups)
    for pk in groups:
        hub.changed(GROUP, pk, now.get(pk))


async def group_versions(group_ids) -> dict[int, tuple]:
    """The version of each group `group_ids` with its newest match change; {} when the database does not
    answer (every page is then woken, and looks again itself)."""
    if not group_ids:
        return {}
    try:
        return (await sync_to_async(versions, thread_sensitive=False)([], sorted(group_ids)))[1]
    except Exception as error:
        logger.warning("live check failed: %s", error)
        return {}


class Outage:
    """What the log says of a feed's connection: once when it is lost, again only every STILL_AWAY_SECONDS
    while its server stays away (it tries again every second), and once when it is back. Meanwhile `hub`'s
    sweep stands in for the feed (check_versions)."""

    def __init__(self, name: str, hub: Hub | None = None) -> None:
        self.name, self.since, self.said, self.hub = name, 0.0, 0.0, hub

    def lost(self, error: Exception) -> None:
        if self.hub is not None:
            self.hub.feed_away = True
        now = time.monotonic()
        if not self.since:
            self.since = self.said = now
            logger.warning("live updates: %s connection lost (%s); reconnecting", self.name, error)
        elif now - self.said >= STILL_AWAY_SECONDS:
            self.said = now
            away = now - self.since
            logger.warning("live updates: %s still away after %d s (%s); reconnecting", self.name, away, error)

    def back(self) -> None:
        if self.hub is not None:
            self.hub.feed_away = False
        if self.since:
            logger.warning("live updates: %s connection back after %d s", self.name, time.monotonic() - self.since)
            self.since = 0.0


async def listen_postgres(hub: Hub) -> None:
    import psycopg

    outage = Outage("PostgreSQL", hub)
    while True:
        held = None
        try:
            async with await psycopg.AsyncConnection.connect(conninfo(), autocommit=True) as listening:
                await listening.execute(f"LISTEN {CHANNEL}")
                held = time.monotonic()
                outage.back()
                await caught_up(hub)
                async for notify in listening.notifies():
                    heard(hub, notify.payload)
        except (psycopg.Error, OSError) as error:
            outage.lost(error)
        await asyncio.sleep(reconnect_pause(held))


async def listen_redis(hub: Hub) -> None:
    import redis
    import redis.asyncio

    outage = Outage("Redis", hub)
    while True:
        held = None
        try:
            client = redis.asyncio.Redis.from_url(settings.CACHE_URL, socket_connect_timeout=2)
            async with client, client.pubsub() as pubsub:
                await pubsub.subscribe(CHANNEL)
                held = time.monotonic()
                outage.back()
                await caught_up(hub)
                await hear_redis(hub, pubsub)
        except (redis.RedisError, OSError) as error:
            outage.lost(error)
        await asyncio.sleep(reconnect_pause(held))


async def hear_redis(hub: Hub, pubsub) -> None:
    """Each message as it comes; a PING whenever none came for a second. A Redis that stops answering (hung,
    or its network gone quiet: no error, no close) raises TimeoutError within PING_SECONDS * 3."""
    import redis

    answered = time.monotonic()
    while True:
        message = await pubsub.get_message(timeout=PING_SECONDS)
        if message is not None:  # a change, or a PING's answer
            answered = time.monotonic()
            if message.get("type") == "message":
                heard(hub, message["data"].decode("utf-8", "replace"))
        elif time.monotonic() - answered > 2 * PING_SECONDS:
            raise redis.TimeoutError(f"no answer to PING for {2 * PING_SECONDS:g} s")
        else:
            await pubsub.ping()


def reconnect_pause(held: float | None) -> float:
    """Seconds before a feed connects again: none when its connection had held a while (a restart or a cut
    ended it: the phones wait on the reconnection), else RECONNECT_SECONDS (the server is away: no busy loop)."""
    return RECONNECT_SECONDS if held is None or time.monotonic() - held < RECONNECT_SECONDS else 0


def conninfo() -> str:
    from psycopg.conninfo import make_conninfo

    db = connections["default"].settings_dict
    options = {k: v for k, v in db.get("OPTIONS", {}).items() if k in ("sslmode", "sslrootcert", "application_name")}
    given = {"dbname": db["NAME"], "user": db["USER"], "password": db["PASSWORD"], "host": db["HOST"]}
    given["port"] = db["PORT"]
    return make_conninfo(**{k: str(v) for k, v in given.items() if v}, **options)
