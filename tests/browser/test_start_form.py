"""The start form on a phone (Debian's chromium at 360x640): only the chosen match end's number shows
(a style rule: with JavaScript or without), a game with one match end says it as a sentence with its
number, and every game's form, its rows added and a number refused, is axe-clean. What the form says
and posts: tests/web/test_start_form.py and tests/web/test_without_javascript.py."""

import pytest
from playwright.sync_api import expect

from matches.domain.rules import GAMES
from matches.models import Sitting

from tests.browsers import open_phone, serious, serious_light_and_dark, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_only_the_chosen_match_ends_number_shows_with_or_without_javascript(browser, live_server):
    for script in (False, True):
        page = open_phone(browser, java_script_enabled=script)
        page.goto(live_server.url + "/start/letzter-stich/")
        page.get_by_text("Letzter Stich: 3 to 6 players").wait_for()
        for row, name in enumerate(["Aïcha", "Boubacar", "Chaibou"], start=1):
            page.fill(f"#id_player_{row}", name)
        assert page.locator("#id_end_target_points").is_visible()
        assert not page.locator("#id_end_target_hands").is_visible()
        page.get_by_label("After N hands", exact=True).check()
        assert page.locator("#id_end_target_hands").is_visible()
        assert not page.locator("#id_end_target_points").is_visible()
        assert page.input_value("#id_end_target_hands") == "12"
        shot(page, f"start-letzter-stich-hands-{'js' if script else 'no-js'}-360x640")
        if script:  # (the same form posted without JavaScript: tests/web/test_without_javascript.py)
            page.get_by_role("button", name="Start the match", exact=True).last.click()
            page.get_by_text("The match ends after 12 hands.").wait_for()
            sitting = Sitting.objects.get()
            assert [seat.name for seat in sitting.table().seats] == ["Aïcha", "Boubacar", "Chaibou"]
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


def test_the_start_form_with_its_new_parts_has_no_serious_accessibility_violation(browser, live_server):
    """Two rows added (the table full: its reason said), a number refused: in English and in French."""
    for language in ("en", "fr"):
        page = open_phone(browser, language=language)
        page.goto(live_server.url + "/start/letzter-stich/")
        for rows in (5, 6):
            page.locator('button[name="action"][value="add"]').click()
            expect(page.locator('input[name^="player_"]')).to_have_count(rows)
        page.locator('input[name="end_kind"][value="hands"]').check()
        page.fill("#id_end_target_hands", "0.5")
        page.locator("button.submit").click()
        page.locator("#id_end_target_hands-error").wait_for()
        assert page.locator('input[name^="player_"]').count() == 6
        assert page.locator("#table-full").is_visible()
        assert serious(page) == [], language
        shot(page, f"start-letzter-stich-refused-{language}-360x640")
        page.context.close()


def test_every_games_start_form_has_no_serious_accessibility_violation(browser, live_server):
    """Each game's form loaded once, checked in light and (its colours) in dark."""
    page = open_phone(browser)
    problems = {}
    for slug in GAMES:
        page.goto(live_server.url + f"/start/{slug}/")
        if found := serious_light_and_dark(page):
            problems[slug] = found
    assert problems == {}


IN_VIEW = """() => {
  const box = document.activeElement.getBoundingClientRect();
  return [document.activeElement.id, box.top >= 0 && box.bottom <= window.innerHeight];
}"""


@pytest.mark.parametrize("script", [True, False], ids=["js", "no-js"])
def test_a_refused_start_form_shows_its_first_error_on_screen(browser, live_server, script):
    """Start tapped at the foot of the form: with JavaScript the form is swapped in place, without it the
    page comes back from its top; either way the phone shows the first error, and the field it is about
    has the focus."""
    page = open_phone(browser, java_script_enabled=script)
    page.goto(live_server.url + "/start/letzter-stich/")
    for row, name in enumerate(["Aïcha", "aicha", "Chaibou"], start=1):  # row 2: Aïcha again
        page.fill(f"#id_player_{row}", name)
    page.get_by_label("After N hands", exact=True).check()
    page.fill("#id_end_target_hands", "many")
    page.get_by_role("button", name="Start the match", exact=True).last.click()
    page.locator(".field-error").first.wait_for()
    page.wait_for_function("() => document.activeElement && document.activeElement.id")
    assert page.evaluate(IN_VIEW) == ["id_player_2", True]
    shot(page, f"start-refused-first-error-{'js' if script else 'no-js'}-360x640")
    page.fill("#id_player_2", "Boubacar")  # the names fixed: the number is the first error now
    page.get_by_role("button", name="Start the match", exact=True).last.click()
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'id_end_target_hands'")
    assert page.evaluate(IN_VIEW) == ["id_end_target_hands", True]
    page.context.close()
