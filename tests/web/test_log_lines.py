"""The server log names a table or a group by a label that grants nothing, never by its link's token:
whoever reads the log (an operator, a log collector) cannot tap, undo or reissue through it. The same
token gets the same label, so the lines of one table can still be told apart and read together."""

import logging

import pytest
from django.test import Client

from matches.models import Sitting

from scorekeeper.logs import label
from tests.pages import HX, url, watch_url

pytestmark = pytest.mark.django_db


def told(caplog) -> list[str]:
    """Every record as the log would show it: its message, its arguments and the formatted line."""
    return [part for record in caplog.records for part in (record.getMessage(), repr(record.args))] + [caplog.text]


def test_refused_and_unknown_links_are_logged_by_a_label_not_by_their_token(sitting, caplog):
    gone = Sitting.start("spar", ["Ana", "Ben"])
    gone_token = gone.token
    gone.rotate_links()  # a leaked link made new: the old one answers 404
    phone = Client(enforce_csrf_checks=True)
    caplog.set_level(logging.WARNING)
    assert phone.post(url(sitting, "tap/"), {"number": 1, "winner": 1}, **HX).status_code == 403  # no CSRF token
    assert Client().post(url(sitting, "poll/")).status_code == 405
    assert phone.get(f"/s/{gone_token}/").status_code == 404
    assert phone.get(f"/g/{gone_token}/").status_code == 404
    assert phone.get(f"/gw/{gone_token}/stats/").status_code == 404
    assert phone.get(watch_url(sitting, "nothing/")).status_code == 404
    assert phone.get(f"/s//{sitting.token}/nothing/").status_code == 404  # a doubled slash
    lines = told(caplog)
    assert len(caplog.records) >= 6
    for secret in (sitting.token, sitting.watch_token, gone_token):
        assert not [line for line in lines if secret in line], secret
    assert f"/s/{label(sitting.token)}/tap/" in caplog.text  # one table's lines, told apart from others
    assert f"/s/{label(gone_token)}/" in caplog.text and f"/gw/{label(gone_token)}/stats/" in caplog.text


def test_a_link_in_a_message_of_our_own_or_in_an_error_is_hidden_too(sitting, caplog):
    logger = logging.getLogger("matches.web")
    with caplog.at_level(logging.WARNING):
        logger.warning("lost %s", f"http://laptop:8000/s/{sitting.token}/events/")
        logger.warning("lost /w/%s/ and %%2Fs%%2F%s", sitting.watch_token, sitting.token)
        logger.warning("Not Found: //s//%s/", sitting.token)  # as a server reads a raw request line
        try:
            raise ValueError(f"no answer for /s/{sitting.token}/tap/")
        except ValueError:
            logger.exception("failed")
    assert not [line for line in told(caplog) if sitting.token in line or sitting.watch_token in line]
    assert caplog.text.count(label(sitting.token)) == 4


def test_a_token_elsewhere_in_an_address_or_a_host_is_hidden_too(sitting, caplog):
    """A link mangled on its way (another first segment, none, a file's name) or a token in a Host header."""
    token = sitting.token
    phone = Client()
    caplog.set_level(logging.WARNING)
    for path in (f"/x/{token}/", f"/{token}", f"/static/{token}.js", f"/S/{token}/tap/"):
        assert phone.get(path).status_code in (301, 400, 404, 405)
    for host in (f"evil.{token}.com", f"{token}.lan.test", token, f"{token}:8000"):
        assert phone.get("/", HTTP_HOST=host).status_code == 400
    lines = told(caplog)
    assert len(caplog.records) >= 4
    assert not [line for line in lines if token in line or token.lower() in line]
    assert f"/x/{label(token)}/" in caplog.text


@pytest.mark.engine
def test_a_database_error_quoting_its_statement_logs_no_part_of_a_token(sitting, caplog):
    """PostgreSQL quotes the failed statement with its values written in, cut anywhere ("LINE 1: ... WHERE
    "token" = 'Cw39WKvu..."), then a caret, DETAIL and CONTEXT lines: none of it reaches the log."""
    from django.db import DatabaseError, connection, transaction

    logger = logging.getLogger("matches.web")
    with caplog.at_level(logging.WARNING), pytest.raises(DatabaseError) as failed:
        with transaction.atomic(), connection.cursor() as cursor:  # a broken statement, as a lost connection's
            cursor.execute('SELECT * FROM "matches_sitting" WHERE "token" = %s AND', [sitting.token])
    with caplog.at_level(logging.WARNING):
        logger.warning("database connection lost (run 3 of POST /s/%s/tap/): %s", sitting.token, failed.value)
        quoted = f'''SELECT * FROM "matches_group" WHERE "watch_token" = '{sitting.watch_token[:13]}...'''
        logger.warning("lost: terminating connection due to administrator command\nLINE 1: %s\n%s^\n"
                       "DETAIL:  Key (token)=(%s) already exists.\nCONTEXT:  while locking tuple (0,1)", quoted,
                       " " * 40, sitting.token[3:])
    lines = told(caplog)
    for secret in (sitting.token, sitting.watch_token):
        assert not [line for line in lines if secret[:6] in line or secret[3:9] in line], secret
    assert "terminating connection due to administrator command" in caplog.text  # what happened stays
    assert f"/s/{label(sitting.token)}/tap/" in caplog.text


def test_a_label_is_short_steady_and_not_the_token(sitting):
    assert label(sitting.token) == label(sitting.token) != label(sitting.watch_token)
    assert len(label(sitting.token)) <= 10 and sitting.token[:4] not in label(sitting.token)


def test_a_request_too_big_is_told_what_is_wrong_and_logged_in_one_line(sitting, caplog):
    caplog.set_level(logging.WARNING)
    fields = {f"field{i}": "x" for i in range(1500)}  # over Django's 1,000
    many = Client().post(url(sitting, "tap/"), fields, HTTP_ACCEPT_LANGUAGE="fr")
    big = Client().post(url(sitting, "tap/"), {"name": "x" * 3_000_000}, **HX)  # over Django's 2.5 MB
    assert many.status_code == 400 and "Cette demande a trop de champs" in many.content.decode()
    assert big.status_code == 413 and "This request is too big" in big.content.decode()
    assert sitting.hands.count() == 0
    refused = [r for r in caplog.records if r.name.startswith("django.security.")]
    assert len(refused) == 2 and not [r for r in refused if r.exc_info or r.exc_text]
    assert "Traceback" not in caplog.text
