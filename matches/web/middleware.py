"""Middleware: no refusal leaves a player looking at an empty page."""

import re
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from matches.models.version_read import sitting_version
from matches.web.views.errors import message_response


def explain_refusals(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Give Django's bare 405 answers (a link or button used the wrong way) a message."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if response.status_code == 405 and not response.content and request.method != "HEAD":
            explained = message_response(
                request, _("This address does not take that kind of request: go back, or go to the home page."), 405
            )
            explained["Allow"] = response.get("Allow", "")
            return explained
        return response

    return middleware


PRIVATE_PATHS = ("/s/", "/w/", "/g/", "/gw/", "/groups/")


def never_store_sittings(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Pages that carry a sitting's link or score (and home, which lists this phone's links) are never
    stored by a browser or a proxy: Cache-Control no-store."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if request.path == "/" or request.path.startswith(PRIVATE_PATHS):
            add_never_cache_headers(response)
        return response

    return middleware


POLL = re.compile(r"/(s|w)/([A-Za-z0-9_-]{16,32})/poll/\Z")
POLL_COLUMNS = {"s": "token", "w": "watch_token"}
WSGIApplication = Callable[[dict, Callable], Iterable[bytes]]


CHECKED = "lasttrick.poll_checked"  # set in the WSGI environ once a poll was checked: not again


def unchanged_poll(request: HttpRequest) -> HttpResponse | None:
    """The answer to a phone's poll (`/s/<token>/poll/?v=N`, or a watch link's) whose version N is the
    sitting's own: a bare 204, after one query (on PostgreSQL a connection's first poll also prepares
    it: sitting_version); None for any other request, which goes on through
    the whole stack to its view (another version, no htmx header, a plain-HTTP request that must be
    redirected to HTTPS). Raises DisallowedHost for an unknown Host, as every request does.

    The answer has no body, so it carries none of a document's headers (security policy, language,
    content type), only `Cache-Control: no-store`. Every phone at a table asks every few seconds.
    """
    if request.method != "GET" or "HTTP_HX_REQUEST" not in request.META or CHECKED in request.META:
        return None
    found = POLL.match(request.path_info)
    seen = request.GET.get("v", "") if found else ""
    if not seen.isdecimal() or (settings.SECURE_SSL_REDIRECT and not request.is_secure()):
        return None
    request.get_host()  # an unknown Host is refused (400) as on every other request
    version = sitting_version(POLL_COLUMNS[found[1]], found[2])
    request.META[CHECKED] = True
    if version is None or str(version) != seen:
        return None
    response = HttpResponse(status=204)
    del response["Content-Type"]
    response["Cache-Control"] = "no-store"
    return response


def answer_unchanged_polls(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Answer an unchanged poll (see unchanged_poll) before sessions, languages and CSRF: first in
    MIDDLEWARE. Under gunicorn `answer_polls_before_django` has already answered it; this one serves
    every other way in (the test client, runserver)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        try:
            answer = unchanged_poll(request)
        except DatabaseError:  # (say the server forgot the prepared statement): the poll view answers
            answer = None
        return get_response(request) if answer is None else answer

    return middleware


def answer_polls_before_django(application: WSGIApplication) -> WSGIApplication:
    """Wrap Django's WSGI application so that an unchanged poll is answered before Django's request
    handling (its signals, request object and middleware chain): a third of a poll's cost in the
    worker. Anything else, or a poll this cannot answer (an unknown Host, a database error), goes
    to `application`, which answers it as usual, without asking the database a second time."""

    def polls_first(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET" and environ.get("PATH_INFO", "").endswith("/poll/"):
            try:
                answer = unchanged_poll(WSGIRequest(environ))
            except Exception:  # noqa: BLE001 - Django's own handling answers it: 400, 500 page, logging
                environ.pop(CHECKED, None)
                answer = None
            if answer is not None:
                start_response("204 No Content", list(answer.items()))
                return []
        return application(environ, start_response)

    return polls_first
