"""On PostgreSQL an unchanged poll reads the version with a statement prepared once per connection
(matches.models.version_read): prepared on first use, again on a new connection or when the
server forgot it, its round trips counted as Django counts queries."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.models.version_read import sitting_version
from matches.models import Sitting

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL's prepared statement"),
]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def sitting() -> Sitting:
    return Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])


def poll(sitting: Sitting, link: str = "s"):
    token = sitting.token if link == "s" else sitting.watch_token
    return Client().get(f"/{link}/{token}/poll/", {"v": sitting.version}, **HX)


def test_a_connections_first_poll_prepares_the_statement_and_the_next_ones_only_run_it(sitting):
    connection.close()
    with CaptureQueriesContext(connection) as first:
        assert poll(sitting).status_code == 204
    with CaptureQueriesContext(connection) as second:
        assert poll(sitting).status_code == 204
    assert [query["sql"].split()[0] for query in first] == ["PREPARE", "EXECUTE"]
    assert [query["sql"].split()[0] for query in second] == ["EXECUTE"]


def test_each_link_has_its_statement_and_an_unknown_token_reads_none(sitting):
    assert sitting_version("token", sitting.token) == sitting.version
    assert sitting_version("watch_token", sitting.watch_token) == sitting.version
    assert sitting_version("token", sitting.watch_token) is None
    assert poll(sitting, "w").status_code == 204


def test_a_new_connection_prepares_it_again(sitting):
    assert poll(sitting).status_code == 204
    connection.close()
    assert poll(sitting).status_code == 204


def test_a_statement_the_server_forgot_leaves_that_poll_to_django_and_is_prepared_again(sitting):
    assert poll(sitting).status_code == 204
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # as a pooler that hands out another server connection would
    with CaptureQueriesContext(connection) as forgotten:
        assert poll(sitting).status_code == 204  # answered by the poll view, after the failed EXECUTE
    with CaptureQueriesContext(connection) as again:
        assert poll(sitting).status_code == 204
    assert forgotten[0]["sql"].startswith("EXECUTE")
    assert len(forgotten) > 1  # the view read the sitting itself
    assert [query["sql"].split()[0] for query in again] == ["PREPARE", "EXECUTE"]


def test_a_dropped_connection_leaves_that_poll_to_django_which_connects_again(sitting):
    """The server ended the worker's connection (a restart, an idle timeout): under gunicorn the poll
    goes to Django's handling, which finds the connection unusable, opens a new one and answers."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connections
    from django.test import RequestFactory

    from matches.web.middleware import answer_polls_before_django

    assert poll(sitting).status_code == 204
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()
    answer = {}
    environ = RequestFactory().get(f"/s/{sitting.token}/poll/", {"v": sitting.version}, **HX).environ
    body = b"".join(
        answer_polls_before_django(WSGIHandler())(
            environ, lambda status, headers, exc_info=None: answer.update(s=status)
        )
    )
    assert (answer["s"], body) == ("204 No Content", b"")
    assert poll(sitting).status_code == 204  # and the next poll takes the fast way again


def test_a_statement_that_failed_but_stays_on_the_server_is_prepared_again_under_another_name(sitting, monkeypatch):
    """Its EXECUTE failed while the server kept it (a migration changed the column it returns): the
    next poll prepares it afresh instead of asking for a name the server already has."""
    from django.db import DatabaseError

    from matches.models import version_read

    assert poll(sitting).status_code == 204
    real, failed = version_read._sent, []

    def fails_once(wrapper, sql, send):
        if sql.startswith("EXECUTE") and not failed:
            failed.append(sql)
            raise DatabaseError("cached plan must not change result type")
        return real(wrapper, sql, send)

    monkeypatch.setattr(version_read, "_sent", fails_once)
    assert poll(sitting).status_code == 204  # answered by the poll view
    with CaptureQueriesContext(connection) as again:
        assert poll(sitting).status_code == 204
    assert [query["sql"].split()[0] for query in again] == ["PREPARE", "EXECUTE"]
    assert again[0]["sql"].split()[1] != failed[0].split()[1].split("(")[0]  # another name
