"""The tap flow in Debian's chromium at phone sizes, driven by Playwright. Screenshots land in tests/screenshots/."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from matches.models import Sitting

from tests.browsers import PHONES, hand_played, no_horizontal_scroll, open_phone, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("size", PHONES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_start_tap_undo_end_rematch(browser, live_server, size, scheme):
    page = open_phone(browser, size, color_scheme=scheme)
    tag = f"{size}-{scheme}"
    page.goto(live_server.url + "/start/")
    shot(page, f"games-{tag}")
    page.get_by_role("link", name="Agram (Niger)").click()
    assert no_horizontal_scroll(page)
    page.get_by_role("textbox", name="Player 1").fill("Aïcha")
    page.get_by_role("textbox", name="Player 2").fill("Boubacar")
    page.get_by_role("textbox", name="Player 3").fill("Chaibou")
    page.get_by_role("textbox", name="Player 4").fill("Djibo")
    page.get_by_role("button", name="Add a player").click()
    page.get_by_role("textbox", name="Player 5").fill("Ousmane Abdoulaye Maïnassara Ibrahim Ba")  # a long name
    shot(page, f"start-{tag}")
    page.get_by_role("button", name="Start the match", exact=True).last.click()
    page.wait_for_url("**/s/*/")
    page.get_by_text("Aïcha deals, Boubacar leads.").wait_for()

    buttons = page.locator("button.tap")
    assert buttons.count() == 5
    for index in range(5):
        box = buttons.nth(index).bounding_box()
        assert box["height"] >= 48 and box["width"] >= 300
    assert no_horizontal_scroll(page)

    page.get_by_role("button", name="Chaibou").click()
    page.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    page.get_by_text("Chaibou deals, Djibo leads.").wait_for()
    hand_played(page)
    page.get_by_role("button", name="Djibo").click()
    page.get_by_text("Hand 2 recorded: Djibo.").wait_for()
    hand_played(page)
    page.get_by_role("button", name="Ousmane Abdoulaye Maïnassara Ibrahim Ba").click()
    page.get_by_text("Hand 3 recorded").wait_for()
    assert no_horizontal_scroll(page)
    shot(page, f"table-{tag}")

    page.get_by_text("Undo hand 3", exact=True).click()  # opens the question: nothing undone yet
    page.get_by_role("button", name="Yes, undo hand 3").click()
    page.get_by_text("Hand 3 undone").wait_for()
    assert page.locator('input[name="number"]').first.get_attribute("value") == "3"

    page.get_by_role("link", name="End match").click()
    shot(page, f"end-confirm-{tag}")
    page.get_by_role("button", name="Yes, end the match").click()
    page.locator(".result", has_text="Shared first place").wait_for()
    shot(page, f"finished-{tag}")
    assert page.locator("button.tap").count() == 0

    page.get_by_role("button", name="Rematch: same players, new match").click()
    page.get_by_text("Djibo deals first: the deal carries on from the last match.").wait_for()  # he dealt hand 3
    page.get_by_text("Djibo deals, Ousmane Abdoulaye Maïnassara Ibrahim Ba leads.").wait_for()
    page.goto(live_server.url + "/")
    shot(page, f"home-{tag}")
    assert page.locator(".sittings li").count() == 2
    page.context.close()


def test_a_stale_phone_sees_the_recorded_winner_not_a_second_row(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    first, second = open_phone(browser), open_phone(browser)
    second.route("**/events/**", lambda route: route.abort())  # the push has not reached it yet
    for page in (first, second):
        page.goto(live_server.url + sitting.get_absolute_url())
    first.get_by_role("button", name="Chaibou").click()
    first.get_by_text("Hand 1 recorded: Chaibou.").wait_for()
    second.get_by_role("button", name="Aïcha").click()  # this phone still shows hand 1 open
    second.get_by_text("Hand 1 is already recorded: Chaibou.").wait_for()
    assert second.locator('input[name="number"]').first.get_attribute("value") == "2"
    shot(second, "stale-tap-360x640")
    assert sitting.hands.count() == 1
    first.context.close()
    second.context.close()


def test_back_after_a_tap_shows_the_full_page(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    page = open_phone(browser)
    page.goto(live_server.url + "/")
    page.goto(live_server.url + sitting.get_absolute_url())
    page.get_by_role("button", name="Boubacar").click()
    page.get_by_text("Hand 1 recorded").wait_for()
    page.go_back()
    page.go_forward()
    page.get_by_role("link", name="Last Trick").wait_for()  # the header: a whole page, not a fragment
    assert page.locator("html head title").count() == 1
    assert "Boubacar" in page.locator("table.tally").inner_text()
    page.context.close()


def test_the_tap_flow_works_without_javascript(browser, live_server):
    page = open_phone(browser, java_script_enabled=False)
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Try a demo match").click()
    page.get_by_text("Chaibou deals, Djibo leads.").wait_for()
    page.get_by_role("button", name="Djibo").click()
    page.get_by_text("Djibo deals, Aïcha leads.").wait_for()
    page.get_by_text("Undo hand 2", exact=True).click()
    page.get_by_role("button", name="Yes, undo hand 2").click()
    page.get_by_text("Chaibou deals, Djibo leads.").wait_for()
    page.goto(live_server.url + "/start/sink-sink/")
    page.get_by_role("button", name="Add a player").click()  # without JavaScript: the form posts back
    expect(page.locator('input[name^="player_"]')).to_have_count(5)
    page.get_by_role("button", name="Remove Player 5").click()
    expect(page.locator('input[name^="player_"]')).to_have_count(4)
    shot(page, "no-js-start-360x640")
    page.context.close()


@pytest.mark.parametrize("size", PHONES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fapfap_and_eighty_three_answers_then_correct_a_past_hand(browser, live_server, scheme, size):
    page = open_phone(browser, size, color_scheme=scheme)
    fapfap = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"], stake_amount=100, stake_label="FCFA")
    page.goto(live_server.url + fapfap.get_absolute_url())
    page.locator("summary", has_text="Chaibou").click()
    shot(page, f"fapfap-answers-{size}-{scheme}")
    page.get_by_role("button", name="With a 3, last trick only: 2 stakes").click()
    page.get_by_text(
        "Hand 1 recorded: Chaibou (with a 3, last trick only: 200 FCFA from each other player)."
    ).wait_for()
    assert "400" in page.locator("table.tally").inner_text()  # net: the two others pay 2 stakes of 100 each
    hand_played(page)
    page.locator("summary", has_text="Aïcha").click()
    page.get_by_role("button", name="With a 4 or higher: 1 stake").click()
    page.get_by_text("Hand 2 recorded: Aïcha (with a 4 or higher: 100 FCFA from each other player).").wait_for()

    page.get_by_role("link", name="All hands").click()
    page.get_by_role("link", name="Correct hand 1").click()
    page.locator("summary", has_text="Boubacar").click()
    shot(page, f"correct-{size}-{scheme}")
    page.locator("details[open]", has_text="Boubacar").get_by_role(
        "button", name="With 3s, the last two tricks: 4 stakes"
    ).click()
    page.get_by_text(
        "Hand 1 corrected: Boubacar (with 3s, the last two tricks: 400 FCFA from each other player)."
    ).wait_for()
    assert [s.total for s in fapfap.table().seats] == [1, 4, 0]

    eighty_three = Sitting.start("eighty-three", ["Aïcha", "Boubacar", "Chaibou"])
    page.goto(live_server.url + eighty_three.get_absolute_url())
    page.locator("summary", has_text="Boubacar").click()
    answers = page.locator("details[open]")
    answers.get_by_label("Won the 5th trick with an Ace").check()
    answers.get_by_label("Chaibou").check()
    shot(page, f"eighty-three-answers-{size}-{scheme}")
    answers.get_by_role("button", name="Record: Boubacar wins").click()
    page.get_by_text("Hand 1 recorded: Boubacar (").wait_for()
    assert [s.total for s in eighty_three.table().seats] == [0, 3, 1]
    assert page.get_by_text("Playing to 10.").is_visible()
    assert no_horizontal_scroll(page)
    page.context.close()


def test_two_phones_see_each_others_taps_without_reloading(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    first, second = open_phone(browser), open_phone(browser, "412x915")
    first.goto(live_server.url + sitting.get_absolute_url())
    second.goto(live_server.url + f"/w/{sitting.watch_token}/")  # a spectator's screen
    first.get_by_role("button", name="Djibo").click()
    first.get_by_text("Hand 1 recorded: Djibo.").wait_for()
    second.get_by_text("Hand 2").first.wait_for(timeout=7_000)  # one poll, every 5 s
    assert "Djibo" in second.locator("table.hands").inner_text()
    shot(second, "watch-412x915")
    first.context.close()
    second.context.close()


def test_a_tap_made_offline_waits_on_the_table_and_is_recorded_once_when_back(browser, live_server):
    # Before the offline queue (static/offline.js) such a tap said "Not saved: tap to retry"; now it waits.
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    page.context.set_offline(True)
    page.get_by_role("button", name="Boubacar").click()
    expect(page.locator(".waiting li")).to_have_text("Hand 1: Boubacar, waiting to send Take back")
    button = page.get_by_role("button", name="Boubacar")
    assert "failed" not in (button.get_attribute("class") or "")
    assert not page.get_by_text("Not saved: check the connection").is_visible()
    shot(page, "offline-tap-360x640")
    assert sitting.hands.count() == 0
    page.context.set_offline(False)
    page.get_by_text("Hand 1 recorded: Boubacar.").wait_for()
    expect(page.locator(".waiting li")).to_have_count(0)
    button = page.get_by_role("button", name="Boubacar")
    hand_played(page)
    button.click()  # the next hand's button records hand 2, once
    page.get_by_text("Hand 2 recorded: Boubacar.").wait_for()
    assert list(sitting.hands.values_list("number", flat=True)) == [1, 2]
    page.context.close()


def test_on_3g_a_tap_is_one_round_trip_and_shows_at_once_that_it_is_recording(browser, live_server):
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou"])
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {  # Chrome's "3G" preset
            "offline": False,
            "latency": 2000,
            "downloadThroughput": 400 * 1024 / 8,
            "uploadThroughput": 400 * 1024 / 8,
        },
    )
    requests = []
    page.on("request", lambda request: requests.append((request.method, request.url)))
    page.locator("summary", has_text="Chaibou").click()
    page.get_by_role("button", name="With a 3, last trick only: 2 stakes").click()
    pending = page.get_by_role("button", name="With a 3, last trick only: 2 stakes")
    assert "pending" in pending.get_attribute("class") and pending.get_attribute("data-pending") == "Recording…"
    page.get_by_text("Hand 1 recorded: Chaibou (with a 3, last trick only: 2 stakes from each other player).").wait_for(
        timeout=20_000
    )
    taps = [r for r in requests if "/tap/" in r[1]]
    assert taps == [("POST", live_server.url + sitting.get_absolute_url() + "tap/")]
    # No redirect, no follow-up fetch (the browser may still fetch the page's icon, a static file, meanwhile).
    assert not [r for r in requests if r[0] == "GET" and "/poll/" not in r[1] and "/static/" not in r[1]]
    assert [s.total for s in sitting.table().seats] == [0, 0, 2]
    page.context.close()


def test_the_wake_lock_toggle_is_offered_while_a_sitting_is_open(browser, live_server):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    page = open_phone(browser)
    page.goto(live_server.url + sitting.get_absolute_url())
    toggle = page.locator("[data-wake]")
    supported = page.evaluate("'wakeLock' in navigator")
    assert toggle.is_visible() is supported
    if supported:
        assert toggle.get_attribute("aria-pressed") == "true"
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "false" and "may sleep" in toggle.inner_text()
    page.context.close()


def test_the_app_is_installable(client_free=None):
    import json

    manifest = json.loads((Path(__file__).resolve().parents[2] / "static" / "manifest.webmanifest").read_text())
    assert manifest["short_name"] == "Last Trick" and manifest["start_url"] == "/"
    assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}
    for icon in manifest["icons"]:
        assert (Path(__file__).resolve().parents[2] / "static" / icon["src"]).exists()
