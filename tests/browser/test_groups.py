"""Groups in Debian's chromium, driven by Playwright: save a finished match into a new group, then start
the next match from the group with a newcomer (htmx seats, moves and takes off), every screen axe-clean
(light, and its colours in dark) and without sideways scrolling at 360x640. The flow runs once, in
English; its screens at 412x915 and in French: test_group_screens.py; its words in English and
French: tests/web/test_group_screens.py; the new match form without JavaScript:
tests/web/test_without_javascript.py. Screenshots land in tests/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Group, Sitting

from tests.browsers import no_horizontal_scroll, open_phone, serious_light_and_dark, shot, stream_open
from tests.web.test_group_screens import WORDS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters


def check(page, problems: dict, name: str, tag: str) -> None:
    """axe finds nothing serious (light, and the colours in dark), nothing scrolls sideways; a full-page
    screenshot to look at."""
    found = serious_light_and_dark(page)
    if found:
        problems[name] = found
    if not no_horizontal_scroll(page):
        problems.setdefault(name, []).append("scrolls sideways")
    shot(page, f"group-{name}-{tag}")


def seated(page) -> list[str]:
    return page.locator("ol.seated li .name").evaluate_all("items => items.map(i => i.firstChild.textContent.trim())")


def test_save_a_finished_match_into_a_group_then_start_the_next_with_a_newcomer(browser, live_server):
    words, tag, problems = WORDS["en"], "360x640-en", {}
    page = open_phone(browser, "360x640", language="en")
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    sitting.record_hand(1, 2)
    sitting.end_match()
    page.goto(live_server.url + sitting.get_absolute_url())
    page.get_by_role("link", name=words["save"]).click()
    page.wait_for_url("**/group/")
    check(page, problems, "save", tag)

    page.get_by_role("textbox", name=words["group name"]).fill(LONG)  # a 40-character group name
    page.get_by_role("button", name=words["save new"]).click()
    page.wait_for_url(re.compile(r"/g/[^/]+/$"))
    group = Group.objects.get()
    assert [p.name for p in group.members()] == ["Aïcha", "Boubacar", "Chaibou"]
    expect(page.locator("details.share")).to_have_attribute("open", "")  # a group just made shows its links
    page.get_by_text(words["share"]).wait_for()
    expect(page.locator("#member-link")).to_be_visible()  # without a tap
    check(page, problems, "page", tag)

    page.get_by_role("link", name=words["new match"], exact=True).click()
    page.wait_for_url("**/new/")
    check(page, problems, "games", tag)
    page.locator('a[href$="/new/agram/"]').click()
    page.wait_for_url("**/new/agram/")
    assert seated(page) == ["Aïcha", "Boubacar", "Chaibou"]  # the last table, ready
    check(page, problems, "new-match", tag)

    page.get_by_role("textbox", name=words["newcomer"]).fill("Zeinab")
    page.get_by_role("button", name=words["add"], exact=True).click()
    page.locator("ol.seated li").nth(3).wait_for()
    assert seated(page) == ["Aïcha", "Boubacar", "Chaibou", "Zeinab"]
    page.get_by_role("button", name=words["up"]).click()
    expect(page.locator("ol.seated li").nth(2)).to_contain_text("Zeinab")
    page.get_by_role("button", name=words["out"]).click()
    expect(page.locator("ol.seated li")).to_have_count(3)
    assert seated(page) == ["Aïcha", "Zeinab", "Chaibou"]
    for button in page.locator(".pick button, ol.seated button").all():
        box = button.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44
    check(page, problems, "seated", tag)

    page.get_by_role("button", name=words["start"], exact=True).last.click()
    page.wait_for_url("**/s/*/")
    page.get_by_text(words["deals"]).first.wait_for()
    new = Sitting.objects.exclude(pk=sitting.pk).get()
    assert new.group_id == group.pk and [s.name for s in new.table().seats] == ["Aïcha", "Zeinab", "Chaibou"]
    assert "Zeinab" in [p.name for p in group.members()]
    new.end_match()
    page.reload()
    page.get_by_role("link", name=words["back"]).click()
    page.wait_for_url(re.compile(r"/g/[^/]+/$"))
    assert page.locator(".group-matches li").count() == 2
    check(page, problems, "two-matches", tag)

    zeinab = group.members().get(name="Zeinab").pk
    for name, path in (
        ("player", f"/g/{group.token}/players/{zeinab}/"),
        ("erase", f"/g/{group.token}/players/{zeinab}/erase/"),
        ("watch", f"/gw/{group.watch_token}/"),
        ("create", "/groups/new/"),
        ("home", "/"),
    ):
        page.goto(live_server.url + path)
        check(page, problems, name, tag)
    assert problems == {}


def test_a_payment_marked_on_one_phone_shows_on_another_at_once(browser, live_server):
    group = Group.create("Les jeudis", ["Mbarga", "Ngono", "Aïcha"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.end_match()
    url = f"{live_server.url}/g/{group.token}/"
    marking, watching, history = (open_phone(browser, "360x640", language="en") for _ in range(3))
    for page, path in ((marking, url), (watching, url), (history, url + "tab/")):
        page.goto(path)
        stream_open(page)
    owed = watching.locator(".open-payments li", has_text="Ngono pays")
    expect(owed).to_have_count(1)
    marking.locator(".open-payments li", has_text="Ngono pays").get_by_role("button").click()
    expect(owed).to_have_count(0, timeout=2000)  # pushed to the other phone: it did not reload
    expect(marking.locator(".open-payments li", has_text="Ngono pays")).to_have_count(0)
    expect(history.locator(".tab-payments li", has_text="Ngono paid")).to_have_count(1, timeout=2000)  # the tab's page too


def test_mark_paid_with_no_network_says_so_on_the_page_and_marks_nothing(browser, live_server):
    group = Group.create("Les jeudis", ["Mbarga", "Ngono"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=50, stake_label="€")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    phone = open_phone(browser, "360x640", language="en")
    phone.goto(f"{live_server.url}/g/{group.token}/")
    owed = phone.locator(".open-payments li", has_text="Ngono pays Mbarga 1.00 €")
    expect(owed.get_by_role("textbox")).to_have_value("1.00")
    phone.context.set_offline(True)
    owed.get_by_role("textbox").fill("0.25")
    owed.get_by_role("button").click()
    expect(phone.locator("#notice")).to_have_text("Not saved: check the connection, then tap again.")
    expect(owed.locator(".offline-said")).to_have_text("Not saved: check the connection, then tap again.")  # in view
    expect(owed.get_by_role("textbox")).to_have_value("0.25")  # still on the page, as typed
    phone.context.set_offline(False)
    owed.get_by_role("button").click()
    expect(phone.locator("p.notice")).to_contain_text("Marked paid: Ngono to Mbarga, 0.25")
    assert group.payments.get().amount == 25
