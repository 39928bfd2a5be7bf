"""A keyboard or a screen reader keeps its place at the table: another phone's change leaves the focus on the
same control and is told politely; this phone's own change puts the focus on its answer; Escape closes a panel;
a refused field takes the focus back only where no finger moved it meanwhile."""

import pytest
from playwright.sync_api import expect

from matches.models import Group, Sitting

from tests.browsers import open_phone, stream_open, until, wait_for_push, watch_console

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def test_another_phones_tap_leaves_the_focus_on_the_same_name_and_is_told(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser)
    errors = watch_console(page)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    page.locator("button.tap", has_text="Chaibou").focus()
    sitting.record_hand(1, 0)  # from another phone
    wait_for_push(page, 1)
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    expect(page.locator("button.tap", has_text="Chaibou")).to_be_focused()
    expect(page.locator("#told")).to_have_text("1 hand · last: Aïcha")
    page.keyboard.press("Enter")  # this phone's own tap: its answer is told, and the line above goes quiet
    expect(page.locator("#table .notice")).to_have_text("Hand 2 recorded: Chaibou.")
    expect(page.locator("#told")).to_have_text("")  # (it said hand 1's, above the table of hand 3)
    assert errors == []


def test_another_phones_tap_leaves_the_focus_on_the_same_name_whose_answers_open_below_it(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES)
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    stream_open(page)
    page.locator("details.ask summary", has_text="Djibo").focus()
    sitting.record_hand(1, 0, {"multiplier": "1"})  # from another phone
    wait_for_push(page, 1)
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    expect(page.locator("details.ask summary", has_text="Djibo")).to_be_focused()


def test_a_keyboard_tap_puts_the_focus_on_its_answer(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.locator("button.tap", has_text="Djibo").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#table .notice")).to_have_text("Hand 1 recorded: Djibo.")
    expect(page.locator("#table .notice")).to_be_focused()


def test_escape_closes_the_panel_the_focus_is_in(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES)
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    name = page.locator("details.ask summary", has_text="Boubacar")
    name.focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.ask[open]")).to_have_count(1)
    page.keyboard.press("Tab")
    page.keyboard.press("Escape")
    expect(page.locator("details.ask[open]")).to_have_count(0)
    expect(name).to_be_focused()


@pytest.mark.parametrize("moment", ["on its way", "settling"])
def test_a_box_tapped_while_a_refusal_comes_keeps_what_is_typed_next(browser, live_server, moment):
    """A refused name takes the focus back (the keyboard stays up, to fix it), unless a finger tapped another box
    while its answer was on its way or settling (htmx's autofocus, 20 ms on): what is typed next goes there."""
    group = Group.create("Vendredi", ["Mbarga", "Ngono"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=50, stake_label="€")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    page = open_phone(browser, clock=True)
    errors = watch_console(page, allowed=("400 (Bad Request)",))  # (chromium's own, for the refused name)
    page.goto(live_server.url + group.get_absolute_url())
    page.locator("#new-player").fill("NGONO")
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)  # no timer fires unless the test says so
    held = []
    page.route("**/players/", lambda route: held.append(route))  # a slow network
    page.get_by_role("button", name="Add").click()
    until(page, lambda: held)
    paid = page.locator(".open-payments").get_by_role("textbox")
    if moment == "on its way":
        paid.click()
    held[0].continue_()
    expect(page.locator("#members .notice")).to_contain_text("Ngono is in this group already")
    if moment == "settling":
        expect(page.locator("#new-player")).to_be_focused()  # as the answer comes
        paid.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.2")
    page.clock.run_for(1000)
    page.keyboard.type("5")
    expect(paid).to_be_focused()
    expect(paid).to_have_value("0.25")
    expect(page.locator("#new-player")).to_have_value("NGONO")
    assert errors == []
