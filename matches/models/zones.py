"""The table's own clock: a sitting or group keeps the starting phone's IANA zone (from
`Intl.DateTimeFormat().resolvedOptions().timeZone` in a hidden field), and all its times (start,
hands, night, CSV name) show in it for everyone. "": the server's TIME_ZONE. A night runs from the evening
to NIGHT_ENDS_HOUR the next morning."""

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
    """`raw` if it names a zone known here ("Asia/Ho_Chi_Minh"), else "" (anything else); never raises."""
    if not isinstance(raw, str) or len(raw) > ZONE_MAX_LENGTH:
        return ""
    return _known(raw)


@lru_cache(maxsize=512)  # the names seen are few (the tables' own zones); a group's figures ask per match
def _known(name: str) -> str:
    return name if NAME.fullmatch(name) and name in known_zones() else ""


def zone_named(name: str) -> datetime.tzinfo:
    """The zone called `name`; the server's TIME_ZONE for "" or an unknown name."""
    name = clean_zone(name)
    return zoneinfo.ZoneInfo(name) if name else timezone.get_default_timezone()


def posted_zone(data) -> str:
    """The time zone a form posted in its hidden field (a QueryDict or dict), cleaned; "" when none."""
    return clean_zone(data.get(ZONE_FIELD, ""))


def local(moment: datetime.datetime, name: str) -> datetime.datetime:
    """`moment` (aware) on the clock of the zone called `name` (see zone_named)."""
    return timezone.localtime(moment, zone_named(name))


NIGHT_ENDS_HOUR = 6  # cards go on past midnight: until 06:00 on a table's clock it is still the evening's night


def night_of(moment: datetime.datetime, zone: datetime.tzinfo) -> datetime.date:
    """The night `moment` belongs to on the clock `zone`: the evening's date, until NIGHT_ENDS_HOUR next morning
    (a match started at 00:30 is settled with the evening's, and a payment marked then can be taken back)."""
    return (timezone.localtime(moment, zone) - datetime.timedelta(hours=NIGHT_ENDS_HOUR)).date()
