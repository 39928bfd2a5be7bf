"""Helpers for the browser tests: Debian's chromium driven by Playwright, phone-sized pages, screenshots,
the console, axe-core, the live stream as the page sees it, and the phone's clock (never a real wait)."""

import os
import shutil
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).parent / "screenshots"
PHONES = {"360x640": {"width": 360, "height": 640}, "412x915": {"width": 412, "height": 915}}
# A name that reaches this machine and is not localhost: a page there is no secure context, as on the
# LAN address that `make run` gives phones (tests/browser/test_plain_http.py).
LAN_HOST = "lan.test"


def one_browser_per_run(fixture_name, config) -> str:
    """A run of the browser tests alone (`-m browser`) starts chromium once per test process. Mixed with
    other tests, it lives for one module at a time: Playwright's sync API keeps an event loop running in
    the thread, which the other tests (asyncio, Django's async-unsafe check) must not find there."""
    return "session" if config.getoption("markexpr", "") == "browser" else "module"


def launch(browser_type, back_forward_cache: bool = False):
    """Debian's chromium. `back_forward_cache`: with it, as on a phone (Playwright turns it off by default, so
    that Back always loads the page again)."""
    return browser_type.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--host-resolver-rules=MAP {LAN_HOST} 127.0.0.1",
        ],
        ignore_default_args=["--disable-back-forward-cache"] if back_forward_cache else None,
    )


@pytest.fixture(scope=one_browser_per_run)
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package.")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = launch(playwright.chromium)
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


# Counts, in the page, the live streams opened and the events pushed to it (window.__live), so that a
# test waits for the push itself rather than for a time it should have come by.
LIVE_WATCH = """(() => {
  const Native = window.EventSource;
  if (!Native) return;
  window.__live = {open: 0, pushed: 0};
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { window.__live.open += 1; });
      for (const name of ["table", "changed", "gone"]) {
        this.addEventListener(name, () => { window.__live.pushed += 1; });
      }
    }
  };
})()"""


def open_phone(browser, size="360x640", clock=False, language=None, **options):
    """A new phone (its own context: cookies, storage, service worker) showing nothing yet. `clock`: the
    phone's clock is Playwright's, so that a test moves it on (hand_played) instead of waiting.
    `language`: the phone's language, as its browser asks for it."""
    if language:
        options.setdefault("locale", language)
        options.setdefault("extra_http_headers", {"Accept-Language": language})
    context = browser.new_context(viewport=PHONES[size], **options)
    context.set_default_timeout(10_000)
    context.add_init_script(LIVE_WATCH)
    if clock:
        context.clock.install()
    return context.new_page()


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png", full_page=True)


def each_phone(page):
    """The page as it is, shown on each phone size in light and in dark (resized and recoloured, not
    loaded again): yields "360x640-light", "360x640-dark", "412x915-light"...; then back to 360x640, light."""
    for size, viewport in PHONES.items():
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            yield f"{size}-{scheme}"
    page.set_viewport_size(PHONES["360x640"])
    page.emulate_media(color_scheme="light")


def no_horizontal_scroll(page) -> bool:
    page.wait_for_load_state()  # after a click that navigates, the next document first
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


HAND_MS = 750  # static/offline.js drops a tap of the next hand within 700 ms of the last (a double tap)


def hand_played(page) -> None:
    """Move the phone's clock on by as long as a hand takes at least, before tapping the next one (sooner
    is a double tap). The phone was opened with `clock=True`."""
    page.clock.fast_forward(HAND_MS)


def played_on(sitting) -> None:
    """The table played on since its last hand was recorded: another phone's tap now is for the next hand,
    not the same hand tapped a moment after (which the server holds back: matches.models.verbs.RIGHT_AFTER)."""
    from django.db.models import F

    from matches.models.verbs import RIGHT_AFTER

    sitting.hands.update(recorded_at=F("recorded_at") - RIGHT_AFTER)


def stream_open(page, count: int = 1) -> None:
    """Wait until the page's live stream is open: the server has it listening for changes."""
    page.wait_for_function("n => window.__live && window.__live.open >= n", arg=count)


def pushed(page) -> int:
    """How many events the server has pushed to the page so far."""
    return page.evaluate("window.__live ? window.__live.pushed : 0")


def wait_for_push(page, count: int) -> None:
    """Wait until the server has pushed `count` events to the page, in all."""
    page.wait_for_function("n => window.__live && window.__live.pushed >= n", arg=count)


def until(page, condition, timeout: float = 10) -> None:
    """Let the page's events reach the test (a route's handler runs while the test talks to the page)
    until `condition()` holds: a route holding a request has its request, say."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the page's events never met the condition"
        page.wait_for_function("() => new Promise(done => requestAnimationFrame(() => done(true)))")  # a frame


def watch_console(page, errors: list[str] | None = None, allowed: tuple[str, ...] = ()) -> list[str]:
    """Every console error and uncaught exception of `page` (a CSP refusal is a console error), but the
    lines containing one of `allowed` (chromium's own line for a refusal the test provokes)."""
    errors = [] if errors is None else errors

    def seen(message):
        if message.type == "error" and not any(words in message.text for words in allowed):
            errors.append(message.text)

    page.on("console", seen)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


# --- the phone with no network ---------------------------------------------------------------------------

REFUSED = "status of 409"  # chromium's own console line for a refusal the server answers, as meant


def worker_ready(page) -> None:
    """Wait until the page's service worker is installed. Cutting the network while chromium still fetches its
    script logs a console error of chromium's own, whatever the page does."""
    page.wait_for_function("navigator.serviceWorker.ready.then(() => true)")


def ready_offline(page, url: str) -> None:
    """Open `url` with the service worker in control, so that a reload with no network still shows it."""
    page.goto(url)
    worker_ready(page)
    page.reload()  # now the worker controls the page and has kept this table
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def winners(sitting) -> list[tuple[int, str]]:
    """The hands recorded, in order: (number, winner's name)."""
    hands = sitting.hands.select_related("winner__player").order_by("number")
    return [(hand.number, hand.winner.player.name) for hand in hands]


# --- axe-core -------------------------------------------------------------------------------------------

COLOUR_RULES = ["color-contrast", "link-in-text-block"]  # all that a dark theme changes: app.css's only colours


def serious(page, rules: list[str] | None = None, style_sheets: bool = False) -> list[str]:
    """axe-core's serious and critical violations on the page as it is (every rule, or only `rules`).
    `style_sheets`: axe reads the page's style sheets again first, for the one rule that needs them
    (css-orientation-lock: they are the same app.css on every page, read on every English screen of
    test_accessibility.py's sweep); without, that rule is left undecided, never failed."""
    if not page.evaluate("typeof window.axe === 'object'"):
        from axe_playwright_python.sync_playwright import Axe

        script = Axe().axe_script
        page.evaluate(script)
        page.context.add_init_script(script)  # and in every page this phone opens next, from the start
    options = {"resultTypes": ["violations"], "preload": style_sheets} | ({"runOnly": rules} if rules else {})
    violations = page.evaluate("options => axe.run(document, options).then(r => r.violations)", options)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def serious_light_and_dark(page, style_sheets: bool = False) -> list[str]:
    """axe on the page in the light theme, then the colour rules in the dark one (the same page: nothing
    but colours changes); the page is left light."""
    page.emulate_media(color_scheme="light")
    found = serious(page, style_sheets=style_sheets)
    page.emulate_media(color_scheme="dark")
    found += [f"dark: {problem}" for problem in serious(page, COLOUR_RULES)]
    page.emulate_media(color_scheme="light")
    return found
