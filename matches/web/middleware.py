"""Middleware: no refusal leaves a player looking at an empty page."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

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
    """Pages carrying a sitting's link or score (and home) get Cache-Control no-store: never kept by a proxy."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if request.path == "/" or request.path.startswith(PRIVATE_PATHS):
            add_never_cache_headers(response)
        return response

    return middleware

