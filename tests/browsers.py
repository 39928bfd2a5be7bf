"""Helpers for the browser tests: Debian's chromium driven by Playwright, phone-sized pages, screenshots."""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).parent / "screenshots"
PHONES = {"360x640": {"width": 360, "height": 640}, "412x915": {"width": 412, "height": 915}}


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package.")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


def open_phone(browser, size="360x640", **options):
    context = browser.new_context(viewport=PHONES[size], **options)
    context.set_default_timeout(10_000)
    return context.new_page()


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png", full_page=True)


def no_horizontal_scroll(page) -> bool:
    page.wait_for_load_state()  # after a click that navigates, the next document first
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


HAND_MS = 750  # static/offline.js drops a tap of the next hand within 700 ms of the last (a double tap)


def hand_played(page) -> None:
    """Wait as long as a hand takes at least, before tapping the next one: sooner is a double tap."""
    page.wait_for_timeout(HAND_MS)

