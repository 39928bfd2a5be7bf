"""The score chart as a phone draws it (Debian's chromium with fonts-noto-core, the fonts Android phones
use): every game at 360 px in all four languages, with players level at the end, a right-to-left name
and a long one. Its text is 12 px or more, every player is named, no name leaves the drawing or covers
another, and the page logs no console error."""

from itertools import pairwise

import pytest

from matches.domain import rules
from matches.models import Sitting

from tests.browsers import open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["عائشة", "Marie-Éloïse de la Fontaine", "|calc", "Boubacar"]
ANSWERS = {
    "fapfap": {"multiplier": "2"},
    "spar": {"card": "other"},
    "sipa": {"sevens": "none"},
    "cat-te": {"how": "last"},
}
LANGUAGES = {"en": "en-GB", "fr": "fr-FR", "de": "de-DE", "vi": "vi-VN"}

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


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", list(rules.GAMES))
def test_the_chart_reads_on_a_phone_in_every_game_and_language(browser, live_server, slug, language):
    sitting = played(slug)
    page = open_phone(browser, "360x640", locale=LANGUAGES[language])
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + sitting.get_absolute_url())
    drawn = page.locator("figure.chart svg").evaluate(DRAWN)
    texts = drawn["texts"]
    assert all(text["px"] >= 12 for text in texts), [(text["text"], round(text["px"], 1)) for text in texts]
    names = [text for text in texts if not text["axis"]]
    shown = [text["text"].strip("\u2068\u2069") for text in names]
    kept = [name.rstrip("…") for name in shown]  # whole, or shortened with an ellipsis
    assert kept == [name[: len(start)] for name, start in zip(NAMES, kept)]
    for text in texts:
        assert drawn["top"] <= text["top"] and text["bottom"] <= drawn["bottom"], (text, drawn)
        assert drawn["left"] <= text["left"] and text["right"] <= drawn["right"], (text, drawn)
    for upper, lower in pairwise(sorted(names, key=lambda text: text["top"])):
        assert upper["bottom"] <= lower["top"], (upper, lower)
    if slug in ("agram", "fapfap", "cat-te") and language in ("fr", "vi"):
        shot(page, f"chart-{slug}-{language}-360")
    assert errors == []
    page.context.close()


@pytest.mark.parametrize("font", ["Noto Sans", "DejaVu Sans"])
@pytest.mark.parametrize("slug", ["eighty-three", "cat-te"])
def test_the_charts_names_stay_inside_whatever_the_phones_font(browser, live_server, slug, font):
    """Noto's letters reach higher than DejaVu's: both keep every name inside the drawing."""
    sitting = played(slug)
    page = open_phone(browser, "360x640", locale="fr-FR")

    def with_font(route):
        css = route.fetch().text() + f'\n.chart text{{font-family:"{font}"}}'
        route.fulfill(status=200, content_type="text/css", body=css)

    page.route("**/static/app*.css", with_font)
    page.goto(live_server.url + sitting.get_absolute_url())
    used = page.locator("figure.chart svg text").first.evaluate("text => getComputedStyle(text).fontFamily")
    assert font in used
    drawn = page.locator("figure.chart svg").evaluate(DRAWN)
    for text in drawn["texts"]:
        assert drawn["top"] <= text["top"] and text["bottom"] <= drawn["bottom"], (font, text, drawn)
        assert drawn["left"] <= text["left"] and text["right"] <= drawn["right"], (font, text, drawn)
    page.context.close()
