"""A group's screens on a phone, in Debian's chromium: at 360x640 and 412x915, in English and French,
light and dark, every screen (a 40-character group name in the top bar, a match to save into a group,
the games, a table seated or full, a player, the erase question, the watch twin, making a group, home)
is axe-clean and never scrolls sideways; the seating hint follows the names tapped (htmx swaps the form).
The flow that leads to these screens: test_groups.py; what they say: tests/web/test_group_screens.py.
Screenshots land in tests/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Sitting

from tests.browsers import PHONES, no_horizontal_scroll, open_phone, serious, serious_light_and_dark, shot, until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters


def test_the_seating_hint_changes_with_each_name_tapped(browser, live_server):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, "360x640", language="en")
    page.goto(live_server.url + f"/g/{group.token}/new/agram/")
    hint = page.locator("#seating-hint")
    expect(hint).to_be_visible()
    nobody = hint.text_content()
    page.locator(".pick button", has_text="Chaibou").click()  # htmx swaps the form
    expect(page.locator("ol.seated li")).to_have_count(1)
    some = hint.text_content()
    assert some != nobody
    page.locator(".pick button", has_text="Aïcha").click()
    expect(page.locator("ol.seated li")).to_have_count(2)
    assert hint.text_content() == some  # still names to tap: the same offer
    page.locator(".pick button", has_text="Boubacar").click()
    expect(page.locator("ol.seated li")).to_have_count(3)
    expect(page.locator(".pick button")).to_have_count(0)
    assert hint.text_content() not in (nobody, some)
    expect(hint).to_be_visible()
    assert serious_light_and_dark(page) == [] and no_horizontal_scroll(page)
    shot(page, "group-seating-hint-everyone-360x640-en")


def test_the_seating_keeps_the_keyboards_place_and_taps_during_a_redraw_are_not_lost_silently(browser, live_server):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser, "360x640", language="en")
    page.goto(live_server.url + f"/g/{group.token}/new/agram/")
    for name in ("Aïcha", "Boubacar", "Chaibou"):
        page.locator(".pick button", has_text=name).focus()
        page.keyboard.press("Enter")
        expect(page.locator("ol.seated li").last).to_contain_text(name)
        expect(page.locator(f'button[value="unseat-{page.locator("ol.seated li").count()}"]')).to_be_focused()
    page.locator('button[value="up-3"]').focus()
    page.keyboard.press("Enter")  # Chaibou up one: the keyboard is on Chaibou's up again
    expect(page.locator('button[value="up-2"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("ol.seated li").first).to_contain_text("Chaibou")
    expect(page.locator("#seated-1")).to_be_focused()  # the top: Enter again moves nobody back down
    page.keyboard.press("Enter")
    expect(page.locator("ol.seated li").first).to_contain_text("Chaibou")
    held = []  # the next answer, held as on a slow network: the form's buttons say it is busy meanwhile
    page.route("**/new/agram/", lambda route: held.append(route))
    page.locator('button[value="unseat-3"]').click()
    expect(page.locator('#new-match button[value="unseat-1"]')).to_be_disabled()
    expect(page.locator('#new-match button[value="unseat-3"]')).to_have_class(re.compile(r"\bpending\b"))
    until(page, lambda: held)
    held[0].continue_()
    expect(page.locator("ol.seated li")).to_have_count(2)


def screens() -> dict[str, str]:
    """A group as the flow of test_groups.py leaves it (named in 40 characters, two matches, a newcomer),
    a finished match to save into a group, and a group whose whole table is seated: their screens."""
    group = Group.create(LONG, ["Aïcha", "Boubacar", "Chaibou", "Zeinab"])
    ids = {player.name: player.pk for player in group.members()}
    first = group.start_match("agram", [ids["Aïcha"], ids["Boubacar"], ids["Chaibou"]])
    first.record_hand(1, 2)
    first.end_match()
    group.start_match("agram", [ids["Aïcha"], ids["Zeinab"], ids["Chaibou"]]).end_match()
    free = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    free.record_hand(1, 2)
    free.end_match()
    full = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    full.start_match("agram", [player.pk for player in full.members()], MatchEnd(MatchEndKind.HANDS, 3))
    g = f"/g/{group.token}"
    return {
        "page": g + "/",  # first: this phone then lists the group at home
        "save": f"/s/{free.token}/group/",
        "games": g + "/new/",
        "new-match": g + "/new/agram/",
        "everyone-seated": f"/g/{full.token}/new/agram/",
        "player": f"{g}/players/{ids['Zeinab']}/",
        "erase": f"{g}/players/{ids['Zeinab']}/erase/",
        "watch": f"/gw/{group.watch_token}/",
        "create": "/groups/new/",
        "home": "/",
    }


@pytest.mark.parametrize("language, sizes", [("en", ["412x915"]), ("fr", ["360x640", "412x915"])], ids=["en", "fr"])
def test_every_group_screen_fits_and_is_accessible_at_each_size_and_language(browser, live_server, language, sizes):
    """Each screen is loaded once per language and checked at each phone size (resized, not loaded again):
    nothing scrolls sideways; at 360x640, axe. English at 360x640, light and dark, is the flow's own
    (test_groups.py); the dark theme changes colours only, which no language changes (checked in English),
    and axe's rules read the same page whatever its width."""
    page = open_phone(browser, sizes[0], language=language)
    problems = {}
    for name, path in screens().items():
        page.goto(live_server.url + path)
        if name == "page":  # its links open, as on a group just made
            page.locator("details.share > summary").click()
        for size in sizes:
            page.set_viewport_size(PHONES[size])
            found = serious(page) if size == "360x640" else []
            if not no_horizontal_scroll(page):
                found.append("scrolls sideways")
            if found:
                problems[f"{name} at {size}"] = found
            if size == "360x640" or name == "new-match":
                shot(page, f"group-{name}-{size}-{language}")
        page.set_viewport_size(PHONES[sizes[0]])
    assert problems == {}
