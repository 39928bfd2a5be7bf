"""The app on a plain-HTTP LAN address, as `make run` serves it to phones: no secure context, so no Wake
Lock, Clipboard or Share API and no service worker. The screen still stays on (NoSleep.js's tiny looping
video, started by a tap), the Copy buttons and Share result still copy, and the phone says once what such
an address cannot do. The same page on a secure address: test_table.py, test_share_result.py."""

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Sitting

from tests.browsers import LAN_HOST, hand_played, open_phone, shot, watch_console

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
# What scorekeeper/settings.py leaves out with PLAIN_HTTP=1 (`make run`): secure cookies, HSTS, the COOP header.
PLAIN_HTTP = {
    "PLAIN_HTTP": True,
    "SESSION_COOKIE_SECURE": False,
    "CSRF_COOKIE_SECURE": False,
    "SECURE_HSTS_SECONDS": 0,
    "SECURE_CROSS_ORIGIN_OPENER_POLICY": None,
}
# Every video the page starts, and when, kept for the test to look at (the keep-awake video is in no document).
PLAYED = """window.__played = [];
const play = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function () {
  if (!window.__played.includes(this)) window.__played.push(this);
  this.__started = performance.now();
  return play.call(this);
};"""
# What chromium needs to keep the screen on for a video no one sees (third_party/blink's VideoWakeLock):
# playing, with frames, and audible (an audio track, not muted, some volume) on a visible page.
AWAKE = """() => window.__played.some(video => !video.paused && video.playsInline && !video.muted && video.volume > 0
  && video.webkitVideoDecodedByteCount > 0 && video.webkitAudioDecodedByteCount > 0)"""
# ...and it goes on playing past its own length (NoSleep.js loops it, or seeks back before its end).
STILL_AWAKE = """() => window.__played.some(video => !video.paused && !video.ended
  && performance.now() - video.__started > 1000 * video.duration + 500)"""
ASLEEP = "() => window.__played.length > 0 && window.__played.every(video => video.paused)"


@pytest.fixture(scope="module")
def live_server():
    """The app as `make run` serves it (plain HTTP) at a LAN name that is not localhost: this module's
    tests use it in place of conftest's live server."""
    from tests.asgi_server import AsgiLiveServer

    with override_settings(**PLAIN_HTTP):  # before the server builds its middleware, which reads them once
        server = AsgiLiveServer(host=LAN_HOST)
        yield server
        server.stop()


def lan_phone(browser, **options):
    page = open_phone(browser, **options)
    page.add_init_script(PLAYED)
    return page


def pasted(page) -> str:
    """What the phone's clipboard holds, pasted with the keyboard into a text box made for it (this
    address has no Clipboard API to read it with)."""
    page.evaluate("document.body.append(Object.assign(document.createElement('textarea'), {id: 'paste-here'}))")
    box = page.locator("#paste-here")
    box.focus()
    page.keyboard.press("Control+V")
    text = box.input_value()
    box.evaluate("box => box.remove()")
    return text


def test_a_lan_address_keeps_the_screen_on_copies_the_link_and_says_once_what_it_cannot_do(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = lan_phone(browser)
    errors = watch_console(page)
    page.goto(live_server.url + sitting.get_absolute_url())
    assert page.evaluate("[location.hostname, window.isSecureContext]") == [LAN_HOST, False]
    assert page.evaluate("!('wakeLock' in navigator) && !navigator.clipboard && !navigator.share")

    note = page.locator("#plain-http")
    expect(note).to_be_visible()
    expect(note).to_contain_text("with no network it cannot open or reload it")
    toggle = page.locator("[data-wake]")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "false")  # not on until a tap starts the video
    expect(toggle).to_have_text("Screen may sleep: tap to keep it on")
    shot(page, "plain-http-notice-360x640")
    assert page.evaluate("window.__played.length") == 0  # a video with sound needs a tap to start

    note.get_by_role("button", name="OK, seen").click()  # the first tap on the page starts the video
    expect(note).to_be_hidden()
    page.wait_for_function(AWAKE)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    page.wait_for_function(ASLEEP)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.wait_for_function(AWAKE)
    page.wait_for_function(STILL_AWAKE)

    page.locator("details.share > summary").click()
    page.get_by_role("button", name="Copy the link").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert pasted(page) == page.locator("#member-link").input_value() == live_server.url + sitting.get_absolute_url()
    shot(page, "plain-http-copied-360x640")

    page.reload()  # said once: not again once seen
    expect(toggle).to_be_visible()
    expect(note).to_be_hidden()
    assert errors == []


def test_at_a_lan_address_the_match_end_lets_the_screen_sleep_and_copies_the_result(browser, live_server):
    sitting = Sitting.start("agram", NAMES, MatchEnd(MatchEndKind.HANDS, 2))
    page = lan_phone(browser, clock=True)
    errors = watch_console(page)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.locator("button.tap", has_text="Chaibou").click()  # a tap on a name starts the video too
    page.wait_for_function(AWAKE)
    hand_played(page)
    page.locator("button.tap", has_text="Djibo").click()  # the match ends: the toggle goes, the video stops
    page.get_by_text("Match over").wait_for()
    page.wait_for_function(ASLEEP)

    share = page.get_by_role("button", name="Copy the result")  # no share sheet here
    expect(share).to_be_visible()
    expect(page.locator("#result-text")).to_be_hidden()
    share.click()
    expect(page.get_by_role("button", name="Result copied: paste it in your chat")).to_be_visible()
    shot(page, "plain-http-result-copied-360x640")
    copied = pasted(page)
    assert copied == page.locator("#result-text").input_value() and f"/w/{sitting.watch_token}/" in copied
    assert errors == []


def test_at_a_lan_address_a_first_tap_on_the_keep_awake_toggle_keeps_the_screen_on_not_off(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    page = lan_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    toggle = page.locator("[data-wake]")
    expect(toggle).to_have_text("Screen may sleep: tap to keep it on")
    toggle.click()
    page.wait_for_function(AWAKE)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_text("Screen stays on: tap to let it sleep")
