"""Middleware: no refusal leaves a player looking at an empty page."""

import re
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from .models import Sitting
from .views.errors import message_response


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


def answer_unchanged_polls(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Answer a phone's poll (`/s/<token>/poll/?v=N`, or a watch link's) whose version N is the
    sitting's own with a bare 204 and one query, before sessions, languages and CSRF: nothing
    changed, so nothing is read, rendered or set. Every phone at a table asks every few seconds.

    First in MIDDLEWARE: the answer has no body, so it carries none of a document's headers
    (security policy, language, content type), only `Cache-Control: no-store`. Anything else
    (another version, no htmx header, a plain-HTTP request that must be redirected to HTTPS, an
    unknown host) goes through the whole stack to the poll view.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        if request.method == "GET" and "HTTP_HX_REQUEST" in request.META and (found := POLL.match(request.path_info)):
            seen = request.GET.get("v", "")
            if seen.isdigit() and (request.is_secure() or not settings.SECURE_SSL_REDIRECT):
                request.get_host()  # an unknown Host is refused (400) as on every other request
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT version FROM {Sitting._meta.db_table} WHERE {POLL_COLUMNS[found[1]]} = %s",
                        [found[2]],
                    )
                    row = cursor.fetchone()
                if row is not None and str(row[0]) == seen:
                    response = HttpResponse(status=204)
                    del response["Content-Type"]
                    response["Cache-Control"] = "no-store"
                    return response
        return get_response(request)

    return middleware
