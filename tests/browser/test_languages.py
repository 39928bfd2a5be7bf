"""German and Vietnamese in Debian's chromium at 360x640: on the main screens every button's words
fit inside the button (nothing cut off or spilling out), no word breaks in its middle (a name in the
score, an answer, a figure's heading), the page never scrolls sideways and the game keeps its name in
the top bar, at normal and at double text size. Players' names mix Arabic and Hebrew with Latin ones;
only the 40-character name may break (it has no room at 200 %). Also in English and French: the score
of a stake match, the top bar, a match on the home list beside its buttons."""

import pytest

from matches.domain import rules
from matches.services.demo import create_demo_sitting
from matches.models import Sitting

from tests.browsers import no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters, the longest name the form takes
AISHA, DAVID = "عائشة", "דוד"

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


# Words drawn on two lines or more, cut anywhere ("Bouba/car", "Durchma/rsch"), outside the words
# `ignored`; a break after a hyphen (soft or not) is a word's own.
MID_WORD = r"""([ignored, within]) => {
  const out = new Set();
  const walker = document.createTreeWalker(document.querySelector(within), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (el.offsetParent === null
        || el.closest('.visually-hidden, [hidden], [aria-hidden=true], svg, details:not([open]) > :not(summary)')) continue;
    for (const m of node.data.matchAll(/[^\s\-\u00ad\u2010]+[\-\u00ad\u2010]?/g)) {
      if (ignored.includes(m[0].replace(/[\u2068\u2069]/g, ''))) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const boxes = [...range.getClientRects()].filter(r => r.width > 0);
      const tops = boxes.map(r => r.top);
      if (boxes.length > 1 && Math.max(...tops) - Math.min(...tops) > Math.min(...boxes.map(r => r.height)) / 2)
        out.add(`"${m[0]}" broken in ${el.tagName.toLowerCase()}.${el.className}`);
    }
  }
  return [...out];
}"""
# The game's (or the group's) name in the top bar: shown whole, not squeezed away or cut by an ellipsis.
BAR_NAME = """() => { const name = document.querySelector('.bar .game');
    if (!name) return [];
    const box = name.getBoundingClientRect();
    return box.width < 1 || name.scrollWidth > name.clientWidth + 1 || box.right > window.innerWidth + 1
        ? [`the bar shows ${Math.round(box.width)}px of "${name.textContent.trim()}" (${name.scrollWidth}px)`] : []; }"""
IGNORED = LONG.split()
TABLE_SCROLLS = """() => [...document.querySelectorAll('.scroll')].filter(box => box.scrollWidth > box.clientWidth + 1)
    .map(box => `table.${box.querySelector('table').className} scrolls sideways by ${box.scrollWidth - box.clientWidth}px`)"""


def open_all(page, panels: str) -> None:
    """Open the panels whose buttons count too (answers, undo, the language menu): the first two shown."""
    page.evaluate(
        """selector => [...document.querySelectorAll(selector)].slice(0, 2)
            .forEach(summary => { if (summary.checkVisibility()) summary.click(); })""",
        panels,
    )


PANELS = "details.ask > summary, details.more > summary, details.undo > summary"
# Every check above at one text size, in one go: what overflows, is broken or sticks out.
AT_SIZE = f"""([ignored, zoom]) => {{
  document.documentElement.style.fontSize = zoom;
  const found = [...({OVERFLOWING})(), ...({MID_WORD})([ignored, "body"]), ...({BAR_NAME})()];
  if (zoom === "100%") found.push(...({BROKEN_WORDS})(), ...({TABLE_SCROLLS})());
  if (document.documentElement.scrollWidth > window.innerWidth)
    found.push(`the page scrolls sideways: ${{({STICKING_OUT})()}}`);
  return found;
}}"""
SHOWN = {"home", "table", "answers", "asks-fapfap", "history", "figures", "group-new", "result"}  # screenshots


def check(page, problems: dict, language: str, name: str, panels: str = PANELS) -> None:
    """Record what overflows on this screen, at normal text size and at 200 % (at normal size every table
    fits the phone; at 200 % a table may scroll in its box)."""
    open_all(page, panels)
    if name in SHOWN:
        shot(page, f"lang-{language}-{name}")
    for zoom in ("100%", "200%"):
        if found := page.evaluate(AT_SIZE, [IGNORED, zoom]):
            problems[f"{name} at {zoom}"] = found
    if name == "table":
        shot(page, f"lang-{language}-{name}-200")
    page.evaluate("document.documentElement.style.fontSize = ''")


@pytest.mark.parametrize("language", ["de", "vi"])
def test_every_button_fits_its_words(browser, live_server, language):
    demo = create_demo_sitting()  # in a group with finished matches: figures and settling up show
    group = demo.group
    long_game = Sitting.start("agram-mali", ["Aïcha", "Boubacar", LONG])
    chips = Sitting.start("cat-te", ["Aïcha", "Boubacar", LONG])
    asking = {  # each game that asks something after the tap, its score table beside Arabic and Hebrew names
        slug: Sitting.start(
            slug,
            [AISHA, DAVID, "Boubacar", LONG],
            stake_amount=100 if slug == "fapfap" else None,
            stake_label="CFA" if slug == "fapfap" else "",
        )
        for slug in ("fapfap", "spar", "sipa", "cat-te", "eighty-three")
    }
    asking["fapfap"].record_hand(1, 2, {"multiplier": "2"})  # money and stakes in the score: four columns
    page = open_phone(browser, language=language, service_workers="block")  # no worker: same pages, less work
    url = live_server.url
    problems: dict[str, list[str]] = {}

    page.goto(url + "/")  # a first visit: what the app is, a demo to try
    check(page, problems, language, "home", panels=".language summary")
    page.goto(url + long_game.get_absolute_url())
    page.locator("button.tap").first.click()  # record hand 1: the notice and the undo button show
    page.locator("details.undo").wait_for()
    check(page, problems, language, "table")
    for path, name in [
        ("/start/", "games"),
        ("/start/agram-mali/", "start"),
        ("/start/fapfap/", "start-fapfap"),
        ("/start/cat-te/", "start-cat-te"),
        (chips.get_absolute_url(), "answers"),
        *((sitting.get_absolute_url(), f"asks-{slug}") for slug, sitting in asking.items()),
        (f"/s/{long_game.token}/end/", "end"),
        (f"/s/{asking['fapfap'].token}/hands/", "history"),
        (f"/s/{asking['fapfap'].token}/hands/1/", "correct"),
        (f"/s/{chips.token}/group/", "save"),
        (f"/w/{asking['fapfap'].watch_token}/", "watch"),
        (group.get_absolute_url(), "group"),
        (f"/g/{group.token}/new/fapfap/", "group-new"),
        (f"/g/{group.token}/stats/", "figures"),
        (f"/gw/{group.watch_token}/", "group-watch"),
    ]:
        page.goto(url + path)
        check(page, problems, language, name)
    page.goto(url + f"/s/{long_game.token}/end/")
    page.locator("form[action$='/end/'] button").first.click()  # "Yes, end the match": the result
    page.wait_for_url(url + long_game.get_absolute_url())
    check(page, problems, language, "result")
    assert not problems, "\n".join(f"{screen}: {found}" for screen, found in problems.items())


# The score table of a game played for a stake has four columns: at 360 px each name keeps its row's
# room without the table scrolling sideways; a heading too wide for it ("Gewonnene Runden") shows a
# shorter word, the full one as its title.
SCORE_TABLE = """() => { const box = document.querySelector('table.tally').closest('.scroll');
    return {scrolls: box.scrollWidth > box.clientWidth + 1,
            headings: [...document.querySelectorAll('table.tally thead th')].map(th => {
                const abbr = th.querySelector('abbr');
                return abbr ? `${abbr.textContent} (${abbr.title})` : th.textContent.trim(); })}; }"""


HEADINGS = {
    "en": ["Player", "Stakes won", "CFA", "Hands won"],
    "fr": ["Joueur", "Mises gagnées", "CFA", "Mains gagnées"],
    "de": ["Spieler", "Einsätze (Gewonnene Einsätze)", "CFA", "Siege (Gewonnene Runden)"],
    "vi": ["Người chơi", "Cược thắng", "CFA", "Ván thắng"],
}


def test_a_score_for_a_stake_keeps_each_name_whole_at_360px(browser, live_server):
    fapfap = Sitting.start(
        "fapfap",
        [AISHA, DAVID, "Boubacar", "Chaibou"],
        rules.MatchEnd(rules.MatchEndKind.HANDS, 3),
        stake_amount=100,
        stake_label="CFA",
    )
    fapfap.record_hand(1, 2, {"multiplier": "4"})
    page = open_phone(browser)
    for language, headings in HEADINGS.items():
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(live_server.url + fapfap.get_absolute_url())
        found = page.evaluate(SCORE_TABLE) | {"broken": page.evaluate(MID_WORD, [[], "table.tally"])}
        assert found == {"scrolls": False, "headings": headings, "broken": []}, language
        shot(page, f"lang-{language}-fapfap-score")


ONE_WORD = "Abdourahamaneousmanemaïnassaraibrahimsan"  # 40 letters, no space: seen pushing the scores away


def test_a_name_of_one_long_word_leaves_the_scores_and_hands_in_view_at_360px(browser, live_server):
    fapfap = Sitting.start(
        "fapfap", [ONE_WORD, "Boubacar", "Chaibou", "Djibo"], rules.MatchEnd(rules.MatchEndKind.HANDS, 3),
        stake_amount=100, stake_label="CFA",
    )
    fapfap.record_hand(1, 0, {"multiplier": "2"})
    page = open_phone(browser, language="fr")
    page.goto(live_server.url + fapfap.get_absolute_url())
    shot(page, "fr-one-long-word-name")
    found = {
        "scrolling tables": page.evaluate(TABLE_SCROLLS),
        "page scrolls sideways": not no_horizontal_scroll(page),
        "broken": page.evaluate(MID_WORD, [[ONE_WORD], "table.tally"]),
    }
    assert found == {"scrolling tables": [], "page scrolls sideways": False, "broken": []}


def test_the_top_bar_keeps_the_games_name_at_200_percent(browser, live_server):
    """At double text size "Last Trick" and the language menu fill the bar's first line: the game's name
    (or the group's) takes a line of its own below them, whole; at normal size it stays beside them."""
    sitting = Sitting.start("agram-mali", ["Aïcha", AISHA, DAVID])
    page = open_phone(browser)
    for language in ("en", "fr", "de", "vi"):
        page.set_extra_http_headers({"Accept-Language": language})
        for path in (sitting.get_absolute_url(), f"/w/{sitting.watch_token}/"):
            page.goto(live_server.url + path)
            bar = page.locator(".bar")
            brand, name = bar.locator(".brand").bounding_box(), bar.locator(".game").bounding_box()
            assert abs(name["y"] - brand["y"]) < brand["height"] and page.evaluate(BAR_NAME) == [], (language, path)
            page.evaluate("document.documentElement.style.fontSize = '200%'")
            brand, name = bar.locator(".brand").bounding_box(), bar.locator(".game").bounding_box()
            assert name["y"] >= brand["y"] + brand["height"] - 1, f"{language} {path}: the name is not below the brand"
            assert page.evaluate(BAR_NAME) == [] and page.evaluate(MID_WORD, [[], ".bar"]) == [], (language, path)
            shot(page, f"lang-{language}-bar-200")


def test_long_words_of_answers_break_at_a_hyphen_of_the_pages_language(browser, live_server):
    """Phones that hyphenate break a German compound too long for its box ("Durch-marsch") at a hyphen:
    answers, questions and headings are hyphenated in the page's language (<html lang>), names never."""
    chips = Sitting.start("cat-te", [AISHA, DAVID, "Boubacar"])
    page = open_phone(browser, language="de")
    page.goto(live_server.url + chips.get_absolute_url())
    open_all(page, PANELS)
    assert page.evaluate("document.documentElement.lang") == "de"
    found = page.evaluate("""() => Object.fromEntries(
        ['.answers button', '.answers summary', '.checks legend', '.question', '.tally th', 'summary.tap .name',
         '.checks.seats .check span'].map(s => [s, [...new Set([...document.querySelectorAll(s)]
            .map(e => getComputedStyle(e).hyphens))].join()]))""")
    assert found == {
        ".answers button": "auto",
        ".answers summary": "auto",
        ".checks legend": "auto",
        ".question": "auto",
        ".tally th": "auto",
        "summary.tap .name": "manual",
        ".checks.seats .check span": "manual",
    }


def test_a_match_on_the_home_list_keeps_its_width_beside_its_buttons(browser, live_server):
    """First newcomer round: in French the buttons under a match took the row, and its game, state and
    scores were squeezed into a column one letter wide."""
    page = open_phone(browser, "360x640")
    page.goto(live_server.url + "/")
    page.locator("form.demo button").click()
    page.wait_for_url("**/s/*/")
    for language in ("en", "fr"):
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(live_server.url + "/")
        assert page.evaluate("document.documentElement.lang") == language
        box = page.locator(".sittings li a").first.bounding_box()
        assert box["width"] > 250 and box["height"] < 120, (language, box)
        assert no_horizontal_scroll(page), language
