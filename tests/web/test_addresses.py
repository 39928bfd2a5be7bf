"""The app's addresses: one path converter for every token in an address, one lookup that keeps watch
links read-only, one way to send an htmx request elsewhere; and the requests no page sends (an unknown
address or link, a malformed token, a method the address does not take, HEAD, a GET on an action's
address), each answered with a message or the page it leads back to, never a 500 or a change."""

import pytest
from django.test import Client
from django.urls import URLPattern, Resolver404, get_resolver, resolve

from matches.models import Group, Hand
from matches.web import urls as web_urls
from matches.web.tokens import LinkToken

from tests.conftest import play, snapshot
from tests.pages import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def link_routes() -> list[URLPattern]:
    app = next(p for p in get_resolver().url_patterns if getattr(p, "urlconf_name", None) is web_urls)
    return [p for p in app.url_patterns if "token" in p.pattern.converters]


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


# --- requests no page sends -----------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_unknown_token_answers_404_with_a_message(client, headers):
    before = Hand.objects.count()
    response = client.post("/s/not-a-real-token/tap/", {"number": 1, "winner": 1}, **headers)
    assert response.status_code == 404
    assert "No match at this link" in response.content.decode()
    assert Hand.objects.count() == before
    if headers:
        assert response["HX-Retarget"] == "#notice"


def test_unknown_address_answers_404_with_a_message(client):
    response = client.get("/nowhere/")
    assert response.status_code == 404
    assert "nothing at this address" in response.content.decode()


@pytest.mark.parametrize("token", ["a%00b", "%00", "x" * 5000, "%ff"])
def test_malformed_tokens_answer_404_without_touching_the_database(client, token):
    response = client.get(f"/s/{token}/")
    assert response.status_code == 404 and "No match at this link" in response.content.decode()


def test_a_get_on_an_action_address_goes_back_to_the_table(client, sitting):
    response = client.get(url(sitting, "tap/"))
    assert response.status_code == 302 and response["Location"] == url(sitting)
    assert sitting.hands.count() == 0


@pytest.mark.parametrize("method, path", [("put", "/start/agram/"), ("delete", "s/"), ("get", "/demo/")])
def test_wrong_methods_get_a_message_not_a_blank_page(client, sitting, method, path):
    path = url(sitting) if path == "s/" else path
    response = getattr(client, method)(path)
    assert response.status_code == 405
    assert "does not take that kind of request" in response.content.decode()


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["tap/", "undo/", "end/", "chips/", "/start/agram/"])
@pytest.mark.parametrize("checked", [False, True], ids=["test-client", "csrf-checked"])
def test_an_action_asked_by_a_method_no_page_sends_is_not_allowed_and_changes_nothing(sitting, method, path, checked):
    """Said as a wrong method, with or without a CSRF token (a phone's request has none for PUT)."""
    play(sitting, [0])
    before = snapshot(sitting)
    address = path if path.startswith("/") else url(sitting, path)
    body, form = "number=1&winner=2", "application/x-www-form-urlencoded"
    answer = Client(enforce_csrf_checks=checked).generic(method, address, body, form, HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 405 and "POST" in answer["Allow"]
    assert "Cette adresse n’accepte pas ce genre de demande" in answer.content.decode()
    assert snapshot(sitting) == before


@pytest.mark.parametrize("method", ["trace", "put", "delete"])
def test_home_answers_only_reads(client, method):
    assert getattr(client, method)("/").status_code == 405


def test_head_requests_work_on_pages(client, sitting):
    assert client.head(url(sitting)).status_code == 200
    assert client.head(url(sitting, "hands.csv")).status_code == 200


@pytest.mark.parametrize("path", ["/start/agram/", "end/", "hands/1/", "group/", "/groups/new/", "/groups/import/"])
def test_a_head_request_on_a_page_that_takes_a_form_answers_as_a_get_and_changes_nothing(client, sitting, path):
    play(sitting, [0])
    before = snapshot(sitting)
    address = path if path.startswith("/") else url(sitting, path)
    assert client.head(address).status_code == client.get(address).status_code == 200
    assert snapshot(sitting) == before
