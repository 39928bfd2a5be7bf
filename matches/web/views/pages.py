"""Pages outside a sitting: home (this phone's sittings), start a sitting, the demo."""

from __future__ import annotations

import re

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from matches.web.once import FIELD as ONCE
from matches.web.once import Once, made_before, new_token
from matches.web.refusals import refusal_text
from matches.domain import rules
from matches.services.demo import DEMO_GAME, create_demo_sitting
from matches.domain.errors import TableError
from matches.web.forms import DEFAULT_ROWS, StartForm
from matches.models import Group, Seat, Sitting
from matches.models.snapshot import read_snapshot
from matches.web.texts import pack_line, player_range, table_full, uneven_deals
from matches.models.zones import posted_zone
from matches.web.views.common import HtmxHttpRequest, known_phone, match_in_progress, page_or_partial, remember
from matches.web.views.common import remembered_tokens
from matches.web.views.errors import message_response
from matches.web.views.groups import optional_url, remember_group, remembered_groups
from matches.web.views.limits import STARTS, over_limit

REMOVE_ROW = re.compile(r"remove-([0-9]{1,2})")
ONCE_WAIT = 5  # seconds a form sent again waits for the match its first post is starting


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    """This phone's groups, then its sittings, in progress first, each with Rematch; a demo for newcomers."""
    tokens = remembered_tokens(request)
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    with read_snapshot():  # each sitting's state and its seats' totals agree
        found = {s.token: s for s in Sitting.objects.member_links(tokens).prefetch_related(seats)}
        groups = remembered_groups(request)
    sittings = [found[t] for t in tokens if t in found]
    sittings.sort(key=lambda s: s.is_finished)  # stable: most recently opened first within each group
    context = {"sittings": sittings, "groups": groups, "import_url": optional_url("group-import")}
    return render(request, "matches/home.html", context)


def choose_game(request: HtmxHttpRequest) -> HttpResponse:
    """Pick the game: each with one line (pack, cards each, players)."""
    return render(request, "matches/games.html", {"games": rules.GAMES.values()})


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def start(request: HtmxHttpRequest, game: str) -> HttpResponse:
    """Start a sitting of `game`; Add and Remove change the name rows (posted back, or swapped by htmx)."""
    entry = rules.GAMES.get(game)
    if entry is None:
        return message_response(request, _("There is no such game here: pick one from the list."), 404)
    if request.method in ("GET", "HEAD"):
        form = StartForm(game=entry, rows=entry.seats_in_range(DEFAULT_ROWS))
        return show_start(request, form, playing=match_in_progress(request))
    action = request.POST.get("action", "start")
    removed = REMOVE_ROW.fullmatch(action)
    if action == "add" or removed:
        remove = int(removed[1]) if removed else None
        return show_start(request, StartForm.rearranged(entry, request.POST, add=action == "add", remove=remove))
    form = StartForm(request.POST, game=entry)
    if action != "start":
        form.add_error(None, _("That button is not on this form: check the names, then tap Start the match."))
        return show_start(request, form, status=400)
    if not form.is_valid():
        return show_start(request, form, status=400)
    once = Once("start", request.POST.get(ONCE), request)
    if (sitting := made_before(once, Sitting, wait=ONCE_WAIT)) is not None:  # Start tapped twice: the same match
        remember(request, sitting)
        return HttpResponseClientRedirect(sitting.get_absolute_url()) if request.htmx else redirect(sitting)
    if limited := over_limit(request, STARTS, known_phone(request)):
        once.drop()
        return limited
    try:
        sitting = Sitting.start(
            game, form.cleaned_data["names"], form.match_end(), time_zone=posted_zone(request.POST), **form.options()
        )
    except TableError as refusal:
        once.drop()
        form.add_error(None, refusal_text(refusal))
        return show_start(request, form, status=400)
    once.keep(sitting.pk)
    remember(request, sitting)
    if note := uneven_deals(entry, form.match_end(), len(form.cleaned_data["names"])):
        messages.info(request, note)
    if request.htmx:
        return HttpResponseClientRedirect(sitting.get_absolute_url())
    return redirect(sitting)


def show_start(
    request: HtmxHttpRequest, form: StartForm, status: int = 200, playing: Sitting | None = None
) -> HttpResponse:
    """The start page or its htmx form region; at the maximum the reason replaces Add; `playing` is offered first."""
    game = form.game
    full = table_full(game) if form.rows >= game.max_players else ""
    context = {
        "playing": playing,
        "form": form,
        "game": game,
        "pack_line": pack_line(game),
        "player_range": player_range(game),
        "table_full": full,
        "once": new_token(),
    }
    return page_or_partial(request, "matches/start.html", "start-form", context, status=status)


@require_POST
def demo(request: HtmxHttpRequest) -> HttpResponse:
    """The live worked sitting of RULES.md: this phone's unfinished demo match, else a new one in its demo group."""
    known = request.session.get("demo_group")
    group = Group.objects.filter(pk=known).first() if isinstance(known, int) else None
    sitting = open_demo(request, group) if group is not None else None
    if sitting is None:
        if limited := over_limit(request, STARTS, known_phone(request)):
            return limited
        sitting = create_demo_sitting(group, time_zone=posted_zone(request.POST))
        request.session["demo_group"] = sitting.group_id
    remember(request, sitting)
    remember_group(request, sitting.group)
    messages.info(
        request,
        _(
            "A demo match, in a demo group with three finished matches: tap who won each hand, try Undo, "
            "the hands list and the group's figures. It stays on this phone like any match."
        ),
    )
    return redirect(sitting.get_absolute_url())


def open_demo(request: HtmxHttpRequest, group: Group) -> Sitting | None:
    """The demo match this phone opened in its demo `group`, if it is still being played."""
    tokens = remembered_tokens(request)
    playing = group.sittings.unfinished().member_links(tokens).filter(game=DEMO_GAME)
    return playing.order_by("-started_at").first()
