"""Names in any script stay next to their own numbers (issue 12), in Debian's chromium: Arabic and
Hebrew names beside Latin ones on every screen that shows a name beside other words or numbers. Each
name sits in an isolating element (<bdi>, also in the notices and payments built in Python, or .name
with unicode-bidi: isolate) or, in plain text (the shared result, chart labels), between FSI and PDI;
and where a number follows a name, the browser draws the number after the name, never before it, on a
360x640 phone (where lines are short) without the page scrolling sideways.
Also: the hidden time zone field of the forms that start something is filled by the browser's own zone."""

import re
import unicodedata

import pytest
from playwright.sync_api import expect

from matches.domain import rules
from matches.models import Group, Sitting

from tests.browsers import no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AISHA = "عائشة"  # Arabic letters (AL)
SARAH = "שרה"  # Hebrew letters (R)
LONG = "فاطمة بنت محمد"  # 14 characters: the chart shortens it to 11 and an ellipsis
FSI, PDI = "\u2068", "\u2069"
HANOI = {"Asia/Ho_Chi_Minh", "Asia/Saigon"}  # chromium's ICU still says Saigon: both name the same zone
FILLED = re.compile("Asia/(Ho_Chi_Minh|Saigon)")

# The rectangles, as drawn, of the first `first` in `root`'s text and of the first `second` after it.
PLACES = """(root, [first, second]) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let text = "";
  while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
  function rect(start, end) {
    const range = document.createRange();
    const from = nodes.find(([node, at]) => start >= at && start < at + node.data.length);
    const to = nodes.find(([node, at]) => end > at && end <= at + node.data.length);
    range.setStart(from[0], start - from[1]);
    range.setEnd(to[0], end - to[1]);
    const r = range.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }
  const i = text.indexOf(first);
  const j = i < 0 ? -1 : text.indexOf(second, i + first.length);
  if (j < 0) return null;
  return {first: rect(i, i + first.length), second: rect(j, j + second.length), text: text};
}"""


def in_reading_order(element, first: str, second: str) -> str:
    """ "" when `second` (after `first` in the element's text) is drawn to the right of `first` on the
    same line, as a left-to-right page reads; else what is wrong."""
    found = element.evaluate(PLACES, [first, second])
    if found is None:
        return f"{first!r} then {second!r} not in {element.inner_text()!r}"
    a, b = found["first"], found["second"]
    if a["top"] >= b["bottom"] or b["top"] >= a["bottom"]:
        return f"{first!r} and {second!r} on different lines in {found['text']!r}"
    if b["left"] < a["right"] - 1:
        return f"{second!r} drawn before {first!r} in {found['text']!r}: {a} {b}"
    return ""


def score_after(element, name: str) -> str:
    """The number that follows `name` in the element's text ("Bako 1, عائشة 3": 3 after عائشة)."""
    found = re.search(re.escape(name) + r"[\u2069]?:?\s+([+\u2212-]?[\d.,\u00a0]*\d)", element.text_content())
    return found[1] if found else "?"


def isolating(locator) -> list[str]:
    """The computed unicode-bidi of each element: every one should be "isolate" (or "plaintext")."""
    return locator.evaluate_all("items => items.map(item => getComputedStyle(item).unicodeBidi)")


def test_the_check_sees_a_name_run_into_its_number(browser):
    """Without isolation, an Arabic or Hebrew name followed by its score draws the score first."""
    page = open_phone(browser)
    page.set_content(
        f'<p id="plain">Bako 1, {AISHA} 3, {SARAH} 2, Cissé 1</p>'
        f'<p id="isolated">Bako 1, <bdi>{AISHA}</bdi> 3, <bdi>{SARAH}</bdi> 2, Cissé 1</p>'
    )
    plain, isolated = page.locator("#plain"), page.locator("#isolated")
    assert in_reading_order(plain, AISHA, "3") and in_reading_order(plain, SARAH, "2")
    assert in_reading_order(isolated, AISHA, "3") == in_reading_order(isolated, SARAH, "2") == ""
    page.context.close()


def played_group() -> tuple[Group, Sitting, Sitting]:
    """A group named in Arabic; a Fapfap match for a stake played to its end (two RTL names are paid),
    and an Agram match in play."""
    group = Group.create("نادي الخميس", [LONG, SARAH, "Bako", AISHA, "Cissé"])
    ids = {player.name: player.pk for player in group.members()}
    fapfap = group.start_match(
        "fapfap",
        [ids[LONG], ids[SARAH], ids["Bako"], ids[AISHA]],
        rules.MatchEnd(rules.MatchEndKind.HANDS, 2),
        stake_amount=100,
        stake_label="CFA",
    )
    fapfap.record_hand(1, 1, {"multiplier": "1"})  # שרה
    fapfap.record_hand(2, 0, {"multiplier": "1"})  # the long Arabic name: +200 each, paid by Bako and عائشة
    agram = group.start_match("agram", [ids[AISHA], ids[SARAH], ids["Bako"], ids["Cissé"]])
    return group, fapfap, agram


def test_every_screen_keeps_arabic_and_hebrew_names_beside_their_own_numbers(browser, live_server):
    group, fapfap, agram = played_group()
    page = open_phone(browser)  # 360x640: a phone, where names and numbers wrap onto more lines
    problems: list[str] = []

    def check(where: str, problem: str) -> None:
        if problem:
            problems.append(f"{where}: {problem}")

    def fits(where: str) -> None:
        check(where, "" if no_horizontal_scroll(page) else "the page scrolls sideways at 360 px")

    # The match table in play: a tap, its notice, the tally, the buttons, who deals.
    page.goto(live_server.url + agram.get_absolute_url())
    page.locator("button.tap", has_text=AISHA).click()
    page.locator("#table .notice").wait_for()
    notice = page.locator("#table .notice")
    check("notice", "" if notice.locator("bdi", has_text=AISHA).count() == 1 else f"{notice.inner_text()!r}")
    for where, selector in [("tally", ".tally .name"), ("tap buttons", ".tap .name"), ("hand rows", ".hands .name")]:
        found = isolating(page.locator(selector))
        check(where, "" if found and set(found) <= {"isolate", "plaintext"} else f"unicode-bidi {found}")
    check("who deals", "" if page.locator(".deal bdi").count() >= 1 else "no <bdi>")
    shot(page, "bidi-table")
    fits("table")

    # The match's end: the result, the nets and the payments, the shared text, the chart's names.
    page.goto(live_server.url + fapfap.get_absolute_url())
    check("result", "" if set(isolating(page.locator(".result strong"))) == {"isolate"} else "names not isolated")
    check("nets", "" if set(isolating(page.locator(".nets .name"))) == {"isolate"} else "names not isolated")
    payments = page.locator(".standings .payments li")
    names = page.locator(".standings .payments li bdi").count()
    check("payments", "" if (payments.count(), names) == (2, 4) else f"{payments.count()} payments, {names} <bdi>")
    for index in range(payments.count()):
        line = payments.nth(index)
        payee = LONG if LONG in line.inner_text() else SARAH
        check(f"payment {index + 1}", in_reading_order(line, payee, "200"))
    shared = page.locator("#result-text").input_value()
    for name in (LONG, SARAH, AISHA):
        check("shared result", "" if f"{FSI}{name}{PDI}" in shared else f"{name} not between FSI and PDI")
    check("shared result", "" if "Bako" in shared and f"{FSI}Bako" not in shared else "a Latin name isolated")
    label = page.locator("figure.chart svg text", has_text="…")
    check("chart label", chart_label_problem(label))
    shot(page, "bidi-standings")
    fits("standings")

    # The history: who dealt, who recorded, when.
    page.goto(live_server.url + f"/s/{fapfap.token}/hands/")
    check("history", "" if page.locator(".how bdi").count() >= 2 else "no <bdi> in the hands' details")
    fits("history")

    # Home: the group's players, each match's names and scores.
    page.goto(live_server.url + group.get_absolute_url())
    page.goto(live_server.url + "/")
    check("home groups", "" if page.locator(".group-list .names bdi").count() == 5 else "players not in <bdi>")
    rows = page.locator(".sittings .names")
    check("home matches", "" if rows.count() == 2 else f"{rows.count()} matches")
    for row in range(rows.count()):
        for name in (SARAH, AISHA, "Bako"):
            check(f"home match {row + 1}", in_reading_order(rows.nth(row), name, score_after(rows.nth(row), name)))
    shot(page, "bidi-home")
    fits("home")

    # The group page: each match's standings.
    page.goto(live_server.url + group.get_absolute_url())
    rows = page.locator(".group-matches .names")
    for row in range(rows.count()):
        for name in (SARAH, AISHA, "Bako"):
            check(f"group match {row + 1}", in_reading_order(rows.nth(row), name, score_after(rows.nth(row), name)))
    check("group name", "" if page.locator("h1 bdi").count() == 1 else "no <bdi>")
    fits("group")

    # Statistics: head to head, each night's settlement, the win rate chart's names.
    page.goto(live_server.url + f"/g/{group.token}/stats/")
    lines = page.locator(".pairs .line")
    check("head to head", "" if lines.count() >= 12 else f"{lines.count()} lines")
    for index in range(lines.count()):
        name = lines.nth(index).text_content().rsplit(":", 1)[0].strip(f"{FSI}{PDI} ")
        check(
            f"head to head line {index + 1}",
            in_reading_order(lines.nth(index), name, score_after(lines.nth(index), name)),
        )
    pair = page.locator(".pairs th .name", has_text=SARAH).filter(has_text=LONG).first
    first, second = pair.locator("bdi").all_inner_texts()
    check("a pair of names", in_reading_order(pair, first, second))
    for index in range(page.locator(".night .payments li").count()):
        line = page.locator(".night .payments li").nth(index)
        payee = LONG if LONG in line.inner_text() else SARAH
        check(f"night payment {index + 1}", in_reading_order(line, payee, "200"))
    check("win rate label", chart_label_problem(page.locator("figure.rates svg text", has_text="…")))
    shot(page, "bidi-figures")
    fits("figures")

    page.context.close()
    assert problems == []


def first_letter(text: str) -> int:
    return next(index for index, char in enumerate(text) if char.isalpha())


def chart_label_problem(label) -> str:
    """A shortened label in an SVG chart reads in its first name's direction: from a right-to-left
    name, its last ellipsis is drawn to the left of its first letter (else to the right), and the
    whole label right of the plot."""
    if label.count() != 1:
        return f"{label.count()} shortened labels"
    text = label.text_content()
    if not (text.startswith(FSI) and text.endswith(PDI)):
        return f"not between FSI and PDI: {text!r}"
    places = label.evaluate(
        """(text, [first, last]) => [text.getExtentOfChar(first).x, text.getExtentOfChar(last).x,
        text.getBBox().x, Number(text.getAttribute("x"))]""",
        [first_letter(text), text.rindex("…")],
    )
    letter, ellipsis, left, anchor = places
    right_to_left = unicodedata.bidirectional(text[first_letter(text)]) in ("R", "AL")
    if right_to_left and ellipsis >= letter:
        return f"the ellipsis is drawn after the first letter ({ellipsis} >= {letter})"
    if not right_to_left and ellipsis <= letter:
        return f"the ellipsis is drawn before the first letter ({ellipsis} <= {letter})"
    if left < anchor - 1:
        return f"the label runs into the plot ({left} < {anchor})"
    return ""


# --- the phone's time zone ----------------------------------------------------------------------------


def test_the_forms_that_start_something_send_the_phones_own_time_zone(browser, live_server):
    page = open_phone(browser, "412x915", timezone_id="Asia/Ho_Chi_Minh")
    zone = page.locator('input[name="time_zone"]')

    page.goto(live_server.url + "/")
    expect(zone).to_have_value(FILLED)  # the demo's form

    page.goto(live_server.url + "/start/agram/")
    expect(zone).to_have_value(FILLED)
    page.get_by_role("button", name="Add a player").click()  # the form comes back by htmx: filled again
    page.locator("#id_player_5").wait_for()
    expect(zone).to_have_value(FILLED)
    page.locator("#id_player_1").fill(AISHA)
    page.locator("#id_player_2").fill(SARAH)
    page.get_by_role("button", name="Start the match").last.click()
    page.wait_for_url("**/s/**")
    assert Sitting.objects.get().time_zone in HANOI  # as this browser names it

    page.goto(live_server.url + "/groups/new/")
    page.locator("#group-name").fill("Hà Nội")
    page.get_by_role("button", name="Make the group").click()
    page.wait_for_url("**/g/**")
    assert Group.objects.get().time_zone in HANOI
    page.context.close()

    berlin = open_phone(browser, "360x640", timezone_id="Europe/Berlin")
    berlin.goto(live_server.url + Group.objects.get().get_absolute_url() + "new/agram/")
    expect(berlin.locator('input[name="time_zone"]')).to_have_value("Europe/Berlin")
    berlin.context.close()
