"""Times on the table's own clock: each sitting and each group keeps the time zone of the
phone that started it, and every time of it is shown in that zone, whoever looks; dates in a form
nobody misreads, 24-hour times and numbers grouped the same way in English, French, German and
Vietnamese. The server's own zone (TIME_ZONE, Africa/Niamey here) is only for what no phone dated."""

import datetime
import json
import re
from zoneinfo import ZoneInfo

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import formats, translation

from matches.services.archive import dumps, export_group, import_group
from matches.models import Group, Sitting
from matches.models.zones import clean_zone, zone_named

from tests.conftest import WORKED, shown
from tests.csv_files import dict_rows
from tests.pages import start_data

NEW_YEAR_ZONES = ["Asia/Ho_Chi_Minh", "Africa/Lome", "Europe/Berlin"]
pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def at(zone: str, *moment: int) -> datetime.datetime:
    """A moment on the clock of `zone`: at("Africa/Lome", 2026, 12, 31, 23, 30)."""
    return datetime.datetime(*moment, tzinfo=ZoneInfo(zone))


def started(response) -> Sitting:
    assert response.status_code == 302, re.findall(
        r'class="(?:field-error|notice error)"[^>]*>(.*?)<', response.content.decode()
    )
    return Sitting.objects.get(token=response["Location"].split("/")[2])


# --- which zone a sitting or a group keeps ---------------------------------------------------------


@pytest.mark.parametrize(
    "raw, kept",
    [
        ("Asia/Ho_Chi_Minh", "Asia/Ho_Chi_Minh"),
        ("Africa/Lome", "Africa/Lome"),
        ("Europe/Berlin", "Europe/Berlin"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("UTC", "UTC"),
        ("", ""),
        ("Mars/Olympus_Mons", ""),
        ("../../../etc/passwd", ""),
        ("/usr/share/zoneinfo/UTC", ""),
        ("Europe/Berlin\x00", ""),
        ("zone1970.tab", ""),
        ("Europe/" + "x" * 80, ""),
        (None, ""),
        (7, ""),
        (["Africa/Lome"], ""),
    ],
)
def test_only_a_zone_this_server_knows_is_kept(raw, kept):
    assert clean_zone(raw) == kept
    assert zone_named(kept) == (ZoneInfo(kept) if kept else ZoneInfo("Africa/Niamey"))


@pytest.mark.parametrize(
    "posted, kept",
    [({"time_zone": "Asia/Ho_Chi_Minh"}, "Asia/Ho_Chi_Minh"), ({"time_zone": "Nowhere/Else"}, ""), ({}, "")],
)
def test_the_start_form_keeps_the_phones_zone_or_the_servers(client, posted, kept):
    sitting = started(client.post("/start/agram/", start_data(["Aïcha", "Djibo"], **posted)))
    assert sitting.time_zone == kept
    assert sitting.zone == ZoneInfo(kept or "Africa/Niamey")


def test_a_garbled_zone_never_breaks_a_start(client):
    for junk in ["\x00", "é" * 500, "Europe/../../etc", "<script>", " Africa/Lome"]:
        sitting = started(client.post("/start/agram/", start_data(["A", "B"], time_zone=junk)))
        assert sitting.time_zone == ""


def test_every_page_that_starts_something_carries_the_hidden_field(client, sitting):
    group = Group.create("Vendredi", WORKED)
    for path in ["/start/agram/", "/groups/new/", f"/g/{group.token}/new/agram/", f"/s/{sitting.token}/group/", "/"]:
        page = client.get(path).content.decode()
        assert '<input type="hidden" name="time_zone" value="" data-time-zone>' in page, path


def test_a_group_and_the_matches_started_from_it_keep_their_phones_zone(client):
    response = client.post("/groups/new/", {"name": "Vendredi", "players": "Aïcha\nDjibo", "time_zone": "Africa/Lome"})
    assert response.status_code == 302
    group = Group.objects.get()
    assert group.time_zone == "Africa/Lome"
    seat = [f"m{p.pk}" for p in group.members()]
    # Another phone, in Hanoi, starts the next match: the match keeps that phone's zone...
    data = {"seat": seat, "action": "start", "end_kind": "open", "time_zone": "Asia/Ho_Chi_Minh"}
    hanoi = started(client.post(f"/g/{group.token}/new/agram/", data))
    assert hanoi.time_zone == "Asia/Ho_Chi_Minh" and hanoi.group == group
    # ... and a phone that did not say (no JavaScript) starts one on the group's clock.
    plain = started(client.post(f"/g/{group.token}/new/agram/", {**data, "time_zone": ""}))
    assert plain.time_zone == "Africa/Lome"
    group.refresh_from_db()
    assert group.time_zone == "Africa/Lome"


def test_a_rematch_keeps_the_first_matchs_zone(client):
    first = started(client.post("/start/agram/", start_data(["A", "B"], time_zone="Europe/Berlin")))
    first.end_match()
    rematch = client.post(f"/s/{first.token}/rematch/", {"time_zone": "Asia/Ho_Chi_Minh"})
    assert Sitting.objects.get(token=rematch["Location"].split("/")[2]).time_zone == "Europe/Berlin"


def test_the_demo_keeps_the_phones_zone(client):
    response = client.post("/demo/", {"time_zone": "Asia/Ho_Chi_Minh"})
    sitting = Sitting.objects.get(token=response["Location"].split("/")[2])
    assert sitting.time_zone == sitting.group.time_zone == "Asia/Ho_Chi_Minh"
    assert set(sitting.group.sittings.values_list("time_zone", flat=True)) == {"Asia/Ho_Chi_Minh"}


def test_a_match_saved_into_a_group_keeps_its_own_zone(client):
    lome = Group.create("Lomé", ["A", "B"], time_zone="Africa/Lome")
    berlin = started(client.post("/start/agram/", start_data(["A", "B"], time_zone="Europe/Berlin")))
    lome.save_sitting(berlin)
    berlin.refresh_from_db()
    assert berlin.group == lome and berlin.time_zone == "Europe/Berlin"
    # Saved into a new group: the group takes the saving phone's zone, else the match's.
    hanoi = started(client.post("/start/agram/", start_data(["C", "D"], time_zone="Asia/Ho_Chi_Minh")))
    client.post(f"/s/{hanoi.token}/group/", {"group": "new", "name": "Hà Nội", "time_zone": ""})
    assert Group.objects.get(name="Hà Nội").time_zone == "Asia/Ho_Chi_Minh"
    other = started(client.post("/start/agram/", start_data(["E", "F"])))
    client.post(f"/s/{other.token}/group/", {"group": "new", "name": "Berlin", "time_zone": "Europe/Berlin"})
    assert Group.objects.get(name="Berlin").time_zone == "Europe/Berlin"


def test_a_group_moved_to_another_server_keeps_its_zones(client):
    group = Group.create("Vendredi", ["A", "B"], time_zone="Africa/Lome")
    group.start_match("agram", [p.pk for p in group.members()], time_zone="Asia/Ho_Chi_Minh").record_hand(1, 0)
    group.start_match("agram", [p.pk for p in group.members()])
    archive = export_group(group)
    assert archive["time_zone"] == "Africa/Lome"
    assert [s["time_zone"] for s in archive["sittings"]] == ["Asia/Ho_Chi_Minh", "Africa/Lome"]
    moved = import_group(json.loads(dumps(archive)))
    assert moved.time_zone == "Africa/Lome"
    assert list(moved.sittings.order_by("pk").values_list("time_zone", flat=True)) == [
        "Asia/Ho_Chi_Minh",
        "Africa/Lome",
    ]
    assert {**export_group(moved), "changed_at": None} == {**archive, "changed_at": None}  # the same again

    # An archive from before zones were kept has none: the server's zone. A zone unknown here reads as
    # the server's too, rather than turning the group away; a zone that is not text is refused.
    for entry in [archive, *archive["sittings"]]:
        del entry["time_zone"]
    assert import_group(json.loads(dumps(archive))).time_zone == ""
    archive["time_zone"] = "Atlantis/Capital"
    assert import_group(json.loads(dumps(archive))).time_zone == ""
    archive["sittings"][0]["time_zone"] = 7
    upload = SimpleUploadedFile("group.json", dumps(archive).encode(), content_type="application/json")
    response = client.post("/groups/import/", {"archive": upload})
    assert response.status_code == 400
    assert "sittings[0].time_zone should be text of at most 64 characters, not 7." in response.content.decode()


# --- every time of a match on its table's clock --------------------------------------------------


@pytest.mark.parametrize("zone", NEW_YEAR_ZONES)
def test_a_match_across_midnight_on_31_december_keeps_its_tables_day_and_hours(client, zone, monkeypatch):
    """A Fapfap match for a stake, started at 23:30 on 31 December and played past midnight by a table
    in Hanoi, Lomé or Berlin, read on a server whose own zone is Niamey's: every time is the table's."""
    made = client.post("/groups/new/", {"name": "Réveillon", "players": "Ana\nBen\nCal", "time_zone": zone})
    assert made.status_code == 302
    group = Group.objects.get()
    seat = [f"m{p.pk}" for p in group.members()]
    data = {"seat": seat, "action": "start", "end_kind": "hands", "end_target_hands": "2", "time_zone": zone}
    sitting = started(
        client.post(f"/g/{group.token}/new/fapfap/", {**data, "stake_amount": "100", "stake_label": "CFA"})
    )
    assert sitting.time_zone == zone
    Sitting.objects.filter(pk=sitting.pk).update(started_at=at(zone, 2026, 12, 31, 23, 30))
    sitting.record_hand(1, 0, {"multiplier": "1"})
    sitting.record_hand(2, 1, {"multiplier": "2"})  # the match ends here
    sitting.hands.filter(number=1).update(recorded_at=at(zone, 2026, 12, 31, 23, 45))
    sitting.hands.filter(number=2).update(recorded_at=at(zone, 2027, 1, 1, 0, 10))
    Sitting.objects.filter(pk=sitting.pk).update(finished_at=at(zone, 2027, 1, 1, 0, 10))

    history = shown(client.get(f"/s/{sitting.token}/hands/").content.decode())
    assert "recorded 23:45" in history and "recorded 00:10" in history

    home = client.get("/").content.decode()
    assert "finished · 31 Dec 2026, 23:30" in home

    table = client.get(sitting.get_absolute_url()).content.decode()
    shared = re.search(r'<textarea id="result-text"[^>]*>(.*?)</textarea>', table, re.DOTALL)[1]
    assert shared.startswith("Fapfap · 31 Dec 2026\n")

    csv = client.get(f"/s/{sitting.token}/hands.csv")
    assert csv["Content-Disposition"] == 'attachment; filename="last-trick-fapfap-2026-12-31.csv"'

    assert "31 Dec 2026, 23:30 · finished" in client.get(f"/g/{group.token}/").content.decode()
    monkeypatch.setattr("django.utils.timezone.now", lambda: at(zone, 2027, 1, 1, 0, 20))  # the download
    rows = client.get(f"/g/{group.token}/hands.csv")
    assert "last-trick-group-réveillon-2027-01-01.csv" in rows["Content-Disposition"].replace("%C3%A9", "é")
    _keys, read = dict_rows(b"".join(rows.streaming_content))
    hands = [(row["hand"], row["time"]) for row in read if row["row_type"] == "hand" and row["seat"] == "1"]
    assert hands == [("1", at(zone, 2026, 12, 31, 23, 45).isoformat()), ("2", at(zone, 2027, 1, 1, 0, 10).isoformat())]
    assert {row["match_started"] for row in read} == {at(zone, 2026, 12, 31, 23, 30).isoformat()}
    monkeypatch.undo()

    stats = re.sub(r"\s+", " ", client.get(f"/g/{group.token}/stats/").content.decode())
    assert "<h3>31 Dec 2026 · 1 match</h3>" in stats  # the night the table played, settled


def test_tables_in_different_zones_settle_each_night_on_their_own_day(client):
    """Hanoi's match starts first, at 07:00 on 1 January there; Lomé's two and a half hours later, at
    02:30 on 1 January there, still the night of 31 December: two nights, the later one dated before the
    earlier. The figures count them by their nights, and never stumble on a day that goes back."""
    group = Group.create("Partout", ["Ana", "Ben"], time_zone="Africa/Lome")
    players = [p.pk for p in group.members()]
    moments = [at("Asia/Ho_Chi_Minh", 2027, 1, 1, 7, 0), at("Africa/Lome", 2027, 1, 1, 2, 30)]
    for moment in moments:
        zone = str(moment.tzinfo)
        sitting = group.start_match("fapfap", players, time_zone=zone, stake_amount=100, stake_label="CFA")
        Sitting.objects.filter(pk=sitting.pk).update(started_at=moment)
        sitting.record_hand(1, 0, {"multiplier": "1"})
        sitting.end_match()
    response = client.get(f"/g/{group.token}/stats/")
    assert response.status_code == 200
    stats = re.sub(r"\s+", " ", response.content.decode())
    first, second = stats.index("<h3>1 Jan 2027 · 1 match</h3>"), stats.index("<h3>31 Dec 2026 · 1 match</h3>")
    assert first < second  # the newest night first


# --- dates nobody misreads, the same numbers in every language -----------------------------------

DATES = {
    "en": ("5 Dec 2026", "5 Dec 2026, 20:15", "2,000"),
    "fr": ("5 déc. 2026", "5 déc. 2026, 20:15", "2\u00a0000"),
    "de": ("5. Dez. 2026", "5. Dez. 2026, 20:15", "2.000"),
    "vi": ("5 thg 12, 2026", "20:15 5 thg 12, 2026", "2.000"),
}


@pytest.mark.parametrize("language", DATES)
def test_dates_name_their_month_times_run_to_24_hours_and_thousands_are_grouped(client, language):
    day, moment, chips = DATES[language]
    with translation.override(language):
        assert formats.date_format(datetime.date(2026, 12, 5), "DATE_FORMAT") == day
        assert formats.date_format(datetime.date(2026, 12, 5), "SHORT_DATE_FORMAT") == day  # never 12/05/2026
    sitting = started(
        client.post(
            "/start/cat-te/",
            start_data(
                ["A", "B", "C"], end_kind="hands", end_target_hands="9", starting_chips="2000", time_zone="Africa/Lome"
            ),
        )
    )
    Sitting.objects.filter(pk=sitting.pk).update(started_at=at("Africa/Lome", 2026, 12, 5, 20, 15))
    home = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert moment in home and chips in home
    table = client.get(sitting.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<td class="num">{chips}</td>' in table  # the chips in front of each player
