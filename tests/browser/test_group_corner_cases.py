"""The newcomer's group stumbles on the screen, in Debian's chromium at the sizes they played (English
at 360x640, French at 412x915): the seating hint follows the taps; a group just made shows its link
without a tap (with JavaScript or without); the top bar names the group. Screenshots land in
tests/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Group

from tests.browsers import no_horizontal_scroll, open_phone, shot
from tests.browser.test_accessibility import serious

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters
PLAYED = [("en", "360x640"), ("fr", "412x915")]
TAP_FIRST = {"en": "Tap whoever deals first", "fr": "Touchez celui qui donne en premier"}


def phone(browser, language, size, **options):
    return open_phone(browser, size, locale=language, extra_http_headers={"Accept-Language": language}, **options)


@pytest.mark.parametrize("language, size", PLAYED)
def test_the_seating_hint_says_what_each_state_offers_as_names_are_tapped(browser, live_server, language, size):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    page = phone(browser, language, size)
    page.goto(live_server.url + f"/g/{group.token}/new/agram/")
    hint = page.locator("#seating-hint")
    expect(hint).to_be_visible()
    nobody = hint.text_content()
    assert nobody.startswith(TAP_FIRST[language])
    page.locator(".pick button", has_text="Chaibou").click()  # htmx swaps the form
    expect(page.locator("ol.seated li")).to_have_count(1)
    some = hint.text_content()
    assert TAP_FIRST[language] not in some and some != nobody
    page.locator(".pick button", has_text="Aïcha").click()
    expect(page.locator("ol.seated li")).to_have_count(2)
    assert hint.text_content() == some  # still names to tap: the same offer
    page.locator(".pick button", has_text="Boubacar").click()
    expect(page.locator("ol.seated li")).to_have_count(3)
    expect(page.locator(".pick button")).to_have_count(0)
    everyone = hint.text_content()
    assert everyone not in (nobody, some) and TAP_FIRST[language] not in everyone
    if language == "en":
        assert "Tap a name below" in some and "Tap a name" not in everyone
    expect(hint).to_be_visible()
    assert serious(page) == [] and no_horizontal_scroll(page)
    shot(page, f"group-seating-hint-everyone-{size}-{language}")
    page.context.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("language, size", PLAYED)
def test_a_group_just_made_shows_its_link_where_the_message_says(browser, live_server, language, size, javascript):
    page = phone(browser, language, size, java_script_enabled=javascript)
    page.goto(live_server.url + "/groups/new/")
    page.locator("#group-name").fill(LONG)
    page.locator("#group-players").fill("Aïcha\nBoubacar")
    page.locator("form.new-group button.primary").click()
    page.wait_for_url(re.compile(r"/g/[^/]+/$"))
    group = Group.objects.get()
    link = page.locator("#member-link")
    expect(link).to_be_visible()  # no tap on "Bring more phones to this group" needed
    assert link.input_value().endswith(group.get_absolute_url())
    link.scroll_into_view_if_needed()
    if javascript:  # axe and the width check run as scripts in the page
        assert serious(page) == [] and no_horizontal_scroll(page)
    shot(page, f"group-just-made-{size}-{language}-{'js' if javascript else 'no-js'}")
    page.reload()  # later visits: the links folded away again
    expect(page.locator("#member-link")).to_be_hidden()
    page.context.close()


@pytest.mark.parametrize("language, size", PLAYED)
def test_the_top_bar_names_the_group(browser, live_server, language, size):
    group = Group.create(LONG, ["Aïcha", "Boubacar"])
    page = phone(browser, language, size)
    for path, after in ((f"/g/{group.token}/", ""), (f"/gw/{group.watch_token}/", " · ")):
        page.goto(live_server.url + path)
        bar = page.locator("header.bar .game")
        expect(bar.locator("bdi")).to_have_text(LONG)
        assert bar.text_content().startswith(LONG + after)
        assert no_horizontal_scroll(page)
    shot(page, f"group-top-bar-{size}-{language}")
    page.context.close()
