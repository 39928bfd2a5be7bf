"""Four phones at one table, the change of one shown on the others at once: pushed by the server,
not asked for by a poll; a pushed table never closes what a person has open nor moves a name."""

import time

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import open_phone, shot
from tests.servers import gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def phones_at(browser, url, count=4):
    """`count` phones showing `url`, each with the list of its requests to a poll address and console errors."""
    phones = []
    for _ in range(count):
        page = open_phone(browser)
        page.polls, page.errors = [], []
        page.on("request", lambda request, page=page: "/poll/" in request.url and page.polls.append(request.url))
        page.on("console", lambda message, page=page: message.type == "error" and page.errors.append(message.text))
        page.on("pageerror", lambda error, page=page: page.errors.append(str(error)))
        page.goto(url)
        phones.append(page)
    for page in phones:  # each has its stream open before the tap
        page.wait_for_function("document.querySelector('[data-events]') !== null")
    time.sleep(0.5)
    return phones


def test_a_tap_on_one_phone_reaches_the_other_three_without_any_poll(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    phones = phones_at(browser, live_server.url + sitting.get_absolute_url())
    phones[0].locator("button.tap", has_text="Chaibou").click()
    started = time.monotonic()
    for page in phones[1:]:
        expect(page.locator("#who-won .hand")).to_have_text("Hand 2", timeout=3000)
        expect(page.locator(".tally tr.lead .name")).to_have_text("Chaibou")
    took = time.monotonic() - started
    shot(phones[3], "live-pushed-360x640")
    assert took < 3.0  # within a second or so on a quiet machine; a poll would take up to 5 s
    assert [page.polls for page in phones] == [[], [], [], []]
    assert [page.errors for page in phones] == [[], [], [], []]
    phones[2].locator("button.tap", has_text="Djibo").click()  # and on from another phone
    expect(phones[0].locator("#who-won .hand")).to_have_text("Hand 3", timeout=3000)
    assert sitting.hands.count() == 2
    for page in phones:
        page.context.close()


def test_a_push_waits_while_an_answer_panel_is_open_and_never_moves_the_names(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES)
    tapper, reader = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=2)
    names = reader.locator("details.ask summary", has_text="Djibo")
    before = names.bounding_box()  # where the names are, every panel closed
    panel = reader.locator("details.ask", has_text="Boubacar")
    panel.locator("summary").click()
    expect(panel).to_have_attribute("open", "")
    tapper.locator("details.ask summary", has_text="Aïcha").click()
    tapper.locator("details.ask[open] button.answer").first.click()
    expect(tapper.locator("#who-won .hand")).to_have_text("Hand 2")
    time.sleep(1.5)  # the push has arrived by now: it waits, the panel stays open on hand 1
    expect(panel).to_have_attribute("open", "")
    expect(reader.locator("#who-won .hand")).to_have_text("Hand 1")
    expect(panel.locator(".held")).to_have_text("Another phone just changed the table (this hand may be recorded already): close this panel to see it.")
    shot(reader, "live-held-panel-360x640")
    panel.locator("summary").click()  # closed: the table catches up at once
    expect(reader.locator("#who-won .hand")).to_have_text("Hand 2", timeout=3000)
    after = reader.locator("details.ask summary", has_text="Djibo").bounding_box()
    assert abs(after["y"] - before["y"]) < 2 and reader.polls == []
    shot(reader, "live-after-panel-360x640")
    for page in (tapper, reader):
        page.context.close()


def test_a_tap_on_one_app_server_reaches_a_phone_on_another(browser, tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path, workers=2) as one, gunicorn(tmp_path, workers=2) as two:
        (here,) = phones_at(browser, one + sitting.get_absolute_url(), count=1)
        (there,) = phones_at(browser, two + sitting.get_absolute_url(), count=1)
        here.locator("button.tap", has_text="Boubacar").click()
        expect(there.locator("#who-won .hand")).to_have_text("Hand 2", timeout=3000)
        expect(there.locator(".tally tr.lead .name")).to_have_text("Boubacar")
        assert there.polls == [] and there.errors == []
        for page in (here, there):
            page.context.close()


def test_the_group_page_shows_a_change_made_elsewhere_without_a_reload(browser, live_server):
    from matches.models import Group

    group = Group.create("Vendredi", NAMES)
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    page.evaluate("window.notReloaded = true")
    group.rename_player(group.members()[0].pk, "Aminata")  # from another phone
    expect(page.locator("#group")).to_contain_text("Aminata", timeout=3000)
    assert page.evaluate("window.notReloaded") is True and page.errors == []
    page.context.close()


def test_the_tapping_phone_keeps_its_answer_when_the_push_of_its_own_tap_comes_first(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    (page,) = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=1)

    def slow_answer(route):
        answer = route.fetch()  # recorded now, and pushed to every phone, this one too
        time.sleep(1.5)  # its answer comes after the push
        route.fulfill(response=answer)

    page.route("**/tap/", slow_answer)
    page.locator("button.tap", has_text="Chaibou").click()
    page.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    assert page.errors == [] and sitting.hands.count() == 1
    page.context.close()


def test_a_phone_alone_whose_answer_is_slow_is_not_told_another_phone_changed_the_table(browser, live_server):
    """The push of this phone's own tap comes while its answer panel is still open (a slow network): no
    "another phone just changed the table" note, which would have a player think someone else tapped."""
    sitting = Sitting.start("fapfap", NAMES)
    (page,) = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=1)
    pushed = []

    def slow_answer(route):
        answer = route.fetch()  # recorded now, and pushed to this phone
        time.sleep(2)
        pushed.append(page.locator(".held").count())  # (read while the answer is still on its way)
        route.fulfill(response=answer)

    page.route("**/tap/", slow_answer)
    page.locator("details.ask summary", has_text="Aïcha").click()
    page.locator("details.ask[open] button.answer").first.click()
    page.get_by_text("Hand 1 recorded: Aïcha", exact=False).wait_for()
    assert pushed == [0] and page.locator(".held").count() == 0
    assert page.errors == [] and sitting.hands.count() == 1
    page.context.close()


def test_a_phone_shown_the_end_by_a_push_can_start_the_rematch_and_share_a_whole_link(browser, live_server):
    from matches.domain.rules import MatchEnd, MatchEndKind

    sitting = Sitting.start("agram", NAMES, MatchEnd(MatchEndKind.WINS, 1))
    tapper, other = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=2)
    tapper.locator("button.tap", has_text="Chaibou").click()
    rematch = other.get_by_role("button", name="Rematch: same players, new match")
    expect(rematch).to_be_visible(timeout=3000)  # the end reached this phone by a push
    result = other.locator("#result-text").input_value()
    assert f"{live_server.url}/w/{sitting.watch_token}/" in result
    rematch.click()
    other.wait_for_url(lambda url: sitting.token not in url)
    assert Sitting.objects.count() == 2 and other.errors == []
    for page in (tapper, other):
        page.context.close()


def test_a_page_read_before_a_tap_was_saved_shows_the_newer_table_at_once(browser, live_server):
    """Reloading while a tap was on its way: the page may have been read before the tap was saved. The
    phone was told of the newer version (the tap's answer), so it asks for the table at once, without
    waiting for the stream (blocked here) or the 5-second poll."""
    sitting = Sitting.start("agram", NAMES)
    url = live_server.url + sitting.get_absolute_url()
    page = open_phone(browser, service_workers="block")  # every request through page.route
    page.errors = []
    page.on("console", lambda message: message.type == "error" and page.errors.append(message.text))
    page.goto(url)
    stale = page.content()  # the table of hand 1, as a page read just before the tap was saved
    page.locator("button.tap", has_text="Chaibou").click()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    page.route("**/events/**", lambda route: route.abort())
    page.route(url, lambda route: route.fulfill(status=200, content_type="text/html; charset=utf-8", body=stale))
    page.reload()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2", timeout=2500)
    expect(page.locator(".tally tr.lead .name")).to_have_text("Chaibou")
    page.context.close()
