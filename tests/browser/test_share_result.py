"""The Share result button at a match's end, in Debian's chromium: the phone's share sheet where it has
one (the standings came by htmx after the last tap), else the clipboard. Without JavaScript the text
stays in its box: tests/web/test_without_javascript.py."""

import re

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Sitting

from tests.browsers import open_phone, shot
from tests.conftest import shown

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Mbarga", "Ngono", "Ateba"]
STUB_SHARE = (
    "window.__shared = []; navigator.share = function (data) { window.__shared.push(data); return Promise.resolve(); };"
)
NO_SHARE = "delete Navigator.prototype.share; delete navigator.share;"


def test_the_share_button_uses_the_share_sheet_after_the_last_tap(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES, MatchEnd(MatchEndKind.POINTS, 7), stake_amount=100, stake_label="FCFA")
    for number, (seat, multiplier) in enumerate([(1, "2"), (1, "4"), (0, "1")], start=1):
        sitting.record_hand(number, seat, {"multiplier": multiplier})
    page = open_phone(browser)
    page.add_init_script(STUB_SHARE)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.locator("summary.tap", has_text="Ngono").click()  # the last tap ends the match: the standings come by htmx
    page.get_by_role("button", name=re.compile("With a 4 or higher")).click()
    page.get_by_text("Match over").wait_for()
    button = page.get_by_role("button", name="Share result")
    button.wait_for()
    assert not page.locator("#result-text").is_visible()  # the phone shares: no box to select from
    shot(page, "share-result-360x640")
    button.click()
    page.wait_for_function("window.__shared.length === 1")
    shared = page.evaluate("window.__shared[0]")
    assert shared["title"] == "Fapfap"
    assert "Mbarga pays Ngono 500 FCFA." in shown(shared["text"]) and f"/w/{sitting.watch_token}/" in shared["text"]
    assert sitting.token not in shared["text"]


def test_without_a_share_sheet_the_button_copies_the_result(browser, live_server):
    sitting = Sitting.start("cat-te", ["Ben", "Cal", "Dia"], MatchEnd(MatchEndKind.HANDS, 1))
    sitting.record_hand(1, 0, {"how": "last"})
    page = open_phone(browser, "412x915")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.add_init_script(NO_SHARE)
    page.goto(live_server.url + sitting.get_absolute_url())
    button = page.get_by_role("button", name="Copy the result")  # no share sheet: the button says it copies
    button.click()
    page.get_by_role("button", name="Result copied: paste it in your chat").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Cat Tê · ") and "Cal owes Ben the worth of 1 chip." in shown(copied)
    shot(page, "share-result-copied-412x915")
