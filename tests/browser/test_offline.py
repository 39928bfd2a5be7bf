"""A phone that loses the network keeps its pages: the service worker's copy of each table it showed
(with the taps kept on the phone), the line that says it is offline, and a "No network" page in the
phone's language for a page never opened, which opens the page by itself once the network is back.
The taps that wait and how they are sent: test_waiting_taps.py."""

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import (
    REFUSED, hand_played, open_phone, ready_offline, shot, stream_open, until, watch_console, winners, worker_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
RETRY_MS = 4000  # static/offline.js: how often the "No network" page and the waiting taps try again


def tap(page, name: str) -> None:
    """Tap `name`, then let a hand's time pass on the phone's clock (a tap sooner is a double tap)."""
    page.locator("button.tap", has_text=name).click()
    hand_played(page)


def test_three_taps_offline_survive_a_reload_and_are_recorded_once_in_order(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR", clock=True)
    errors = watch_console(page, allowed=(REFUSED,))
    url = f"{live_server.url}/s/{sitting.token}/"
    ready_offline(page, url)
    tap(page, "Chaibou")  # hand 1 goes through: the table is live
    page.get_by_text("Main 1 notée").wait_for()

    page.context.set_offline(True)
    expect(page.locator(".offline-line")).to_be_visible()
    for name in ["Aïcha", "Djibo", "Boubacar"]:
        tap(page, name)
    expect(page.locator(".waiting li")).to_have_count(3)
    expect(page.locator(".legend .hand")).to_have_text("Main 5")
    assert page.locator('form[action$="/tap/"] input[name="number"]').first.input_value() == "5"
    shot(page, "offline-three-waiting-fr")

    page.reload()  # with no network: the service worker's copy, and the taps kept on the phone
    expect(page.locator(".offline-line")).to_be_visible()
    expect(page.locator(".waiting li")).to_have_count(3)
    expect(page.locator(".waiting li").first).to_contain_text("Main 2 : Aïcha")
    expect(page.locator(".legend .hand")).to_have_text("Main 5")
    expect(page.locator("[data-fingerprint]")).to_contain_text("3")
    # The copy is the table as last seen (hand 1 came after the page loaded), kept without its notice.
    expect(page.locator(".hands tbody tr")).to_have_count(1)
    assert page.locator("#table .notice").count() == 0
    shot(page, "offline-after-reload-fr")
    assert winners(sitting) == [(1, "Chaibou")]

    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    expect(page.locator(".offline-line")).to_have_count(0)
    assert winners(sitting) == [(1, "Chaibou"), (2, "Aïcha"), (3, "Djibo"), (4, "Boubacar")]
    sitting.refresh_from_db()
    expect(page.locator("[data-fingerprint]")).to_contain_text(f"modification {sitting.version}")
    shot(page, "offline-sent-fr")

    other = open_phone(browser, "360x640")
    other.goto(url)
    expect(other.locator(".hands tbody tr")).to_have_count(4)
    assert other.locator("[data-fingerprint]").inner_text().startswith("4 hands")
    assert errors == []


def test_offline_a_page_never_opened_gets_the_offline_page_in_the_phones_language(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="en-GB")
    errors = watch_console(page)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.locator("form.language summary").click()
    page.get_by_role("button", name="Français").click()  # the phone switches language: the offline page follows
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    page.wait_for_function("caches.match('/offline/').then(r => !!r && r.headers.get('Content-Language') === 'fr')")
    page.context.set_offline(True)
    page.goto(f"{live_server.url}/start/")  # never opened on this phone: no copy of it
    expect(page.get_by_role("heading", name="Pas de réseau")).to_be_visible()
    shot(page, "offline-page-never-opened-fr")
    page.goto(f"{live_server.url}/s/{sitting.token}/")  # the table it showed still opens
    expect(page.locator("button.tap")).to_have_count(4)
    assert errors == []


def test_a_table_opened_once_from_a_shared_link_reloads_offline_with_its_waiting_taps(browser, live_server):
    """The first visit comes before the service worker is in control: the page keeps its own copy."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR", clock=True)
    errors = watch_console(page, allowed=(REFUSED,))
    page.goto(f"{live_server.url}/s/{sitting.token}/")  # once, as from a link in a message
    worker_ready(page)
    page.wait_for_function(f"caches.match(location.origin + '/s/{sitting.token}/').then(r => !!r)")
    page.context.set_offline(True)
    for name in ["Aïcha", "Djibo", "Boubacar"]:
        tap(page, name)
    page.reload()
    expect(page.locator(".offline-line")).to_be_visible()
    expect(page.locator(".waiting li")).to_have_count(3)
    shot(page, "offline-first-visit-reloaded-fr")
    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    assert winners(sitting) == [(1, "Aïcha"), (2, "Djibo"), (3, "Boubacar")]
    assert errors == []


def test_the_offline_page_opens_the_page_asked_for_as_soon_as_the_network_is_back(browser, live_server):
    sitting, other = Sitting.start("agram", NAMES), Sitting.start("spar", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR", clock=True)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    page.goto(f"{live_server.url}/s/{other.token}/")  # never opened here
    expect(page.get_by_role("heading", name="Pas de réseau")).to_be_visible()
    page.context.set_offline(False)  # "online": the page asks the server at once...
    page.clock.fast_forward(RETRY_MS)  # ...and again a while later, had that first answer not come yet
    expect(page.locator(".tap", has_text="Djibo")).to_be_visible(timeout=15_000)
    assert page.url.endswith(f"/s/{other.token}/")


def test_the_watch_link_opens_offline_as_last_seen(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 3)
    page = open_phone(browser)
    errors = watch_console(page)
    ready_offline(page, f"{live_server.url}/w/{sitting.watch_token}/")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator(".offline-line")).to_be_visible()
    expect(page.locator(".hands tbody tr")).to_have_count(1)
    assert errors == []


def kept(page, path: str) -> bool:
    """Whether the phone keeps a copy of `path` for when it has no network."""
    return page.evaluate("path => caches.match(location.origin + path).then(hit => !!hit)", path)


def shows_no_copy_of(page, url: str) -> None:
    """With no network, `url` opens the "No network" page: nothing of the table, nor its old link."""
    page.context.set_offline(True)
    page.goto(url)
    expect(page.get_by_role("heading", name="No network")).to_be_visible()
    assert page.locator("button.tap").count() == 0 and "Djibo" not in page.content()


def test_a_link_made_new_is_forgotten_by_the_phone_once_it_answers_404(browser, live_server):
    """A leaked link made new answers 404: the phone keeps no copy of the table it reached either, so
    with no network the old link shows neither the names and scores nor the old link itself."""
    sitting = Sitting.start("agram", NAMES)
    old = f"/s/{sitting.token}/"
    page = open_phone(browser, language="en-GB")
    errors = watch_console(page, allowed=("status of 404",))
    ready_offline(page, live_server.url + old)
    assert kept(page, old)
    sitting.rotate_links()  # another phone: "a link leaked: make new links"
    assert page.reload().status == 404  # online: the old link reaches nothing
    expect(page.get_by_text("No match at this link")).to_be_visible()
    assert not kept(page, old)
    shows_no_copy_of(page, live_server.url + old)
    assert errors == []


def test_a_table_shown_when_its_links_are_made_new_leaves_no_copy_on_the_phone(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    old = f"/s/{sitting.token}/"
    page = open_phone(browser, language="en-GB")
    errors = watch_console(page, allowed=("status of 404",))
    ready_offline(page, live_server.url + old)
    stream_open(page)
    sitting.rotate_links()  # pushed: the page asks for the table and is told it is gone
    page.get_by_text("ask them for the new one").wait_for()
    until(page, lambda: not kept(page, old))
    shows_no_copy_of(page, live_server.url + old)
    assert errors == []
