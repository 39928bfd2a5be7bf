"""Back to a table shows it from the browser's back/forward cache, at once, as a phone does: the page kept
its stream closed while it was away (an open one keeps a page out of the cache), opens it again, and shows
at once a tap another phone made meanwhile."""

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import hand_played, launch, open_phone, stream_open, until, watch_console, worker_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
# Every pageshow of the page's document, in order: its `persisted` (true: shown again from the cache).
SHOWN = "window.__shown = []; addEventListener('pageshow', event => window.__shown.push(event.persisted));"


@pytest.fixture
def phone_browser(browser):
    """A chromium with the back/forward cache, as on a phone (the `browser` fixture's has it off)."""
    with_cache = launch(browser.browser_type, back_forward_cache=True)
    yield with_cache
    with_cache.close()  # before the database is emptied: its pages' streams read tables


def test_back_to_a_table_comes_from_the_cache_with_the_tap_made_meanwhile_and_its_stream_open_again(
    phone_browser, live_server
):
    sitting = Sitting.start("agram", NAMES)
    table = live_server.url + sitting.get_absolute_url()
    phone = open_phone(phone_browser)
    phone.context.add_init_script(SHOWN)
    errors = watch_console(phone)
    phone.goto(table)
    stream_open(phone)
    expect(phone.locator("#who-won .hand")).to_have_text("Hand 1")
    # A service worker that takes control of the page once it is in the cache throws it out (ServiceWorkerClaim):
    # on a first visit, as here, Back then loads the page again.
    worker_ready(phone)
    devtools = phone.context.new_cdp_session(phone)
    devtools.send("Page.enable")
    not_restored = []  # chromium's reasons, when it loads the page again
    devtools.on("Page.backForwardCacheNotUsed", lambda event: not_restored.append(event["notRestoredExplanations"]))
    phone.goto(live_server.url + "/")  # away: the home page, as the table's own link to it does
    expect(phone.locator("h1")).to_be_visible()
    until(phone, lambda: live_server.in_flight == 0)  # its stream closed: nothing the server still answers
    other = open_phone(phone_browser, clock=True)
    other.goto(table)
    other.locator("button.tap", has_text="Chaibou").click()
    expect(other.locator("#who-won .hand")).to_have_text("Hand 2")

    phone.go_back(wait_until="commit")  # a page from the cache has no load event
    expect(phone.locator("#who-won .hand")).to_have_text("Hand 2")  # the tap made while it was away
    # the same document, shown again from the cache
    assert phone.evaluate("window.__shown") == [False, True], not_restored
    expect(phone.locator(".tally tr.lead .name")).to_have_text("Chaibou")
    stream_open(phone, 2)  # and its stream open again: the next tap is pushed
    hand_played(other)
    other.locator("button.tap", has_text="Djibo").click()
    expect(other.locator("#who-won .hand")).to_have_text("Hand 3")
    expect(phone.locator("#who-won .hand")).to_have_text("Hand 3")
    assert errors == []
