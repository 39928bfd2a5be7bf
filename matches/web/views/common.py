"""Helpers shared by the views: finding a sitting or a group by its link, remembering it, answering htmx or plain."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from matches.domain.errors import TableError
from matches.models import Group, Recorder, Sitting
from matches.models.snapshot import read_snapshot
from matches.web.one_value import is_digits
from matches.web.refusals import refusal_text
from matches.web.tokens import link_field
from matches.web.views.errors import message_response, no_such_group, no_such_sitting, wants_partial
from matches.web.views.limits import CHANGES, Limit, over_limit

REMEMBERED = 30  # sittings a phone keeps on its home screen
READS = ("GET", "HEAD")


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def reached(
    model: type[Sitting] | type[Group],
    *,
    watching: bool = False,
    snapshot: bool = True,
    limit: Limit | None = CHANGES,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Decorate a view of the sitting or group that the URL's token (its member link, or with `watching`
    its read-only watch link) reaches: `view(request, found, ...)`; 404 with a message if none, or if it
    went (deleted, new links) while the view ran. A watch link takes no change (405). GET/HEAD run in one
    read snapshot, so version, seats and hands agree (`snapshot=False`: the view takes its own); a change
    counts against `limit` (429 past it; None: the view counts) and its verb locks afresh. A refusal the
    view leaves is answered with its words. Never cached: pages carry the links."""
    missing = no_such_sitting if model is Sitting else no_such_group
    link = link_field(watching)

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        def resolved(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
            if model is Sitting and snapshot and request.method in READS:  # (its seats in the same read)
                found = Sitting.reached_with_seats(link, token)
            else:
                found = model.reached_by(link, token)
            try:
                if found is not None:
                    return view(request, found, *args, **kwargs)
            except model.DoesNotExist:  # deleted, or its links made new, while this request ran
                pass
            except TableError as refusal:
                return message_response(request, refusal_text(refusal), refusal.status)
            return missing(request)

        @wraps(view)
        def wrapper(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
            if request.method in READS:
                if snapshot:
                    with read_snapshot():
                        response = resolved(request, token, *args, **kwargs)
                else:
                    response = resolved(request, token, *args, **kwargs)
            elif watching:
                response = HttpResponseNotAllowed(READS)
            else:
                limited = over_limit(request, limit, known_phone(request)) if limit is not None else None
                response = limited or resolved(request, token, *args, **kwargs)
            return response

        return wrapper

    return decorate


def shows_current_version(request: HtmxHttpRequest, token: str, watching: bool) -> bool:
    """Whether this htmx poll's `?v=N` is the version of the sitting its link reaches: one read."""
    seen = request.GET.get("v", "")
    if not (request.htmx and is_digits(seen)):
        return False
    version = Sitting.objects.reached_by(link_field(watching), token).values_list("version", flat=True).first()
    return str(version) == seen


def action(model: type[Sitting] | type[Group]) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A POST-only change of what the member link reaches; a GET (reload, shared link) goes back to its
    page instead of a 405 (so does any other method on a group's)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HtmxHttpRequest, found: Sitting | Group, *args, **kwargs) -> HttpResponse:
            if request.method in READS or (request.method != "POST" and model is Group):
                return redirect(found)
            if request.method != "POST":
                return HttpResponseNotAllowed(["GET", "POST"])
            return view(request, found, *args, **kwargs)

        return reached(model)(wrapper)

    return decorate


def remember(request: HttpRequest, sitting: Sitting) -> None:
    """Put `sitting` first in this phone's session list (and give it an id); unchanged if already first."""
    phone_id(request)
    tokens = request.session.get("sittings", [])
    if tokens[:1] != [sitting.token]:
        request.session["sittings"] = [sitting.token, *(t for t in tokens if t != sitting.token)][:REMEMBERED]


def follow_links(request: HttpRequest, moved: dict[str, str]) -> None:
    """This phone's matches (and the seats it holds there) under their new links, `moved` old to new."""
    request.session["sittings"] = [moved.get(t, t) for t in request.session.get("sittings", [])]
    request.session["seats"] = {moved.get(t, t): seat for t, seat in request.session.get("seats", {}).items()}


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
    """The seat (0-based) this phone said it holds at `sitting`, while it holds it (Sitting.claim_seat: no
    other phone took it over since). Read only for a phone that said one."""
    seat, phone = request.session.get("seats", {}).get(sitting.token), known_phone(request)
    if seat is None or not phone or not sitting.seats.filter(position=seat, claimed_by=phone).exists():
        return None
    return seat


def claim_seat(request: HttpRequest, sitting: Sitting, seat: int | None) -> None:
    seats = {t: s for t, s in request.session.get("seats", {}).items() if t in remembered_tokens(request)}
    if seat is None:
        seats.pop(sitting.token, None)
    else:
        seats[sitting.token] = seat
    request.session["seats"] = seats


def recorder(request: HttpRequest, sitting: Sitting) -> Recorder:
    return Recorder(phone=phone_id(request), seat=claimed_seat(request, sitting))


SEEN_KEPT = 50  # the newest changes of an earlier hand's money a phone saw


def saw(request: HttpRequest, change: int | None) -> None:
    """This phone saw (or made) the change of receipt `change`: its line leaves this phone's table."""
    if change is not None:
        kept = [pk for pk in request.session.get("seen_changes", []) if pk != change]
        request.session["seen_changes"] = [*kept, change][-SEEN_KEPT:]


def remembered_tokens(request: HttpRequest) -> list[str]:
    return list(request.session.get("sittings", []))


def match_in_progress(request: HttpRequest, group: Group | None = None) -> Sitting | None:
    """The newest unfinished match (of `group`) this phone remembers, offered above a form that starts one."""
    tokens = remembered_tokens(request)
    if not tokens:
        return None
    found = Sitting.objects.unfinished().member_links(tokens)
    return (found.filter(group=group) if group else found).order_by("-started_at", "-pk").first()


def go_to(request: HtmxHttpRequest, target: str | Sitting | Group) -> HttpResponse:
    """Send the phone to `target` (an address, or what has one): a redirect for a plain request, htmx's
    client-side redirect (HX-Redirect) for htmx."""
    if not request.htmx:
        return redirect(target)
    return HttpResponseClientRedirect(target if isinstance(target, str) else target.get_absolute_url())


def page_or_partial(
    request: HtmxHttpRequest, template: str, partial: str, context: dict, status: int = 200
) -> HttpResponse:
    """Render `template#partial` for an htmx swap, the whole `template` otherwise."""
    name = f"{template}#{partial}" if wants_partial(request) else template
    return render(request, name, context, status=status)

