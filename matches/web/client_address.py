"""The client's address, as the per-address rate limits count it.

The connection's own address (REMOTE_ADDR) is the client, whatever its headers say, unless it is one of
the proxies named in TRUSTED_PROXIES. From such a proxy, X-Forwarded-For is read from the right: each
address a trusted proxy wrote is taken while it is itself a trusted proxy, and the first that is not is
the client. Addresses further left were written by the client (or its own proxies): anyone can write
anything there, so they are never read. A trusted proxy that sends no usable address counts as the
client itself; the README's nginx block always sends one (`$remote_addr`).
The app server never rewrites REMOTE_ADDR from the header (scorekeeper/workers.py), so this is the one
place where it is read.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address, ip_address

from django.conf import settings
from django.http import HttpRequest

Address = IPv4Address | IPv6Address


def parsed(text: str) -> Address | None:
    """`text` as an address (an IPv4-mapped IPv6 one as IPv4), else None."""
    try:
        address = ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def trusted(address: Address) -> bool:
    return any(address in network for network in settings.TRUSTED_PROXIES)


def client_address(request: HttpRequest) -> Address | None:
    """The client's address, None when the connection has none (a test client may send anything)."""
    address = parsed(request.META.get("REMOTE_ADDR", ""))
    if address is None or not settings.TRUSTED_PROXIES:
        return address
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    while hops and trusted(address):
        hop = parsed(hops.pop())
        if hop is None:
            break  # a proxy that wrote no usable address: it is the nearest known client
        address = hop
    return address
