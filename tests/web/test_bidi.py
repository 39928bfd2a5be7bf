"""Names in any script stay next to their own numbers, on the screens the browser test does not visit:
a correction, a group's player and erase pages, saving a match into a group, the refusals that name a
player, the pages' titles; the shared result isolates only the names that need it. The files keep
names as typed: the CSV and the group's archive carry no <bdi>, FSI or PDI. (What chromium draws:
tests/browser/test_bidi.py.)"""

import json
import re
from html import unescape
from pathlib import Path

import pytest

from matches.services.archive import dumps, export_group
from matches.web.presenters.table_state import TableState
from matches.models import Group, Sitting
from matches.domain.names import FSI, PDI, isolate, without_isolates

from tests.pages import HX, url

pytestmark = pytest.mark.django_db
AISHA, SARAH = "عائشة", "שרה"
TEXT = re.compile(r'<textarea id="result-text"[^>]*>(.*?)</textarea>', re.DOTALL)


def isolated(page: str, name: str) -> bool:
    """Every time `name` shows in the page's text (outside tags and attributes), it is the whole text of
    a <bdi> or of a .name element (unicode-bidi: isolate in app.css), or between FSI and PDI."""
    page = re.sub(r'<span class="name">([^<]*)</span>', r"<bdi>\1</bdi>", page)
    text = re.sub(r"<(?!/?bdi>)[^>]*>", "", page)  # tags gone but <bdi>; attribute values with them
    shown = text.count(name)
    kept = text.count(f"<bdi>{name}</bdi>") + text.count(isolate(name))
    return shown > 0 and shown == kept


def test_a_correction_names_the_recorded_winner_and_each_seat_isolated(client):
    sitting = Sitting.start("agram", [AISHA, SARAH, "Bako"])
    sitting.record_hand(1, 0)
    page = client.get(f"/s/{sitting.token}/hands/1/").content.decode()
    assert "Recorded: <strong><bdi>عائشة</bdi></strong>" in page
    assert f"<bdi>{SARAH}</bdi> won hand 1" in page
    assert f"<title>{isolate('Correct hand 1')}" not in page  # a title without a name stays as it was


def test_a_groups_pages_put_each_name_in_bdi(client):
    group = Group.create("نادي 3", [AISHA, SARAH])
    aisha = group.members().get(name=AISHA)
    page = client.get(f"/g/{group.token}/players/{aisha.pk}/").content.decode()
    assert f"<title>{FSI}{AISHA}{PDI} · Last Trick</title>" in page and f"<h1><bdi>{AISHA}</bdi></h1>" in page
    assert f"Take <bdi>{AISHA}</bdi> off the group" in page and isolated(page, "نادي 3")
    erase = client.get(f"/g/{group.token}/players/{aisha.pk}/erase/").content.decode()
    assert isolated(erase, AISHA)
    games = client.get(f"/g/{group.token}/new/agram/").content.decode()
    assert isolated(games, AISHA) and isolated(games, SARAH)


def test_the_refusals_that_name_a_player_isolate_the_name(client):
    group = Group.create("V", [AISHA])
    refused = client.post(f"/g/{group.token}/players/", {"name": AISHA}, **HX).content.decode()
    assert f"<bdi>{AISHA}</bdi> is in this group already." in refused
    start = {"action": "start", "end_kind": "open", "player_1": SARAH, "player_2": SARAH}
    page = client.post("/start/agram/", start).content.decode()
    assert f"<bdi>{SARAH}</bdi> is already at the table (player 1)." in page
    sitting = Sitting.start("agram", [AISHA, SARAH])
    sitting.record_hand(1, 1)
    taken = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 1}, **HX).content.decode()
    assert f"Hand 1 is already recorded: <bdi>{SARAH}</bdi>." in taken


def test_a_notice_after_a_plain_tap_keeps_its_names_isolated_through_the_cookie(client):
    sitting = Sitting.start("agram", [AISHA, SARAH])
    page = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 2}, follow=True).content.decode()
    assert f"Hand 1 recorded: <bdi>{SARAH}</bdi>." in page and "&lt;bdi&gt;" not in page


def test_saving_into_a_group_lists_names_and_scores_isolated(client):
    Group.create("نادي", [AISHA])
    client.get(f"/g/{Group.objects.get().token}/")
    sitting = Sitting.start("agram", [AISHA, SARAH])
    sitting.record_hand(1, 0)
    sitting.end_match()
    page = client.get(f"/s/{sitting.token}/group/").content.decode()
    assert f"<bdi>{AISHA}</bdi> 1 · <bdi>{SARAH}</bdi> 0" in page
    assert "Save into <bdi>نادي</bdi>" in page


def test_the_files_keep_names_as_typed(client):
    group = Group.create("نادي", [AISHA, SARAH, "Bako"])
    players = {p.name: p.pk for p in group.members()}
    sitting = group.start_match("eighty-three", [players[AISHA], players[SARAH], players["Bako"]])
    sitting.record_hand(1, 0, {"bonus": [1]})  # the hand's "how" names a player
    how = TableState.of(sitting.table()).describe(sitting.hands.get())
    assert FSI in how and PDI in how  # on the screens, isolated
    csv = b"".join(client.get(f"/s/{sitting.token}/hands.csv").streaming_content).decode("utf-8-sig")
    group_csv = b"".join(client.get(f"/g/{group.token}/hands.csv").streaming_content).decode("utf-8-sig")
    archive = dumps(export_group(group))
    for text in (csv, group_csv, archive):
        assert FSI not in text and PDI not in text and "bdi" not in text
        assert SARAH in text and AISHA in text
    assert without_isolates(how) in csv and without_isolates(how) in group_csv
    assert json.loads(archive)["players"][0]["name"] == AISHA


BUTTON = re.compile(
    r'<(button|summary)\b[^>]*>(.*?)</\1>|<a\b[^>]*class="[^"]*\bbutton\b[^"]*"[^>]*>(.*?)</a>', re.S
)


def test_a_name_inside_a_button_keeps_the_space_before_it():
    """Buttons lay their content out as flex items, where a <bdi> directly inside becomes an item of
    its own and the space before it is dropped ("Back to the group:Friday"): a button that holds an
    isolated name holds it inside one <span>."""
    offenders = []
    for template in sorted((Path(__file__).resolve().parents[2] / "templates").rglob("*.html")):
        for match in BUTTON.finditer(template.read_text()):
            content = (match.group(2) or match.group(3) or "").strip()
            if "bdi" in content and not content.startswith("<span"):
                offenders.append(f"{template.name}: {content[:70]}")
    assert offenders == []


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_shared_result_isolates_only_the_right_to_left_names(client, language):
    """FSI and PDI may show as boxes in other apps: only a name with right-to-left letters needs them."""
    arabic, hebrew = "عائشة", "שרה"
    sitting = Sitting.start("fapfap", ["Ali", arabic, "Bintou", hebrew], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 1, {"multiplier": "2"})
    sitting.record_hand(2, 0, {"multiplier": "1"})
    sitting.end_match(3)
    page = client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    text = unescape(TEXT.search(page)[1])
    for name in ("Ali", "Bintou"):
        assert name in text and f"{FSI}{name}" not in text
    for name in (arabic, hebrew):
        assert text.count(name) == text.count(f"{FSI}{name}{PDI}") >= 2  # standings and payments
    assert FSI not in text.replace(f"{FSI}{arabic}{PDI}", "").replace(f"{FSI}{hebrew}{PDI}", "")
    assert PDI not in text.replace(f"{FSI}{arabic}{PDI}", "").replace(f"{FSI}{hebrew}{PDI}", "")
    assert "<bdi>Ali</bdi>" in page  # on the screen every name keeps its <bdi>


def test_a_title_isolates_only_a_name_that_needs_it(client):
    """A left-to-right name reads the same with or without FSI and PDI: a page's title carries them only
    for a right-to-left name (a phone's tab and history show the marks of some browsers as boxes)."""
    group = Group.create("Jeudi", ["Boubacar", AISHA])
    boubacar, aisha = group.members().get(name="Boubacar"), group.members().get(name=AISHA)
    for page, title in [
        (f"/g/{group.token}/", "Jeudi"),
        (f"/g/{group.token}/matches/", "Jeudi"),
        (f"/g/{group.token}/players/{boubacar.pk}/", "Boubacar"),
        (f"/g/{group.token}/players/{aisha.pk}/", isolate(AISHA)),
    ]:
        assert f"<title>{title} · Last Trick</title>" in client.get(page).content.decode(), page


def test_the_words_of_a_hand_and_of_who_ran_out_isolate_only_right_to_left_names(client):
    """Names inside a sentence built as text (a hand's answers, who ran out of chips) keep FSI and PDI
    only when they hold right-to-left letters, as the chart and the shared result do."""
    sitting = Sitting.start("cat-te", [AISHA, "Bako", "Chloé"], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "sweep", "aces": [2, 3]})  # Bako and Chloé held back an Ace, ran out
    state = TableState.of(sitting.table())
    how = state.describe(sitting.hands.get())
    assert "Bako and Chloé" in how and FSI not in how
    assert state.ran_out == "Bako and Chloé"
    sitting = Sitting.start("cat-te", ["Bako", AISHA, SARAH], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "sweep", "aces": [2, 3]})
    state = TableState.of(sitting.table())
    assert state.ran_out == f"{isolate(SARAH)} and {isolate(AISHA)}"  # (by name: Hebrew before Arabic)
