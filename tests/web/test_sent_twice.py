"""A form that makes something, sent twice (Start or Make the group tapped twice with no script to grey
the button, a slow network): the second post carries the first one's form and cookies, and opens what
the first one made (matches/web/once.py). The import form alike: tests/web/test_group_files.py."""

import re

import pytest
from django.test import Client

from matches.models import Group, Sitting

from tests.pages import HX, start_data

pytestmark = pytest.mark.django_db


def form_token(page: str) -> str:
    return re.search(r'name="once" value="([^"]+)"', page)[1]


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_the_same_start_form_sent_twice_starts_one_match(client, headers):
    """Start tapped twice (no JavaScript to grey the button, or a slow network): the second post carries
    the first one's form and cookies, and opens the match the first one started."""
    page = client.get("/start/agram/").content.decode()
    once = form_token(page)
    twin = Client()
    twin.cookies = client.cookies
    data = start_data(["Ana", "Ben"], once=once)
    first, second = client.post("/start/agram/", data, **headers), twin.post("/start/agram/", data, **headers)
    where = "HX-Redirect" if headers else "Location"
    assert first[where] == second[where] and Sitting.objects.count() == 1
    assert client.post("/start/agram/", start_data(["Ana", "Ben"]), **headers)[where] != first[where]  # no token


def test_the_same_new_group_form_sent_twice_makes_one_group(client):
    page = client.get("/groups/new/").content.decode()
    once = form_token(page)
    twin = Client()
    twin.cookies = client.cookies
    data = {"name": "Friday", "players": "Ana\nBen", "once": once}
    first, second = client.post("/groups/new/", data), twin.post("/groups/new/", data)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] and Group.objects.count() == 1


def test_the_same_group_start_sent_twice_starts_one_match(client):
    group = Group.create("Friday", ["Ana", "Ben"])
    page = client.get(f"/g/{group.token}/new/agram/").content.decode()
    once = form_token(page)
    twin = Client()
    twin.cookies = client.cookies
    data = {"seat": [f"m{p.pk}" for p in group.members()], "action": "start", "end_kind": "open", "once": once}
    first, second = (phone.post(f"/g/{group.token}/new/agram/", data) for phone in (client, twin))
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] and Sitting.objects.count() == 1
