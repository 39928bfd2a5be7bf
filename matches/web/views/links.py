"""The links that bring phones to a table or a group: the member link as a QR code, the watch link, this
phone's seat (_share.html's panel, fetched when the phone opens it, or with the page that opens it at once)."""

from __future__ import annotations

import functools
from operator import attrgetter

import segno
from django.conf import settings
from django.http import HttpResponse
from django.http.request import split_domain_port
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe

from matches.domain.names import by_name
from matches.models import Group, Sitting
from matches.web.presenters.table_state import TableState
from matches.web.views.common import HtmxHttpRequest, claimed_seat


@functools.lru_cache(maxsize=512)
def qr_svg(url: str) -> str:
    """The link as an inline SVG QR code (segno), black on white in both schemes as scanners expect.
    Cached per link and worker: it costs more than the rest of the page."""
    return segno.make(url, error="m").svg_inline(scale=5, border=3, dark="#000", light="#fff")


LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}


def shareable_url(request: HtmxHttpRequest, path: str) -> str:
    """`path` as an address other phones open; on the laptop settings.LAN_HOST (from `make run`) stands in."""
    url = request.build_absolute_uri(path)
    host, port = split_domain_port(request.get_host())
    if settings.LAN_HOST and host in LOOPBACK:
        return url.replace(request.get_host(), f"{settings.LAN_HOST}:{port}" if port else settings.LAN_HOST, 1)
    return url


JUST_MADE = "just-made"
"""The tag of the message that follows new links (or a group just made) to its page: the page opens its links."""


def opens_links(told) -> bool:
    """Whether the messages `told` on this page ask it to open its links at once."""
    return any(JUST_MADE in (message.extra_tags or "").split() for message in told)


def share_context(request: HtmxHttpRequest, sitting: Sitting, state: TableState) -> dict:
    """What the share panel (_share.html#panel) shows of a table: links, QR code, and this phone's seat
    among `state`'s seats."""
    return {
        **links_context(request, sitting.get_absolute_url(), reverse("watch", args=[sitting.watch_token])),
        "my_seat": claimed_seat(request, sitting),
        "seats_by_name": by_name(state.playing_seats, attrgetter("name")),  # a list of people reads by name
    }


def group_share_context(request: HtmxHttpRequest, group: Group) -> dict:
    """What the share panel shows of a group: its links and QR code."""
    return links_context(request, group.get_absolute_url(), reverse("group-watch", args=[group.watch_token]))


def share_response(request: HtmxHttpRequest, context: dict, back: str) -> HttpResponse:
    """The share panel's body for htmx (the page's panel opened), else a page of its own with the way `back`."""
    if request.htmx:
        return render(request, "matches/_share.html#panel", context)
    return render(request, "matches/share.html", {**context, "share_open": True, "back": back})


def links_context(request: HtmxHttpRequest, member_path: str, watch_path: str) -> dict:
    """The member and watch links as other phones open them, and the member link's QR code."""
    member_url = shareable_url(request, member_path)
    return {
        "member_url": member_url,
        "watch_url": shareable_url(request, watch_path),
        "qr": mark_safe(qr_svg(member_url)),  # noqa: S308 - segno's own SVG markup
    }
