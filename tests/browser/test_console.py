"""No page logs an error in the console while the screen updates: htmx never writes a style attribute
(refused by the Content-Security-Policy, style-src 'self'), and a refusal shown on the page is not
logged as an htmx error."""

import pytest

from matches.models import Group

from tests.browsers import open_phone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NETWORK = "Failed to load resource: the server responded with a status of 400"  # the browser's own line


def watched(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_a_screen_update_never_writes_an_inline_style(browser, live_server):
    """An element the browser styled (a style attribute set through the CSSOM, as extensions and
    autofill do) keeps the Content-Security-Policy quiet when htmx swaps it."""
    group = Group.create("Jeudi", ["Aïcha", "Djibo", "Boubacar"])
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watched(page)
    page.goto(f"{live_server.url}/g/{group.token}/new/agram/")
    page.evaluate("document.getElementById('new-match').style.outlineOffset = '1px'")
    page.locator(".pick button", has_text="Djibo").click()
    page.locator(".seated li", has_text="Djibo").wait_for()
    page.locator(".pick button", has_text="Aïcha").click()
    page.locator(".seated li", has_text="Aïcha").wait_for()
    assert errors == []


def test_a_refusal_on_the_page_is_not_logged_as_an_error(browser, live_server):
    group = Group.create("Jeudi", ["Aïcha", "Djibo", "Boubacar"])
    page = open_phone(browser, "360x640", locale="fr-FR")
    errors = watched(page)
    page.goto(f"{live_server.url}/g/{group.token}/new/agram/")
    page.fill("#newcomer", "aicha")
    page.locator("button[value=newcomer]").click()
    page.locator("#newcomer-error").wait_for()
    page.get_by_role("button", name="Placer Aïcha à la table").click()
    page.locator(".seated li", has_text="Aïcha").wait_for()
    # Left: the browser's own line for the 400 status, which no page script writes nor can silence.
    assert [error for error in errors if not error.startswith(NETWORK)] == []
