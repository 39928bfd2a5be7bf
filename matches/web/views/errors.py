"""Error pages: a clear message, never a stack trace. htmx requests get the message in the notice area."""

from __future__ import annotations

import errno
import logging
import re
import sqlite3
import sys

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_htmx.http import reswap, retarget
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from matches.models.tokens import TOKEN, TOKEN_PATTERN

logger = logging.getLogger(__name__)

# The page a form was sent from: a match table or a group page (its actions' addresses start with it).
PAGE_OF_ACTION = re.compile(rf"^/(s|g)/{TOKEN_PATTERN}/")
# Forms with an address of their own, shown again by a GET of it.
FORM_PAGES = {"start-game", "group-new", "group-import"}
# An address of a sitting's (/s/, /w/) or a group's (/g/, /gw/) link, well-formed or not.
LINK_ADDRESS = re.compile(r"^/(s|w|g|gw)/([^/]*)(/|$)")

NO_SUCH_SITTING = gettext_lazy(
    "No match at this link. If someone at the table made new links, ask them for the new one "
    "(their table shows its QR code); otherwise check the link, or start a new match."
)
WRONG_METHOD = gettext_lazy("This address does not take that kind of request: go back, or go to the home page.")
NO_SUCH_GROUP = gettext_lazy(
    "No group at this link. If someone in the group made new links, ask them for the new one "
    "(their group page shows its QR code); otherwise check the link."
)


def wants_partial(request: HttpRequest) -> bool:
    """An htmx swap, not a page load: history-restore requests need the full page."""
    return bool(getattr(request, "htmx", False)) and not request.htmx.history_restore_request


def message_response(
    request: HttpRequest, message: str, status: int, back: str = "", reload_after: int = 0
) -> HttpResponse:
    """A 4xx/5xx answer carrying `message`: the notice fragment for htmx, a full page otherwise (with a
    way `back` to the page the request came from: given, or a plain form's page, or its table's or group's;
    reloading itself after `reload_after` s)."""
    if wants_partial(request):
        response = render(request, "error.html#message", {"message": message}, status=status)
        return reswap(retarget(response, "#notice"), "innerHTML")
    if not back and request.method == "POST":  # (reloading this answer would only send the form again)
        page = PAGE_OF_ACTION.match(request.path)
        form_page = request.resolver_match and request.resolver_match.url_name in FORM_PAGES
        back = page.group(0) if page else request.path if form_page else ""
    context = {"message": message, "back": back, "reload_after": reload_after}
    return render(request, "error.html", context, status=status)


def no_such_sitting(request: HttpRequest) -> HttpResponse:
    """404 for a link that reaches no sitting. From a match table (htmx aiming at #table) the table is
    replaced by the message and a way home, since its buttons and polling would only fail again."""
    if wants_partial(request) and request.htmx.target == "table":
        response = render(request, "error.html#gone", {"message": NO_SUCH_SITTING}, status=404)
        return reswap(retarget(response, "#table"), "outerHTML")
    return message_response(request, NO_SUCH_SITTING, 404)


def no_such_group(request: HttpRequest) -> HttpResponse:
    return message_response(request, NO_SUCH_GROUP, 404)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400; what no page here sends is named: a body too big (413), too many fields."""
    if isinstance(exception, RequestDataTooBig):
        return message_response(request, _("This request is too big: nothing was done. Go back and try again."), 413)
    if isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
        return message_response(request, _("This request has too many fields: nothing was done. Go back and try again."), 400)
    return message_response(request, _("That request was not understood. Go back and try again."), 400)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return message_response(request, _("This action is not allowed here."), 403)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404. A link's address whose token is malformed (the URLconf's `link` converter took none) says
    that no match or group is at this link, as a well-formed token that reaches nothing does."""
    link = LINK_ADDRESS.match(request.path_info)
    if link and not TOKEN.fullmatch(link[2]):
        return no_such_sitting(request) if link[1] in ("s", "w") else no_such_group(request)
    return message_response(
        request, _("There is nothing at this address. Check the link, or go to the home page."), 404
    )


# A database or cache that went away (a restart, a failover, a dropped connection, a locked SQLite file).
BACKING_SERVICE_ERRORS = (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError)
RETRY_AFTER = 3  # seconds: a database restart or failover is usually over by then


def try_again(request: HttpRequest, unsure: bool = False, busy: bool = False) -> HttpResponse:
    """503 with Retry-After: a backing service is away for a moment. The table's script sends a tap
    again by itself; a page asked for by GET reloads itself (error.html's refresh). `unsure`: a change
    was on its way to the database when it went, and may or may not be saved; `busy`: the database was
    there but another writer held it too long (SQLite's lock)."""
    if unsure and busy:
        message = _("The server was too busy to finish saving this: look at the page again before you repeat it.")
    elif unsure:
        message = _("The server lost its database while saving this: look at the page again before you repeat it.")
    elif busy:
        message = _("The server was too busy for a moment: nothing was changed. Try again in a few seconds.")
    else:
        message = _("The server lost its database for a moment: nothing was changed. Try again in a few seconds.")
    page = request.method in ("GET", "HEAD")  # asked again by itself; a form's POST is the player's to send
    response = message_response(request, message, 503, reload_after=RETRY_AFTER if page else 0)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


DISK_FULL_RETRY_AFTER = 30  # seconds: space is freed by a person, not in a moment
DISK_FULL_SQLSTATE = "53100"  # PostgreSQL's disk_full


def disk_full(error: BaseException | None) -> bool:
    """Whether `error` or an error that led to it says the server's disk is full: SQLite's SQLITE_FULL
    ("database or disk is full"), PostgreSQL's SQLSTATE 53100, or ENOSPC from a write to a file.
    Django raises its own OperationalError from the driver's, so the chain of causes is read."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno == errno.ENOSPC:
            return True
        if getattr(error, "sqlstate", None) == DISK_FULL_SQLSTATE:  # psycopg's errors
            return True
        if isinstance(error, sqlite3.Error) and (
            getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(error)
        ):
            return True
        error = error.__cause__ or error.__context__
    return False


def not_saved(request: HttpRequest, error: BaseException) -> HttpResponse:
    """503 for a change the full disk refused (nothing was saved: its transaction rolled back); the
    operator's log says why, since only freeing space helps."""
    logger.error("the server's disk is full: nothing saved for %s %s (%s)", request.method, request.path, error)
    reload_after = DISK_FULL_RETRY_AFTER if request.method in ("GET", "HEAD") else 0
    response = message_response(request, _("Not saved: try again."), 503, reload_after=reload_after)
    response["Retry-After"] = str(DISK_FULL_RETRY_AFTER)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """500, or a 503 when what failed was a full disk ("not saved") or a backing service that went away
    ("try again") (Django calls this while its exception is being handled)."""
    if disk_full(sys.exc_info()[1]):
        return not_saved(request, sys.exc_info()[1])
    if isinstance(sys.exc_info()[1], BACKING_SERVICE_ERRORS):
        return try_again(request, unsure=request.method not in ("GET", "HEAD"))
    return message_response(request, _("Something went wrong on our side. Your taps so far are saved; try again."), 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a stale or missing CSRF token. The answer carries a fresh token (header X-CSRF-Token,
    and the cookie it belongs to), which the page's script takes to send the same request once more. A
    method no page sends (PUT, DELETE...) is refused as such: no view here takes it, token or not."""
    if request.method != "POST":
        refused = message_response(request, WRONG_METHOD, 405)
        refused["Allow"] = "GET, HEAD, POST"
        return refused
    if getattr(request, "htmx", False):
        message = _("This page was open too long or came from elsewhere. Reload the page, then tap again.")
    else:  # a plain form: its way back is its page (message_response)
        message = _(
            "This page was open too long or came from elsewhere: nothing was done. Open it again, then tap again."
        )
    response = message_response(request, message, 403)
    response["X-CSRF-Token"] = get_token(request)
    return response
