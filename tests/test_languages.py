"""German and Vietnamese in Debian's chromium at 360x640: on the main screens every button's words
fit inside the button (nothing cut off or spilling out), at normal and at double text size."""

import pytest

from matches.demo import create_demo_sitting
from matches.models import Sitting

from .browsers import no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters, the longest name the form takes

# Visible controls whose content is wider (or taller) than their box: cut off by an ellipsis or
# overflow:hidden, or spilling over their border.
OVERFLOWING = """() => [...document.querySelectorAll('button, .button, summary, select, input[type=submit]')]
    .filter(e => e.offsetParent !== null && !e.closest('.visually-hidden, [aria-hidden=true]'))
    .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
    .map(e => `${e.tagName.toLowerCase()} "${e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60)}"`
              + ` ${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}`)"""


# Buttons with a word wider than the button, so that it breaks in the middle ("Weite/rspiel/en").
BROKEN_WORDS = """() => { const pen = document.createElement('canvas').getContext('2d');
    return [...document.querySelectorAll('button, .button, summary')]
    .filter(e => e.offsetParent !== null && !e.closest('.visually-hidden, [aria-hidden=true]'))
    .filter(e => { const s = getComputedStyle(e);
        pen.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        const shown = e.cloneNode(true);
        shown.querySelectorAll('.visually-hidden, [hidden], [aria-hidden=true]').forEach(h => h.remove());
        return shown.textContent.split(/\\s+/).some(word => pen.measureText(word).width > room + 1); })
    .map(e => `${e.tagName.toLowerCase()} "${e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 60)}"`
              + ` has a word wider than its ${e.clientWidth}px`); }"""
# What sticks out past the right edge of the screen (outside sideways-scrolling boxes), innermost first.
STICKING_OUT = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && e.offsetParent !== null)
    .filter(e => ![...e.querySelectorAll('*')].some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
    .filter(e => { for (let p = e.parentElement; p; p = p.parentElement) {
        if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return false; } return true; })
    .slice(0, 3)
    .map(e => `${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40)}"`
              + ` ends at ${Math.round(e.getBoundingClientRect().right)}`)"""


def open_all(page, panels: str) -> None:
    """Open the panels whose buttons count too (answers, undo, the language menu)."""
    for summary in page.locator(panels).all()[:2]:
        if summary.is_visible():
            summary.click()


def check(page, problems: dict, name: str, panels: str = "details.ask > summary, details.undo > summary") -> None:
    """Record what overflows on this screen, at normal text size and at 200 %."""
    open_all(page, panels)
    shot(page, name)
    for zoom in ("100%", "200%"):
        page.evaluate(f"document.documentElement.style.fontSize = '{zoom}'")
        found = page.evaluate(OVERFLOWING) + (page.evaluate(BROKEN_WORDS) if zoom == "100%" else [])
        if not no_horizontal_scroll(page):
            found.append(f"the page scrolls sideways: {page.evaluate(STICKING_OUT)}")
        if found:
            problems[f"{name} at {zoom}"] = found
    shot(page, f"{name}-200")
    page.evaluate("document.documentElement.style.fontSize = ''")


@pytest.mark.parametrize("language", ["de", "vi"])
def test_every_button_fits_its_words(browser, live_server, language):
    demo = create_demo_sitting()  # in a group with finished matches: figures and settling up show
    long_game = Sitting.start("agram-mali", ["Aïcha", "Boubacar", LONG])
    chips = Sitting.start("cat-te", ["Aïcha", "Boubacar", LONG])
    page = open_phone(browser, locale=language, extra_http_headers={"Accept-Language": language})
    url = live_server.url
    problems: dict[str, list[str]] = {}

    page.goto(url + "/")  # a first visit: what the app is, a demo to try
    check(page, problems, f"lang-{language}-home", panels=".language summary")
    page.goto(url + long_game.get_absolute_url())
    page.locator("button.tap").first.click()  # record hand 1: the notice and the undo button show
    page.locator("details.undo").wait_for()
    check(page, problems, f"lang-{language}-table")
    for path, name in [
        ("/start/", "games"),
        ("/start/agram-mali/", "start"),
        (chips.get_absolute_url(), "answers"),
        (f"/s/{long_game.token}/end/", "end"),
        (demo.group.get_absolute_url(), "group"),
    ]:
        page.goto(url + path)
        check(page, problems, f"lang-{language}-{name}")
    page.goto(url + f"/s/{long_game.token}/end/")
    page.locator("form[action$='/end/'] button").first.click()  # "Yes, end the match": the result
    page.wait_for_url(url + long_game.get_absolute_url())
    check(page, problems, f"lang-{language}-result")
    assert not problems, "\n".join(f"{screen}: {found}" for screen, found in problems.items())
    page.context.close()
