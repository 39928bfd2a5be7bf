"""What keeps a table's changes to its own phones and its links and scores out of other hands: CSRF
tokens (in each plain form, in htmx's header, never in a region htmx swaps in), form posts only from
this site, the security headers, answers never stored, no resource from another site; and the
production settings: `check --deploy` clean, a secret key made once and kept, a bad setting named."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Sitting

from tests.pages import HX, url, watch_url

# Headers, tokens and settings, the same on any engine: the SQLite leg only (the production settings on
# PostgreSQL start in every server of tests/operations, on both legs).
pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_csrf_is_enforced_and_htmx_sends_the_token_from_body_hx_headers(sitting):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    refused = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX)
    assert refused.status_code == 403 and sitting.hands.count() == 0
    assert "Reload the page" in refused.content.decode()
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    accepted = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX)
    assert accepted.status_code == 200 and sitting.hands.count() == 1


def test_a_plain_form_refused_for_its_csrf_token_leads_back_to_its_page_not_to_a_reload_that_posts_again(sitting):
    phone = Client(enforce_csrf_checks=True)
    phone.get(url(sitting))
    refused = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    page = refused.content.decode()
    assert refused.status_code == 403 and sitting.hands.count() == 0
    assert "nothing was done" in page and "Reload" not in page
    assert f'href="{url(sitting)}"' in page  # the table itself, where the tap can be made again


def test_a_page_s_forms_carry_this_phone_s_token_and_work_without_javascript(sitting):
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    first.get(url(sitting))
    page = second.get(url(sitting)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = second.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "csrfmiddlewaretoken": token})
    assert response.status_code == 302 and sitting.hands.count() == 1


def test_the_table_region_htmx_swaps_in_carries_no_csrf_token_while_a_plain_page_keeps_them(sitting):
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 2  # the tap form and the share panel's, for no JavaScript
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    answer = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX)
    region = answer.content.decode()
    assert answer.status_code == 200 and 'name="number" value="2"' in region
    assert "csrfmiddlewaretoken" not in region  # htmx sends the header of <body hx-headers> instead
    again = phone.post(url(sitting, "tap/"), {"number": 2, "winner": 2}, HTTP_X_CSRFTOKEN=token, **HX)
    assert again.status_code == 200 and sitting.hands.count() == 2
    assert "csrfmiddlewaretoken" not in phone.get(url(sitting, "poll/"), {"v": 0}, **HX).content.decode()


def test_the_rematch_form_of_a_match_ended_by_an_htmx_tap_carries_its_csrf_token(db):
    """The rematch button is a plain form (it loads a new page), not an htmx one: it needs its token."""
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"], MatchEnd(MatchEndKind.WINS, 1))
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(url(sitting)).content.decode()
    token = page.split('hx-headers=\'{"X-CSRFToken": "')[1].split('"')[0]
    region = phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, HTTP_X_CSRFTOKEN=token, **HX).content.decode()
    assert "Match over" in region
    form_token = re.search(
        r'action="[^"]*/rematch/"><input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"', region
    )
    assert form_token, region
    rematch = phone.post(url(sitting, "rematch/"), {"csrfmiddlewaretoken": form_token[1]})
    assert rematch.status_code == 302 and Sitting.objects.count() == 2


@pytest.mark.parametrize("origin, status", [("http://testserver", 302), ("https://elsewhere.example", 403)])
def test_plain_form_posts_pass_only_from_this_site(sitting, origin, status):
    """Pages send Referrer-Policy: same-origin, so browsers send this site's Origin on its form POSTs."""
    phone = Client(enforce_csrf_checks=True)
    assert phone.get(url(sitting))["Referrer-Policy"] == "same-origin"
    token = phone.cookies["csrftoken"].value
    response = phone.post(
        url(sitting, "tap/"),
        {"number": 1, "winner": 1, "csrfmiddlewaretoken": token},
        HTTP_ORIGIN=origin,
    )
    assert response.status_code == status
    assert sitting.hands.count() == (1 if status == 302 else 0)


# --- headers --------------------------------------------------------------------------------------


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


def test_a_request_for_a_host_not_served_gets_the_security_headers_too(client):
    response = client.get("/", HTTP_HOST="elsewhere.example")
    assert response.status_code == 400 and response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin" and "default-src 'self'" in response["Content-Security-Policy"]


def test_media_come_from_the_app_or_a_data_url_only(client):
    """NoSleep.js's tiny keep-awake video is a data: URL (static/vendor/nosleep)."""
    assert "media-src 'self' data:;" in client.get("/")["Content-Security-Policy"] + ";"


@pytest.mark.parametrize("path", ["table", "watch", "poll", "history"])
def test_sitting_pages_are_never_stored(client, sitting, path):
    assert "no-store" in client.get(page_of(sitting, path), **HX)["Cache-Control"]


@pytest.mark.parametrize("path", ["/", "csv", "rotate", "rematch"])
def test_every_answer_that_carries_a_link_or_a_score_is_never_stored(client, sitting, path):
    """Home too: it lists this phone's matches, which other pages change, and Back must show it afresh."""
    if path == "rematch":
        sitting.end_match()
    response = {
        "/": lambda: client.get("/"),
        "csv": lambda: client.get(url(sitting, "hands.csv")),
        "rotate": lambda: client.post(url(sitting, "links/")),
        "rematch": lambda: client.post(url(sitting, "rematch/")),
    }[path]()
    assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize("path", ["table", "watch", "history", "end", "group"])
def test_a_page_with_a_link_is_kept_by_no_proxy_and_asked_for_again_but_may_wait_in_the_back_forward_cache(
    client, sitting, path
):
    """No `no-store` on a page the phone opened: it would keep the page out of the browser's back/forward cache."""
    group = Group.create("Vendredi", ["Aïcha", "Boubacar"])
    address = {"group": f"/g/{group.token}/"}.get(path) or page_of(sitting, path)
    response = client.get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-cache, max-age=0, must-revalidate"


def test_pages_load_no_third_party_resource(client, sitting):
    page = client.get(url(sitting)).content.decode()
    assert "http://" not in page.replace("http://testserver/", "") and "https://" not in page


# --- the production settings ----------------------------------------------------------------------


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


@pytest.mark.parametrize("name", ["RETENTION_DAYS", "CONN_MAX_AGE"])
def test_a_setting_that_is_not_a_whole_number_stops_the_start_with_its_name(name):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "scorekeeper.settings", "DEBUG": "1", name: "abc"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and f"{name} must be a whole number" in result.stderr
