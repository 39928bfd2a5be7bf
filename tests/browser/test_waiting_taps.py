"""Taps that wait on the phone (static/offline.js): made with no network, or with no answer, or refused
for a moment (503), each shows on the table as waiting and the next hand opens; they are sent in order,
once, when the network answers; a waiting tap the server refuses is said until seen; a double tap records
one hand. The phone's clock is Playwright's: a hand's time, or the wait before trying again, passes at
once. The service worker's copies: test_offline.py."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import (
    HAND_MS,
    REFUSED,
    hand_played,
    no_horizontal_scroll,
    open_phone,
    played_on,
    ready_offline,
    shot,
    stream_open,
    until,
    watch_console,
    winners,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
RETRY_MS = 4000  # static/offline.js: how soon a tap that got no answer, or a 503, is sent again


def tap(page, name: str) -> None:
    """Tap `name`, then let a hand's time pass on the phone's clock (a tap sooner is a double tap)."""
    page.locator("button.tap", has_text=name).click()
    hand_played(page)


def test_a_tap_made_offline_waits_on_the_table_and_is_recorded_once_when_back(browser, live_server):
    # Before the offline queue (static/offline.js) such a tap said "Not saved: tap to retry"; now it waits.
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, clock=True)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.context.set_offline(True)
    page.get_by_role("button", name="Boubacar").click()
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Boubacar, waiting to send Take back")
    button = page.get_by_role("button", name="Boubacar")
    assert "failed" not in (button.get_attribute("class") or "")
    assert not page.get_by_text("Not saved: check the connection").is_visible()
    shot(page, "offline-tap-360x640")
    assert sitting.hands.count() == 0
    page.context.set_offline(False)
    page.get_by_text("Hand 1 recorded: Boubacar.").wait_for()
    expect(page.locator(".waiting li")).to_have_count(0)
    hand_played(page)
    page.get_by_role("button", name="Boubacar").click()  # the next hand's button records hand 2, once
    page.get_by_text("Hand 2 recorded: Boubacar.").wait_for()
    assert list(sitting.hands.values_list("number", flat=True)) == [1, 2]


def test_two_offline_phones_tapping_one_hand_differently_end_with_one_hand_and_a_clear_message(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    url = f"{live_server.url}/s/{sitting.token}/"
    first, second = open_phone(browser, clock=True), open_phone(browser, clock=True)
    errors = watch_console(second, watch_console(first, allowed=(REFUSED,)), allowed=(REFUSED,))
    for page in (first, second):
        ready_offline(page, url)
        page.context.set_offline(True)
    tap(first, "Aïcha")
    tap(second, "Djibo")
    first.context.set_offline(False)
    expect(first.locator(".waiting li")).to_have_count(0, timeout=15_000)
    second.context.set_offline(False)
    refused = second.locator(".refused")
    expect(refused).to_be_visible(timeout=15_000)
    expect(refused).to_contain_text("This phone’s tap for hand 1, Djibo:")
    expect(refused).to_contain_text("Hand 1 is already recorded: Aïcha")
    expect(refused.get_by_role("link", name="Correct hand 1")).to_be_visible()
    shot(second, "offline-refused-other-phone")
    assert winners(sitting) == [(1, "Aïcha")]
    # The message stays through the next changes of the table, until the player says they saw it.
    played_on(sitting)
    tap(second, "Chaibou")
    second.get_by_text("Hand 2 recorded: Chaibou.").wait_for()
    expect(refused).to_be_visible()
    refused.get_by_role("button", name="OK, seen").click()
    expect(second.locator(".refused")).to_have_count(0)
    assert errors == []


def test_a_waiting_tap_refused_because_the_match_ended_is_said(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser)
    errors = watch_console(page, allowed=(REFUSED,))
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    page.locator("button.tap", has_text="Boubacar").click()
    sitting.end_match()  # another phone ended it meanwhile
    page.context.set_offline(False)
    refused = page.locator(".refused")
    expect(refused).to_contain_text("hand 1, Boubacar", timeout=15_000)
    expect(refused).to_contain_text("This match is over")
    expect(page.locator(".waiting li")).to_have_count(0)
    shot(page, "offline-refused-match-ended")
    assert sitting.hands.filter(status="won").count() == 0
    assert errors == []


def test_undo_offline_takes_back_a_waiting_tap_or_waits_for_a_recorded_hand(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 2)
    page = open_phone(browser, clock=True)
    errors = watch_console(page, allowed=(REFUSED,))
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    tap(page, "Djibo")
    expect(page.locator(".waiting li")).to_have_count(1)
    page.get_by_role("button", name="Take back").click()
    expect(page.locator(".waiting li")).to_have_count(0)
    page.locator("details.undo summary").click()
    page.get_by_role("button", name="Yes, undo hand 1").click()
    expect(page.locator(".waiting li")).to_have_text("Hand 1: undo waiting to send Take back")
    tap(page, "Aïcha")  # hand 1 again, after the undo
    expect(page.locator(".waiting li")).to_have_count(2)
    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    assert winners(sitting) == [(1, "Aïcha")]
    assert errors == []


def test_a_tap_that_gets_no_answer_waits_on_the_table_and_is_sent_once_the_network_answers(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, service_workers="block", clock=True)  # so that the test's route sees the tap
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.route("**/tap/", lambda route: route.abort("internetdisconnected"))  # the Wi-Fi drops, unnoticed
    tap(page, "Djibo")
    # It left the phone and the server may have it: said so, and not to be taken back until it answers.
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Djibo, sent, no answer yet")
    expect(page.locator(".offline-line")).to_be_visible()
    assert page.locator(".failed").count() == 0  # no "not saved" mark: the tap is kept
    tap(page, "Aïcha")  # the table plays on: hand 2 waits behind hand 1
    expect(page.locator(".waiting li")).to_have_count(2)
    page.unroute("**/tap/")
    page.clock.fast_forward(RETRY_MS)  # the phone tries again, a while later
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    expect(page.locator(".offline-line")).to_have_count(0)
    assert winners(sitting) == [(1, "Djibo"), (2, "Aïcha")]


def test_a_waiting_tap_shows_its_answers_in_running_text_and_is_recorded_with_them(browser, live_server):
    """The waiting line names the answer as a hand row does (its short form, lower case), not with the
    button's capital and worth."""
    sitting = Sitting.start("fapfap", NAMES[:3])
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page, allowed=(REFUSED,))
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    page.locator("summary.tap", has_text="Boubacar").click()
    answer = page.locator("details.ask[open] button.answer").nth(1)
    said = "avec un 3, dernière levée seulement"  # the button: "Avec un 3, dernière levée seulement : 2 mises"
    answer.click()
    expect(page.locator(".waiting li")).to_contain_text(f"Main 1\u00a0: Boubacar, en attente d’envoi ({said}) ")
    expect(page.locator("details.ask[open]")).to_have_count(0)
    shot(page, "offline-waiting-with-answer-fr")
    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    hand = sitting.hands.get()
    assert hand.winner.player.name == "Boubacar" and hand.extras
    expect(page.locator(".hands tbody tr").first).to_contain_text(said.split(" ")[0], ignore_case=True)
    assert errors == []


def test_waiting_taps_for_a_link_made_new_meanwhile_are_each_said_not_recorded(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, clock=True)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    tap(page, "Aïcha")
    tap(page, "Djibo")
    sitting.rotate_links()  # another phone: "a link leaked: make new links"
    page.context.set_offline(False)
    refused = page.locator(".refused")
    expect(refused).to_have_count(2, timeout=15_000)
    expect(refused.first).to_contain_text("hand 1, Aïcha")
    expect(refused.last).to_contain_text("hand 2, Djibo")
    expect(refused.first).to_contain_text("ask them for the new one")
    expect(page.get_by_role("link", name="Home").last).to_be_visible()
    shot(page, "offline-refused-links-made-new")
    assert sitting.hands.count() == 0


def test_the_waiting_taps_fit_a_small_phone_in_every_language(browser, live_server):
    for locale in ("de-DE", "vi-VN"):
        sitting = Sitting.start("cat-te", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
        page = open_phone(browser, "360x640", locale=locale, clock=True)
        errors = watch_console(page)
        ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
        page.context.set_offline(True)
        for name in ["Chaibou", "Aïcha"]:
            page.locator("summary.tap", has_text=name).click()
            page.locator("details.ask[open] .answers button.answer:visible").first.click()
            hand_played(page)
        expect(page.locator(".waiting li")).to_have_count(2)
        expect(page.locator(".offline-line")).to_be_visible()
        assert no_horizontal_scroll(page), locale
        shot(page, f"offline-waiting-{locale}")
        assert errors == [], locale
        page.context.close()


def test_a_double_tap_on_a_name_records_one_hand_online_and_offline_and_says_so(browser, live_server):
    """The next hand's button is under the finger once the first tap is answered (or at once offline):
    the same name tapped again a moment later is the same tap, not the next hand, and the phone says it
    did not take it (nothing is dropped without a word). The taps are real; the phone's clock stands
    still between them (however long the machine takes to answer the first), then moves on by a hand's time."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page, allowed=(REFUSED,))
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.evaluate("""() => { window.tapsSent = 0; document.addEventListener("htmx:beforeRequest", event => {
        if (event.detail.elt.matches('form[action$="/tap/"]')) window.tapsSent += 1; }); }""")
    now = page.evaluate("Date.now()")
    page.clock.set_fixed_time(now)
    page.locator("button.tap", has_text="Aïcha").click()
    page.get_by_text("Main 1 notée").wait_for()
    page.locator("button.tap", has_text="Aïcha").click()  # the second tap of a double tap, landing on hand 2
    page.locator("button.tap", has_text="Boubacar").click()  # or on another name, the page having moved
    # A tap let through is sent as it is tapped (htmx:beforeRequest, before the click returns): none was.
    assert page.evaluate("window.tapsSent") == 1
    expect(page.locator(".legend .hand")).to_have_text("Main 2")
    ignored = page.locator("#offline .double-tap")
    expect(ignored).to_have_text(
        "Touche ignorée\u00a0: elle suivait de trop près celle de la main 1. Pour noter la main 2, touchez de nouveau."
    )
    assert no_horizontal_scroll(page)
    shot(page, "double-tap-ignored-360x640")
    assert winners(sitting) == [(1, "Aïcha")]

    page.clock.set_fixed_time(now + HAND_MS)  # a hand later, the same player may well win again
    page.locator("button.tap", has_text="Aïcha").click()
    page.get_by_text("Main 2 notée").wait_for()
    assert page.evaluate("window.tapsSent") == 2
    expect(ignored).to_have_count(0)  # said until the next tap is taken

    page.clock.set_fixed_time(now + 2 * HAND_MS)
    page.context.set_offline(True)
    expect(page.locator(".offline-line")).to_be_visible()
    page.locator("button.tap", has_text="Djibo").click()
    page.locator("button.tap", has_text="Chaibou").click()  # a double tap offline: kept at once, then dropped
    expect(ignored).to_contain_text("celle de la main 3. Pour noter la main 4")
    expect(page.locator(".waiting li")).to_have_count(1)
    assert page.locator(".waiting li").count() == 1  # (kept as tapped: a second one would be there by now)
    page.clock.set_fixed_time(now + 3 * HAND_MS)
    page.locator("button.tap", has_text="Djibo").click()
    expect(page.locator(".waiting li")).to_have_count(2)
    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0)
    assert winners(sitting) == [(1, "Aïcha"), (2, "Aïcha"), (3, "Djibo"), (4, "Djibo")]
    assert errors == []


def test_a_tap_the_server_could_not_save_for_a_moment_waits_on_the_table_and_is_sent_again(browser, live_server):
    """The server answers 503 "try again" (its database away): the tap is not lost nor marked failed; it
    waits on the table like one made offline and is sent again by itself."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR", clock=True)
    errors = watch_console(page)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    refused = []

    def once_away(route):
        if refused:
            return route.continue_()
        refused.append(route.request.url)
        headers = {"Retry-After": "3", "Content-Type": "text/html", "HX-Retarget": "#notice", "HX-Reswap": "innerHTML"}
        route.fulfill(status=503, headers=headers, body='<p class="notice error">Try again soon.</p>')

    page.route("**/tap/", once_away)
    tap(page, "Djibo")
    expect(page.locator(".waiting li")).to_have_count(1)
    expect(page.locator(".waiting li").first).to_contain_text("Main 1 : Djibo")
    shot(page, "tap-waiting-after-503-fr")
    page.clock.fast_forward(RETRY_MS)  # the phone sends it again, a while later
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    expect(page.locator(".hands tbody tr")).to_have_count(1)
    assert refused and winners(sitting) == [(1, "Djibo")]
    assert page.locator("button.tap.failed").count() == 0
    assert [error for error in errors if "Failed to load resource" not in error] == []  # (chromium's own line)


def test_a_tap_on_its_way_when_the_page_is_reloaded_is_sent_again_once_with_its_key(browser, live_server):
    """The page may go (reloaded, or the phone drops the tab) before its tap reaches the server: the tap was
    kept on the phone as it left, and the page opened again sends it again, once."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, service_workers="block", clock=True)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    held = []  # the first tap, on a slow network: it has not reached the server when the page goes
    page.route("**/tap/", lambda route: route.continue_() if held else held.append(route))
    page.get_by_role("button", name="Djibo").click()
    until(page, lambda: held)
    sent = []
    page.on("request", lambda request: sent.append(request.post_data) if request.url.endswith("/tap/") else None)
    page.reload()
    page.get_by_text("Hand 1 recorded: Djibo.").wait_for()
    expect(page.locator(".waiting li")).to_have_count(0)
    assert winners(sitting) == [(1, "Djibo")]
    key = re.compile(r"(?:^|&)key=([0-9a-f]{24})(?:&|$)")
    assert len(sent) == 1 and key.search(sent[0])[1] == key.search(held[0].request.post_data)[1]  # the same tap


def test_a_tap_whose_answer_was_lost_is_sent_again_with_its_key_and_an_undo_meanwhile_stands(browser, live_server):
    """The server recorded the tap but the phone never heard; before the phone sends it again another
    phone undoes that hand: the copy brings nothing back and the phone says what happened."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, clock=True)
    page.goto(live_server.url + sitting.get_absolute_url())
    sent = []
    page.route("**/tap/", lambda route: (sent.append(route.request.post_data), answer_lost(route)))
    page.get_by_role("button", name="Boubacar").click()
    expect(page.locator(".waiting li")).to_have_count(1)
    assert sitting.hands.count() == 1
    page.unroute("**/tap/")
    sitting.refresh_from_db()
    sitting.undo_hand(1)  # another phone
    page.clock.run_for(RETRY_MS + 1000)
    expect(page.locator(".waiting li")).to_have_count(0)
    expect(page.locator(".refused")).to_contain_text("Hand 1 was recorded from this tap, then undone at")
    assert sitting.hands.count() == 0
    assert len(sent) == 1 and re.search(r"(^|&)key=[0-9a-f]{24}(&|$)", sent[0])  # made on the phone as it tapped


def answer_lost(route) -> None:
    route.fetch()  # the server gets it and answers...
    route.abort()  # ...and the answer never reaches the phone


@pytest.mark.parametrize(
    "stream, said",
    [
        ("open", "Hand 1: Boubacar, on the table already; this phone is confirming it"),  # its hand pushed
        ("refused", "Hand 1: Boubacar, sent, no answer yet"),  # nor can the table show it yet
    ],
)
def test_a_tap_sent_without_an_answer_says_so_and_cannot_be_taken_back_before_the_server_answers(
    browser, live_server, stream, said
):
    """The server may have recorded it (it did here): taking it back would leave the hand counted, unsaid."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, clock=True)
    if stream == "refused":
        page.route("**/s/*/{events,poll}/**", lambda route: route.abort())
    page.goto(live_server.url + sitting.get_absolute_url())
    if stream == "open":
        stream_open(page)
    page.route("**/tap/", answer_lost)
    page.get_by_role("button", name="Boubacar").click()
    expect(page.locator(".waiting li")).to_have_text(said)
    expect(page.locator("[data-waiting-drop]")).to_have_count(0)
    page.unroute("**/tap/")
    page.clock.run_for(RETRY_MS + 1000)
    expect(page.locator(".waiting li")).to_have_count(0)
    assert sitting.hands.count() == 1


def test_a_waiting_tap_on_its_way_cannot_be_taken_back_and_the_next_tap_is_kept(browser, live_server):
    """Sent when the network came back, its answer slow: taking it back then would leave it recorded, and
    the answer, when it came, dropped the tap made instead of it."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, service_workers="block", clock=True)  # so that the test's route sees the tap
    page.goto(live_server.url + sitting.get_absolute_url())
    held = []
    page.route("**/tap/", lambda route: held.append(route))  # the server is slow to answer
    page.context.set_offline(True)
    tap(page, "Chaibou")
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Chaibou, waiting to send Take back")
    page.context.set_offline(False)
    until(page, lambda: held)
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Chaibou, sent, no answer yet")
    expect(page.locator("[data-waiting-drop]")).to_have_count(0)
    held[0].continue_()
    page.unroute("**/tap/")
    expect(page.locator(".waiting li")).to_have_count(0)
    tap(page, "Aïcha")
    expect(page.locator(".hands td .name")).to_have_text(["Aïcha", "Chaibou"])
    assert winners(sitting) == [(1, "Chaibou"), (2, "Aïcha")]
