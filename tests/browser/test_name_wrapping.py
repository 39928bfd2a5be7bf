"""The newcomer who played every game, on the screen (Debian's chromium): at 360 px a name wraps only
between its words, in the score table, the hands list and the tap buttons (7 players, the money
column, names up to 40 characters); the chart's names never overlap nor leave the drawing. The
words are tested in test_every_game_round.py, the chart's geometry in test_chart.py."""

from itertools import pairwise

import pytest

from matches.models import Sitting

from tests.browsers import no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Seven names up to 40 characters, with words as long as names have them ("Abdourahamane").
LONG_NAMES = [
    "Abdoulkarim",
    "Abdoulkarim Ousmane Maïnassara Hamidou",
    "Fatimatou-Zahra Bintou Abdourahamane",
    "Ramatoulaye Zeinabou Aboubacar Seyni",
    "Mahamadou Issoufou Tchiany Kountché",
    "Hadiza",
    "Aïssatou Halimatou Oumarou Boubacar Ali",
]

# Where each line of an element's text starts, from the boxes the browser drew each letter in: a
# line that starts with no space (or hyphen) before it split a word. Returns those splits, "Abdoulkari|m".
SPLIT_WORDS = """element => {
  const letters = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      letters.push({text: node.data[i], top: box ? box.top : null, height: box ? box.height : 0});
    }
  }
  const splits = [];
  let lines = 1, previous = -1;
  letters.forEach((letter, index) => {
    if (letter.top === null || /\\s|[\\u2068\\u2069]/.test(letter.text)) return;
    if (previous >= 0 && letter.top > letters[previous].top + letters[previous].height / 2) {
      lines += 1;
      const between = letters.slice(previous, index).map(l => l.text).join("");
      if (!/\\s|-$/.test(between)) {
        const text = letters.map(l => l.text).join("");
        splits.push(text.slice(0, index) + "|" + text.slice(index));
      }
    }
    previous = index;
  });
  return {splits, lines};
}"""


def split_words(page, selector: str) -> tuple[list[str], int]:
    """The words split across lines in the elements `selector` finds, and the most lines one took."""
    splits, most = [], 0
    elements = page.locator(selector)
    assert elements.count(), selector
    for index in range(elements.count()):
        found = elements.nth(index).evaluate(SPLIT_WORDS)
        splits += found["splits"]
        most = max(most, found["lines"])
    return splits, most


@pytest.mark.parametrize("size", ["360x640", "412x915"])
def test_names_wrap_only_between_words_with_seven_players_and_the_money(browser, live_server, size):
    sitting = Sitting.start("fapfap", LONG_NAMES, stake_amount=25_000, stake_label="FCFA")
    for number, (winner, multiplier) in enumerate([(0, "4"), (1, "4"), (0, "4"), (6, "2"), (0, "4")], start=1):
        sitting.record_hand(number, winner, {"multiplier": multiplier})  # Abdoulkarim: +2,400,000 FCFA
    page = open_phone(browser, size)
    page.goto(live_server.url + sitting.get_absolute_url())
    most = 0
    for where in (".tally tbody th .name", ".hands .name", "summary.tap .name"):
        splits, lines = split_words(page, where)
        assert splits == [], (where, splits)
        most = max(most, lines)
    assert most >= 2  # the long names did wrap: between their words
    assert no_horizontal_scroll(page)
    shot(page, f"long-names-fapfap-{size}")
    page.goto(live_server.url + sitting.get_absolute_url() + "hands/")
    splits, _ = split_words(page, ".hands .name")
    assert splits == [], splits
    page.context.close()


# Each name's box (user units: what the viewBox measures) against the drawing's box and the others'.
LABEL_BOXES = """svg => {
  const view = svg.viewBox.baseVal;
  const names = [...svg.querySelectorAll("text:not(.axis)")].map(text => {
    const box = text.getBBox();
    return {name: text.textContent, top: box.y, bottom: box.y + box.height, right: box.x + box.width};
  });
  return {top: view.y, bottom: view.y + view.height, right: view.x + view.width, names};
}"""


@pytest.mark.parametrize(
    "slug, names, winners",
    [
        ("sink-sink", ["Awa", "Oumar", "Salif", "Fanta"], [0, 0]),  # the newcomer's table after hand 2
        ("sink-sink", ["Awa", "Oumar", "Salif", "Fanta"], [1, 2]),
        ("eighty-three", ["Ali", "Bintou", "Chloé", "Dan", "Éric", "Fanta", "Garba", "Hawa"], [0]),
    ],
)
def test_the_charts_names_stay_apart_and_inside_the_drawing(browser, live_server, slug, names, winners):
    sitting = Sitting.start(slug, names)
    for number, winner in enumerate(winners, start=1):
        sitting.record_hand(number, winner)
    page = open_phone(browser, "360x640")
    page.goto(live_server.url + sitting.get_absolute_url())
    drawn = page.locator("figure.chart svg").evaluate(LABEL_BOXES)
    boxes = sorted(drawn["names"], key=lambda box: box["top"])
    assert len(boxes) == len(names)  # every player named, level players one under the other
    for box in boxes:
        assert drawn["top"] <= box["top"] and box["bottom"] <= drawn["bottom"], (box, drawn)
        assert box["right"] <= drawn["right"], box
    for upper, lower in pairwise(boxes):
        assert upper["bottom"] <= lower["top"], (upper, lower)  # never on top of each other
    page.context.close()
