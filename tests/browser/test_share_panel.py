"""The share panel in Debian's chromium: its body comes each time it is opened (who sits at the table may have
changed), says so when there is no network and loads once it is back; new links made on a slow network reach
the phone that made them, though the push that the old links are gone comes first."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import open_phone, stream_open, watch_console, worker_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def open_panel(page) -> None:
    page.locator("details.share > summary").click()


def test_the_share_panel_comes_each_time_it_is_opened_and_waits_for_the_network(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser)
    errors = watch_console(page, allowed=("Failed to load resource",))  # (chromium's own, for the stream offline)
    page.goto(live_server.url + sitting.get_absolute_url())
    worker_ready(page)
    page.context.set_offline(True)
    open_panel(page)
    expect(page.locator("details.share .share-body")).to_have_text("No network: open this again once it is back.")
    open_panel(page)  # closed
    page.context.set_offline(False)
    open_panel(page)
    expect(page.locator("#member-link")).to_have_value(live_server.url + sitting.get_absolute_url())
    expect(page.locator("#my-seat option")).to_have_count(5)
    sitting.seat_player("Zoé")  # a latecomer, on another phone: the panel opened again offers her
    open_panel(page)
    open_panel(page)
    expect(page.locator("#my-seat option", has_text="Zoé")).to_have_count(1)
    expect(page.locator("details.share .share-body")).to_have_count(1)
    assert errors == []


def test_new_links_made_on_a_slow_network_reach_the_phone_that_made_them(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    old = sitting.token
    page = open_phone(browser)
    errors = watch_console(page)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    open_panel(page)
    page.locator("details.leak > summary").click()
    # The answer comes 1.5 s after the request: the push saying these links are gone comes well before it.
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    slow = {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1}
    network.send("Network.emulateNetworkConditions", slow)
    page.get_by_role("button", name="Yes, make new links").click()
    expect(page.get_by_text("New links made: the old ones no longer work.")).to_be_visible(timeout=20_000)
    sitting.refresh_from_db()
    assert sitting.token != old and page.url == live_server.url + sitting.get_absolute_url()
    expect(page.locator("#member-link")).to_have_value(re.compile(f"/s/{sitting.token}/$"))
    assert errors == []
