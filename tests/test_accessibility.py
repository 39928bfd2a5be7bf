"""Accessibility in Debian's chromium: axe-core on every screen (English and French, light and dark;
German and Vietnamese, light), text zoomed to 200 %, long names, visible focus, reduced motion."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from matches.models import Sitting
from matches.rules import MatchEnd, MatchEndKind

from .browsers import no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
AXE = Axe()
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters
assert len(LONG) == 40


def serious(page) -> list[str]:
    violations = AXE.run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def sittings():
    """One sitting per game with tap controls, plus a finished one."""
    made = {}
    for slug, end in [
        ("agram", None),
        ("fapfap", None),
        ("spar", None),
        ("sipa", None),
        ("cat-te", MatchEnd(MatchEndKind.HANDS, 5)),
        ("eighty-three", None),
        ("letzter-stich", None),
    ]:
        made[slug] = Sitting.start(
            slug,
            ["Aïcha", "Boubacar", LONG],
            end,
            stake_amount=100 if slug == "fapfap" else None,
            stake_label="FCFA" if slug == "fapfap" else "",
        )
    finished = Sitting.start("agram", ["Aïcha", LONG])
    finished.record_hand(1, 1)
    finished.end_match()
    made["finished"] = finished
    return made


# German and Vietnamese in light only: their screens differ from French in words, not in colours.
@pytest.mark.parametrize(
    "language, scheme",
    [("en", "light"), ("en", "dark"), ("fr", "light"), ("fr", "dark"), ("de", "light"), ("vi", "light")],
)
def test_axe_finds_no_serious_violation_on_any_screen(browser, live_server, language, scheme):
    made = sittings()
    page = open_phone(browser, color_scheme=scheme, locale=language, extra_http_headers={"Accept-Language": language})
    screens = ["/", "/start/", "/start/agram/", "/start/fapfap/", "/start/cat-te/"]
    screens += [s.get_absolute_url() for s in made.values()]
    screens += [
        f"/w/{made['agram'].watch_token}/",
        f"/s/{made['finished'].token}/hands/",
        f"/s/{made['finished'].token}/hands/1/",
        f"/s/{made['agram'].token}/end/",
        "/nowhere/",
    ]
    problems = {}
    for path in screens:
        page.goto(live_server.url + path)
        for summary in page.locator("details.ask summary, details.share summary, details.help summary").all()[:2]:
            summary.click()  # open the answers and panels so that their controls are checked too
        found = serious(page)
        if found:
            problems[path] = found
    shot(page, f"axe-last-{language}-{scheme}")
    assert problems == {}
    page.context.close()


def test_text_zoomed_to_200_percent_still_fits_at_360px(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    for path in [
        "/",
        "/start/agram/",
        made["fapfap"].get_absolute_url(),
        made["eighty-three"].get_absolute_url(),
        made["finished"].get_absolute_url(),
    ]:
        page.goto(live_server.url + path)
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        for summary in page.locator("details.ask summary").all()[:1]:
            summary.click()
        shot(page, "zoom-200-360x640")
        assert no_horizontal_scroll(page), path
    page.context.close()


def test_forty_character_names_keep_scores_on_their_row(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["agram"].get_absolute_url())
    row = page.locator("table.tally tbody tr", has_text=LONG)
    name_box = row.locator("th").bounding_box()
    for cell in row.locator("td").all():
        box = cell.bounding_box()
        assert box["y"] < name_box["y"] + name_box["height"] and box["x"] + box["width"] <= 360
    assert no_horizontal_scroll(page)
    page.context.close()


def test_focus_is_visible_when_moving_by_keyboard(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["agram"].get_absolute_url())
    for _ in range(4):
        page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    width = page.evaluate("parseFloat(getComputedStyle(document.activeElement).outlineWidth)")
    assert outline != "none" and width >= 2
    page.context.close()


def test_nothing_moves_for_reduced_motion(browser, live_server):
    made = sittings()
    page = open_phone(browser, reduced_motion="reduce")
    page.goto(live_server.url + made["agram"].get_absolute_url())
    page.get_by_role("button", name="Aïcha").click()
    page.get_by_text("Hand 1 recorded").wait_for()
    assert page.evaluate("document.getAnimations().length") == 0
    page.context.close()


def test_every_control_has_an_accessible_name(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["cat-te"].get_absolute_url())
    page.locator("details.share > summary").click()
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, a, input, select, summary')]
        .filter(e => e.offsetParent !== null && !e.closest('[aria-hidden=true]'))
        .filter(e => !(e.textContent.trim() || e.value || e.getAttribute('aria-label')
                       || (e.labels && e.labels.length)))
        .map(e => e.outerHTML.slice(0, 80))""")
    assert unnamed == []
    page.context.close()
