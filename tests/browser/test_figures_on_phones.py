"""A group's figures on a phone (Debian's chromium at 360x640), in English and French, light and dark:
nothing scrolls sideways (not even inside the page), every cell is on the screen with the money and the
last ten matches, and it stays a table with its headers, sorted by a tap on one. The figures themselves:
tests/web/test_figures.py."""

import pytest
from playwright.sync_api import expect

from tests.browsers import no_horizontal_scroll, open_phone, shot
from tests.web.test_figures import friends, stats_url  # noqa: F401 - the hand-made group, as a fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIN_RATE = {"en": "Win rate", "fr": "Taux de victoire"}


def within_width(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]


# The cells of a table not drawn, or not wholly within the screen's width, with their words.
OFF_THE_SIDES = """cells => cells.map(cell => [cell.getClientRects().length, cell.getBoundingClientRect(), cell.innerText])
    .filter(([drawn, box]) => !drawn || box.left < 0 || box.right > window.innerWidth).map(([, , words]) => words)"""


def test_the_figures_fit_a_phone_and_stay_a_sortable_table(browser, live_server, friends):  # noqa: F811
    group, _, _ = friends
    for language in ("en", "fr"):
        page = open_phone(browser, "360x640", language=language)
        page.goto(live_server.url + stats_url(group))
        assert no_horizontal_scroll(page)
        for wrapper in range(page.locator(".scroll").count()):  # nothing scrolls sideways inside the page either
            width, room = page.locator(".scroll").nth(wrapper).evaluate("e => [e.scrollWidth, e.clientWidth]")
            assert width <= room, (language, wrapper, width, room)
        for table in ("table.figures", "table.pairs"):
            assert page.locator(f"{table} tbody td").count() > 0
            assert page.locator(f"{table} tbody td").evaluate_all(OFF_THE_SIDES) == [], (language, table)
        # The money and the last ten matches, off to the right before, are on the screen with the rest.
        money = page.locator("table.figures tbody tr").first.locator("td").nth(-2)
        assert within_width(page, money) and money.get_attribute("data-label") == "FCFA"
        assert within_width(page, page.locator("table.figures tbody tr").first.locator("td").last)  # last 10
        # Still a table with its headers, sorted by a tap on one (win rate: most first).
        expect(page.get_by_role("columnheader", name=WIN_RATE[language])).to_be_visible()
        page.get_by_role("link", name=WIN_RATE[language]).click()
        page.wait_for_url("**?sort=win_rate")
        assert page.locator("table.figures tbody th").first.inner_text() == "Ben"  # 75%
        assert page.locator('table.figures th[aria-sort="descending"]').count() == 1
        if language == "en":  # what the chart's numbers and each figure are, opened
            page.get_by_text("The chart's numbers").click()
            page.get_by_text("How each figure is counted").click()
            assert no_horizontal_scroll(page)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                shot(page, f"group-stats-360x640-{scheme}")
        shot(page, f"figures-cards-360x640-{language}")
        page.context.close()
