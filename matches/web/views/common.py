"""Helpers shared by the views: finding a sitting by its token, remembering it, answering htmx or plain."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy
from django_htmx.middleware import HtmxDetails

from matches.models import Recorder, Sitting
from matches.models.snapshot import read_snapshot
from matches.web.views.errors import message_response
from matches.web.views.limits import CHANGES, over_limit

REMEMBERED = 30  # sittings a phone keeps on its home screen
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,32}")  # what new_token() makes; anything else is not looked up


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def wants_partial(request: HtmxHttpRequest) -> bool:
    """An htmx swap, not a page load: history-restore requests need the full page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


NO_SUCH_SITTING = gettext_lazy(
    "No match at this link. If someone at the table made new links, ask them for the new one "
    "(their table shows its QR code); otherwise check the link, or start a new match."
)


def with_sitting(
    view: Callable[..., HttpResponse], link: str = "token", snapshot: bool = True
) -> Callable[..., HttpResponse]:
    """Resolve the URL's token to its sitting and call `view(request, sitting, ...)`; 404 if none.
    GET/HEAD run in one read snapshot so version, seats and hands agree (`snapshot=False`: the view
    takes its own); a POST's verb locks afresh and counts against the tap limits (429 past them)."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return over_limit(request, CHANGES, known_phone(request)) or resolved(request, token, *args, **kwargs)
        if not snapshot:
            return resolved(request, token, *args, **kwargs)
        with read_snapshot():
            return resolved(request, token, *args, **kwargs)

    def resolved(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
        sitting = Sitting.reached_by(link, token) if TOKEN.fullmatch(token) else None
        try:
            if sitting is not None:
                return view(request, sitting, *args, **kwargs)
        except Sitting.DoesNotExist:  # deleted, or its links made new, while this request ran
            pass
        return no_such_sitting(request)

    return wrapper


def shows_current_version(request: HtmxHttpRequest, link: str, token: str) -> bool:
    """Whether this htmx poll's `?v=N` is the version of the sitting whose `link` is `token`: one read."""
    seen = request.GET.get("v", "")
    if not (request.htmx and seen.isdecimal() and TOKEN.fullmatch(token)):
        return False
    version = Sitting.objects.filter(**{link: token}).values_list("version", flat=True).first()
    return str(version) == seen


def no_such_sitting(request: HtmxHttpRequest) -> HttpResponse:
    """404 for a link that reaches no sitting. From a match table (htmx aiming at #table) the table is
    replaced by the message and a way home, since its buttons and polling would only fail again."""
    if wants_partial(request) and request.htmx.target == "table":
        response = render(request, "error.html#gone", {"message": NO_SUCH_SITTING}, status=404)
        response["HX-Retarget"] = "#table"
        response["HX-Reswap"] = "outerHTML"
        return response
    return message_response(request, NO_SUCH_SITTING, 404)


def action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST-only action; a GET (reload, shared link) goes back to the table instead of a 405."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, sitting: Sitting, *args, **kwargs) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            return redirect(sitting)
        if request.method != "POST":
            return HttpResponseNotAllowed(["GET", "POST"])
        return view(request, sitting, *args, **kwargs)

    return with_sitting(wrapper)


def remember(request: HttpRequest, sitting: Sitting) -> None:
    """Put `sitting` first in this phone's session list (and give it an id); unchanged if already first."""
    phone_id(request)
    tokens = request.session.get("sittings", [])
    if tokens[:1] != [sitting.token]:
        request.session["sittings"] = [sitting.token, *(t for t in tokens if t != sitting.token)][:REMEMBERED]


def forget(request: HttpRequest, token: str) -> None:
    request.session["sittings"] = [t for t in request.session.get("sittings", []) if t != token]


def known_phone(request: HttpRequest) -> str | None:
    """The session's phone id; None for a new or cookie-dropping client (then only its address counts)."""
    return request.session.get("phone")


def phone_id(request: HttpRequest) -> str:
    """A short random id for this phone, kept in its session, to trace who tapped."""
    if "phone" not in request.session:
        request.session["phone"] = secrets.token_urlsafe(3)
    return request.session["phone"]


def claimed_seat(request: HttpRequest, sitting: Sitting) -> int | None:
    """The seat (0-based) this phone said it holds at `sitting`, if it did."""
    return request.session.get("seats", {}).get(sitting.token)


def claim_seat(request: HttpRequest, sitting: Sitting, seat: int | None) -> None:
    seats = {t: s for t, s in request.session.get("seats", {}).items() if t in remembered_tokens(request)}
    if seat is None:
        seats.pop(sitting.token, None)
    else:
        seats[sitting.token] = seat
    request.session["seats"] = seats


def recorder(request: HttpRequest, sitting: Sitting) -> Recorder:
    return Recorder(phone=phone_id(request), seat=claimed_seat(request, sitting))


def remembered_tokens(request: HttpRequest) -> list[str]:
    return list(request.session.get("sittings", []))


def go_to(request: HtmxHttpRequest, target) -> HttpResponse:
    """Send the phone to `target` after a change: a redirect for a plain form, a 204 with HX-Redirect for htmx."""
    if not request.htmx:
        return redirect(target)
    response = HttpResponse(status=204)
    response["HX-Redirect"] = target.get_absolute_url()
    return response


def page_or_partial(
    request: HtmxHttpRequest, template: str, partial: str, context: dict, status: int = 200
) -> HttpResponse:
    """Render `template#partial` for an htmx swap, the whole `template` otherwise."""
    name = f"{template}#{partial}" if wants_partial(request) else template
    return render(request, name, context, status=status)

