"""Groups in Debian's chromium at phone sizes, driven by Playwright: save a finished match into a new
group, then start the next match from the group with a newcomer; in English and French, light and
dark, every screen axe-clean and without sideways scrolling. Screenshots land in tests/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Group, Sitting

from tests.browsers import PHONES, no_horizontal_scroll, open_phone, shot
from tests.browser.test_accessibility import serious

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters

WORDS = {
    "en": {
        "save": "Save into a group",
        "group name": "The group's name",
        "save new": "Save into a new group",
        "new match": "New match",
        "newcomer": "Someone new (joins the group)",
        "add": "Add",
        "up": "Move Zeinab up",
        "out": "Boubacar does not play",
        "start": "Start the match",
        "share": "Bring more phones to this group",
        "back": f"Back to the group: {LONG}",
        "deals": "Aïcha deals",
    },
    "fr": {
        "save": "Enregistrer dans un groupe",
        "group name": "Nom du groupe",
        "save new": "Enregistrer dans un nouveau groupe",
        "new match": "Nouvelle partie",
        "newcomer": "Quelqu’un de nouveau (rejoint le groupe)",
        "add": "Ajouter",
        "up": "Monter Zeinab",
        "out": "Boubacar ne joue pas",
        "start": "Commencer la partie",
        "share": "Ajouter d’autres téléphones au groupe",
        "back": f"Retour au groupe\u00a0: {LONG}",
        "deals": "Aïcha donne",
    },
}


def check(page, problems: dict, name: str, tag: str) -> None:
    """axe finds nothing serious, nothing scrolls sideways; a full-page screenshot to look at."""
    found = serious(page)
    if found:
        problems[name] = found
    if not no_horizontal_scroll(page):
        problems.setdefault(name, []).append("scrolls sideways")
    shot(page, f"group-{name}-{tag}")


def seated(page) -> list[str]:
    return page.locator("ol.seated li .name").evaluate_all("items => items.map(i => i.firstChild.textContent.trim())")


@pytest.mark.parametrize("size", PHONES)
@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_save_a_finished_match_into_a_group_then_start_the_next_with_a_newcomer(
    browser, live_server, size, language, scheme
):
    words, tag, problems = WORDS[language], f"{size}-{language}-{scheme}", {}
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    sitting.record_hand(1, 2)
    sitting.end_match()
    page = open_phone(
        browser, size, color_scheme=scheme, locale=language, extra_http_headers={"Accept-Language": language}
    )
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
    page.context.close()


def test_the_new_match_form_works_without_javascript(browser, live_server):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, java_script_enabled=False)
    page.goto(live_server.url + f"/g/{group.token}/new/agram/")
    assert seated(page) == []
    page.get_by_role("button", name="Chaibou").click()
    page.get_by_role("button", name="Aïcha").click()
    page.get_by_role("textbox", name="Someone new (joins the group)").fill("Zeinab")
    page.keyboard.press("Enter")  # Enter in the newcomer field adds them
    page.locator("ol.seated li").nth(2).wait_for()
    assert seated(page) == ["Chaibou", "Aïcha", "Zeinab"]
    page.get_by_role("button", name="Move Aïcha up").click()
    page.locator("ol.seated").wait_for()
    assert seated(page) == ["Aïcha", "Chaibou", "Zeinab"]
    shot(page, "group-new-match-no-js-360x640")
    page.get_by_role("button", name="Start the match", exact=True).last.click()
    page.wait_for_url("**/s/*/")
    sitting = Sitting.objects.get()
    assert [s.name for s in sitting.table().seats] == ["Aïcha", "Chaibou", "Zeinab"]
    assert sitting.group_id == group.pk
    page.context.close()
