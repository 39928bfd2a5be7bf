"""Which address a request counts against for the per-address ceilings: the connection's own
(REMOTE_ADDR) whatever X-Forwarded-For says, unless the connection comes from a proxy named in
TRUSTED_PROXIES; then the right-most X-Forwarded-For address that is not itself a trusted proxy (the
address the proxy saw), never one the client wrote further left. A trusted proxy that sends no usable
address counts as the client itself. Seen through the ceiling on new matches (a demo per request)."""

import ipaddress
import os
import subprocess
import sys

import pytest
from django.test import Client, override_settings

from tests.pages import fresh_counts  # noqa: F401 - autouse
from tests.servers import ROOT

pytestmark = pytest.mark.django_db
PROXY = "10.0.0.5"
CEILING = override_settings(START_RATE_LIMIT="1000/h", START_ADDRESS_RATE_LIMIT="2/h")


def trusting(*proxies: str) -> override_settings:
    return override_settings(TRUSTED_PROXIES=[ipaddress.ip_network(proxy) for proxy in proxies])


def start(remote: str, forwarded: str | None = None) -> int:
    """A new client (no cookies) starts a demo match from `remote`, sending `forwarded` as X-Forwarded-For."""
    extra = {"REMOTE_ADDR": remote} | ({} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded})
    return Client().post("/demo/", **extra).status_code


@CEILING
@trusting()
def test_with_no_trusted_proxy_x_forwarded_for_is_ignored_and_the_connection_is_the_client():
    statuses = [start("203.0.113.7", forged) for forged in ("198.51.100.1", "198.51.100.2", None)]
    assert statuses == [302, 302, 429]
    assert start("203.0.113.8") == 302


@CEILING
@trusting(PROXY)
def test_a_client_that_is_not_a_trusted_proxy_cannot_pick_its_address():
    statuses = [start("203.0.113.7", forged) for forged in ("198.51.100.1", f"198.51.100.2, {PROXY}", "10.0.0.9")]
    assert statuses == [302, 302, 429]


@CEILING
@trusting(PROXY)
def test_behind_a_trusted_proxy_each_client_counts_against_its_own_address():
    assert [start(PROXY, "198.51.100.1") for _ in range(2)] == [302, 302]
    assert start(PROXY, "198.51.100.2") == 302  # another client behind the same proxy
    assert start(PROXY, "198.51.100.1") == 429


@CEILING
@trusting(PROXY)
def test_addresses_a_client_forged_left_of_the_one_the_proxy_saw_are_ignored():
    sent = ["1.1.1.1, 198.51.100.1", "2.2.2.2,198.51.100.1", "garbage, 3.3.3.3 , 198.51.100.1"]
    assert [start(PROXY, forwarded) for forwarded in sent] == [302, 302, 429]
    assert start(PROXY, "1.1.1.1, 198.51.100.2") == 302


@CEILING
@trusting("10.0.0.0/24", "2001:db8:ffff::/48")
def test_through_a_chain_of_trusted_proxies_the_address_the_first_one_saw_counts():
    sent = ["9.9.9.9, 198.51.100.1, 10.0.0.7", "198.51.100.1, 2001:db8:ffff::1, 10.0.0.7", "8.8.8.8, 198.51.100.1"]
    assert [start("10.0.0.6", forwarded) for forwarded in sent] == [302, 302, 429]
    assert start("10.0.0.6", "198.51.100.1, 198.51.100.2, 10.0.0.7") == 302


@CEILING
@trusting(PROXY)
@pytest.mark.parametrize("forwarded", [None, "", " , ", "garbage", "198.51.100.1, garbage", "1" * 8000])
def test_a_trusted_proxy_that_sends_no_usable_address_counts_as_the_client(forwarded):
    assert [start(PROXY, forwarded) for _ in range(2)] == [302, 302]
    assert start(PROXY) == 429  # the proxy's own address: the same count
    assert start(PROXY, "198.51.100.1") == 302


@CEILING
@trusting(PROXY)
def test_when_every_forwarded_address_is_a_trusted_proxy_the_left_most_counts():
    assert [start(PROXY, f"{PROXY}, {PROXY}") for _ in range(2)] == [302, 302]
    assert start(PROXY) == 429
    assert start(PROXY, f"198.51.100.1, {PROXY}") == 302


@CEILING
@trusting(PROXY, "::1")
def test_ipv6_clients_count_by_their_64_and_an_ipv4_mapped_proxy_is_the_proxy():
    assert start(PROXY, "2001:db8:1:2::a") == 302
    assert start(f"::ffff:{PROXY}", "2001:db8:1:2::b") == 302
    assert start("::1", "2001:db8:1:2:ffff::c") == 429  # the same /64
    assert start(PROXY, "2001:db8:1:3::a") == 302


def settings_start(**env: str) -> subprocess.CompletedProcess:
    """Start the settings with `env` added; print TRUSTED_PROXIES as read."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "scorekeeper.settings", "DEBUG": "1", **env}
    script = "import django; django.setup(); from django.conf import settings; print(*settings.TRUSTED_PROXIES)"
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)


def test_trusted_proxies_are_read_as_addresses_and_networks_and_none_by_default():
    assert settings_start(TRUSTED_PROXIES="").stdout.strip() == ""
    named = settings_start(TRUSTED_PROXIES=" 10.0.0.5, 10.1.0.0/16,::1 ,")
    assert named.stdout.split() == ["10.0.0.5/32", "10.1.0.0/16", "::1/128"]


@pytest.mark.parametrize("value", ["nginx", "10.0.0.300", "*", "10.0.0.5 10.0.0.6"])
def test_a_trusted_proxy_that_is_no_address_stops_the_start_saying_what_to_write(value):
    result = settings_start(TRUSTED_PROXIES=value)
    assert result.returncode != 0 and f"TRUSTED_PROXIES: {value.split(',')[0]!r} is not" in result.stderr


def test_the_old_client_address_header_setting_stops_the_start_naming_its_replacement():
    result = settings_start(RATELIMIT_IP_META_KEY="HTTP_X_REAL_IP")
    assert result.returncode != 0 and "TRUSTED_PROXIES" in result.stderr
