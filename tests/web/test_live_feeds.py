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
    """A Redis subscription with nothing to say, on a clock of its own (`now`, moved by each wait for a message):
    its PINGs answered (`answers`), or not (Redis hung, or its network gone quiet: no message, no error)."""

    def __init__(self, answers: bool) -> None:
        self.answers, self.pinged, self.waiting, self.now = answers, 0, [], 1000.0

    async def get_message(self, timeout: float):
        await asyncio.sleep(0)
        if self.waiting:
            return self.waiting.pop()
        self.now += timeout  # nothing came within the wait
        return None

    async def ping(self) -> None:
        self.pinged += 1
        if self.answers:
            self.waiting.append({"type": "pong", "data": b"PONG"})


@pytest.mark.parametrize("answers", [False, True])
def test_a_redis_feed_that_stops_answering_is_found_out_in_seconds_and_a_quiet_one_is_not(monkeypatch, answers):
    """Found out, the feed is away: the sweep stands in for it every second (it took the 15 s sweep)."""
    import redis

    subscription = QuietSubscription(answers)
    monkeypatch.setattr(feeds.time, "monotonic", lambda: subscription.now)

    async def hear() -> float:
        hearing = asyncio.create_task(feeds.hear_redis(Hub(), subscription))
        while subscription.pinged < 100 and not hearing.done():
            await asyncio.sleep(0)
        if hearing.done():
            hearing.result()  # its error, if it gave up
        hearing.cancel()
        return subscription.now - 1000

    if answers:
        assert asyncio.run(hear()) >= 100 * feeds.PING_SECONDS  # a hundred quiet seconds, every PING answered
    else:
        with pytest.raises(redis.TimeoutError):
            asyncio.run(hear())
        assert subscription.now - 1000 <= 3 * feeds.PING_SECONDS  # found out within three seconds
