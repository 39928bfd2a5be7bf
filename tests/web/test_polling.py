"""The fallback poll (`/s/<token>/poll/?v=N`) and the version it asks about: while the sitting is at
version N, an empty 204 after one query; after any change (and only then) the region the tapping
phone saw, without its notice; a link that leads nowhere is a 404 that htmx shows in the table; under
gunicorn, Django's own application answers."""

import re

import pytest
from django.test import Client, override_settings

from matches.models import Group, Hand, Seat, Sitting

from tests.conftest import play
from tests.pages import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


@pytest.mark.parametrize("link", ["s", "w"])
def test_an_unchanged_poll_is_a_bare_204_in_one_query(client, sitting, link, django_assert_num_queries):
    token = sitting.token if link == "s" else sitting.watch_token
    with django_assert_num_queries(1):
        response = client.get(f"/{link}/{token}/poll/", {"v": sitting.version}, **HX)
    assert response.status_code == 204 and response.content == b""
    assert "no-store" in response["Cache-Control"] and "HX-Request" in response["Vary"]
    assert not response.cookies  # nothing read or set: no session, no CSRF cookie


def test_poll_answers_the_new_region_after_a_change(client, sitting):
    seen = sitting.version
    Client().post(url(sitting, "tap/"), {"number": 1, "winner": 3})  # another phone taps
    response = client.get(url(sitting, "poll/"), {"v": seen}, **HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="table"') and "Chaibou" in body
    sitting.refresh_from_db()
    assert f'?v={sitting.version}"' in body  # the next poll asks about the new version


def test_the_other_phones_polls_show_the_region_the_tap_showed(sitting):
    tapping, polling = Client(), Client()
    page = tapping.get(url(sitting)).content.decode()
    seen = sitting.version
    answer = tapping.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX).content.decode()
    region = polling.get(url(sitting, "poll/"), {"v": seen}, **HX).content.decode()
    body = answer.split('role="status">', 1)[1].split("</p>\n", 1)[1]
    assert body in region and "Hand 1 recorded" not in region  # the same region, without the tapper's notice
    reloaded = polling.get(url(sitting)).content.decode()
    assert body in without_csrf_fields(reloaded)  # a whole page: the same, plus its forms' tokens
    assert without_csrf_fields(page) != page and without_csrf_fields(region) == region


def without_csrf_fields(html: str) -> str:
    """The page without what it holds for this phone alone: its forms' CSRF tokens and change keys."""
    return re.sub(r'<input type="hidden" name="(csrfmiddlewaretoken|key)" value="[^"]+">', "", html)


def test_a_renamed_group_player_shows_on_every_table_that_seats_them(client):
    group = Group.create("Les amis", ["Ana", "Ben", "Chloé"])
    sitting = group.start_match("agram", [p.pk for p in group.players.order_by("pk")])
    assert "Ben" in client.get(url(sitting)).content.decode()
    seen = Sitting.objects.get(pk=sitting.pk).version
    group.rename_player(group.players.get(name="Ben").pk, "Benoît")
    region = client.get(url(sitting, "poll/"), {"v": seen}, **HX)
    assert region.status_code == 200 and "Benoît" in region.content.decode()  # the poll sees a new version
    assert "Benoît" in client.get(url(sitting)).content.decode()


def test_a_restored_sitting_reaching_a_kept_version_again_shows_its_own_hands(sitting):
    """A backup restored puts a sitting's version back; the next change reaches a version another
    phone already saw, with other hands: that phone's page shows the new hands."""
    tapping, other = Client(), Client()
    before = Sitting.objects.get(pk=sitting.pk)
    tapping.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)  # hand 1: Aïcha, kept
    assert "Undo hand 1" in other.get(url(sitting)).content.decode()
    Hand.objects.filter(sitting=sitting).delete()  # the restore: back to before hand 1
    Seat.objects.filter(sitting=sitting).update(total=0, hands_won=0)
    Sitting.objects.filter(pk=sitting.pk).update(version=before.version, changed_at=before.changed_at)
    tapping.post(url(sitting, "tap/"), {"number": 1, "winner": 2})  # hand 1 again, Boubacar, plain form
    page = other.get(url(sitting)).content.decode()
    assert "Hand 1: <bdi>Boubacar</bdi> won it" in page and "Aïcha</bdi> won it" not in page


def test_the_table_region_names_its_stream_and_polls_only_through_live_js(client, sitting):
    page = client.get(url(sitting)).content.decode()
    assert f'data-version="{sitting.version}" data-events="{url(sitting, "events/")}"' in page
    assert f'hx-get="{url(sitting, "poll/")}?v={sitting.version}" hx-trigger="poll"' in page  # fired by live.js only
    assert "/static/live.js" in page


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.record_hand(2, 0),
        lambda s: s.undo_hand(1),
        lambda s: s.correct_hand(1, 3),
        lambda s: s.end_match(),
        lambda s: s.rematch(),
    ],
    ids=["tap", "undo", "correct", "end", "rematch"],
)
def test_every_change_bumps_the_version(sitting, change):
    sitting.record_hand(1, 2)
    sitting.refresh_from_db()
    before = sitting.version
    change(sitting)
    sitting.refresh_from_db()
    assert sitting.version == before + 1


def test_a_refused_change_leaves_the_version_alone(sitting):
    play(sitting, [1])
    sitting.refresh_from_db()
    before = sitting.version
    with pytest.raises(Exception):
        sitting.record_hand(1, 2)
    sitting.refresh_from_db()
    assert sitting.version == before


# --- polls that are not a phone's -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/s/%F0%9F%82%A1abcdefghijklmnop/poll/",  # not Latin-1: still a token that leads nowhere
        "/s/abcdefghijklmnop/poll/",
        "/s/short/poll/",
        "/s/{watch}/poll/",  # a watch token is no member link
        "/w/{member}/poll/",
    ],
)
def test_a_poll_at_a_link_that_leads_to_no_sitting_answers_404(client, sitting, path):
    path = path.format(watch=sitting.watch_token, member=sitting.token)
    for version in (str(sitting.version), "x"):
        response = client.get(path, {"v": version}, **HX, HTTP_HX_TARGET="table")  # as htmx polls
        assert response.status_code == 404 and response["HX-Retarget"] == "#table"
    assert client.get(path, {"v": sitting.version}).status_code == 404


@pytest.mark.parametrize(
    "request_kwargs, status",
    [
        ({"HTTP_HOST": "evil.example"}, 400),  # an unknown host is refused as everywhere
        ({"v": "x"}, 200),  # not a version: the poll view answers with the region
        ({"v": "1", "htmx": False}, 302),  # a plain request of the poll address goes to the table
    ],
    ids=["unknown-host", "not-a-version", "not-htmx"],
)
def test_polls_that_are_not_unchanged_htmx_polls_get_their_own_answers(client, sitting, request_kwargs, status):
    kwargs = dict(request_kwargs)
    version = kwargs.pop("v", str(sitting.version))
    headers = HX if kwargs.pop("htmx", True) else {}
    response = client.get(url(sitting, "poll/"), {"v": version}, **headers, **kwargs)
    assert response.status_code == status


@override_settings(SECURE_SSL_REDIRECT=True)
def test_a_plain_http_poll_is_redirected_to_https_like_any_request(client, sitting):
    response = client.get(url(sitting, "poll/"), {"v": sitting.version}, **HX)
    assert response.status_code == 301 and response["Location"].startswith("https://")


def served(environ: dict) -> tuple[str, bytes]:
    """`environ` through the WSGI application gunicorn serves (scorekeeper.wsgi): status and body."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from scorekeeper.wsgi import application

    answer: dict = {}
    # As Django's test client does: the test's database connection stays open through the request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, lambda status, headers, exc_info=None: answer.update(status=status)))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return answer["status"], body


def poll_environ(sitting, version, **extra) -> dict:
    from django.test import RequestFactory

    return RequestFactory().get(url(sitting, "poll/"), {"v": version}, **HX, **extra).environ


def test_under_gunicorn_polls_are_answered_by_django_s_own_application(sitting):
    from django.core.handlers.wsgi import WSGIHandler

    from scorekeeper.wsgi import application

    assert isinstance(application, WSGIHandler)
    assert served(poll_environ(sitting, sitting.version)) == ("204 No Content", b"")
    seen = sitting.version
    Client().post(url(sitting, "tap/"), {"number": 1, "winner": 3})  # another phone taps
    status, body = served(poll_environ(sitting, seen))
    assert status == "200 OK" and b'<section id="table"' in body
    assert served(poll_environ(sitting, seen, HTTP_HOST="evil.example"))[0].startswith("400")
