"""A live feed's connection (matches.web.live.feeds): connecting again, saying in the log that its server is
away (once, then every few minutes, once back), the sweep standing in for it meanwhile, and a Redis that
stops answering found out in seconds."""

import asyncio
import logging
import time

import pytest

from matches.web.live import feeds
from matches.web.live.hub import Hub


@pytest.mark.parametrize("held, waits", [(None, True), (0.5, True), (5.0, False)])
def test_a_feed_whose_connection_held_connects_again_at_once_and_one_that_failed_waits(held, waits):
    """A cut of a connection that had held (a restart, a pooler): the phones wait on the reconnection."""
    pause = feeds.reconnect_pause(None if held is None else time.monotonic() - held)
    assert pause == (feeds.RECONNECT_SECONDS if waits else 0)


def test_a_feed_whose_server_stays_away_says_so_once_then_every_few_minutes_and_once_back(caplog, monkeypatch):
    """It tries again every second: one line each time would bury the rest of the log."""
    now = [1000.0]
    monkeypatch.setattr(feeds.time, "monotonic", lambda: now[0])
    outage = feeds.Outage("Redis")
    with caplog.at_level(logging.WARNING, logger=feeds.logger.name):
        for _ in range(feeds.STILL_AWAY_SECONDS + 60):  # five minutes and more of tries, a second apart
            outage.lost(ConnectionRefusedError("refused"))
            now[0] += 1
        outage.back()
        outage.back()  # (each connection after: nothing to say)
    said = [record.getMessage() for record in caplog.records]
    assert said == [
        "live updates: Redis connection lost (refused); reconnecting",
        f"live updates: Redis still away after {feeds.STILL_AWAY_SECONDS} s (refused); reconnecting",
        f"live updates: Redis connection back after {feeds.STILL_AWAY_SECONDS + 60} s",
    ]


def test_while_a_feeds_server_is_away_every_phone_hears_of_a_change_within_a_second(monkeypatch):
    """Its messages lost, the sweep stands in for the feed: not every 15 s but every second, until it is back."""
    swept = []

    async def sweep(hub):
        swept.append(hub.feed_away)

    monkeypatch.setattr(feeds, "sweep", sweep)
    monkeypatch.setattr(feeds, "AWAY_SWEEP_SECONDS", 0.01)  # (the phone's second, quicker here)

    async def run():
        hub = Hub()
        outage = feeds.Outage("Redis", hub)
        outage.lost(ConnectionRefusedError("refused"))
        checks = asyncio.create_task(feeds.check_versions(hub, interval=15))
        while len(swept) < 3:
            await asyncio.sleep(0.01)
        outage.back()
        checks.cancel()
        return hub.feed_away

    assert asyncio.run(asyncio.wait_for(run(), 5)) is False
    assert swept[:3] == [True, True, True]


class QuietSubscription:
    """A Redis subscription with nothing to say: its PINGs answered (`answers`), or not (Redis hung, or its
    network gone quiet: no message, no error, no close)."""

    def __init__(self, answers: bool) -> None:
        self.answers, self.pinged, self.waiting = answers, 0, []

    async def get_message(self, timeout: float):
        if self.waiting:
            return self.waiting.pop()
        await asyncio.sleep(timeout)
        return None

    async def ping(self) -> None:
        self.pinged += 1
        if self.answers:
            self.waiting.append({"type": "pong", "data": b"PONG"})


def test_a_redis_feed_that_stops_answering_is_found_out_in_seconds_and_a_quiet_one_is_not(monkeypatch):
    """Found out, the feed is away: the sweep stands in for it every second (it took the 15 s sweep)."""
    import redis

    monkeypatch.setattr(feeds, "PING_SECONDS", 0.01)
    with pytest.raises(redis.TimeoutError):
        asyncio.run(asyncio.wait_for(feeds.hear_redis(Hub(), QuietSubscription(answers=False)), 5))
    quiet = QuietSubscription(answers=True)

    async def run() -> bool:
        hearing = asyncio.create_task(feeds.hear_redis(Hub(), quiet))
        while quiet.pinged < 20 and not hearing.done():
            await asyncio.sleep(0.01)
        still = not hearing.done()
        hearing.cancel()
        return still

    assert asyncio.run(asyncio.wait_for(run(), 5)) and quiet.pinged >= 20
