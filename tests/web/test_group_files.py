"""A group's files on its pages: the CSV of every hand of every match (streamed, in the reader's
language) and the JSON archive to download, by the member link only; and the import page, which makes
a group of an archive, says why it refuses one, and counts as a new match."""

import csv
import io
import json
import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.http import StreamingHttpResponse
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from matches.models import Group, Hand
from matches.services.archive import dumps, export_group
from matches.web.views.group_export import MAX_ARCHIVE

from tests.conftest import shown
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
    assert phone.get(response["Location"]).status_code == 200


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


def read_group_csv(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    body = b"".join(response.streaming_content)
    assert body.startswith(b"\xef\xbb\xbf")
    delimiter = ";" if response.wsgi_request.LANGUAGE_CODE == "fr" else ","
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=delimiter))


def test_the_group_csv_has_one_row_per_hand_and_streams(group, client):
    with CaptureQueriesContext(connection) as before_streaming:
        response = client.get(f"/g/{group.token}/hands.csv")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.match(
        r'attachment; filename="last-trick-group-les-amis-du-jeudi-\d{4}-\d\d-\d\d\.csv"',
        response["Content-Disposition"],
    )
    assert not any("matches_hand" in query["sql"] for query in before_streaming.captured_queries)  # read as sent

    rows = read_group_csv(response)
    header = rows[0]
    body = [row for row in rows[1:] if row[5] != "net"]
    nets = [row for row in rows[1:] if row[5] == "net"]
    played = ["Aïcha", "Boubacar", "Chaibou", "Erased player 1", "Djibo", "Fatou", "Garba"]
    assert header == [
        "started",
        "game",
        "unit",
        "match",
        "hand",
        "status",
        "dealer",
        "winner",
        "how",
        *sorted(played, key=str.casefold),
    ]
    assert len(body) == Hand.objects.filter(sitting__group=group).count() == 21
    assert [row[3] for row in body] == ["1"] * 5 + ["2"] * 3 + ["3"] * 3 + ["4"] * 3 + ["5"] * 5 + ["6"] * 2
    assert all(len(row) == len(rows[0]) for row in rows)
    assert [row[3] for row in nets] == ["1", "2", "3", "4", "5", "6"]  # a line of nets after each match
    assert rows[6] == nets[0]  # right after the five hands of the first match
    column = {name: header.index(name) for name in played}

    agram = body[:5]
    assert [row[4] for row in agram] == ["1", "2", "3", "4", "5"]
    assert [row[7] for row in agram] == ["Chaibou", "Aïcha", "Chaibou", "Erased player 1", "Chaibou"]  # 5 corrected
    assert [row[column["Chaibou"]] for row in agram] == ["1", "0", "1", "0", "1"]
    assert all(row[column["Djibo"]] == "" and row[column["Fatou"]] == "" for row in agram)
    assert agram[0][1:3] == ["Agram", "wins"] and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", agram[0][0])

    abandoned = body[7]
    assert abandoned[4:9] == ["3", "abandoned", "Erased player 1", "", ""]  # he won hand 2, so he dealt hand 3
    sweep = body[9]
    assert sweep[7:9] == ["Chaibou", "sweep of the first four tricks; Aïcha held back an Ace"]
    assert [sweep[column[name]] for name in ("Aïcha", "Boubacar", "Chaibou")] == ["-3", "-2", "5"]
    # Fapfap for 100 FCFA: each hand in FCFA, who paid and who was paid; then the match's nets.
    fapfap = body[11:14]
    assert [row[1:3] for row in fapfap] == [["Fapfap", "FCFA"]] * 3
    money = [[row[column[name]] for name in ("Aïcha", "Boubacar", "Djibo")] for row in fapfap]
    assert money == [["800", "-400", "-400"], ["-100", "-100", "200"], ["400", "-200", "-200"]]
    assert [nets[3][column[name]] for name in ("Aïcha", "Boubacar", "Djibo", "Chaibou")] == ["1100", "-700", "-400", ""]
    assert [row[column["Fatou"]] for row in body[-2:]] == ["3", "0"]


def test_the_group_csv_in_french(group, client):
    rows = read_group_csv(client.get(f"/g/{group.token}/hands.csv", HTTP_ACCEPT_LANGUAGE="fr"))
    assert rows[0][:4] == ["début", "jeu", "unité", "partie"]
    assert len(rows) == 1 + 21 + 6  # the header, every hand, a line of nets per match
    assert [row[5] for row in rows].count("bilan") == 6


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
