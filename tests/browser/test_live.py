"""Four phones at one table and a spectator, the change of one shown on the others at once: pushed by
the server, not asked for by a poll; a pushed table never closes what a person has open nor moves a
name. A test waits for the push itself (tests/browsers.py counts what the page's stream receives)."""

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import open_phone, played_on, shot, stream_open, until, wait_for_push, watch_console

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def phones_at(browser, url, count=4, size="360x640"):
    """`count` phones showing `url` with their stream open, each with the list of its requests to a poll
    address and its console errors."""
    phones = []
    for _ in range(count):
        page = open_phone(browser, size)
        page.polls, page.errors = [], watch_console(page)
        page.on("request", lambda request, page=page: "/poll/" in request.url and page.polls.append(request.url))
        page.goto(url)
        phones.append(page)
    for page in phones:  # each has its stream open (the server listening for it) before the tap
        stream_open(page)
    return phones


def test_a_tap_on_one_phone_reaches_the_other_three_and_a_spectator_without_any_poll(browser, live_server):
    """Pushed: within a second or so on a quiet machine, and no phone asked for it (a poll, every 5 s,
    would be among its requests)."""
    sitting = Sitting.start("agram", NAMES)
    phones = phones_at(browser, live_server.url + sitting.get_absolute_url())
    (watcher,) = phones_at(browser, live_server.url + f"/w/{sitting.watch_token}/", count=1, size="412x915")
    phones[0].locator("button.tap", has_text="Chaibou").click()
    for page in phones[1:]:
        expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
        expect(page.locator(".tally tr.lead .name")).to_have_text("Chaibou")
    expect(watcher.locator(".deal .hand")).to_have_text("Hand 2")  # a spectator's screen
    assert "Chaibou" in watcher.locator("table.hands").inner_text()
    shot(phones[3], "live-pushed-360x640")
    shot(watcher, "watch-412x915")
    assert [page.polls for page in [*phones, watcher]] == [[], [], [], [], []]
    assert [page.errors for page in [*phones, watcher]] == [[], [], [], [], []]
    played_on(sitting)
    phones[2].locator("button.tap", has_text="Djibo").click()  # and on from another phone, a hand later
    expect(phones[0].locator("#who-won .hand")).to_have_text("Hand 3")
    assert sitting.hands.count() == 2


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
    wait_for_push(reader, 1)  # the push has come: it waits, the panel stays open on hand 1, and says why
    expect(panel.locator(".held")).to_have_text(
        "Another phone just changed the table (this hand may be recorded already): close this panel to see it."
    )
    expect(panel).to_have_attribute("open", "")
    expect(reader.locator("#who-won .hand")).to_have_text("Hand 1")
    shot(reader, "live-held-panel-360x640")
    panel.locator("summary").click()  # closed: the table catches up at once
    expect(reader.locator("#who-won .hand")).to_have_text("Hand 2")
    after = reader.locator("details.ask summary", has_text="Djibo").bounding_box()
    assert abs(after["y"] - before["y"]) < 2 and reader.polls == []
    shot(reader, "live-after-panel-360x640")


def test_an_open_undo_panel_is_told_the_table_moved_on_in_words_for_an_undo(browser, live_server):
    """Not "this hand may be recorded already" (a tap's panel): the undo asked about may no longer be the last."""
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 0)
    tapper, reader = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=2)
    panel = reader.locator("details.undo")
    panel.locator("summary").click()
    tapper.locator("button.tap", has_text="Djibo").click()
    wait_for_push(reader, 1)
    expect(panel.locator(".held")).to_have_text("Another phone just changed the table: close this panel to see it.")
    expect(panel).to_have_attribute("open", "")


def test_the_group_page_shows_a_change_made_elsewhere_without_a_reload(browser, live_server):
    from matches.models import Group

    group = Group.create("Vendredi", NAMES)
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    page.evaluate("window.notReloaded = true")
    group.rename_player(group.members()[0].pk, "Aminata")  # from another phone
    wait_for_push(page, 1)  # "changed": the page fetches its group region again
    expect(page.locator("#group")).to_contain_text("Aminata")
    assert page.evaluate("window.notReloaded") is True and page.errors == []


def test_a_group_page_told_of_a_second_change_while_fetching_the_first_shows_the_second(browser, live_server):
    from matches.models import Group

    group = Group.create("Vendredi", NAMES)
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    held = []

    def hold_the_first(route):  # the first fetch's answer is held; any later fetch goes through
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route(f"**{group.get_absolute_url()}", hold_the_first)
    first = group.members()[0].pk
    group.rename_player(first, "Aminata")
    wait_for_push(page, 1)
    until(page, lambda: held)  # the page's fetch got Aminata, its answer still on the way
    group.rename_player(first, "Awa")
    wait_for_push(page, 2)
    ((route, answer),) = held
    route.fulfill(response=answer)
    expect(page.locator("#group")).to_contain_text("Awa")
    assert page.errors == []


def test_a_group_page_changed_elsewhere_keeps_what_this_phone_typed_and_was_told(browser, live_server):
    """A name typed and not added yet, a Paid amount changed and not sent, the answer to its own add: the
    fresh group stays as this phone left it there, and shows the change."""
    from matches.models import Group

    group = Group.create("Vendredi", NAMES)
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=50, stake_label="€")
    sitting.record_hand(1, 0, {"multiplier": "1"})
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    page.locator("#new-player").fill("Fatou")
    page.get_by_role("button", name="Add").click()
    told = page.locator("#members .notice")
    expect(told).to_contain_text("Fatou")
    paid = page.locator(".open-payments li", has_text="Chaibou pays").get_by_role("textbox")
    paid.fill("0.25")
    group.remove_player(group.members().get(name="Djibo").pk)  # from another phone
    page.locator("details.former summary").click()  # open: its former player
    page.locator("#new-player").fill("Hawa")  # and the phone is still there, typing, the caret after "Ha"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    group.rename_player(group.members().get(name="Boubacar").pk, "Moussa")  # from another phone
    expect(page.locator("#group")).to_contain_text("Moussa")
    expect(page.locator("#new-player")).to_have_value("Hawa")
    expect(page.locator("#new-player")).to_be_focused()
    assert page.locator("#new-player").evaluate("field => [field.selectionStart, field.selectionEnd]") == [2, 2]
    expect(page.locator("details.former")).to_have_attribute("open", "")
    expect(paid).to_have_value("0.25")
    expect(told).to_contain_text("Fatou")
    assert page.errors == []


def test_a_group_page_changed_elsewhere_leaves_the_focus_where_the_finger_moved_it_during_the_swap(
    browser, live_server
):
    """The focus goes back into the fresh region's box only when the swap took it away: a box tapped while the
    fresh region was settling keeps it (and what is typed next goes there, not into the box focused before)."""
    from matches.models import Group

    group = Group.create("Vendredi", ["Mbarga", "Ngono"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=50, stake_label="€")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    page.locator("#new-player").fill("Fatou")
    page.evaluate("""() => document.addEventListener("htmx:afterSwap", () => {
        document.querySelector(".open-payments input[type=text]").focus();
    }, { once: true })""")
    group.rename_player(group.members().get(name="Ngono").pk, "Nadia")  # from another phone
    expect(page.locator("#group")).to_contain_text("Nadia")
    page.keyboard.type("0.5")
    expect(page.locator(".open-payments").get_by_role("textbox")).to_be_focused()
    expect(page.locator("#new-player")).to_have_value("Fatou")
    assert page.errors == []


def test_a_group_page_changed_elsewhere_keeps_a_refused_name_and_says_when_a_typed_payment_is_gone(
    browser, live_server
):
    from matches.models import Group

    group = Group.create("Vendredi", ["Mbarga", "Ngono"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=50, stake_label="€")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    page.locator("#new-player").fill("NGONO")
    page.get_by_role("button", name="Add").click()
    expect(page.locator("#members .notice")).to_contain_text("Ngono is in this group already")
    expect(page.locator("#new-player")).to_be_focused()  # the keyboard stays up, to fix the name
    page.locator(".open-payments").get_by_role("textbox").fill("0.25")
    page.locator("h1").click()
    sitting.record_hand(2, 1, {"multiplier": "2"})  # from another phone: nobody owes anything now
    expect(page.locator("#group")).to_contain_text("Nobody owes anything")
    expect(page.locator("#new-player")).to_have_value("NGONO")
    expect(page.locator("#new-player")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("form.add-player > #new-player-error")).to_contain_text("Ngono is in this group already")
    shot(page, "group-refused-name-kept-360x640")
    expect(page.locator("#notice")).to_contain_text("Not sent: the Paid amount 0.25 you typed")
    assert [error for error in page.errors if "400 (Bad Request)" not in error] == []  # (the refused add's)


def test_a_group_page_whose_links_were_made_new_elsewhere_says_so_at_once(browser, live_server):
    from matches.models import Group

    group = Group.create("Vendredi", NAMES)
    (page,) = phones_at(browser, live_server.url + group.get_absolute_url(), count=1)
    group.rotate_links()  # from another phone: a link had leaked
    expect(page.locator("main")).to_contain_text("No group at this link", timeout=5000)


def answer_held(page) -> list:
    """Taps reach the server at once (recorded, pushed to every phone), but each answer reaches the page
    only when the test passes it on: `route.fulfill(response=answer)` for each (route, answer) listed."""
    held = []
    page.route("**/tap/", lambda route: held.append((route, route.fetch())))
    return held


def test_the_tapping_phone_keeps_its_answer_when_the_push_of_its_own_tap_comes_first(browser, live_server):
    sitting = Sitting.start("agram", NAMES)
    (page,) = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=1)
    held = answer_held(page)
    page.locator("button.tap", has_text="Chaibou").click()
    wait_for_push(page, 1)  # the push of its own tap has come
    until(page, lambda: held)
    ((route, answer),) = held
    route.fulfill(response=answer)  # and its answer after it
    page.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    assert page.errors == [] and sitting.hands.count() == 1


def test_a_phone_alone_whose_answer_is_slow_is_not_told_another_phone_changed_the_table(browser, live_server):
    """The push of this phone's own tap comes while its answer panel is still open (a slow network): no
    "another phone just changed the table" note, which would have a player think someone else tapped."""
    sitting = Sitting.start("fapfap", NAMES)
    (page,) = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=1)
    held = answer_held(page)
    page.locator("details.ask summary", has_text="Aïcha").click()
    page.locator("details.ask[open] button.answer").first.click()
    wait_for_push(page, 1)  # the push of its own tap has come, its answer still on its way
    assert page.locator(".held").count() == 0 and page.locator("details.ask[open]").count() == 1
    until(page, lambda: held)
    ((route, answer),) = held
    route.fulfill(response=answer)
    page.get_by_text("Hand 1 recorded: Aïcha", exact=False).wait_for()
    assert page.locator(".held").count() == 0
    assert page.errors == [] and sitting.hands.count() == 1


def test_a_phone_shown_the_end_by_a_push_can_start_the_rematch_and_share_a_whole_link(browser, live_server):
    from matches.domain.rules import MatchEnd, MatchEndKind

    sitting = Sitting.start("agram", NAMES, MatchEnd(MatchEndKind.WINS, 1))
    tapper, other = phones_at(browser, live_server.url + sitting.get_absolute_url(), count=2)
    tapper.locator("button.tap", has_text="Chaibou").click()
    rematch = other.get_by_role("button", name="Rematch: same players, new match")
    expect(rematch).to_be_visible()  # the end reached this phone by a push, not by a poll
    assert other.polls == []
    result = other.locator("#result-text").input_value()
    assert f"{live_server.url}/w/{sitting.watch_token}/" in result
    rematch.click()
    other.wait_for_url(lambda url: sitting.token not in url)
    assert Sitting.objects.count() == 2 and other.errors == []


def test_a_page_read_before_a_tap_was_saved_shows_the_newer_table_at_once(browser, live_server):
    """Reloading while a tap was on its way: the page may have been read before the tap was saved. The
    phone was told of the newer version (the tap's answer), so it asks for the table at once, without
    waiting for the stream (blocked here) or the 5-second poll (the phone's clock stands still: it never
    comes)."""
    sitting = Sitting.start("agram", NAMES)
    url = live_server.url + sitting.get_absolute_url()
    page = open_phone(browser, service_workers="block", clock=True)  # every request through page.route
    page.goto(url)
    stale = page.content()  # the table of hand 1, as a page read just before the tap was saved
    page.locator("button.tap", has_text="Chaibou").click()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    page.route("**/events/**", lambda route: route.abort())
    page.route(url, lambda route: route.fulfill(status=200, content_type="text/html; charset=utf-8", body=stale))
    page.clock.pause_at(page.evaluate("Date.now()") + 1)
    page.reload()
    expect(page.locator("#who-won .hand")).to_have_text("Hand 2")
    expect(page.locator(".tally tr.lead .name")).to_have_text("Chaibou")


def test_a_correction_of_an_earlier_money_hand_shows_on_another_phone_until_it_says_it_saw_it(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES[:3], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 1, {"multiplier": "1"})
    url = live_server.url + sitting.get_absolute_url()
    first, second = phones_at(browser, url, count=2)
    sitting.refresh_from_db()
    sitting.correct_hand(1, 2, {"multiplier": "2"})  # a third phone corrects hand 1
    for page in (first, second):
        expect(page.locator(".notice.change")).to_contain_text("Hand 1 changed on another phone", timeout=2000)
    expect(first.locator(".notice.change")).to_contain_text("Aïcha −600 FCFA, Chaibou +600 FCFA")
    shot(first, "money-change-360x640")
    first.get_by_role("button", name="Seen").click()
    expect(first.locator(".notice.change")).to_have_count(0)
    first.reload()
    expect(first.locator("#table")).to_be_visible()
    expect(first.locator(".notice.change")).to_have_count(0)  # seen on this phone, for good
    expect(second.locator(".notice.change")).to_have_count(1)  # the other phone has not said so
    second.reload()  # the receipts are the server's: a reloaded page still shows them
    expect(second.locator(".notice.change")).to_contain_text("Hand 1 changed on another phone")
    second.goto(url + "hands/")
    expect(second.locator("main")).to_contain_text("first recorded as Aïcha")
    assert first.errors == [] and second.errors == []


def test_the_phone_that_corrected_an_earlier_money_hand_does_not_get_its_line_back_with_the_next_push(browser, live_server):
    sitting = Sitting.start("fapfap", NAMES[:3], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 1, {"multiplier": "1"})
    url = live_server.url + sitting.get_absolute_url()
    (phone,) = phones_at(browser, url, count=1)
    phone.goto(url + "hands/1/")
    phone.locator("summary.tap", has_text=NAMES[2]).click()
    phone.locator("details[open] button.answer").first.click()
    phone.wait_for_url(url)
    expect(phone.locator("main")).to_contain_text("Hand 1 corrected")
    stream_open(phone)
    sitting.refresh_from_db()
    sitting.record_hand(3, 0, {"multiplier": "1"})  # another phone taps: the pushed table has the line for others
    expect(phone.locator("#who-won .hand")).to_have_text("Hand 4")
    expect(phone.locator(".notice.change")).to_have_count(0)
    assert phone.errors == []
