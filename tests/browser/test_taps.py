"""What a tap opens (the answers on screen, under their question, one panel at a time), what Undo asks,
and what the page does with each answer: a link made new meanwhile, a stale CSRF token, a form the
browser sends itself; in Debian's chromium at 360x640. The words without JavaScript:
tests/web/test_without_javascript.py."""

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from matches.domain import rules
from matches.models import Sitting

from tests.browsers import REFUSED, hand_played, open_phone, shot, stream_open, watch_console, winners, worker_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Fatouma", "Garba", "Habsatou", "Issoufou"]
ASKING = [slug for slug, game in rules.GAMES.items() if game.questions]


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


# What in the open panel is shown (as Playwright's :visible: a box, not hidden) but not wholly on the
# screen, among `selector`; read at the next frame, once the panel's toggle event has scrolled it.
OFF_SCREEN = """selector => [...document.querySelectorAll("details.ask[open] .answers")]
    .flatMap(panel => [...panel.querySelectorAll(selector)])
    .filter(e => { const r = e.getBoundingClientRect();
        return e.checkVisibility({visibilityProperty: true}) && r.width > 0 && r.height > 0
            && (r.top < 0 || r.bottom > window.innerHeight); })
    .map(e => `${e.outerHTML.slice(0, 80)} at ${Math.round(e.getBoundingClientRect().top)}`)"""


def off_screen(page, selector: str) -> list[str]:
    """What of `selector` in the open panel is not wholly on screen, once the page has scrolled it in (app.js
    does on the panel's toggle event, which comes after the click, later on a busy machine): [] if it all is."""
    try:
        page.wait_for_function(f"({OFF_SCREEN})({json.dumps(selector)}).length === 0", timeout=3000)
    except PlaywrightTimeoutError:
        pass
    return page.evaluate(OFF_SCREEN, selector)


def test_every_answer_button_a_tap_opens_is_on_screen_at_the_largest_table(browser, live_server):
    page = open_phone(browser, "360x640")
    for slug in ASKING:
        game = rules.GAMES[slug]
        sitting = Sitting.start(slug, NAMES[: game.max_players])
        page.goto(f"{live_server.url}/s/{sitting.token}/")
        for position in range(game.max_players):
            page.locator("summary.tap").nth(position).click()
            expect(page.locator("details.ask[open]")).to_have_count(1)  # one panel at a time
            # the answers shown (one that asks more opens its own button), each wholly on screen
            assert page.locator("details.ask[open] .answers .answer:visible").count() > 0
            assert off_screen(page, ".answer") == [], (slug, NAMES[position])
        shot(page, f"ask-{slug}-{game.max_players}-players")


def test_the_answers_show_the_question_they_answer(browser, live_server):
    page = open_phone(browser, "360x640")
    for slug in [s for s in ASKING if any(q.kind == "choice" for q in rules.GAMES[s].questions)]:
        game = rules.GAMES[slug]
        question = next(q.prompt for q in game.questions if q.kind == "choice")
        sitting = Sitting.start(slug, NAMES[: game.min_players])
        page.goto(f"{live_server.url}/s/{sitting.token}/")
        page.locator("summary.tap").first.click()
        shown = page.locator("details.ask[open] .question")
        assert shown.inner_text() == question and in_viewport(page, shown), slug


def plain(text: str) -> str:
    """Text as read, without the marks that isolate names (FSI, PDI)."""
    return text.replace("\u2068", "").replace("\u2069", "")


def page_y(locator) -> float:
    """Where an element's top is on the page (not in the viewport, which scrolls)."""
    return locator.evaluate("element => element.getBoundingClientRect().top + window.scrollY")


ACES = "Sweep: who held back an Ace of the suit led (each pays 1 chip more)?"


def test_cat_tes_questions_stand_above_their_answers(browser, live_server):
    """With JavaScript and without (then nothing scrolls for the player: the phone's own scrolling); the
    same answer posted without JavaScript: tests/web/test_without_javascript.py."""
    for javascript in (True, False):
        sitting = Sitting.start("cat-te", NAMES[:6])  # hand 1 open on each phone
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
        assert panel.get_by_text(ACES).is_hidden()
        for index in range(3):
            if javascript:  # app.js scrolls them on screen when the panel opens (a toggle event: soon after)
                expect(answers.nth(index)).to_be_in_viewport(ratio=1)
        panel.get_by_text("Sweep of the first four tricks").click()
        aces = panel.get_by_text(ACES)
        record = panel.locator("details.more[open] button")
        assert plain(record.inner_text()) == "Record: Garba wins"
        assert tops[2] < page_y(aces) < page_y(record)
        if javascript:  # the opened sweep scrolls its question and button on screen (a toggle event: soon after)
            expect(record).to_be_in_viewport(ratio=1)
            assert in_viewport(page, aces) and in_viewport(page, record)
        shot(page, f"cat-te-sweep-360x640-{'js' if javascript else 'no-js'}")
        if javascript:
            panel.get_by_label("Aïcha").check()
            record.click()
            page.locator("#table .notice").wait_for()
            assert (
                plain(page.locator("#table .notice").inner_text())
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
        assert panel.locator("input[type=checkbox]").count() == 2 + game.max_players
        # the question, the Record button and every box wholly on screen
        assert off_screen(page, ".question, button.answer, input[type=checkbox]") == [], NAMES[position]
    shot(page, "eighty-three-8-players-question")


def test_undo_takes_a_second_tap_that_says_what_it_undoes(browser, live_server):
    """With JavaScript (htmx); the same forms posted without it: tests/web/test_without_javascript.py."""
    sitting = Sitting.start("agram", NAMES[:4])
    sitting.record_hand(1, 2)
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.get_by_text("Undo hand 1", exact=True).click()  # a mis-tap here takes nothing away
    page.get_by_text("Hand 1: Chaibou won it. Undo it?").wait_for()
    assert sitting.hands.count() == 1
    shot(page, "undo-asks-js")
    page.get_by_role("button", name="Yes, undo hand 1").click()
    page.get_by_text("Hand 1 undone: tap its winner again.").wait_for()
    assert sitting.hands.count() == 0


def test_a_tap_on_a_link_rotated_by_another_phone_stops_recording_and_says_what_happened(browser, live_server):
    sitting = Sitting.start("agram", NAMES[:4])
    page = open_phone(browser, "360x640")
    page.route("**/events/**", lambda route: route.abort())  # the push has not reached it: the tap comes first,
    page.route("**/poll/**", lambda route: route.abort())  # nor a poll
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    sitting.rotate_links()  # another phone: "a link leaked: make new links"
    button = page.get_by_role("button", name="Chaibou")
    button.click()
    page.get_by_text("ask them for the new one").wait_for()
    # The old table goes with its link: no name to tap, nothing pending, no polling, a way home.
    assert page.get_by_role("button", name="Chaibou").count() == 0 and page.locator(".pending").count() == 0
    assert page.locator("[data-poll]").count() == 0 and page.get_by_text("End match").count() == 0
    expect(page.get_by_role("link", name="Home").last).to_be_visible()
    assert page.locator("details.share").count() == 0  # nor the old links to bring more phones
    shot(page, "tap-after-rotation")
    assert sitting.hands.count() == 0


def test_a_poll_after_another_phone_made_new_links_replaces_the_table_with_what_happened(browser, live_server):
    sitting = Sitting.start("agram", NAMES[:4])
    page = open_phone(browser, "360x640")
    page.route("**/events/**", lambda route: route.abort())  # a phone without the stream: it polls
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    sitting.rotate_links()
    page.evaluate("htmx.trigger(document.querySelector('[data-poll]'), 'poll')")  # the 5-second poll
    page.get_by_text("ask them for the new one").wait_for()
    assert page.get_by_role("button", name="Chaibou").count() == 0 and page.locator("[data-poll]").count() == 0


def test_a_stale_csrf_token_is_renewed_and_the_tap_goes_through_once(browser, live_server):
    sitting = Sitting.start("agram", NAMES[:4])
    page = open_phone(browser, "360x640", clock=True)
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    # The page sat open overnight (its service worker long installed: installing, it fetches a page that
    # would set a cookie of its own): its token matches nothing now.
    worker_ready(page)
    page.context.clear_cookies(name="csrftoken")
    page.get_by_role("button", name="Chaibou").click()
    page.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    assert page.locator(".notice.error").count() == 0
    assert list(sitting.hands.values_list("number", "winner__position")) == [(1, 2)]
    hand_played(page)
    page.get_by_role("button", name="Djibo").click()  # and the renewed token keeps working
    page.get_by_text("Hand 2 recorded: Djibo.").wait_for()
    button = page.get_by_role("button", name="Djibo")
    assert button.get_attribute("aria-busy") is None


def test_after_new_links_a_group_match_leaves_no_way_back_through_its_group(browser, live_server):
    from matches.models import Group

    group = Group.create("Vendredi", NAMES[:3])
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    expect(page.locator(".group-of-match")).to_be_visible()
    stream_open(page)
    sitting.rotate_links()  # the page hears of it at once (pushed) and shows what the old link reaches now
    page.get_by_text("ask them for the new one").wait_for()
    assert page.locator(".group-of-match").count() == 0 and page.locator("details.share").count() == 0


def test_a_pushed_form_the_browser_sends_itself_carries_the_pages_csrf_token(browser, live_server):
    """A tap landing on a swapped-in table before htmx took it over is sent by the browser as a plain form:
    the region (rendered once for every phone) has no CSRF field, so the page adds its own, and the hand
    counts instead of a 403 page that a reload only posts again."""
    sitting = Sitting.start("agram", NAMES[:4])
    page = open_phone(browser, "360x640", locale="fr-FR", clock=True)
    errors = watch_console(page, allowed=(REFUSED,))
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.locator("button.tap", has_text="Aïcha").click()
    page.get_by_text("Main 1 notée").wait_for()
    assert page.locator('#table form[action$="/tap/"] input[name="csrfmiddlewaretoken"]').count() == 0
    hand_played(page)  # a hand is played (sooner would be a double tap)
    # A copy of the swapped-in form that htmx never saw: the browser itself sends it.
    page.evaluate("""() => {
        const form = document.querySelector('#table form[action$="/tap/"]').cloneNode(true);
        form.removeAttribute("hx-post");
        form.id = "plain";
        document.body.append(form);
    }""")
    with page.expect_navigation():
        page.locator("#plain button.tap", has_text="Djibo").click()
    assert page.url.endswith(f"/s/{sitting.token}/")
    assert winners(sitting) == [(1, "Aïcha"), (2, "Djibo")]
    assert errors == []
