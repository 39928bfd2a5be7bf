"""Long names on a phone (Debian's chromium at 360x640 and 412x915): a name wraps only between its
words, in the score table, the hands list and the tap buttons (7 players, the money column, names up to
40 characters); a name of one long word breaks inside its column rather than push the last column or
the Correct links off screen; the seat select shows a long name whole or ends it with an ellipsis.
The chart's names are drawn in test_chart_on_phones.py."""

import pytest

from matches.models import Sitting

from tests.browsers import PHONES, no_horizontal_scroll, open_phone, shot

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
    found = page.locator(selector).evaluate_all(f"elements => elements.map({SPLIT_WORDS})")
    assert found, selector
    for each in found:
        splits += each["splits"]
        most = max(most, each["lines"])
    return splits, most


def test_names_wrap_only_between_words_with_seven_players_and_the_money(browser, live_server):
    sitting = Sitting.start("fapfap", LONG_NAMES, stake_amount=25_000, stake_label="FCFA")
    for number, (winner, multiplier) in enumerate([(0, "4"), (1, "4"), (0, "4"), (6, "2"), (0, "4")], start=1):
        sitting.record_hand(number, winner, {"multiplier": multiplier})  # Abdoulkarim: +2,400,000 FCFA
    page = open_phone(browser)
    for size, viewport in PHONES.items():
        page.set_viewport_size(viewport)
        page.goto(live_server.url + sitting.get_absolute_url())
        most = 0
        for where in (".tally tbody th .name", ".hands .name", "summary.tap .name"):
            splits, lines = split_words(page, where)
            assert splits == [], (size, where, splits)
            most = max(most, lines)
        assert most >= 2, size  # the long names did wrap: between their words
        assert no_horizontal_scroll(page), size
        shot(page, f"long-names-fapfap-{size}")
        page.goto(live_server.url + sitting.get_absolute_url() + "hands/")
        splits, _ = split_words(page, ".hands .name")
        assert splits == [], (size, splits)


# A name of one word as long as a name may be, and one of 24 letters: no space to wrap at.
ONE_WORD_NAMES = ["Abdoulkarimousmanemaïnassarahamidoukader", "Abdourahamaneoumarouseyn"]

# Each element `selector` finds that is cut off at the right of the screen (inside a sideways-scrolling
# box or not): its text, and how far it reaches.
OFF_SCREEN = """selector => Array.from(document.querySelectorAll(selector))
  .map(element => [element.textContent.trim(), Math.round(element.getBoundingClientRect().right)])
  .filter(([text, right]) => right > document.documentElement.clientWidth)"""


@pytest.mark.parametrize("language, game", [("en-GB", "fapfap"), ("fr-FR", "fapfap"), ("vi", "cat-te")])
def test_a_name_of_one_long_word_leaves_the_last_column_and_the_correct_links_on_screen(
    browser, live_server, language, game
):
    """At 360 px a name with no space breaks inside its column, so the score table's last column, the
    hands' stakes and their Correct links stay on screen (no sideways scroll inside the tables either);
    so does a hand's line of everyone's points (Cat Tê: a sweep with an Ace held back)."""
    names = [*ONE_WORD_NAMES, "Mahamadou Issoufou Tchiany Kountché"]
    if game == "cat-te":
        sitting = Sitting.start("cat-te", [*names, "Nguyễn" + "ễ" * 34], starting_chips=20)
        answers = {"how": "sweep", "aces": ["1"]}
    else:
        sitting, answers = Sitting.start("fapfap", names, stake_amount=25_000), {"multiplier": "4"}
    for number, winner in enumerate([3, 1, 3, 2, 3] if game == "cat-te" else [0, 1, 0, 2, 0], start=1):
        sitting.record_hand(number, winner, answers)
    page = open_phone(browser, language=language)
    page.goto(live_server.url + sitting.get_absolute_url())
    assert page.evaluate(OFF_SCREEN, ".tally tr > :last-child, .hands tr > :last-child, .nets tr > :last-child") == []
    assert page.evaluate("Array.from(document.querySelectorAll('.scroll')).every(s => s.scrollWidth <= s.clientWidth)")
    shot(page, f"one-word-names-table-{language}")
    page.goto(live_server.url + sitting.get_absolute_url() + "hands/")
    assert page.evaluate(OFF_SCREEN, ".hands td.num, .hands td.fix a") == []
    assert page.evaluate("Array.from(document.querySelectorAll('.scroll')).every(s => s.scrollWidth <= s.clientWidth)")
    assert no_horizontal_scroll(page)
    shot(page, f"one-word-names-hands-{language}")


# The chosen option of a <select> as drawn: its text's width in the select's font, and the room inside
# the select for it (less its padding and the arrow), and what it does with a text wider than that.
CHOSEN = """select => {
  const style = getComputedStyle(select);
  const context = document.createElement("canvas").getContext("2d");
  context.font = style.font;
  const text = select.options[select.selectedIndex].text;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
  return {text, width: context.measureText(text).width, room, overflow: style.textOverflow};
}"""


def test_the_seat_this_phone_belongs_to_shows_a_long_name_whole_or_ends_it_with_an_ellipsis(browser, live_server):
    sitting = Sitting.start("agram", [ONE_WORD_NAMES[1], LONG_NAMES[1], "Ben"])
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.locator("#share > summary").click()
    select = page.locator("#my-seat")
    select.select_option(label=ONE_WORD_NAMES[1])  # 24 letters: whole
    chosen = select.evaluate(CHOSEN)
    assert chosen["width"] <= chosen["room"], chosen
    select.select_option(label=LONG_NAMES[1])  # 40 characters: whole, or cut with an ellipsis
    chosen = select.evaluate(CHOSEN)
    assert chosen["width"] <= chosen["room"] or chosen["overflow"] == "ellipsis", chosen
    assert no_horizontal_scroll(page)
    shot(page, "long-name-seat-select-360x640")
