"""A phone that lost the table (no network for a while, at any moment; the page asleep in the background;
its stream refused) says so on the table while it cannot be sure of it, and shows every tap the other
phones made within 2 s of the network coming back, by itself. A group page too. The phone's clock is Playwright's: a
minute offline passes for the page's timers without the test waiting for it."""

import random

import pytest
from playwright.sync_api import expect

from matches.domain.errors import AlreadyRecorded
from matches.models import Group, Sitting

from tests.browsers import open_phone, shot, stream_open, until, wait_for_push, watch_console, worker_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
BACK_MS = 2000  # from the network's return to the phone showing the server's table
MOMENTS = ["during a poll", "during a tap", "during a push", "during a reconnect"]


def other_phones_tap(sitting: Sitting, count: int) -> None:
    recorded = 0
    while recorded < count:
        sitting.refresh_from_db()
        number = sitting.hands.count() + 1
        try:
            sitting.record_hand(number, number % len(NAMES))
            recorded += 1
        except AlreadyRecorded:  # the phone's own tap reached the server first: the next hand, then
            pass


def shows_the_servers_table(page, sitting: Sitting, hand: str = "Hand") -> None:
    sitting.refresh_from_db()
    expect(page.locator("#table")).to_have_attribute("data-version", str(sitting.version), timeout=BACK_MS)
    expect(page.locator("#who-won .hand")).to_have_text(f"{hand} {sitting.hands.count() + 1}")
    expect(page.locator("#behind, #offline .offline-line")).to_have_count(0)


def go_offline(page, sitting: Sitting, moment: str) -> None:
    if moment == "during a poll":
        page.evaluate("htmx.trigger('#table', 'poll')")
    elif moment == "during a tap":
        page.locator("button.tap", has_text="Boubacar").click(no_wait_after=True)
    elif moment == "during a push":
        other_phones_tap(sitting, 1)
    elif moment == "during a reconnect":
        page.context.set_offline(True)
        page.context.set_offline(False)
    page.context.set_offline(True)


def test_a_phone_back_from_an_offline_spell_at_any_moment_shows_every_tap_it_missed(browser, live_server):
    seed = random.randrange(10**6)
    moments = random.Random(seed).choices(MOMENTS, k=5)
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, clock=True)
    # chromium's and htmx's own lines for a request the network dropped, and for a waiting tap refused
    # because another phone recorded that hand meanwhile
    dropped = ("ERR_INTERNET_DISCONNECTED", "htmx:afterRequest", "htmx:sendError", "status of 409")
    errors = watch_console(page, allowed=dropped)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    worker_ready(page)
    for seconds, moment in zip([1, 3, 6, 20, 60], moments):
        go_offline(page, sitting, moment)
        other_phones_tap(sitting, 2)
        expect(page.locator("#offline .offline-line")).to_be_visible()  # it says it cannot follow
        page.clock.run_for(seconds * 1000)
        expect(page.locator("#offline .offline-line")).to_be_visible()
        page.context.set_offline(False)
        try:
            shows_the_servers_table(page, sitting)
        except AssertionError as error:
            raise AssertionError(f"back from {seconds} s offline {moment} (random seed {seed}): {error}") from None
        page.clock.run_for(1000)  # a hand's time before the next tap
    assert errors == [], seed


def test_a_phone_back_from_two_minutes_in_the_background_shows_every_tap_it_missed(browser, live_server):
    """In the background a phone's page is frozen and its connections cut; it comes back two minutes on."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, clock=True)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    lifecycle = page.context.new_cdp_session(page)
    page.evaluate("""() => {
      Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
      document.dispatchEvent(new Event("visibilitychange"));
    }""")
    lifecycle.send("Page.setWebLifecycleState", {"state": "frozen"})
    page.context.set_offline(True)
    other_phones_tap(sitting, 3)
    page.context.set_offline(False)  # the network is back before the page wakes: its stream was cut meanwhile
    lifecycle.send("Page.setWebLifecycleState", {"state": "active"})
    page.clock.fast_forward(120_000)
    page.evaluate("""() => {
      Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "visible"});
      document.dispatchEvent(new Event("visibilitychange"));
    }""")
    shows_the_servers_table(page, sitting)


def test_a_phone_whose_open_stream_goes_silent_says_it_is_behind_then_catches_up(browser, live_server):
    """A connection that dies without an error (a Wi-Fi or a proxy gone quiet: no byte, no close) leaves the
    stream open in the browser's eyes. Past a beat and a half with no ping (the phone's clock moved on, the
    server's pings on real time), the table says this phone is not up to date and opens its stream again."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", clock=True, locale="fr-FR")
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    held = []  # the stream opened again: held with no answer, as the dead network holds it
    page.route("**/s/*/events/**", lambda route: held.append(route))
    page.clock.run_for(40_000)  # quiet, within its beat and a half (30 s pings)
    expect(page.locator("#behind")).to_have_count(0)
    assert held == []
    page.clock.run_for(10_000)
    expect(page.locator("#behind")).to_contain_text("Pas à jour")
    until(page, lambda: held)
    other_phones_tap(sitting, 1)
    held[0].continue_()  # the network passes bytes again
    page.unroute("**/s/*/events/**")
    shows_the_servers_table(page, sitting, "Main")


def test_a_phone_whose_stream_never_passes_a_byte_catches_up_by_asking_meanwhile(browser, live_server):
    """A stream held with no answer from the start (a carrier's proxy buffering it): 10 s after it opened the
    phone asks for the table every 5 s while the stream keeps trying (it waited three silent beats: 137 s)."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", clock=True, locale="fr-FR")
    held = []
    page.route("**/s/*/events/**", lambda route: held.append(route))
    page.goto(live_server.url + sitting.get_absolute_url())
    until(page, lambda: held)
    other_phones_tap(sitting, 1)
    page.clock.run_for(16_000)
    shows_the_servers_table(page, sitting, "Main")


def test_a_phone_whose_stream_is_refused_says_it_is_behind_then_catches_up(browser, live_server):
    """Online, but the server's stream cannot be had (a proxy in the way, the server restarting): the
    table says this phone is not up to date instead of showing an old score as current."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", clock=True, locale="fr-FR")
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    refused = "**/s/*/{events,poll}/**"
    # As the app answers when its database is away: "try again" for the notice area. The poll is the page's
    # own, not the person's: it tries again by itself, and the table says it is behind.
    outage = {"HX-Retarget": "#notice", "HX-Reswap": "innerHTML", "Retry-After": "5"}
    page.route(refused, lambda route: route.fulfill(status=503, headers=outage, body="<p>Try again.</p>"))
    page.context.set_offline(True)  # the stream drops; back online, neither it nor a poll is answered
    page.context.set_offline(False)
    other_phones_tap(sitting, 1)
    page.clock.run_for(15_000)
    expect(page.locator("#behind")).to_contain_text("Pas à jour")
    expect(page.locator("#who-won .hand")).to_have_text("Main 1")
    expect(page.locator("#notice")).to_be_empty()
    shot(page, "behind-360x640-fr")
    page.unroute(refused)
    page.clock.run_for(6000)  # the next poll, or the stream tried again
    shows_the_servers_table(page, sitting, "Main")


@pytest.mark.parametrize("where", ["", "tab/"])
def test_a_group_page_without_network_says_it_is_behind_at_once_then_catches_up(browser, live_server, where):
    """The group page and its tab: the phone knows it went offline, so the page says so without waiting."""
    group = Group.create("Vendredi", NAMES)
    page = open_phone(browser, "360x640", clock=True, locale="fr-FR")
    page.goto(live_server.url + group.get_absolute_url() + where)
    stream_open(page)
    page.context.set_offline(True)
    group.rename_player(group.members()[0].pk, "Aminata")  # from another phone
    page.clock.run_for(1000)
    expect(page.locator("#behind")).to_contain_text("Pas à jour : ce téléphone a perdu le fil du groupe")
    page.context.set_offline(False)
    page.clock.run_for(3000)
    if not where:
        expect(page.locator("#group")).to_contain_text("Aminata")
    page.clock.run_for(1000)
    expect(page.locator("#behind")).to_have_count(0)


def test_a_group_page_whose_stream_was_refused_a_long_while_catches_up_within_ten_seconds(browser, live_server):
    """A proxy answering 502 again and again: the page has no poll, so its stream tries again at most 10 s apart."""
    group = Group.create("Vendredi", NAMES)
    page = open_phone(browser, "360x640", clock=True)
    page.goto(live_server.url + group.get_absolute_url())
    stream_open(page)
    refused = f"**/g/{group.token}/events/**"
    tries = []
    page.route(refused, lambda route: (tries.append(1), route.fulfill(status=502, body="Bad Gateway")))
    page.evaluate("window.dispatchEvent(new Event('offline')); window.dispatchEvent(new Event('online'))")  # stream anew
    for count in range(1, 6):
        until(page, lambda: len(tries) >= count)  # each try fails...
        page.clock.run_for(10_000)  # ...and the next comes within 10 s
    group.rename_player(group.members()[0].pk, "Aminata")  # from another phone
    page.unroute(refused)
    page.clock.run_for(10_000)
    until(page, lambda: "Aminata" in page.locator("#group").inner_text())


def test_a_group_page_whose_fetch_failed_fetches_again_by_itself(browser, live_server):
    group = Group.create("Vendredi", NAMES)
    page = open_phone(browser, "360x640", clock=True)
    page.goto(live_server.url + group.get_absolute_url())
    stream_open(page)
    failed = []

    def first_fails(route):  # as the app answers while its database is away
        if failed:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.fulfill(status=503, headers={"HX-Retarget": "#notice", "Retry-After": "5"}, body="Try again.")

    page.route(f"**{group.get_absolute_url()}", first_fails)
    group.rename_player(group.members()[0].pk, "Aminata")  # from another phone
    wait_for_push(page, 1)
    page.clock.run_for(1000)
    assert failed and "Aminata" not in page.locator("#group").inner_text()
    page.clock.run_for(6000)
    expect(page.locator("#group")).to_contain_text("Aminata")
    expect(page.locator("#notice")).to_be_empty()


def test_a_table_that_got_no_answer_stops_saying_offline_once_its_stream_is_back(browser, live_server):
    """A server restarted, nothing changed meanwhile: no new table comes to say so, the stream's return does."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", clock=True)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    page.route("**/poll/**", lambda route: route.abort())
    page.evaluate("htmx.trigger('#table', 'poll')")  # no answer: the phone may be offline
    expect(page.locator("#offline .offline-line")).to_be_visible()
    page.unroute("**/poll/**")
    page.evaluate("document.dispatchEvent(new Event('resume'))")  # as a page the browser froze: its stream anew
    stream_open(page, 2)
    expect(page.locator("#offline .offline-line")).to_have_count(0)
