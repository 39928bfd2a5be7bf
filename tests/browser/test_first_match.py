"""Issue 10, "a first match without a stumble", on the screen: Debian's chromium at 360x640, as a
newcomer's phone shows it. The words and the markup are tested in test_first_match.py."""

import pytest
from playwright.sync_api import expect

from matches.domain import rules
from matches.models import Sitting

from tests.browsers import no_horizontal_scroll, open_phone, shot
from tests.web.test_figures import friends, stats_url  # noqa: F401 - the hand-made group, as a fixture
from tests.browser.test_taps import NAMES, in_viewport

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def plain(text: str) -> str:
    """Text as read, without the marks that isolate names (FSI, PDI)."""
    return text.replace("\u2068", "").replace("\u2069", "")


def within_width(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_figures_fit_a_phone_and_stay_a_sortable_table(browser, live_server, friends, language):  # noqa: F811
    group, _, _ = friends
    page = open_phone(browser, "360x640", locale=language, extra_http_headers={"Accept-Language": language})
    page.goto(live_server.url + stats_url(group))
    assert no_horizontal_scroll(page)
    for wrapper in range(page.locator(".scroll").count()):  # nothing scrolls sideways inside the page either
        width, room = page.locator(".scroll").nth(wrapper).evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert width <= room, (wrapper, width, room)
    for table in ("table.figures", "table.pairs"):
        cells = page.locator(f"{table} tbody td")
        for index in range(cells.count()):
            assert within_width(page, cells.nth(index)), (table, cells.nth(index).inner_text())
    # The money and the last ten matches, off to the right before, are on the screen with the rest.
    money = page.locator("table.figures tbody tr").first.locator("td").nth(-2)
    assert within_width(page, money) and money.get_attribute("data-label") == "FCFA"
    assert within_width(page, page.locator("table.figures tbody tr").first.locator("td").last)  # last 10
    # Still a table with its headers, sorted by a tap on one.
    expect(
        page.get_by_role("columnheader", name="Win rate" if language == "en" else "Taux de victoire")
    ).to_be_visible()
    page.get_by_role("link", name="Win rate" if language == "en" else "Taux de victoire").click()
    page.wait_for_url("**?sort=win_rate")
    assert page.locator("table.figures tbody th").first.inner_text() == "Ben"  # 75%
    assert page.locator('table.figures th[aria-sort="descending"]').count() == 1
    shot(page, f"figures-cards-360x640-{language}")
    page.context.close()


def page_y(locator) -> float:
    """Where an element's top is on the page (not in the viewport, which scrolls)."""
    return locator.evaluate("element => element.getBoundingClientRect().top + window.scrollY")


@pytest.mark.parametrize("javascript", [True, False])
def test_cat_tes_questions_stand_above_their_answers(browser, live_server, javascript):
    sitting = Sitting.start("cat-te", NAMES[:6])
    page = open_phone(browser, "360x640", java_script_enabled=javascript)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.locator("summary.tap").nth(5).click()
    panel = page.locator("details.ask[open] .answers")
    answers = panel.locator(".answer:visible")
    assert answers.count() == 3
    question = panel.locator(".question")
    assert question.inner_text() == "How was the hand won?"
    tops = [page_y(answers.nth(index)) for index in range(3)]  # on the page: opening a panel may scroll
    assert page_y(question) < tops[0]
    # Nothing stands between the three answers: the Ace question belongs to the sweep and opens with it.
    assert panel.get_by_text("Sweep: who held back an Ace of the suit led (each pays 1 chip more)?").is_hidden()
    for index in range(3):  # (without JavaScript nothing scrolls for the player: the phone's own scrolling)
        if javascript:  # app.js scrolls them on screen when the panel opens (a toggle event: soon after)
            expect(answers.nth(index)).to_be_in_viewport(ratio=1)
    panel.get_by_text("Sweep of the first four tricks").click()
    aces = panel.get_by_text("Sweep: who held back an Ace of the suit led (each pays 1 chip more)?")
    record = panel.locator("details.more[open] button")
    assert plain(record.inner_text()) == "Record: Garba wins"
    assert tops[2] < page_y(aces) < page_y(record)
    if javascript:  # the opened sweep scrolls its question and button on screen (a toggle event: soon after)
        expect(record).to_be_in_viewport(ratio=1)
        assert in_viewport(page, aces) and in_viewport(page, record)
    shot(page, f"cat-te-sweep-360x640-{'js' if javascript else 'no-js'}")
    panel.get_by_label("Aïcha").check()
    record.click()
    page.locator(".notice").wait_for()
    assert (
        plain(page.locator(".notice").inner_text())
        == "Hand 1 recorded: Garba (sweep of the first four tricks; Aïcha held back an Ace)."
    )
    assert sitting.hands.get().extras == {"how": "sweep", "aces": [0]}
    page.context.close()


def test_eighty_three_asks_its_question_and_the_record_button_stays_on_screen_at_eight(browser, live_server):
    game = rules.GAMES["eighty-three"]
    sitting = Sitting.start("eighty-three", NAMES[: game.max_players])
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    for position in range(game.max_players):
        page.locator("summary.tap").nth(position).click()
        expect(page.locator("details.ask[open]")).to_have_count(1)  # one panel at a time
        panel = page.locator("details.ask[open] .answers")
        question = panel.locator(".question")
        assert question.inner_text().startswith("Anything else this hand?")
        record = panel.locator("button.answer")
        assert plain(record.inner_text()) == f"Record: {NAMES[position]} wins"
        assert in_viewport(page, question) and in_viewport(page, record), NAMES[position]
        boxes = panel.locator("input[type=checkbox]")
        assert boxes.count() == 2 + game.max_players
        for index in range(boxes.count()):  # every box too
            assert in_viewport(page, boxes.nth(index)), (NAMES[position], index)
    shot(page, "eighty-three-8-players-question")
    page.context.close()


@pytest.mark.parametrize("javascript", [True, False])
def test_undo_takes_a_second_tap_that_says_what_it_undoes(browser, live_server, javascript):
    sitting = Sitting.start("agram", NAMES[:4])
    sitting.record_hand(1, 2)
    page = open_phone(browser, "360x640", java_script_enabled=javascript)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.get_by_text("Undo hand 1", exact=True).click()  # a mis-tap here takes nothing away
    page.get_by_text("Hand 1: Chaibou won it. Undo it?").wait_for()
    assert sitting.hands.count() == 1
    shot(page, f"undo-asks-{'js' if javascript else 'no-js'}")
    page.get_by_role("button", name="Yes, undo hand 1").click()
    page.get_by_text("Hand 1 undone: tap its winner again.").wait_for()
    assert sitting.hands.count() == 0
    page.context.close()


def test_a_single_match_end_reads_as_a_sentence_with_its_number(browser, live_server):
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/start/sipa/")
    assert page.locator('input[type="radio"]').count() == 0
    expect(page.get_by_text("First to N points", exact=True)).to_be_visible()
    expect(page.locator("#id_end_target_points")).to_be_visible()  # its number shows: no radio to tick first
    page.goto(f"{live_server.url}/start/agram/")  # several ends: the number of an unticked one stays hidden
    expect(page.locator("#id_end_target_wins")).to_be_hidden()
    page.get_by_role("radio", name="First to N hands won").check()
    expect(page.locator("#id_end_target_wins")).to_be_visible()
    page.context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_match_on_the_home_list_keeps_its_width_beside_its_buttons(browser, live_server, language):
    """First newcomer round: in French the buttons under a match took the row, and its game, state and
    scores were squeezed into a column one letter wide."""
    page = open_phone(browser, "360x640", locale=language, extra_http_headers={"Accept-Language": language})
    page.goto(live_server.url + "/")
    page.locator("form.demo button").click()
    page.wait_for_url("**/s/*/")
    page.goto(live_server.url + "/")
    line = page.locator(".sittings li a").first
    assert line.bounding_box()["width"] > 250 and line.bounding_box()["height"] < 120
    assert no_horizontal_scroll(page)
    page.context.close()
