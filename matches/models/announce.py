"""Tell every app process, on this machine or another, that a sitting or a group changed, so that the
phones showing it get the new table at once (matches.web.live listens).

PostgreSQL: every change moves the sitting's or group's version, and a trigger on that column NOTIFYs
in the changing transaction (migration 0009), delivered on commit (never for a change rolled back): no
statement of the app's, so nothing here. Redis (CACHE_URL): PUBLISH once the transaction commits.
SQLite alone (one machine): nothing to send; each process reads the versions of the sittings it shows
(LIVE_FEED in settings)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache

from django.conf import settings
from django.db import transaction

CHANNEL = "last_trick"  # also written in migration 0009, whose trigger sends on it
logger = logging.getLogger(__name__)


def sitting_changed(sitting_id: int, version: int | None = None, group_id: int | None = None) -> None:
    """`version`: the new version when known (else listeners read it); `group_id`: its group's page changes too."""
    _send(f"s{sitting_id}:{version or ''}:{group_id or ''}")


def sittings_changed(sitting_ids: Iterable[int]) -> None:
    for sitting_id in sitting_ids:
        sitting_changed(sitting_id)


def group_changed(group_id: int) -> None:
    _send(f"g{group_id}")


def _send(payload: str) -> None:
    if settings.LIVE_FEED == "redis":
        transaction.on_commit(lambda: _publish(payload))


def _publish(payload: str) -> None:
    """After the commit: the change is saved whatever Redis does. A lost message is caught by the
    listeners' periodic check of the versions they show (matches.web.live.feeds)."""
    import redis  # only where CACHE_URL is set

    try:
        _redis().publish(CHANNEL, payload)
    except redis.RedisError as error:
        logger.warning("live update not published (%s): phones catch up at their next check", error)


@cache
def _redis():
    import redis

    return redis.Redis.from_url(
        settings.CACHE_URL, socket_timeout=settings.REDIS_TIMEOUT, socket_connect_timeout=settings.REDIS_TIMEOUT
    )
