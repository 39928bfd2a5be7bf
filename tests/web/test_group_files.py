"""A group's files on its pages: the CSV of every hand of every match (streamed, in the reader's
language) and the JSON archive to download, by the member link only; and the import page, which makes
a group of an archive, says why it refuses one, and counts as a new match."""

import collections
import csv
import datetime
import json
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from matches.models import Group, Hand, Player, Sitting
from matches.services.archive import dumps, export_group
from matches.web.presenters.table_state import TableState
from matches.web.views.group_export import MAX_ARCHIVE

from tests.conftest import shown
from tests.csv_files import GROUP_KEYS, PHONES, agrees_with_the_table, body_of, dict_rows, of_kind, read
from tests.groups import played_group, same_document
from tests.pages import fresh_counts, upload  # noqa: F401 - autouse
from tests.rows import rows

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


@pytest.fixture
def group(db) -> Group:
    return played_group()


def test_the_import_page_creates_the_group_and_opens_it(group):
    phone = Client()
    page = phone.get("/groups/import/")
    assert page.status_code == 200
    assert 'enctype="multipart/form-data"' in page.content.decode() and 'name="archive"' in page.content.decode()

    data = export_group(group)
    response = phone.post("/groups/import/", upload(dumps(data).encode()))
    assert response.status_code == 302
    token = re.fullmatch(r"/g/([A-Za-z0-9_-]{22})/", response["Location"])[1]
    imported = Group.objects.get(token=token)
    assert same_document(export_group(imported), data)
    assert phone.session["groups"][0] == token
    opened = shown(phone.get(response["Location"]).content.decode())
    assert "Brought in from a file on " in opened and "are what the file said." in opened  # anyone can edit a file
    assert "Brought in from a file" not in shown(phone.get(group.get_absolute_url()).content.decode())


def test_a_file_this_phone_imported_before_is_said_with_its_groups_link_before_a_second_copy(group):
    data = dumps(export_group(group)).encode()
    phone = Client()
    first = phone.post("/groups/import/", upload(data))
    assert first.status_code == 302
    before = rows()
    again = phone.post("/groups/import/", upload(data))
    page = shown(again.content.decode())
    assert again.status_code == 409 and rows() == before
    assert f'This phone already has this group here, with the same matches: <a href="{first["Location"]}">' in page
    assert 'name="second_copy" value="1"' in page and "Import a second copy" in page
    second = phone.post("/groups/import/", {**upload(data), "second_copy": "1"})
    assert second.status_code == 302 and second["Location"] != first["Location"]
    assert Group.objects.count() == before[0] + 1
    other_phone = Client()  # knows no group here: nothing to say, and no link of another's group to give
    assert other_phone.post("/groups/import/", upload(data)).status_code == 302
    assert Group.objects.count() == before[0] + 2


def test_the_import_page_checks_its_csrf_token(group):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get("/groups/import/").content.decode()
    before = rows()
    assert phone.post("/groups/import/", upload(dumps(export_group(group)).encode())).status_code == 403
    assert rows() == before
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = phone.post(
        "/groups/import/", {**upload(dumps(export_group(group)).encode()), "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302


@pytest.mark.parametrize("size", [MAX_ARCHIVE + 1, MAX_ARCHIVE + 2 * 1024 * 1024])
def test_the_import_page_refuses_a_file_too_big(group, size):
    before = rows()
    response = Client().post("/groups/import/", upload(b" " * size))
    assert response.status_code == 413
    assert f"This file is larger than {MAX_ARCHIVE // (1024 * 1024)} MB" in response.content.decode()
    assert rows() == before


def test_the_import_page_refuses_a_broken_file_saying_why(group):
    broken = export_group(group)
    broken["sittings"][0]["hands"][0]["winner"] = 4
    before = rows()
    phone = Client()
    response = phone.post("/groups/import/", upload(dumps(broken).encode()))
    assert response.status_code == 400
    assert "sittings[0].hands[0].winner should be a whole number from 0 to 3, not 4." in response.content.decode()
    assert 'name="archive"' in response.content.decode()  # the form again, to choose another file
    response = phone.post("/groups/import/", upload(b"\x00garbage"))
    assert response.status_code == 400 and "This file is not" in response.content.decode()
    response = phone.post("/groups/import/", {})
    assert response.status_code == 400 and "Choose the group" in response.content.decode()
    assert rows() == before
    assert "groups" not in phone.session


def test_the_import_page_says_its_refusals_in_french(group):
    response = Client().post("/groups/import/", upload(b"{"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 400 and "Ce fichier" in response.content.decode()


@override_settings(START_RATE_LIMIT="1/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_an_import_counts_as_a_new_match(group):
    phone = Client()
    phone.get("/groups/import/")
    phone.post("/demo/")  # the phone gets its id (a phone without one is counted by its address only)
    caches["ratelimit"].clear()
    body = dumps(export_group(group)).encode()
    assert phone.post("/groups/import/", upload(body)).status_code == 302
    groups = Group.objects.count()
    answer = phone.post("/groups/import/", upload(body))
    assert answer.status_code == 429 and "Too many new matches and groups from this phone" in answer.content.decode()
    assert Group.objects.count() == groups


# --- the files ------------------------------------------------------------------------------------


def test_the_group_json_download(group, client):
    response = client.get(f"/g/{group.token}/group.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert re.match(
        r'attachment; filename="last-trick-group-les-amis-du-jeudi-\d{4}-\d\d-\d\d\.json"',
        response["Content-Disposition"],
    )
    assert "no-store" in response["Cache-Control"]
    assert json.loads(response.content) == export_group(group)
    assert client.get(f"/g/{group.watch_token}/group.json").status_code == 404
    assert client.get("/g/not-a-real-token-at-all/group.json").status_code == 404
    assert client.post(f"/g/{group.token}/group.json").status_code == 405


def group_csv(group: Group) -> str:
    return f"/g/{group.token}/hands.csv"


def test_the_group_csv_has_a_row_per_hand_and_player_and_streams(group, client):
    with CaptureQueriesContext(connection) as before_streaming:
        response = client.get(group_csv(group))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.match(
        r'attachment; filename="last-trick-group-les-amis-du-jeudi-\d{4}-\d\d-\d\d\.csv"',
        response["Content-Disposition"],
    )
    assert not any("matches_hand" in query["sql"] for query in before_streaming.captured_queries)  # read as sent
    keys, rows = dict_rows(body_of(response))
    assert keys == GROUP_KEYS

    hands = of_kind(rows, "hand")
    seated = {sitting.pk: sitting.seats.count() for sitting in group.sittings.all()}
    assert len(hands) == sum(seated[hand.sitting_id] for hand in Hand.objects.filter(sitting__group=group))
    matches = [(row["match"], row["game"]) for row in of_kind(rows, "net") if row["seat"] == "1"]
    games = ["agram", "agram", "cat-te", "fapfap", "eighty-three", "spar"]
    assert matches == [(str(number), game) for number, game in enumerate(games, start=1)]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", row["match_started"]) for row in rows)

    def rows_of(match: int, player: str, kind: str = "hand") -> list[dict[str, str]]:
        return [row for row in of_kind(rows, kind) if row["match"] == str(match) and row["player"] == player]

    agram = rows_of(1, "Chaibou")
    assert [row["hand"] for row in agram] == ["1", "2", "3", "4", "5"]
    # hand 5 corrected to Chaibou
    assert [row["winner"] for row in agram] == ["Chaibou", "Aïcha", "Chaibou", "Erased player 1", "Chaibou"]
    assert [row["points"] for row in agram] == ["1", "0", "1", "0", "1"]
    assert not rows_of(1, "Djibo") and not rows_of(1, "Fatou")  # only the seated have rows
    abandoned = rows_of(2, "Aïcha")[2]
    assert [abandoned[key] for key in ("hand", "status", "dealer", "winner", "how", "points")] == [
        "3", "abandoned", "Erased player 1", "", "", "0"  # he won hand 2, so he dealt hand 3
    ]
    sweep = [rows_of(3, name)[1] for name in ("Aïcha", "Boubacar", "Chaibou")]
    assert sweep[0]["how"] == "sweep of the first four tricks; Aïcha held back an Ace"
    assert [row["points"] for row in sweep] == ["-3", "-2", "5"] and {row["unit"] for row in sweep} == {"chips"}
    # Fapfap for 100 FCFA: the stakes each hand won in points, who paid and who was paid in FCFA; then the nets.
    fapfap = {name: rows_of(4, name) for name in ("Aïcha", "Boubacar", "Djibo")}
    assert [[row["points"] for row in fapfap[name]] for name in fapfap] == [
        ["4", "0", "2"],
        ["0", "0", "0"],
        ["0", "1", "0"],
    ]
    assert [[row["money"] for row in fapfap[name]] for name in fapfap] == [
        ["800", "-100", "400"],
        ["-400", "-100", "-200"],
        ["-400", "200", "-200"],
    ]
    assert [rows_of(4, name, "net")[0]["net_money"] for name in fapfap] == ["1100", "-700", "-400"]
    assert {row["currency"] for row in rows if row["match"] == "4"} == {"FCFA"}
    assert [row["points"] for row in rows_of(6, "Fatou")] == ["3", "0"]


@pytest.mark.parametrize("phone", ["fr", "fr-cookie"])
def test_the_group_csv_reads_the_same_in_french_but_for_its_words(group, client, phone):
    english, french = read(client, group_csv(group), "en"), read(client, group_csv(group), phone)
    assert [{**row, "how": ""} for row in french] == [{**row, "how": ""} for row in english]
    assert any(row["how"].startswith("balayage des quatre premières levées") for row in french)  # words in French


@pytest.mark.parametrize("phone", ["en", "fr"])
def test_the_group_csvs_hand_rows_add_up_to_each_matchs_score_table_and_its_nets_to_its_settlement(
    group, client, phone
):
    rows = read(client, group_csv(group), phone)
    for number, sitting in enumerate(group.sittings.order_by("started_at", "pk"), start=1):
        state = TableState.of(sitting.table())
        tables = {row.seat.name: {column.key: value for column, value in row.cells} for row in state.tally}
        agrees_with_the_table([row for row in rows if row["match"] == str(number)], tables, state.settling)


def test_each_hand_row_of_the_group_csv_has_its_own_time_on_its_tables_clock(group, client):
    """The Fapfap match was played in Hanoi across midnight (now the newest match); the others on the server's clock
    (Niamey, UTC+1): each hand at the moment it was recorded, never the match's start."""
    hanoi, niamey = ZoneInfo("Asia/Ho_Chi_Minh"), ZoneInfo("Africa/Niamey")
    fapfap = group.sittings.get(game="fapfap")
    fapfap.time_zone = "Asia/Ho_Chi_Minh"
    fapfap.save(update_fields=["time_zone"])
    Sitting.objects.filter(pk=fapfap.pk).update(started_at=datetime.datetime(2026, 12, 31, 23, 30, tzinfo=hanoi))
    moments = [(2026, 12, 31, 23, 41, 7), (2027, 1, 1, 0, 12, 59), (2027, 1, 1, 0, 30)]
    for number, moment in enumerate(moments, start=1):
        fapfap.hands.filter(number=number).update(recorded_at=datetime.datetime(*moment, tzinfo=hanoi))
    later = {}
    for hand in Hand.objects.filter(sitting__group=group).exclude(sitting=fapfap).select_related("sitting"):
        start = hand.sitting.started_at.replace(microsecond=0)
        later[hand.pk] = start + datetime.timedelta(minutes=7 * hand.number, seconds=hand.number)
        Hand.objects.filter(pk=hand.pk).update(recorded_at=later[hand.pk])
    for phone in ("en", "fr"):
        rows = read(client, group_csv(group), phone)
        assert [row["time"] for row in of_kind(rows, "hand") if row["game"] == "fapfap"] == [
            *["2026-12-31T23:41:07+07:00"] * 3,
            *["2027-01-01T00:12:59+07:00"] * 3,
            *["2027-01-01T00:30:00+07:00"] * 3,
        ]
        assert {row["match_started"] for row in rows if row["game"] == "fapfap"} == {"2026-12-31T23:30:00+07:00"}
        expected = [
            later[hand.pk].astimezone(niamey).isoformat()
            for hand in Hand.objects.filter(sitting__group=group)
            .exclude(sitting=fapfap)
            .order_by("sitting__started_at", "sitting__pk", "number")
            for _seat in range(hand.sitting.seats.count())
        ]
        assert [row["time"] for row in of_kind(rows, "hand") if row["game"] != "fapfap"] == expected
        assert all(row["time"] != row["match_started"] for row in of_kind(rows, "hand"))
        assert {row["time"] for row in rows if row["row_type"] != "hand"} == {""}


def test_the_readmes_script_reads_the_group_csv_of_a_french_phone(group, client, tmp_path, monkeypatch):
    """The README's lines for a script, run as written on the file a French phone downloaded."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    script = re.search(r"From a script:\n\n```python\n(.*?)```", readme, re.S)[1]
    Player.objects.filter(group=group, name="Boubacar").update(name="=Boubacar")  # read back as typed
    (tmp_path / "last-trick-group.csv").write_bytes(body_of(client.get(group_csv(group), **PHONES["fr"])))
    monkeypatch.chdir(tmp_path)
    ran = {"csv": csv, "collections": collections}
    exec(script, ran)  # noqa: S102 - the README's own lines
    points = {seat.player.name: 0 for sitting in group.sittings.all() for seat in sitting.seats.all()}
    for hand in Hand.objects.filter(sitting__group=group).prefetch_related("sitting__seats__player"):
        for seat in hand.sitting.seats.all():
            points[seat.player.name] += hand.points[seat.position]
    assert ran["totals"] == points and "=Boubacar" in points


def test_the_group_csv_of_an_unknown_group_is_404(db, client):
    assert client.get("/g/not-a-real-token-at-all/hands.csv").status_code == 404


def form_token(page) -> str:
    """The one-time token of the import form a page shows."""
    return re.search(r'name="once" value="([^"]+)"', page.content.decode())[1]


def test_the_same_import_form_sent_twice_makes_one_group(group):
    """Import tapped twice quickly: the second post leaves with the first one's cookies (its answer has not
    come yet) and the same form. It makes no second group: it opens the one the first post made."""
    data = dumps(export_group(group)).encode()
    phone = Client()
    once = form_token(phone.get("/groups/import/"))
    twin = Client()
    twin.cookies = phone.cookies  # the phone's cookies as they were when it tapped the second time
    before = Group.objects.count()
    first = phone.post("/groups/import/", {**upload(data), "once": once})
    second = twin.post("/groups/import/", {**upload(data), "once": once})
    assert first.status_code == second.status_code == 302
    assert second["Location"] == first["Location"] and Group.objects.count() == before + 1
    assert twin.session["groups"][0] == first["Location"].split("/")[2]  # the answer the phone shows remembers it
    copy = phone.post("/groups/import/", upload(data))  # the form again: this phone has the group already
    assert copy.status_code == 409
    once = form_token(copy)
    made = [phone.post("/groups/import/", {**upload(data), "second_copy": "1", "once": once}) for _ in range(2)]
    assert made[0]["Location"] == made[1]["Location"] != first["Location"]
    assert Group.objects.count() == before + 2
    assert phone.post("/groups/import/", {**upload(data), "second_copy": "1"}).status_code == 302  # no token: a post
    assert Group.objects.count() == before + 3
