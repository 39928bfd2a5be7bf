"""A full disk is not a lost database: the phone is told "Not saved: try again" (503, never a 500) and the
operator's log says the server's disk is full, whether SQLite, PostgreSQL or a file write found it."""

from __future__ import annotations

import errno
import logging
import sqlite3
import sys

import psycopg
import pytest
from django.db import OperationalError
from django.test import RequestFactory

from matches.models import Sitting
from matches.web.views.errors import server_error
from tests.conftest import WORKED
from tests.pages import HX

pytestmark = pytest.mark.django_db(transaction=True)  # the view runs outside a test's own transaction
FR = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9"}


def wrapped(driver_error: Exception) -> OperationalError:
    """The driver's error as Django raises it: its own OperationalError, caused by the driver's."""
    try:
        raise driver_error
    except Exception as error:
        try:
            raise OperationalError(*error.args) from error
        except OperationalError as django_error:
            return django_error


FULL_DISKS = {
    "sqlite": lambda: wrapped(sqlite3.OperationalError("database or disk is full")),
    "postgresql": lambda: wrapped(psycopg.errors.DiskFull('could not extend file "base/1/2": No space left on device')),
    "file": lambda: OSError(errno.ENOSPC, "No space left on device"),
}


def full_disk(monkeypatch, verb: str, kind: str) -> list[int]:
    """Make `verb` of every sitting fail as it does on a full disk; returns the list of its calls."""
    calls = []

    def failing(self, *args, **kwargs):
        calls.append(1)
        raise FULL_DISKS[kind]()

    monkeypatch.setattr(Sitting, verb, failing)
    return calls


@pytest.mark.parametrize("kind", FULL_DISKS)
def test_a_tap_on_a_full_disk_says_not_saved_and_the_log_says_the_disk_is_full(client, monkeypatch, caplog, kind):
    sitting = Sitting.start("agram", WORKED)
    calls = full_disk(monkeypatch, "record_hand", kind)
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 2}, **HX)
    assert response.status_code == 503 and response["Retry-After"].isdecimal()
    body = response.content.decode()
    assert "Not saved: try again." in body and "lost its database" not in body
    assert "the server's disk is full" in caplog.text and "connection lost" not in caplog.text
    assert len(calls) == 1  # not run again at once: a full disk stays full until someone frees space
    assert sitting.hands.count() == 0


@pytest.mark.parametrize("kind", FULL_DISKS)
def test_a_form_change_on_a_full_disk_says_not_saved_in_the_readers_language(client, monkeypatch, caplog, kind):
    sitting = Sitting.start("agram", WORKED)
    full_disk(monkeypatch, "end_match", kind)
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/s/{sitting.token}/end/", {"number": 1}, **FR)
    assert response.status_code == 503 and "Non enregistré\u00a0: réessayez." in response.content.decode()
    assert "the server's disk is full" in caplog.text


def test_a_lost_connection_is_still_told_as_one(client, monkeypatch, caplog):
    """Only a full disk is told apart: any other OperationalError is the database away for a moment."""
    sitting = Sitting.start("agram", WORKED)

    def lost(self, *args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(Sitting, "end_match", lost)
    with caplog.at_level(logging.WARNING):
        response = client.post(f"/s/{sitting.token}/end/", {"number": 1}, **HX)
    assert response.status_code == 503 and "The server lost its database" in response.content.decode()
    assert "database connection lost" in caplog.text and "disk is full" not in caplog.text


@pytest.mark.parametrize("kind", FULL_DISKS)
def test_a_full_disk_outside_any_view_is_a_503_not_saved_not_a_500(kind, caplog):
    request = RequestFactory().post("/s/x/tap/")
    with caplog.at_level(logging.WARNING):
        try:
            raise FULL_DISKS[kind]()
        except Exception:
            response = server_error(request)
    assert sys.exc_info() == (None, None, None)
    assert response.status_code == 503 and "Not saved: try again." in response.content.decode()
    assert "the server's disk is full" in caplog.text
