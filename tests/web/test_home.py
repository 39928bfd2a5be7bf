"""The home page: the matches and groups this phone opened (a match being played first, groups above
matches), kept in its session, which a reload does not send again; and the demo it offers, the worked
sitting of RULES.md (Chaibou won hand 1) in a demo group with finished matches, figures and a chart,
named in the phone's language, one per phone however often it is tried (`manage.py load_demo` too)."""

import io

import pytest
from django.core.management import call_command
from django.test import Client

from matches.models import Group, Sitting

from tests.conftest import WORKED, shown
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.pages import g, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def test_home_lists_only_this_phones_sittings_in_progress_first(client, sitting):
    finished = Sitting.start("sink-sink", ["Fatou", "Moussa"])
    finished.end_match()
    client.get(url(finished))
    client.get(url(sitting))
    client.get(url(finished))  # most recently opened, but finished: listed after
    Sitting.start("agram", ["Someone", "Else"])  # another phone's sitting
    page = Client().get("/").content.decode()
    assert "Someone" not in page  # a new phone sees nothing
    page = client.get("/").content.decode()
    assert "Someone" not in page
    assert page.index("Aïcha") < page.index("Fatou")
    assert page.count("Rematch") == 1  # the finished one: a match in progress offers only to go on


def test_a_phone_remembers_its_groups_and_home_lists_them_above_the_matches(client, group):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"])
    client.get(sitting.get_absolute_url())
    other = Group.create("Samedi", ["Zeinab"])
    client.get(g(group))
    client.get(g(other))
    assert client.session["groups"] == [other.token, group.token]
    body = shown(client.get("/").content.decode())
    assert body.index("Samedi") < body.index("Vendredi") < body.index("Matches on this phone")
    assert "Aïcha, Boubacar, Chaibou, Djibo" in body and "New group" in body


def test_reloading_the_table_this_phone_has_first_sends_no_new_session_cookie(client, sitting):
    first = client.get(url(sitting))
    assert "sessionid" in first.cookies  # the phone's id and its list of matches
    again = client.get(url(sitting))
    assert "sessionid" not in again.cookies and again.status_code == 200
    other = Sitting.start("agram", ["X", "Y"])
    assert "sessionid" in client.get(url(other)).cookies  # a new first match: the list changes
    assert client.session["sittings"][:2] == [other.token, sitting.token]


# --- the demo -------------------------------------------------------------------------------------


def test_demo_button_opens_the_worked_sitting(client):
    response = client.post("/demo/")
    sitting = Sitting.objects.get(finished_at__isnull=True)
    assert response["Location"] == url(sitting)
    table = sitting.table()
    assert [s.name for s in table.seats] == WORKED
    assert [(s.name, s.total) for s in table.seats if s.total] == [("Chaibou", 1)]
    assert table.dealer_seat.name == "Chaibou"


def test_the_demo_says_it_is_a_demo_and_what_to_try_once(client):
    page = client.get(client.post("/demo/")["Location"]).content.decode()
    assert "A demo match, in a demo group with three finished matches: tap who won each hand" in page
    assert "A demo match" not in client.get(url(Sitting.objects.get(finished_at__isnull=True))).content.decode()


def test_the_demo_comes_in_a_group_with_finished_matches_statistics_and_a_chart(client):
    table = client.get(client.post("/demo/")["Location"]).content.decode()
    sitting = Sitting.objects.get(finished_at__isnull=True)
    assert '<figure class="chart">' in table and sitting.group is not None
    assert sitting.group.sittings.filter(finished_at__isnull=False).count() == 3
    home = client.get("/").content.decode()
    assert sitting.group.get_absolute_url() in home  # the phone remembers the demo group
    figures = client.get(sitting.group.get_absolute_url() + "stats/").content.decode()
    assert "Aïcha" in figures and "CFA" in figures  # a Fapfap night to settle


def test_the_demo_group_is_named_in_the_phones_language(client):
    client.post("/demo/", HTTP_ACCEPT_LANGUAGE="fr")
    assert Sitting.objects.filter(finished_at__isnull=True).get().group.name == "Club de démo"


def test_trying_the_demo_again_reuses_this_phones_demo(client):
    from django.test import Client

    from matches.models import Group

    first = client.post("/demo/")
    assert client.post("/demo/")["Location"] == first["Location"]  # the demo match, as left
    assert Group.objects.count() == 1 and Sitting.objects.filter(finished_at__isnull=True).count() == 1
    demo = Sitting.objects.get(finished_at__isnull=True)
    demo.end_match()
    again = client.post("/demo/")  # played out: a fresh demo match, in the same demo group
    assert again["Location"] != first["Location"] and Group.objects.count() == 1
    fresh = Sitting.objects.get(finished_at__isnull=True)
    assert fresh.group_id == demo.group_id and fresh.table().hands_played == 1
    home = client.get("/").content.decode()
    assert home.count("Demo club") == 1
    Client().post("/demo/")  # another phone gets its own demo
    assert Group.objects.count() == 2


def test_load_demo_command_prints_the_table_address(db):
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert url(Sitting.objects.get(finished_at__isnull=True)) in out.getvalue()
