"""Error pages: a clear message, never a stack trace. htmx requests get the message in the notice area."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.utils.translation import gettext as _


def message_response(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """A 4xx/5xx answer carrying `message`: the notice fragment for htmx, a full page otherwise."""
    if getattr(request, "htmx", False) and not request.htmx.history_restore_request:
        response = render(request, "error.html#message", {"message": message}, status=status)
        response["HX-Retarget"] = "#notice"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "error.html", {"message": message}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return message_response(request, _("That request was not understood. Go back and try again."), 400)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return message_response(request, _("This action is not allowed here."), 403)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return message_response(
        request, _("There is nothing at this address. Check the link, or go to the home page."), 404
    )


def server_error(request: HttpRequest) -> HttpResponse:
    return message_response(request, _("Something went wrong on our side. Your taps so far are saved; try again."), 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a stale or missing CSRF token. The answer carries a fresh token (header X-CSRF-Token,
    and the cookie it belongs to), which the page's script takes to send the same request once more."""
    response = message_response(
        request, _("This page was open too long or came from elsewhere. Reload the page, then tap again."), 403
    )
    response["X-CSRF-Token"] = get_token(request)
    return response
