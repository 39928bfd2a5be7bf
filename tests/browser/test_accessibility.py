"""Accessibility in Debian's chromium at 360x640: axe-core on every screen in English and French, on the
tables in German and Vietnamese too, light and dark, with Arabic and Hebrew names beside Latin ones; text
zoomed to 200 %, long names, visible focus, reduced motion."""

import pytest

from matches.models import Group, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.browsers import no_horizontal_scroll, open_phone, serious, serious_light_and_dark, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters
assert len(LONG) == 40
AISHA, DAVID = "عائشة", "דוד"  # Arabic and Hebrew letters: right to left, in a left-to-right page
PLAYERS = ["Aïcha", AISHA, DAVID, LONG]


def sittings():
    """One sitting per kind of tap control (plain taps, one question, a question that asks more,
    checkboxes), plus a finished one; Arabic and Hebrew names beside Latin ones."""
    made = {}
    for slug, end in [
        ("agram", None),
        ("fapfap", None),
        ("cat-te", MatchEnd(MatchEndKind.HANDS, 5)),
        ("eighty-three", None),
    ]:
        made[slug] = Sitting.start(
            slug,
            PLAYERS,
            end,
            stake_amount=100 if slug == "fapfap" else None,
            stake_label="FCFA" if slug == "fapfap" else "",
        )
    finished = Sitting.start("agram", ["Aïcha", AISHA, LONG])
    finished.record_hand(1, 1)
    finished.end_match()
    made["finished"] = finished
    return made


def played_group() -> tuple[Group, dict[str, Sitting], int]:
    """A group named in Arabic that finished a Fapfap match for a stake (settling up, the charts, the
    figures) and a Cat Tê match (chips), and has an Agram match in play with a hand to undo; and the id
    of its Arabic-named player."""
    group = Group.create("نادي الخميس", ["Aïcha", AISHA, DAVID, "Boubacar", LONG])
    ids = {player.name: player.pk for player in group.members()}
    seats = [ids[name] for name in (AISHA, DAVID, "Boubacar", LONG)]
    fapfap = group.start_match("fapfap", seats, MatchEnd(MatchEndKind.HANDS, 2), stake_amount=100, stake_label="CFA")
    fapfap.record_hand(1, 0, {"multiplier": "2"})
    fapfap.record_hand(2, 1, {"multiplier": "1"})
    chips = group.start_match("cat-te", seats[:3], MatchEnd(MatchEndKind.HANDS, 1))
    chips.record_hand(1, 2, {"how": "last"})
    playing = group.start_match("agram", seats)
    playing.record_hand(1, 1)
    return group, {"fapfap": fapfap, "agram": playing}, ids[AISHA]


# The panels whose controls count too, opened in this order (an answer that asks more opens inside its
# player's answers); at most the first of each.
PANELS = [
    "details.ask > summary",
    "details.more > summary",
    "details.undo > summary",
    "details.share > summary",
    "details.help > summary",
    "details.explain > summary",
    ".rates details > summary",
]


# Every control on a screen a thumb can tap: at least 44 px each way (a checkbox or a radio button
# by its label, which takes the tap), apart from the skip link, which is there for keyboards.
SMALL_TARGETS = """() => [...document.querySelectorAll('a[href], button, summary, select, input:not([type=hidden]), textarea')]
  .map(e => [e, (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') || e])
  .filter(([e, t]) => { const r = t.getBoundingClientRect(); return r.width > 0 && r.height > 0
     && getComputedStyle(e).visibility !== 'hidden' && !e.closest('.visually-hidden, .skip')
     && (r.height < 44 || r.width < 44); })
  .map(([e, t]) => { const r = t.getBoundingClientRect(); return `${e.tagName.toLowerCase()}.${e.className} `
     + `"${(e.textContent || e.value || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`; })"""


def open_panels(page) -> None:
    """A tap on the first shown summary of each kind, in order (one script: no wait between them)."""
    page.evaluate(
        """selectors => selectors.forEach(selector => {
            const summary = document.querySelector(selector);
            if (summary && summary.checkVisibility()) summary.click();
        })""",
        PANELS,
    )


def screens(part: str) -> tuple[list[str], dict[str, str]]:
    """The screens of a part of the app, with the data they show; and the screens to take a picture of."""
    group, played, aisha = played_group()
    g = f"/g/{group.token}"
    if part == "groups-and-forms":
        return [
            g + "/",  # first: this phone then lists the group at home
            g + "/new/",
            g + "/new/fapfap/",
            g + "/stats/",
            f"{g}/players/{aisha}/",
            f"/gw/{group.watch_token}/",
            f"/gw/{group.watch_token}/stats/",
            "/groups/new/",
            "/groups/import/",
            "/",
            "/start/",
            "/start/agram/",
            "/start/fapfap/",
            "/start/cat-te/",
            "/nowhere/",
        ], {}
    made = sittings()
    return [
        f"/s/{made['agram'].token}/group/",  # save into a group
        *(made[slug].get_absolute_url() for slug in ("agram", "fapfap", "cat-te", "eighty-three", "finished")),
        played["agram"].get_absolute_url(),  # a hand to undo
        played["fapfap"].get_absolute_url(),  # settling up in money, the chart, the shared result
        f"/w/{played['agram'].watch_token}/",
        f"/s/{played['fapfap'].token}/hands/",
        f"/s/{played['fapfap'].token}/hands/1/",
        f"/s/{made['agram'].token}/end/",
    ], {made["cat-te"].get_absolute_url(): "answers", played["fapfap"].get_absolute_url(): "standings"}


@pytest.mark.parametrize(
    "language, part",
    [("en", "groups-and-forms"), ("en", "matches"), ("fr", "groups-and-forms"), ("fr", "matches"),
     ("de", "matches"), ("vi", "matches")],
)
def test_axe_finds_no_serious_violation_on_any_screen(browser, live_server, language, part):
    """Each screen is loaded once, its panels opened, then checked in light; in English also in dark, for
    the colour rules (the same page, its colour scheme switched). The dark theme changes colours only
    (app.css), which no language changes: the other languages' screens are the same in dark as in
    English, and each language's own words and layout are checked in light, contrast included. French,
    the most read, on every screen; German and Vietnamese on the tables that read them (a group's screens
    and forms are the same templates, their words' fit checked by test_languages.py)."""
    paths, pictured = screens(part)
    page = open_phone(browser, language=language, service_workers="block")  # no worker: same pages, less work
    problems = {}
    for path in paths:
        response = page.goto(live_server.url + path)
        assert response.status == (404 if path == "/nowhere/" else 200), path
        open_panels(page)
        if path == "/":
            page.locator(".language summary").click()  # the language menu: each language named in its own
        if small := page.evaluate(SMALL_TARGETS):
            problems[f"{path}: too small to tap"] = small
        found = serious_light_and_dark(page, style_sheets=True) if language == "en" else serious(page)
        if found:
            problems[path] = found
        if path in pictured:
            page.emulate_media(color_scheme="dark")
            shot(page, f"axe-{language}-dark-{pictured[path]}")
            page.emulate_media(color_scheme="light")
    assert problems == {}


def test_text_zoomed_to_200_percent_still_fits_at_360px(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    for path in [
        "/",
        "/start/agram/",
        made["fapfap"].get_absolute_url(),
        made["eighty-three"].get_absolute_url(),
        made["finished"].get_absolute_url(),
    ]:
        page.goto(live_server.url + path)
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        for summary in page.locator("details.ask summary").all()[:1]:
            summary.click()
        assert no_horizontal_scroll(page), path
    shot(page, "zoom-200-360x640")  # the last screen: a finished match


def test_forty_character_names_keep_scores_on_their_row(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["agram"].get_absolute_url())
    row = page.locator("table.tally tbody tr", has_text=LONG)
    name_box = row.locator("th").bounding_box()
    for cell in row.locator("td").all():
        box = cell.bounding_box()
        assert box["y"] < name_box["y"] + name_box["height"] and box["x"] + box["width"] <= 360
    assert no_horizontal_scroll(page)


def test_focus_is_visible_when_moving_by_keyboard(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["agram"].get_absolute_url())
    for _ in range(4):
        page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    width = page.evaluate("parseFloat(getComputedStyle(document.activeElement).outlineWidth)")
    assert outline != "none" and width >= 2


def test_nothing_moves_for_reduced_motion(browser, live_server):
    made = sittings()
    page = open_phone(browser, reduced_motion="reduce")
    page.goto(live_server.url + made["agram"].get_absolute_url())
    page.get_by_role("button", name="Aïcha").click()
    page.get_by_text("Hand 1 recorded").wait_for()
    assert page.evaluate("document.getAnimations().length") == 0


def test_every_control_has_an_accessible_name(browser, live_server):
    made = sittings()
    page = open_phone(browser)
    page.goto(live_server.url + made["cat-te"].get_absolute_url())
    page.locator("details.share > summary").click()
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, a, input, select, summary')]
        .filter(e => e.offsetParent !== null && !e.closest('[aria-hidden=true]'))
        .filter(e => !(e.textContent.trim() || e.value || e.getAttribute('aria-label')
                       || (e.labels && e.labels.length)))
        .map(e => e.outerHTML.slice(0, 80))""")
    assert unnamed == []
