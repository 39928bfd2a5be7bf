"""How a link reaches its sitting or group: one path converter for every token in an address, one lookup
that keeps watch links read-only, one way to send an htmx request elsewhere, and the scripts a page
loads being the ones its service worker keeps."""

import re

import pytest
from django.urls import URLPattern, Resolver404, get_resolver, resolve

from matches.models import Group, Sitting
from matches.web.tokens import LinkToken
from tests.conftest import play

pytestmark = [pytest.mark.django_db, pytest.mark.engine]

HX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def link_routes() -> list[URLPattern]:
    return [p for p in get_resolver().url_patterns[1].url_patterns if "token" in p.pattern.converters]


def test_every_route_with_a_token_takes_it_through_the_link_converter():
    routes = link_routes()
    assert len(routes) > 30
    assert all(isinstance(route.pattern.converters["token"], LinkToken) for route in routes)


@pytest.mark.parametrize("token", ["short", "a" * 33, "has.a.dot.in.it.here", "tab\there-and-more-x"])
def test_a_malformed_token_is_no_route(token):
    for prefix in ("s", "w", "g", "gw"):
        with pytest.raises(Resolver404):
            resolve(f"/{prefix}/{token}/")


def test_a_malformed_token_answers_the_link_message_and_a_well_formed_one_a_view(client, sitting):
    group = Group.create("Vendredi", NAMES)
    assert "No match at this link" in client.get("/w/short/", **HX).content.decode()
    assert "No group at this link" in client.get("/gw/short/stats/").content.decode()
    assert client.get("/s/short/nowhere/").status_code == 404
    assert client.get(f"/s/{sitting.token}/").status_code == 200
    assert client.get(f"/gw/{group.watch_token}/stats/").status_code == 200
    # a well-formed token on an address with no page: the plain message, not the link's
    assert "No match at this link" not in client.get(f"/s/{sitting.token}/nowhere/").content.decode()


def test_watch_links_take_no_change(client, sitting):
    group = Group.create("Vendredi", NAMES)
    play(sitting, [2])
    before = (sitting.hands.count(), Group.objects.get().version)
    for path in (f"/w/{sitting.watch_token}/", f"/w/{sitting.watch_token}/poll/", f"/gw/{group.watch_token}/",
                 f"/gw/{group.watch_token}/matches/", f"/gw/{group.watch_token}/stats/"):
        for headers in ({}, HX):
            answer = client.post(path, {"number": 2, "winner": 1}, **headers)
            assert answer.status_code == 405, path
    assert (sitting.hands.count(), Group.objects.get().version) == before


def test_a_watch_link_does_not_reach_member_pages_nor_a_member_link_watch_pages(client, sitting):
    group = Group.create("Vendredi", NAMES)
    assert client.get(f"/s/{sitting.watch_token}/").status_code == 404
    assert client.get(f"/w/{sitting.token}/").status_code == 404
    assert client.get(f"/g/{group.watch_token}/stats/").status_code == 404
    assert client.get(f"/gw/{group.token}/stats/").status_code == 404


def test_every_htmx_redirect_is_one_kind_of_answer(client, sitting):
    group = Group.create("Vendredi", NAMES)
    rotated = client.post(f"/s/{sitting.token}/links/", **HX)
    regrouped = client.post(f"/g/{group.token}/links/", **HX)
    sitting.refresh_from_db()
    play(sitting, [0])
    sitting.end_match()
    rematch = sitting.rematch()
    followed = client.get(f"/w/{sitting.watch_token}/poll/?v=1", **HX)
    group.refresh_from_db()
    expected = {rotated: sitting.get_absolute_url(), regrouped: group.get_absolute_url(),
                followed: f"/w/{rematch.watch_token}/"}
    for answer, where in expected.items():
        assert (answer.status_code, answer["HX-Redirect"], answer.content) == (200, where, b"")
        assert "no-store" in answer["Cache-Control"]


def test_the_service_worker_keeps_every_script_and_style_the_pages_load(client, sitting):
    kept = client.get("/sw.js").content.decode()
    page = client.get(f"/s/{sitting.token}/").content.decode()
    loaded = re.findall(r'<(?:script src|link rel="stylesheet" href)="([^"]+)"', page)
    assert any("django_htmx/htmx-2" in url for url in loaded)
    assert loaded and all(f'"{url}"' in kept for url in loaded)


def test_a_sitting_deleted_while_its_link_is_looked_up_answers_404(client, sitting):
    token = sitting.token
    Sitting.objects.filter(pk=sitting.pk).delete()
    answer = client.post(f"/s/{token}/tap/", {"number": 1, "winner": 1}, **HX)
    assert answer.status_code == 404 and "No match at this link" in answer.content.decode()
