"""The table's own clock: the time zone a sitting or a group keeps, and the moments shown in it.

A phone that starts a sitting or a group sends its time zone (the browser's IANA name, e.g.
"Africa/Lome", from `Intl.DateTimeFormat().resolvedOptions().timeZone`) in a hidden field; the
sitting keeps it and every time of it (its start, its hands, the day of its night's settlement, its
CSV's name) is shown in that zone, whoever looks. "" means unknown: the server's TIME_ZONE then.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from functools import cache, lru_cache

from django.utils import timezone

ZONE_MAX_LENGTH = 64  # the longest IANA name is about 32 characters
ZONE_FIELD = "time_zone"  # the hidden field's name on every form that starts a sitting or a group
NAME = re.compile(r"[A-Za-z0-9_+-]{1,30}(?:/[A-Za-z0-9_+-]{1,30}){0,2}")


@cache
def known_zones() -> frozenset[str]:
    """The IANA names this server's time zone database holds (read once: a few hundred names)."""
    return frozenset(zoneinfo.available_timezones())


def clean_zone(raw: object) -> str:
    """`raw` when it is the name of a time zone this server knows ("Asia/Ho_Chi_Minh", "UTC"), else ""
    (nothing sent, not text, too long, a path, a zone unknown here): never raises."""
    if not isinstance(raw, str) or len(raw) > ZONE_MAX_LENGTH:
        return ""
    return _known(raw)


@lru_cache(maxsize=512)  # the names seen are few (the tables' own zones); a group's figures ask per match
def _known(name: str) -> str:
    return name if NAME.fullmatch(name) and name in known_zones() else ""


def zone_named(name: str) -> datetime.tzinfo:
    """The zone called `name` (as clean_zone keeps it); the server's TIME_ZONE for "" or a name
    unknown here."""
    name = clean_zone(name)
    return zoneinfo.ZoneInfo(name) if name else timezone.get_default_timezone()


def posted_zone(data) -> str:
    """The time zone a form posted in its hidden field (a QueryDict or dict), cleaned; "" when none."""
    return clean_zone(data.get(ZONE_FIELD, ""))


def local(moment: datetime.datetime, name: str) -> datetime.datetime:
    """`moment` (aware) on the clock of the zone called `name` (see zone_named)."""
    return timezone.localtime(moment, zone_named(name))
