"""Rate limits: per phone (session), which a real table never meets, and a higher ceiling per address
(shared Wi-Fi, carrier NAT). A request refused for its phone is not counted against its address, so
one busy phone never locks out its network. The admin's wrong passwords are counted per address and
per username. Counted by django-ratelimit in the "ratelimit" cache; while that cache (Redis) is away
nothing is counted, so the table keeps playing."""

from __future__ import annotations

import ipaddress
import logging
import math
import re
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_ratelimit.core import get_usage, is_ratelimited

from matches.web.client_address import client_address
from matches.web.views.errors import BACKING_SERVICE_ERRORS, message_response

logger = logging.getLogger(__name__)

RATE = re.compile(r"(\d+)/(\d*)([smhd])")
SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Limit:
    """What is limited: counter name, rate settings ("60/m") and refusal words, per phone and per address."""

    name: str
    phone_rate: str
    address_rate: str
    phone_message: Promise
    address_message: Promise


CHANGES = Limit(
    "changes",
    "TAP_RATE_LIMIT",
    "TAP_ADDRESS_RATE_LIMIT",
    gettext_lazy("Too many taps from this phone: wait %(wait)s, then tap again."),
    gettext_lazy(
        "Too many taps from this network (phones on one Wi-Fi or carrier share its address): "
        "wait %(wait)s, then tap again."
    ),
)
STARTS = Limit(
    "starts",
    "START_RATE_LIMIT",
    "START_ADDRESS_RATE_LIMIT",
    gettext_lazy("Too many new matches and groups from this phone: wait %(wait)s, then try again."),
    gettext_lazy(
        "Too many new matches and groups from this network (phones on one Wi-Fi or carrier share its "
        "address): wait %(wait)s, then try again."
    ),
)


def address_key(group: str, request: HttpRequest) -> str:
    """Counter key: the client's address (matches/web/client_address.py); IPv6 by /64 (a phone's changes)."""
    address = client_address(request)
    if address is None:
        return "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def period_of(rate: str) -> int:
    """The window of a rate such as "60/m" or "20/h", in seconds."""
    count, multiple, unit = RATE.fullmatch(rate).groups()
    return int(multiple or 1) * SECONDS[unit]


def wait_words(seconds: int) -> str:
    if seconds <= 60:
        return _("a minute")
    if seconds <= 3600:
        minutes = math.ceil(seconds / 60)
        return _("an hour") if minutes == 60 else _("%(n)d minutes") % {"n": minutes}
    return _("a day") if seconds <= 86400 else _("%(n)d days") % {"n": math.ceil(seconds / 86400)}


def over_limit(request: HttpRequest, limit: Limit, phone: str | None) -> HttpResponse | None:
    """Count this request against `limit` (`phone` None: only the address counts); a 429 once over, else None."""
    for rate_setting, message, key in (
        (limit.phone_rate, limit.phone_message, lambda group, request: phone),
        (limit.address_rate, limit.address_message, address_key),
    ):
        if key is not address_key and phone is None:
            continue
        rate = getattr(settings, rate_setting)
        group = f"{limit.name}-{'address' if key is address_key else 'phone'}"
        try:
            limited = is_ratelimited(request, group=group, key=key, rate=rate, increment=True)
        except (*BACKING_SERVICE_ERRORS, OSError) as error:
            logger.warning("rate limits not counted: %s", error)
            return None
        if limited:
            response = message_response(request, message % {"wait": wait_words(period_of(rate))}, 429)
            response["Retry-After"] = str(period_of(rate))
            return response
    return None


WRONG_PASSWORD = gettext_lazy("Too many wrong passwords: wait %(wait)s, then try again.")


def username_tried(group: str, request: HttpRequest) -> str:
    """Counter key: the username a login form was sent with, as the operator may spell it again."""
    return request.POST.get("username", "").strip().casefold()


def wrong_passwords(request: HttpRequest, count: bool) -> HttpResponse | None:
    """A 429 while the client address or the username tried has ADMIN_LOGIN_RATE_LIMIT wrong passwords
    in the window, else None; `count`: add this request's wrong password to both counts first."""
    rate = settings.ADMIN_LOGIN_RATE_LIMIT
    waits = []
    for group, key in (("admin-login-address", address_key), ("admin-login-username", username_tried)):
        try:
            usage = get_usage(request, group=group, key=key, rate=rate, increment=count)
        except (*BACKING_SERVICE_ERRORS, OSError) as error:
            logger.warning("wrong admin passwords not counted: %s", error)
            return None
        if usage and usage["limit"] and usage["count"] >= usage["limit"]:  # limit 0: the cache did not answer
            waits.append(max(usage["time_left"], 1))
    if not waits:
        return None
    response = message_response(request, WRONG_PASSWORD % {"wait": wait_words(max(waits))}, 429)
    response["Retry-After"] = str(max(waits))
    return response
