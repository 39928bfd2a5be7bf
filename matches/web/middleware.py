"""Middleware: no refusal leaves a player looking at an empty page."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

from matches.web.views.errors import WRONG_METHOD, message_response


def explain_refusals(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Give Django's bare 405 answers (a link or button used the wrong way) a message."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if response.status_code == 405 and not response.content and request.method != "HEAD":
            explained = message_response(request, WRONG_METHOD, 405)
            explained["Allow"] = response.get("Allow", "")
            return explained
        return response

    return middleware


PRIVATE_PATHS = ("/s/", "/w/", "/g/", "/gw/", "/groups/")
# A page the phone opened (GET, not an htmx request): no shared cache (a proxy) keeps it, as it carries the
# sitting's or group's link, and the phone asks for it again each time, even on Back when the page is no
# longer in memory (must-revalidate: an old score is never shown from the disk cache). No `no-store`: the
# browser would then never keep the page in its back/forward cache, and Back would load it again instead of
# showing it at once (static/live.js closes its stream when the page is put away and catches up when it is
# shown again).
PAGE_CACHE_CONTROL = "private, no-cache, max-age=0, must-revalidate"


def never_store_sittings(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Cache-Control of what carries a sitting's or group's link or score (and home, which lists them), the
    last word over a view's: a page `PAGE_CACHE_CONTROL`; anything else (an htmx region, a change's answer,
    a file, a stream, an error) no-store: never kept anywhere. Home too: it lists this phone's matches, which
    other pages change (a match started), and has no stream to catch up by, so Back loads it again."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if request.path == "/" or request.path.startswith(PRIVATE_PATHS):
            add_never_cache_headers(response)
            if request.path != "/" and is_page(request, response):
                response["Cache-Control"] = PAGE_CACHE_CONTROL
        return response

    return middleware


def is_page(request: HttpRequest, response: HttpResponse) -> bool:
    """A page the browser opened and shows as it is (not a region htmx fetched to swap in)."""
    return (
        request.method in ("GET", "HEAD")
        and "HX-Request" not in request.headers
        and response.status_code == 200
        and response.get("Content-Type", "").startswith("text/html")
    )
