"""One table, many phones: watch links, rotated links, live polling, who tapped, headers, rate limit."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

from matches.models import Group, Hand, Seat, Sitting

from tests.conftest import play, shown, snapshot
from tests.web.test_views import HX, url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
ROOT = Path(__file__).resolve().parents[2]


def watch_url(sitting, name=""):
    return f"/w/{sitting.watch_token}/{name}"


# --- polling -----------------------------------------------------------------------


def test_poll_answers_204_with_no_body_while_nothing_changed(client, sitting):
    response = client.get(url(sitting, "poll/"), {"v": sitting.version}, **HX)
    assert response.status_code == 204 and response.content == b""


@pytest.mark.parametrize("link", ["s", "w"])
def test_an_unchanged_poll_is_a_bare_204_in_one_query(client, sitting, link, django_assert_num_queries):
    token = sitting.token if link == "s" else sitting.watch_token
    with django_assert_num_queries(1):
        response = client.get(f"/{link}/{token}/poll/", {"v": sitting.version}, **HX)
    assert response.status_code == 204 and response.content == b""
    assert "no-store" in response["Cache-Control"] and "HX-Request" in response["Vary"]
    assert not response.cookies  # nothing read or set: no session, no CSRF cookie


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


# --- what gunicorn serves ----------------------------------------------------------------------


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
    return re.sub(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]+">', "", html)


def test_a_page_s_forms_carry_this_phone_s_token_and_work_without_javascript(sitting):
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    first.get(url(sitting))
    page = second.get(url(sitting)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = second.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "csrfmiddlewaretoken": token})
    assert response.status_code == 302 and sitting.hands.count() == 1


def test_a_renamed_group_player_shows_on_every_table_that_seats_them(client):
    group = Group.create("Les amis", ["Ana", "Ben", "Chloé"])
    sitting = group.start_match("agram", [p.pk for p in group.players.order_by("pk")])
    assert "Ben" in client.get(url(sitting)).content.decode()
    seen = Sitting.objects.get(pk=sitting.pk).version
    group.rename_player(group.players.get(name="Ben").pk, "Benoît")
    region = client.get(url(sitting, "poll/"), {"v": seen}, **HX)
    assert region.status_code == 200 and "Benoît" in region.content.decode()  # the poll sees a new version
    assert "Benoît" in client.get(url(sitting)).content.decode()


@override_settings(ALLOWED_HOSTS=["testserver", "scores.example"])
def test_the_share_panel_shows_each_phone_its_own_seat_and_host(sitting):
    ana, ben = Client(), Client()
    ana.get(url(sitting))
    ana.post(url(sitting, "me/"), {"seat": "2"})
    assert '<option value="2" selected>' in ana.get(url(sitting)).content.decode()
    page = ben.get(url(sitting)).content.decode()
    assert "selected>" not in page and "http://testserver/s/" in page
    elsewhere = ben.get(url(sitting), HTTP_HOST="scores.example").content.decode()
    assert "http://scores.example/s/" in elsewhere and "testserver" not in elsewhere


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


@pytest.mark.parametrize("game, extras", [("agram", {}), ("fapfap", {"multiplier": "2"})])
def test_the_watch_link_never_shows_the_member_link(client, game, extras):
    sitting = Sitting.start(game, ["Aïcha", "Boubacar", "Chaibou"], stake_amount=100 if game == "fapfap" else None)
    seen = sitting.version
    for number in range(1, 10):  # more hands than the table shows: "and 3 earlier hands"
        client.post(url(sitting, "tap/"), {"number": number, "winner": 1 + number % 3, **extras})
    watch = f"/w/{sitting.watch_token}/"
    pages = [client.get(watch).content.decode(), client.get(watch + "poll/", {"v": seen}, **HX).content.decode()]
    sitting.end_match()
    pages += [client.get(watch).content.decode(), client.get(watch + "poll/", {"v": seen}, **HX).content.decode()]
    assert "earlier hands" in pages[0] and "Match over" in pages[2]
    for page in pages:
        assert sitting.token not in page


def test_poll_answers_the_new_region_after_a_change(client, sitting):
    seen = sitting.version
    Client().post(url(sitting, "tap/"), {"number": 1, "winner": 3})  # another phone taps
    response = client.get(url(sitting, "poll/"), {"v": seen}, **HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="table"') and "Chaibou" in body
    sitting.refresh_from_db()
    assert f'?v={sitting.version}"' in body  # the next poll asks about the new version


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


def test_the_table_region_names_its_stream_and_polls_only_through_live_js(client, sitting):
    page = client.get(url(sitting)).content.decode()
    assert f'data-version="{sitting.version}" data-events="{url(sitting, "events/")}"' in page
    assert f'hx-get="{url(sitting, "poll/")}?v={sitting.version}" hx-trigger="poll"' in page  # fired by live.js only
    assert "/static/live.js" in page


# --- watch link ------------------------------------------------------------------------


def test_the_watch_link_shows_the_score_with_no_control_and_no_member_link(client, sitting):
    play(sitting, [2])
    page = client.get(watch_url(sitting)).content.decode()
    assert "Chaibou" in page and "watching" in page
    assert sitting.token not in page
    for control in ('name="winner"', "Undo hand", "End match", "Correct", "/tap/", "make new links"):
        assert control not in page
    assert f'hx-get="{watch_url(sitting, "poll/")}?v=' in page


def test_the_watch_link_says_who_deals_and_who_leads_as_the_players_phones_do(client, sitting):
    play(sitting, [2])  # Agram: Chaibou won, deals hand 2; the next seat leads
    said = shown(client.get(watch_url(sitting)).content.decode())
    member = shown(client.get(f"/s/{sitting.token}/").content.decode())
    assert "Chaibou deals, Djibo leads." in said and "Chaibou deals, Djibo leads." in member


def test_the_watch_poll_answers_like_the_members(client, sitting):
    assert client.get(watch_url(sitting, "poll/"), {"v": sitting.version}, **HX).status_code == 204
    play(sitting, [1])
    response = client.get(watch_url(sitting, "poll/"), {"v": 1}, **HX)
    assert response.status_code == 200 and sitting.token not in response.content.decode()


@pytest.mark.parametrize("path", ["", "tap/", "undo/", "end/", "rematch/", "poll/", "links/"])
def test_a_watch_link_cannot_change_anything(client, sitting, path):
    play(sitting, [1])
    before = snapshot(sitting)
    for target in (watch_url(sitting, path), f"/s/{sitting.watch_token}/{path}"):
        response = client.post(target, {"number": 2, "winner": 1, "stamp": "x"}, **HX)
        assert response.status_code in (404, 405)
    assert snapshot(sitting) == before


# --- rotating links -----------------------------------------------------------------------


def test_rotated_links_stop_working_and_the_new_ones_work(client, sitting):
    old_member, old_watch = sitting.token, sitting.watch_token
    response = client.post(url(sitting, "links/"))
    sitting.refresh_from_db()
    assert sitting.token != old_member and sitting.watch_token != old_watch
    assert response["Location"] == url(sitting)
    for dead in (f"/s/{old_member}/", f"/w/{old_watch}/", f"/s/{old_member}/poll/?v=1"):
        assert client.get(dead, **HX).status_code == 404
    assert client.post(f"/s/{old_member}/tap/", {"number": 1, "winner": 1}).status_code == 404
    assert client.get(url(sitting)).status_code == 200
    assert client.session["sittings"] == [sitting.token]


# --- who tapped --------------------------------------------------------------------------


def test_a_phone_can_say_which_seat_it_holds_and_its_taps_are_traced(client, sitting):
    client.get(url(sitting))
    assert client.post(url(sitting, "me/"), {"seat": 4}).status_code == 302
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 3}, **HX)
    other = Client()
    other.post(url(sitting, "tap/"), {"number": 2, "winner": 1}, **HX)
    first, second = sitting.hands.order_by("number")
    assert first.recorded_by_seat == 3 and first.recorded_by_phone
    assert second.recorded_by_seat is None and second.recorded_by_phone not in ("", first.recorded_by_phone)
    history = shown(client.get(url(sitting, "hands/")).content.decode())
    assert "by Djibo" in history and "by another phone" in history and second.recorded_by_phone not in history
    client.post(url(sitting, "hands/1/"), {"number": 1, "winner": 2})
    assert "corrected" in client.get(url(sitting, "hands/")).content.decode()
    assert sitting.hands.get(number=1).corrected_by_seat == 3


@pytest.mark.parametrize("seat", ["9", "0", "x", "1" * 50])
def test_claiming_a_seat_that_is_not_there_is_refused(client, sitting, seat):
    response = client.post(url(sitting, "me/"), {"seat": seat})
    assert response.status_code == 400 and "Pick your name" in response.content.decode()


def test_the_table_page_offers_a_qr_code_and_the_links(client, sitting):
    page = client.get(url(sitting)).content.decode()
    assert '<svg width="' in page and 'class="segno"' in page
    assert f'value="http://testserver/s/{sitting.token}/"' in page
    assert f'value="http://testserver/w/{sitting.watch_token}/"' in page
    assert "data-share=" in page and 'data-copy="#member-link"' in page and 'data-copy="#watch-link"' in page


def test_the_qr_code_is_made_once_per_link_not_per_view(client, sitting, monkeypatch):
    import segno

    made = []
    real = segno.make
    monkeypatch.setattr(segno, "make", lambda *args, **kwargs: made.append(args[0]) or real(*args, **kwargs))
    first = client.get(url(sitting)).content.decode()
    assert client.get(url(sitting)).content.decode().count('class="segno"') == 1
    assert made == [f"http://testserver/s/{sitting.token}/"] and 'class="segno"' in first
    sitting.rotate_links()
    client.get(url(sitting))
    assert made[-1] == f"http://testserver/s/{sitting.token}/" and len(made) == 2  # new links, a new code


# --- headers, limits, deploy check ----------------------------------------------------------------


def page_of(sitting, name: str) -> str:
    """The address of one of `sitting`'s pages by a short name; other names are addresses already."""
    return {
        "table": url(sitting),
        "watch": watch_url(sitting),
        "history": url(sitting, "hands/"),
        "end": url(sitting, "end/"),
        "poll": url(sitting, "poll/?v=0"),
    }.get(name, name)


@pytest.mark.parametrize("path", ["/", "/start/", "/start/agram/", "table", "watch", "history", "end", "/nowhere/"])
def test_security_headers_on_every_page(client, sitting, path):
    response = client.get(page_of(sitting, path))
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "default-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("path", ["table", "watch", "poll", "history"])
def test_sitting_pages_are_never_stored(client, sitting, path):
    assert "no-store" in client.get(page_of(sitting, path), **HX)["Cache-Control"]


def test_pages_load_no_third_party_resource(client, sitting):
    page = client.get(url(sitting)).content.decode()
    assert "http://" not in page.replace("http://testserver/", "") and "https://" not in page


def test_check_deploy_is_clean_under_production_settings(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "scorekeeper.settings",
        "DEBUG": "0",
        "SECRET_KEY": "k" * 20 + "a-long-random-production-key-0123456789-!@#$%",
        "ALLOWED_HOSTS": "score.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://score.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def settings_key(env_file) -> subprocess.CompletedProcess:
    """Start the production settings without SECRET_KEY, keeping it in `env_file`; print the key."""
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DJANGO_SETTINGS_MODULE="scorekeeper.settings", DEBUG="0", ENV_FILE=str(env_file))
    script = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)


def test_without_a_secret_key_an_install_makes_one_once_and_keeps_it(tmp_path):
    first, again = settings_key(tmp_path / ".env"), settings_key(tmp_path / ".env")
    key = first.stdout.strip()
    assert first.returncode == 0 and len(key) >= 50 and again.stdout.strip() == key
    assert (tmp_path / ".env").read_text() == f"SECRET_KEY={key}\n"
    assert (tmp_path / ".env").stat().st_mode & 0o077 == 0  # readable by its owner alone
    other = settings_key(tmp_path / "other.env").stdout.strip()
    assert other and other != key  # never a fixed, public key


def test_without_a_secret_key_or_a_place_to_keep_one_the_start_says_what_to_set(tmp_path):
    result = settings_key(tmp_path / "missing-folder" / ".env")
    assert result.returncode != 0 and "Set SECRET_KEY" in result.stderr


@pytest.mark.parametrize("path", ["/", "end", "csv", "rotate", "rematch"])
def test_every_answer_that_carries_a_link_or_a_score_is_never_stored(client, sitting, path):
    if path == "rematch":
        sitting.end_match()
    response = {
        "/": lambda: client.get("/"),
        "end": lambda: client.get(url(sitting, "end/")),
        "csv": lambda: client.get(url(sitting, "hands.csv")),
        "rotate": lambda: client.post(url(sitting, "links/")),
        "rematch": lambda: client.post(url(sitting, "rematch/")),
    }[path]()
    assert "no-store" in response["Cache-Control"]


def test_rotating_a_rematchs_links_cuts_it_off_from_the_first_match(client, sitting):
    sitting.end_match()
    rematch = sitting.rematch()
    client.post(url(rematch, "links/"))
    rematch.refresh_from_db()
    page = Client().get(url(sitting)).content.decode()
    assert rematch.token not in page and "Go to the rematch" not in page
    assert Client().post(url(sitting, "rematch/"))["Location"] != url(rematch)


@override_settings(LAN_HOST="192.0.2.7", ALLOWED_HOSTS=["127.0.0.1", "localhost", "testserver"])
@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000"])
def test_links_shown_on_the_laptop_itself_give_phones_its_lan_address(client, sitting, host):
    page = client.get(url(sitting), HTTP_HOST=host).content.decode()
    assert f'value="http://192.0.2.7:8000/s/{sitting.token}/"' in page
    assert f'value="http://192.0.2.7:8000/w/{sitting.watch_token}/"' in page
    assert "127.0.0.1:8000/s/" not in page and "localhost:8000/s/" not in page


@override_settings(LAN_HOST="192.0.2.7", ALLOWED_HOSTS=["score.example.org", "testserver"])
def test_links_on_a_named_host_keep_its_name(client, sitting):
    page = client.get(url(sitting), HTTP_HOST="score.example.org").content.decode()
    assert f'value="http://score.example.org/s/{sitting.token}/"' in page


@pytest.mark.parametrize("method", ["trace", "put", "delete"])
def test_home_answers_only_reads(client, method):
    assert getattr(client, method)("/").status_code == 405


@pytest.mark.parametrize("name", ["RETENTION_DAYS", "CONN_MAX_AGE"])
def test_a_setting_that_is_not_a_whole_number_stops_the_start_with_its_name(name):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "scorekeeper.settings", "DEBUG": "1", name: "abc"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and f"{name} must be a whole number" in result.stderr
