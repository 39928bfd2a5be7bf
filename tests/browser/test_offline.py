"""A phone that loses the network keeps the table: the service worker's copy, the offline line, taps that
wait on the phone and are sent in order when the network is back, and refusals said plainly."""

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import hand_played, no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def watch_console(page, errors: list[str] | None = None) -> list[str]:
    """Every console error and uncaught exception of `page` (a CSP refusal is a console error), but the
    line chromium writes for a refusal the test provokes (a 409 answer is the server saying no, as meant)."""
    errors = [] if errors is None else errors

    def seen(message):
        if message.type == "error" and "status of 409" not in message.text:
            errors.append(message.text)

    page.on("console", seen)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def ready_offline(page, url: str) -> None:
    """Open `url` with the service worker in control, so that a reload with no network still shows it."""
    page.goto(url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now the worker controls the page and has kept this table
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def tap(page, name: str, played: bool = True) -> None:
    """Tap `name`; `played`: then wait as long as a hand takes at least (a tap sooner is a double tap)."""
    page.locator("button.tap", has_text=name).click()
    if played:
        hand_played(page)


def winners(sitting) -> list[tuple[int, str]]:
    return [(hand.number, hand.winner.player.name) for hand in sitting.hands.select_related("winner__player").order_by("number")]


def test_three_taps_offline_survive_a_reload_and_are_recorded_once_in_order(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page)
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
    expect(page.locator("[data-fingerprint]")).to_contain_text(f"#{sitting.version}")
    shot(page, "offline-sent-fr")

    other = open_phone(browser, "360x640")
    other.goto(url)
    expect(other.locator(".hands tbody tr")).to_have_count(4)
    assert other.locator("[data-fingerprint]").inner_text().startswith("4 hands")
    assert errors == []


def test_two_offline_phones_tapping_one_hand_differently_end_with_one_hand_and_a_clear_message(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    url = f"{live_server.url}/s/{sitting.token}/"
    first, second = open_phone(browser), open_phone(browser)
    errors = watch_console(second, watch_console(first))
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
    expect(refused).to_contain_text("Not recorded from this phone: hand 1, Djibo.")
    expect(refused).to_contain_text("Hand 1 is already recorded: Aïcha")
    expect(refused.get_by_role("link", name="Correct hand 1")).to_be_visible()
    shot(second, "offline-refused-other-phone")
    assert winners(sitting) == [(1, "Aïcha")]
    # The message stays through the next changes of the table, until the player says they saw it.
    tap(second, "Chaibou")
    second.get_by_text("Hand 2 recorded: Chaibou.").wait_for()
    expect(refused).to_be_visible()
    refused.get_by_role("button", name="OK, seen").click()
    expect(second.locator(".refused")).to_have_count(0)
    assert errors == []


def test_a_waiting_tap_refused_because_the_match_ended_is_said(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    url = f"{live_server.url}/s/{sitting.token}/"
    page = open_phone(browser)
    errors = watch_console(page)
    ready_offline(page, url)
    page.context.set_offline(True)
    tap(page, "Boubacar")
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
    url = f"{live_server.url}/s/{sitting.token}/"
    page = open_phone(browser)
    errors = watch_console(page)
    ready_offline(page, url)
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
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page)
    page.goto(f"{live_server.url}/s/{sitting.token}/")  # once, as from a link in a message
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
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
    page = open_phone(browser, "360x640", locale="fr-FR")
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    page.goto(f"{live_server.url}/s/{other.token}/")  # never opened here
    expect(page.get_by_role("heading", name="Pas de réseau")).to_be_visible()
    page.context.set_offline(False)
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


def test_a_tap_that_gets_no_answer_waits_on_the_table_and_is_sent_once_the_network_answers(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, service_workers="block")  # so that the test's route sees the tap
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.route("**/tap/", lambda route: route.abort("internetdisconnected"))  # the Wi-Fi drops, unnoticed
    tap(page, "Djibo")
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Djibo, waiting to send Take back")
    expect(page.locator(".offline-line")).to_be_visible()
    assert page.locator(".failed").count() == 0  # no "not saved" mark: the tap is kept
    tap(page, "Aïcha")  # the table plays on: hand 2 waits behind hand 1
    expect(page.locator(".waiting li")).to_have_count(2)
    page.unroute("**/tap/")
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    expect(page.locator(".offline-line")).to_have_count(0)
    assert winners(sitting) == [(1, "Djibo"), (2, "Aïcha")]


def test_a_waiting_tap_shows_its_answers_and_is_recorded_with_them(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES[:3])
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    page.locator("summary.tap", has_text="Boubacar").click()
    answer = page.locator("details.ask[open] button.answer").nth(1)
    said = answer.inner_text().strip()
    answer.click()
    expect(page.locator(".waiting li")).to_contain_text(f"Main 1\u00a0: Boubacar, en attente d’envoi ({said})")
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
    page = open_phone(browser)
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


@pytest.mark.parametrize("locale", ["de-DE", "vi-VN"])
def test_the_waiting_taps_fit_a_small_phone_in_every_language(browser, live_server, locale):
    sitting = Sitting.start("cat-te", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    page = open_phone(browser, "360x640", locale=locale)
    errors = watch_console(page)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    page.context.set_offline(True)
    for name in ["Chaibou", "Aïcha"]:
        page.locator("summary.tap", has_text=name).click()
        page.locator("details.ask[open] .answers button.answer:visible").first.click()
        hand_played(page)
    expect(page.locator(".waiting li")).to_have_count(2)
    expect(page.locator(".offline-line")).to_be_visible()
    assert no_horizontal_scroll(page)
    shot(page, f"offline-waiting-{locale}")
    assert errors == []


def test_a_double_tap_on_a_name_records_one_hand_online_and_offline(browser, live_server):
    """The next hand's button is under the finger once the first tap is answered (or at once offline):
    the same name tapped again a moment later is the same tap, not the next hand."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page)
    ready_offline(page, f"{live_server.url}/s/{sitting.token}/")
    tap(page, "Aïcha", played=False)
    page.get_by_text("Main 1 notée").wait_for()
    tap(page, "Aïcha", played=False)  # the second tap of a double tap, landing on hand 2
    tap(page, "Boubacar", played=False)  # or on another name, the page having moved under the finger
    page.wait_for_timeout(300)
    assert winners(sitting) == [(1, "Aïcha")]
    expect(page.locator(".legend .hand")).to_have_text("Main 2")

    page.wait_for_timeout(700)  # a hand later, the same player may well win again
    tap(page, "Aïcha")
    page.get_by_text("Main 2 notée").wait_for()
    page.wait_for_timeout(700)

    page.context.set_offline(True)
    expect(page.locator(".offline-line")).to_be_visible()
    tap(page, "Djibo", played=False)
    tap(page, "Chaibou", played=False)
    expect(page.locator(".waiting li")).to_have_count(1)
    page.wait_for_timeout(800)
    tap(page, "Djibo")
    expect(page.locator(".waiting li")).to_have_count(2)
    page.context.set_offline(False)
    expect(page.locator(".waiting li")).to_have_count(0)
    assert winners(sitting) == [(1, "Aïcha"), (2, "Aïcha"), (3, "Djibo"), (4, "Djibo")]
    assert errors == []


def test_a_pushed_form_the_browser_sends_itself_carries_the_pages_csrf_token(browser, live_server):
    """A tap landing on a swapped-in table before htmx took it over is sent by the browser as a plain form:
    the region (rendered once for every phone) has no CSRF field, so the page adds its own, and the hand
    counts instead of a 403 page that a reload only posts again."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watch_console(page)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    tap(page, "Aïcha")
    page.get_by_text("Main 1 notée").wait_for()
    assert page.locator('#table form[action$="/tap/"] input[name="csrfmiddlewaretoken"]').count() == 0
    page.wait_for_timeout(700)  # a hand is played (sooner would be a double tap)
    # A copy of the swapped-in form that htmx never saw: the browser itself sends it.
    page.evaluate("""() => {
        const form = document.querySelector('#table form[action$="/tap/"]').cloneNode(true);
        form.removeAttribute("hx-post");
        form.id = "plain";
        document.body.append(form);
    }""")
    with page.expect_navigation():
        page.locator("#plain button.tap", has_text="Djibo").click()
    assert page.url.endswith(f"/s/{sitting.token}/")
    assert winners(sitting) == [(1, "Aïcha"), (2, "Djibo")]
    assert errors == []


def test_a_tap_the_server_could_not_save_for_a_moment_waits_on_the_table_and_is_sent_again(browser, live_server):
    """The server answers 503 "try again" (its database away): the tap is not lost nor marked failed; it
    waits on the table like one made offline and is sent again by itself."""
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser, "360x640", locale="fr-FR")
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
    expect(page.locator(".waiting li")).to_have_count(0, timeout=15_000)
    expect(page.locator(".hands tbody tr")).to_have_count(1)
    assert refused and winners(sitting) == [(1, "Djibo")]
    assert page.locator("button.tap.failed").count() == 0
    assert [error for error in errors if "503" not in error] == []
