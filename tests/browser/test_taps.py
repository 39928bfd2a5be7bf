"""What a tap opens, and what every answer does to the tapped button, in Debian's chromium at 360x640."""

import pytest
from playwright.sync_api import expect

from matches.domain import rules
from matches.models import Sitting

from tests.browsers import hand_played, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Fatouma", "Garba", "Habsatou", "Issoufou"]
ASKING = [slug for slug, game in rules.GAMES.items() if game.questions]


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


@pytest.mark.parametrize("slug", ASKING)
def test_every_answer_button_a_tap_opens_is_on_screen_at_the_largest_table(browser, live_server, slug):
    game = rules.GAMES[slug]
    sitting = Sitting.start(slug, NAMES[: game.max_players])
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    for position in range(game.max_players):
        page.locator("summary.tap").nth(position).click()
        expect(page.locator("details.ask[open]")).to_have_count(1)  # one panel at a time
        panel = page.locator("details.ask[open] .answers")
        buttons = panel.locator(".answer:visible")  # the answers shown (one that asks more opens its own button)
        for index in range(buttons.count()):
            assert in_viewport(page, buttons.nth(index)), (slug, NAMES[position], buttons.nth(index).inner_text())
    shot(page, f"ask-{slug}-{game.max_players}-players")


@pytest.mark.parametrize("slug", [s for s in ASKING if any(q.kind == "choice" for q in rules.GAMES[s].questions)])
def test_the_answers_show_the_question_they_answer(browser, live_server, slug):
    game = rules.GAMES[slug]
    question = next(q.prompt for q in game.questions if q.kind == "choice")
    sitting = Sitting.start(slug, NAMES[: game.min_players])
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.locator("summary.tap").first.click()
    shown = page.locator("details.ask[open] .question")
    assert shown.inner_text() == question and in_viewport(page, shown)


def test_a_tap_on_a_link_rotated_by_another_phone_stops_recording_and_says_what_happened(browser, live_server):
    sitting = Sitting.start("agram", NAMES[:4])
    page = open_phone(browser, "360x640")
    page.route("**/events/**", lambda route: route.abort())  # the push has not reached it: the tap comes first
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
    page = open_phone(browser, "360x640")
    page.goto(f"{live_server.url}/s/{sitting.token}/")
    page.context.clear_cookies(name="csrftoken")  # the page sat open overnight: its token matches nothing now
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
    sitting.rotate_links()  # the page hears of it at once (pushed) and shows what the old link reaches now
    page.get_by_text("ask them for the new one").wait_for()
    assert page.locator(".group-of-match").count() == 0 and page.locator("details.share").count() == 0
