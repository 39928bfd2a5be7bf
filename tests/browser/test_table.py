"""The tap flow in Debian's chromium at phone sizes, driven by Playwright: start, tap, undo, end, rematch;
answers and a correction; a stale tap; back and forward; a tap on a slow network; the screen kept awake.
Each flow runs once, its screens also checked at the other phone size and in dark. Screenshots land in
tests/screenshots/. Without JavaScript: tests/web/test_without_javascript.py."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import each_phone, hand_played, no_horizontal_scroll, open_phone, shot, until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


PICTURED = {"table", "finished", "fapfap-answers", "eighty-three-answers"}  # at each size, light and dark
# Each name's button: a thumb's size, and the width of the screen.
TAP_SIZES = """() => [...document.querySelectorAll("button.tap")].map(button => button.getBoundingClientRect())
    .filter(box => box.height < 48 || box.width < 300).map(box => `${box.width}x${box.height}`)"""


def fits(page, where: str, taps: bool = False) -> None:
    """Nothing scrolls sideways at each phone size (`taps`: and each name's button is a thumb's size and
    the width of the screen; the dark theme changes colours only); a screenshot at 360x640, light (at
    each size, light and dark, for the screens PICTURED)."""
    for tag in each_phone(page):
        if tag.endswith("-light"):
            assert taps is False or page.evaluate(TAP_SIZES) == [], (where, tag)
            assert no_horizontal_scroll(page), (where, tag)
        if tag == "360x640-light" or where in PICTURED:
            shot(page, f"{where}-{tag}")


def test_start_tap_undo_end_rematch(browser, live_server):
    """The whole flow once; each screen it shows is also checked at 412x915 and in dark."""
    page = open_phone(browser, clock=True)
    page.goto(live_server.url + "/start/")
    fits(page, "games")
    page.get_by_role("link", name="Agram (Niger)").click()
    assert no_horizontal_scroll(page)
    page.get_by_role("textbox", name="Player 1").fill("Aïcha")
    page.get_by_role("textbox", name="Player 2").fill("Boubacar")
    page.get_by_role("textbox", name="Player 3").fill("Chaibou")
    page.get_by_role("textbox", name="Player 4").fill("Djibo")
    page.get_by_role("button", name="Add a player").click()
    page.get_by_role("textbox", name="Player 5").fill("Ousmane Abdoulaye Maïnassara Ibrahim Ba")  # a long name
    fits(page, "start")
    page.get_by_role("button", name="Start the match", exact=True).last.click()
    page.wait_for_url("**/s/*/")
    page.get_by_text("Aïcha deals, Boubacar leads.").wait_for()

    expect(page.locator("button.tap")).to_have_count(5)
    fits(page, "table-start", taps=True)

    page.get_by_role("button", name="Chaibou").click()
    page.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    page.get_by_text("Chaibou deals, Djibo leads.").wait_for()
    hand_played(page)
    page.get_by_role("button", name="Djibo").click()
    page.get_by_text("Hand 2 recorded: Djibo.").wait_for()
    hand_played(page)
    page.get_by_role("button", name="Ousmane Abdoulaye Maïnassara Ibrahim Ba").click()
    page.get_by_text("Hand 3 recorded").wait_for()
    fits(page, "table", taps=True)

    page.get_by_text("Undo hand 3", exact=True).click()  # opens the question: nothing undone yet
    page.get_by_role("button", name="Yes, undo hand 3").click()
    page.get_by_text("Hand 3 undone").wait_for()
    assert page.locator('input[name="number"]').first.get_attribute("value") == "3"

    page.get_by_role("link", name="End match").click()
    page.get_by_role("button", name="Yes, end the match").wait_for()
    fits(page, "end-confirm")
    page.get_by_role("button", name="Yes, end the match").click()
    page.locator(".result", has_text="Shared first place").wait_for()
    fits(page, "finished")
    assert page.locator("button.tap").count() == 0

    page.get_by_role("button", name="Rematch: same players, new match").click()
    page.get_by_text("Djibo deals first: the deal carries on from the last match.").wait_for()  # he dealt hand 3
    page.get_by_text("Djibo deals, Ousmane Abdoulaye Maïnassara Ibrahim Ba leads.").wait_for()
    page.goto(live_server.url + "/")
    fits(page, "home")
    assert page.locator(".sittings li").count() == 2


def test_an_end_refused_because_another_phone_moved_on_leaves_the_phone_at_the_tables_address(browser, live_server):
    """The refusal shows the table; the address bar says the table's, so Reload shows it, not the question."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    page = open_phone(browser, "360x640")
    page.goto(live_server.url + sitting.get_absolute_url() + "end/")
    sitting.record_hand(1, 0)  # another phone, meanwhile
    page.get_by_role("button", name="Yes, end the match").click()
    page.get_by_text("Hand 2 is open now, not hand 1").wait_for()
    assert page.url == live_server.url + sitting.get_absolute_url()
    page.reload()
    page.get_by_role("button", name="Boubacar").wait_for()
    assert not sitting.hands.filter(number=2).exists()


def test_a_stale_phone_sees_the_recorded_winner_not_a_second_row(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    first, second = open_phone(browser), open_phone(browser)
    second.route("**/events/**", lambda route: route.abort())  # the push has not reached it yet,
    second.route("**/poll/**", lambda route: route.abort())  # nor a poll (every 5 s on a phone without the push)
    for page in (first, second):
        page.goto(live_server.url + sitting.get_absolute_url())
    first.get_by_role("button", name="Chaibou").click()
    first.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    second.get_by_role("button", name="Aïcha").click()  # this phone still shows hand 1 open
    second.get_by_text("Hand 1 is already recorded: Chaibou.").wait_for()
    assert second.locator('input[name="number"]').first.get_attribute("value") == "2"
    shot(second, "stale-tap-360x640")
    assert sitting.hands.count() == 1


def test_back_after_a_tap_shows_the_full_page(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    page = open_phone(browser)
    page.goto(live_server.url + "/")
    page.goto(live_server.url + sitting.get_absolute_url())
    page.get_by_role("button", name="Boubacar").click()
    page.get_by_text("Hand 1 recorded").wait_for()
    page.go_back()
    page.go_forward()
    page.get_by_role("link", name="Last Trick").wait_for()  # the header: a whole page, not a fragment
    assert page.locator("html head title").count() == 1
    assert "Boubacar" in page.locator("table.tally").inner_text()


def test_fapfap_and_eighty_three_answers_then_correct_a_past_hand(browser, live_server):
    """The flow once; each screen with its answers open is also checked at 412x915 and in dark."""
    page = open_phone(browser, clock=True)
    fapfap = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"], stake_amount=100, stake_label="FCFA")
    page.goto(live_server.url + fapfap.get_absolute_url())
    page.locator("summary", has_text="Chaibou").click()
    fits(page, "fapfap-answers")
    page.get_by_role("button", name="With a 3, last trick only: 2 stakes").click()
    page.get_by_text(
        "Hand 1 recorded: Chaibou (with a 3, last trick only: 200 FCFA from each other player)."
    ).wait_for()
    assert "400" in page.locator("table.tally").inner_text()  # net: the two others pay 2 stakes of 100 each
    hand_played(page)
    page.locator("summary", has_text="Aïcha").click()
    page.get_by_role("button", name="With a 4 or higher: 1 stake").click()
    page.get_by_text("Hand 2 recorded: Aïcha (with a 4 or higher: 100 FCFA from each other player).").wait_for()

    page.get_by_role("link", name="All hands").click()
    page.get_by_role("link", name="Correct hand 1").click()
    page.locator("summary", has_text="Boubacar").click()
    fits(page, "correct")
    page.locator("details[open]", has_text="Boubacar").get_by_role(
        "button", name="With 3s, the last two tricks: 4 stakes"
    ).click()
    page.get_by_text(
        "Hand 1 corrected: Boubacar (with 3s, the last two tricks: 400 FCFA from each other player)."
    ).wait_for()
    assert [s.total for s in fapfap.table().seats] == [1, 4, 0]

    eighty_three = Sitting.start("eighty-three", ["Aïcha", "Boubacar", "Chaibou"])
    page.goto(live_server.url + eighty_three.get_absolute_url())
    page.locator("summary", has_text="Boubacar").click()
    answers = page.locator("details[open]")
    answers.get_by_label("Won the 5th trick with an Ace").check()
    answers.get_by_label("Chaibou").check()
    fits(page, "eighty-three-answers")
    answers.get_by_role("button", name="Record: Boubacar wins").click()
    page.get_by_text("Hand 1 recorded: Boubacar (").wait_for()
    assert [s.total for s in eighty_three.table().seats] == [0, 3, 1]
    assert page.get_by_text("Playing to 10.").is_visible()
    fits(page, "eighty-three-table")


def test_on_a_slow_network_a_tap_is_one_round_trip_and_shows_at_once_that_it_is_recording(browser, live_server):
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, service_workers="block")  # so that the route below sees the tap
    page.goto(live_server.url + sitting.get_absolute_url())
    requests = []
    page.on("request", lambda request: requests.append((request.method, request.url)))
    held = []  # the tap's answer, held back as on a slow network until the test lets it through
    page.route("**/tap/", lambda route: held.append(route))
    page.locator("summary", has_text="Chaibou").click()
    page.get_by_role("button", name="With a 3, last trick only: 2 stakes").click()
    pending = page.get_by_role("button", name="With a 3, last trick only: 2 stakes")
    expect(pending).to_have_class(re.compile(r"\bpending\b"))
    assert pending.get_attribute("data-pending") == "Recording…" and pending.get_attribute("aria-busy") == "true"
    expect(page.locator("#table .waiting-count")).to_have_text(" · sending a tap…")  # not "every tap sent"
    until(page, lambda: held)
    (route,) = held
    route.continue_()
    page.get_by_text(
        "Hand 1 recorded: Chaibou (with a 3, last trick only: 2 stakes from each other player)."
    ).wait_for()
    taps = [r for r in requests if "/tap/" in r[1]]
    assert taps == [("POST", live_server.url + sitting.get_absolute_url() + "tap/")]
    # No redirect, no follow-up fetch (the browser may still fetch the page's icon, a static file, meanwhile).
    assert not [r for r in requests if r[0] == "GET" and "/poll/" not in r[1] and "/static/" not in r[1]]
    assert [s.total for s in sitting.table().seats] == [0, 0, 2]


def test_the_wake_lock_toggle_is_offered_while_a_sitting_is_open(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    toggle = page.locator("[data-wake]")
    supported = page.evaluate("'wakeLock' in navigator")
    assert toggle.is_visible() is supported
    if supported:
        assert toggle.get_attribute("aria-pressed") == "true"
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "false" and "may sleep" in toggle.inner_text()
