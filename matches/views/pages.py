"""Pages outside a sitting: home (this phone's sittings), start a sitting, the demo."""

from __future__ import annotations

import re

from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from .. import rules
from ..demo import create_demo_sitting
from ..errors import TableError
from ..forms import MAX_FORM_ROWS, MAX_ROWS, StartForm
from ..models import Seat, Sitting
from ..snapshot import read_snapshot
from .common import HtmxHttpRequest, known_phone, page_or_partial, remember, remembered_tokens
from .errors import message_response
from .limits import STARTS, over_limit

REMOVE_ROW = re.compile(r"remove-([0-9]{1,2})")


def home(request: HtmxHttpRequest) -> HttpResponse:
    """This phone's sittings, in progress first, each with Rematch; a demo for newcomers."""
    tokens = remembered_tokens(request)
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    with read_snapshot():  # each sitting's state and its seats' totals agree
        found = {s.token: s for s in Sitting.objects.filter(token__in=tokens).prefetch_related(seats)}
    sittings = [found[t] for t in tokens if t in found]
    sittings.sort(key=lambda s: s.is_finished)  # stable: most recently opened first within each group
    return render(request, "matches/home.html", {"sittings": sittings})


def choose_game(request: HtmxHttpRequest) -> HttpResponse:
    """Pick the game: each with one line (pack, cards each, players)."""
    return render(request, "matches/games.html", {"games": rules.GAMES.values()})


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def start(request: HtmxHttpRequest, game: str) -> HttpResponse:
    """Start a sitting of `game`. The same form's Add and Remove buttons change the number of name rows."""
    entry = rules.GAMES.get(game)
    if entry is None:
        return message_response(request, _("There is no such game here: pick one from the list."), 404)
    if request.method == "GET":
        return show_start(request, StartForm(game=entry, rows=max(entry.min_players, 4)))
    action = request.POST.get("action", "start")
    rows = StartForm.rows_in(request.POST)
    if action == "add" or REMOVE_ROW.fullmatch(action):
        return show_start(request, rearranged(entry, request.POST, rows, action))
    form = StartForm(request.POST, game=entry, rows=rows)
    if action != "start":
        form.add_error(None, _("That button is not on this form: check the names, then tap Start the match."))
        return show_start(request, form, status=400)
    if not form.is_valid():
        return show_start(request, form, status=400)
    if limited := over_limit(request, STARTS, known_phone(request)):
        return limited
    try:
        sitting = Sitting.start(game, form.cleaned_data["names"], form.match_end(), **form.options())
    except TableError as refusal:
        form.add_error(None, refusal.message)
        return show_start(request, form, status=400)
    remember(request, sitting)
    if request.htmx:
        return HttpResponseClientRedirect(sitting.get_absolute_url())
    return redirect(sitting)


def rearranged(game: rules.Game, data, rows: int, action: str) -> StartForm:
    """An unbound start form holding what was typed, with one row added or one removed."""
    names = [data.get(f"player_{row}", "") for row in range(1, min(rows, MAX_FORM_ROWS) + 1)]
    removed = REMOVE_ROW.fullmatch(action)
    if action == "add" and len(names) < MAX_ROWS:
        names.append("")
    elif removed and len(names) > 1 and 1 <= int(removed[1]) <= len(names):
        del names[int(removed[1]) - 1]
    settings = ("end_kind", "end_target", "starting_chips", "stake_amount", "stake_label")
    initial = {key: data.get(key) for key in settings if key in data}
    initial.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    return StartForm(game=game, initial=initial, rows=len(names))


def show_start(request: HtmxHttpRequest, form: StartForm, status: int = 200) -> HttpResponse:
    context = {"form": form, "game": form.game, "max_rows": MAX_ROWS}
    return page_or_partial(request, "matches/start.html", "start-form", context, status=status)


@require_POST
def demo(request: HtmxHttpRequest) -> HttpResponse:
    """The worked sitting of RULES.md, live: Aïcha, Boubacar, Chaibou, Djibo; Chaibou won hand 1."""
    if limited := over_limit(request, STARTS, known_phone(request)):
        return limited
    sitting = create_demo_sitting()
    remember(request, sitting)
    return redirect(sitting.get_absolute_url())
