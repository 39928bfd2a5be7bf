"""Guessing the admin's password: after ADMIN_LOGIN_RATE_LIMIT wrong passwords from one client address,
or for one username, the admin's login form refuses every further try (429, saying how long to wait)
until the window ends (django-ratelimit's windows: at most the rate's period). Counted in the rate limits'
cache, by the client address the other limits use."""

import re
import time
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from tests.pages import fresh_counts  # noqa: F401 - autouse

PASSWORD = "the-operator-s-long-passphrase"
HOME = "192.0.2.10"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]


class Clock:
    """django-ratelimit's clock, moved by the test: every try in one window, whenever the test runs."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


@pytest.fixture
def frozen_clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("django_ratelimit.core.time", SimpleNamespace(time=clock.time))
    return clock


@pytest.fixture(autouse=True)
def operator():
    return User.objects.create_superuser("operator", "operator@example.org", PASSWORD)


def login(username: str, password: str, address: str = HOME, **extra):
    """One try at the admin's login form, from a fresh browser at `address`."""
    data = {"username": username, "password": password, "next": "/admin/"}
    return Client().post("/admin/login/", data, REMOTE_ADDR=address, **extra)


@override_settings(ADMIN_LOGIN_RATE_LIMIT="5/15m")
def test_thirty_wrong_passwords_get_five_tries_then_a_429_saying_how_long_to_wait():
    answers = [login("operator", f"guess-{n}") for n in range(30)]
    assert [answer.status_code for answer in answers] == [200] * 5 + [429] * 25
    refused = answers[-1]
    wait = r"Too many wrong passwords: wait (a minute|\d+ minutes), then try again\."
    assert re.search(wait, refused.content.decode())
    assert 0 < int(refused["Retry-After"]) <= 15 * 60  # till the window ends
    assert login("operator", PASSWORD).status_code == 429  # even the right password waits


@override_settings(ADMIN_LOGIN_RATE_LIMIT="5/15m")
def test_a_username_guessed_from_many_addresses_is_refused_from_every_address():
    for n in range(5):
        assert login("Operator ", f"guess-{n}", address=f"198.51.100.{n}").status_code == 200
    assert login("operator", PASSWORD, address="203.0.113.9").status_code == 429


@override_settings(ADMIN_LOGIN_RATE_LIMIT="5/15m")
def test_an_address_guessing_many_usernames_is_refused_for_every_username_others_log_in():
    for n in range(5):
        assert login(f"name-{n}", "guess").status_code == 200
    assert login("operator", PASSWORD).status_code == 429
    assert login("operator", PASSWORD, address="203.0.113.9").status_code == 302


@override_settings(ADMIN_LOGIN_RATE_LIMIT="5/15m")
def test_a_right_password_after_four_wrong_ones_logs_in():
    for n in range(4):
        login("operator", f"guess-{n}")
    answer = login("operator", PASSWORD)
    assert answer.status_code == 302 and answer["Location"] == "/admin/"


@override_settings(ADMIN_LOGIN_RATE_LIMIT="5/15m")
def test_the_refusal_ends_with_its_window(frozen_clock):
    for n in range(5):
        login("operator", f"guess-{n}")
    assert login("operator", PASSWORD).status_code == 429
    frozen_clock.now += 16 * 60
    assert login("operator", PASSWORD).status_code == 302


@override_settings(ADMIN_LOGIN_RATE_LIMIT="2/15m")
def test_the_refusal_comes_in_the_readers_language():
    french = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9"}
    for n in range(2):
        login("operator", f"guess-{n}", **french)
    refused = login("operator", PASSWORD, **french)
    assert refused.status_code == 429 and "Trop de mots de passe faux" in refused.content.decode()


def test_the_form_itself_is_still_shown_to_a_refused_address():
    """Only the tries are refused: the page asking for the password still opens."""
    with override_settings(ADMIN_LOGIN_RATE_LIMIT="1/15m"):
        login("operator", "guess")
        assert login("operator", PASSWORD).status_code == 429
        assert Client().get("/admin/login/", REMOTE_ADDR=HOME).status_code == 200
