"""The score chart as a phone draws it (Debian's chromium with fonts-noto-core, the fonts Android phones
use): every game at 360 px in all four languages, with players level at the end, a right-to-left name
and a long one. Its text is 12 px or more, every player is named, no name leaves the drawing or covers
another, and the page logs no console error. The geometry itself is property-tested in
tests/domain/test_chart.py: here the 36 charts are each drawn once, with real fonts, in one phone."""

from itertools import pairwise

import pytest

from matches.domain import rules
from matches.models import Sitting

from tests.browsers import open_phone, shot, watch_console

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["عائشة", "Marie-Éloïse de la Fontaine", "|calc", "Boubacar"]
ANSWERS = {
    "fapfap": {"multiplier": "2"},
    "spar": {"card": "other"},
    "sipa": {"sevens": "none"},
    "cat-te": {"how": "last"},
}
LANGUAGES = {"en": "en-GB", "fr": "fr-FR", "de": "de-DE", "vi": "vi-VN"}  # as each phone asks for its pages

# Each text's size on the screen and each name's box in the drawing's units, with the drawing's box.
DRAWN = """svg => {
  const view = svg.viewBox.baseVal;
  const scale = svg.getBoundingClientRect().width / view.width;
  const texts = [...svg.querySelectorAll("text")].map(text => {
    const box = text.getBBox();
    return {
      text: text.textContent, axis: text.classList.contains("axis"),
      px: parseFloat(getComputedStyle(text).fontSize) * scale,
      top: box.y, bottom: box.y + box.height, left: box.x, right: box.x + box.width,
    };
  });
  return {top: view.y, bottom: view.y + view.height, left: view.x, right: view.x + view.width, texts};
}"""


def played(slug: str) -> Sitting:
    """Three hands won by the first three seats: they end level (the fourth behind), or close."""
    sitting = Sitting.start(slug, NAMES, starting_chips=20 if slug == "cat-te" else None)
    for number, winner in enumerate([0, 1, 2], start=1):
        sitting.record_hand(number, winner, ANSWERS.get(slug, {}))
    return sitting


def inside(drawn: dict, text: dict) -> bool:
    return drawn["top"] <= text["top"] and text["bottom"] <= drawn["bottom"] and (
        drawn["left"] <= text["left"] and text["right"] <= drawn["right"]
    )


def problems_of(drawn: dict, names: list[str]) -> list:
    """What is wrong with a drawn chart: text under 12 px, a player not named (whole, or shortened with an
    ellipsis), text outside the drawing, a name over another."""
    texts = drawn["texts"]
    found = [("under 12 px", t["text"], round(t["px"], 1)) for t in texts if t["px"] < 12]
    labels = [text for text in texts if not text["axis"]]
    kept = [text["text"].strip("\u2068\u2069").rstrip("…") for text in labels]
    if kept != [name[: len(start)] for name, start in zip(names, kept)] or len(kept) != len(names):
        found.append(("names", kept))
    found += [("outside", text) for text in texts if not inside(drawn, text)]
    ordered = sorted(labels, key=lambda text: text["top"])
    found += [("overlap", upper, lower) for upper, lower in pairwise(ordered) if upper["bottom"] > lower["top"]]
    return found


def test_the_chart_reads_on_a_phone_in_every_game_and_language(browser, live_server):
    sittings = {slug: played(slug) for slug in rules.GAMES}
    page = open_phone(browser, "360x640", service_workers="block")  # no worker: same pages, less work
    errors = watch_console(page)
    problems = {}
    for language, asked in LANGUAGES.items():
        page.set_extra_http_headers({"Accept-Language": asked})
        for slug, sitting in sittings.items():
            page.goto(live_server.url + sitting.get_absolute_url())
            assert page.evaluate("document.documentElement.lang") == language
            if found := problems_of(page.locator("figure.chart svg").evaluate(DRAWN), NAMES):
                problems[slug, language] = found
            if slug in ("agram", "fapfap", "cat-te") and language in ("fr", "vi"):
                shot(page, f"chart-{slug}-{language}-360")
    assert problems == {} and errors == []


# The newcomer's tables: Sink-Sink after hand 2 (level, then not) and eight players level after hand 1.
TABLES = [
    ("sink-sink", ["Awa", "Oumar", "Salif", "Fanta"], [0, 0]),
    ("sink-sink", ["Awa", "Oumar", "Salif", "Fanta"], [1, 2]),
    ("eighty-three", ["Ali", "Bintou", "Chloé", "Dan", "Éric", "Fanta", "Garba", "Hawa"], [0]),
]


def test_the_charts_names_stay_apart_and_inside_the_drawing_at_the_newcomers_tables(browser, live_server):
    page = open_phone(browser, "360x640")
    problems = {}
    for index, (slug, names, winners) in enumerate(TABLES):
        sitting = Sitting.start(slug, names)
        for number, winner in enumerate(winners, start=1):
            sitting.record_hand(number, winner)
        page.goto(live_server.url + sitting.get_absolute_url())
        if found := problems_of(page.locator("figure.chart svg").evaluate(DRAWN), names):
            problems[index, slug] = found
    assert problems == {}


def test_the_charts_names_stay_inside_whatever_the_phones_font(browser, live_server):
    """Noto's letters reach higher than DejaVu's: both keep every name inside the drawing."""
    sittings = [played("eighty-three"), played("cat-te")]
    page = open_phone(browser, "360x640", language="fr-FR", service_workers="block")  # its copy of the CSS: no font
    font = {"family": ""}

    def with_font(route):
        css = route.fetch().text() + '\n.chart text{font-family:"%s"}' % font["family"]
        route.fulfill(status=200, content_type="text/css", body=css)

    page.route("**/static/app*.css", with_font)
    for font["family"] in ("Noto Sans", "DejaVu Sans"):
        for sitting in sittings:
            page.goto(live_server.url + sitting.get_absolute_url())
            used = page.locator("figure.chart svg text").first.evaluate("text => getComputedStyle(text).fontFamily")
            assert font["family"] in used
            drawn = page.locator("figure.chart svg").evaluate(DRAWN)
            assert [text for text in drawn["texts"] if not inside(drawn, text)] == [], (font, sitting.game)
