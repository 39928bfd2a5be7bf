"""Pages outside a sitting: home (this phone's sittings), start a sitting, the demo."""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from .. import rules
from ..demo import create_demo_sitting
from ..errors import TableError
from ..forms import MAX_ROWS, StartForm
from ..models import Seat, Sitting
from .common import HtmxHttpRequest, page_or_partial, remember, remembered_tokens


def home(request: HtmxHttpRequest) -> HttpResponse:
    """This phone's sittings, in progress first, each with Rematch; a demo for newcomers."""
    tokens = remembered_tokens(request)
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    found = {s.token: s for s in Sitting.objects.filter(token__in=tokens).prefetch_related(seats)}
    sittings = [found[t] for t in tokens if t in found]
    sittings.sort(key=lambda s: s.is_finished)  # stable: most recently opened first within each group
    return render(request, "matches/home.html", {"sittings": sittings})


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def start(request: HtmxHttpRequest) -> HttpResponse:
    """Start a sitting. The same form's Add and Remove buttons change the number of name rows."""
    if request.method == "GET":
        return show_start(request, StartForm(rows=4, initial={"game": request.GET.get("game", "agram")}))
    action = request.POST.get("action", "start")
    rows = StartForm.rows_in(request.POST)
    if action == "add" or action.startswith("remove-"):
        return show_start(request, rearranged(request.POST, rows, action))
    form = StartForm(request.POST, rows=rows)
    if not form.is_valid():
        return show_start(request, form, status=400)
    try:
        sitting = Sitting.start(form.cleaned_data["game"], form.cleaned_data["names"], form.match_end())
    except (TableError, rules.RuleError) as refusal:
        form.add_error(None, getattr(refusal, "message", str(refusal)))
        return show_start(request, form, status=400)
    remember(request, sitting)
    if request.htmx:
        return HttpResponseClientRedirect(sitting.get_absolute_url())
    return redirect(sitting.get_absolute_url())


def rearranged(data, rows: int, action: str) -> StartForm:
    """An unbound start form holding what was typed, with one row added or one removed."""
    names = [data.get(f"player_{row}", "") for row in range(1, rows + 1)]
    if action == "add" and rows < MAX_ROWS:
        names.append("")
    elif action.startswith("remove-") and action[7:].isdigit() and len(names) > 1:
        index = int(action[7:]) - 1
        if 0 <= index < len(names):
            del names[index]
    initial = {key: data.get(key) for key in ("game", "end_kind", "end_target")}
    initial.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    return StartForm(initial=initial, rows=len(names))


def show_start(request: HtmxHttpRequest, form: StartForm, status: int = 200) -> HttpResponse:
    context = {"form": form, "games": rules.GAMES.values(), "max_rows": MAX_ROWS}
    return page_or_partial(request, "matches/start.html", "start-form", context, status=status)


@require_POST
def demo(request: HtmxHttpRequest) -> HttpResponse:
    """The worked sitting of RULES.md, live: Aïcha, Boubacar, Chaibou, Djibo; Chaibou won hand 1."""
    sitting = create_demo_sitting()
    remember(request, sitting)
    return redirect(sitting.get_absolute_url())
