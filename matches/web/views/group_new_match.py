"""A new match from the group: pick the game, seat today's table, start."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Max
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.domain import rules
from matches.domain.errors import BadInput, TableError
from matches.domain.names import by_name, clean_name, same_as
from matches.models import Group, Player, Sitting
from matches.models.zones import posted_zone
from matches.web.bidi import joined
from matches.web.forms import StartForm, posted_settings, typed_text
from matches.web.once import FIELD as ONCE
from matches.web.once import Once, made_before, new_token
from matches.web.refusals import refusal_text
from matches.web.seating import (
    Seated,
    last_table,
    posted_seating,
    rearranged,
    remembered_settings,
    seat_newcomer,
)
from matches.web.texts import pack_line, player_range, rule_message, table_full, uneven_deals
from matches.web.views.common import HtmxHttpRequest, go_to, known_phone, match_in_progress, page_or_partial
from matches.web.views.common import reached, remember
from matches.web.views.errors import message_response
from matches.web.views.groups import group_name, remember_group
from matches.web.views.limits import STARTS, over_limit


@require_safe
@reached(Group)
def choose_game(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """Pick the game: those the group played first, the latest first; then the others."""
    played = [
        row["game"]
        for row in group.sittings.values("game").annotate(last=Max("started_at")).order_by("-last")
        if row["game"] in rules.GAMES
    ]
    games = [rules.GAMES[slug] for slug in played] + [g for slug, g in rules.GAMES.items() if slug not in played]
    context = {"group": group, "name": group_name(group), "games": games, "played": set(played)}
    return render(request, "matches/group_games.html", context)


def settings_form(game: rules.Game, seated: int, initial: dict) -> StartForm:
    return StartForm(game=game, rows=max(1, seated), initial=initial)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@reached(Group, limit=None)
def new_match(request: HtmxHttpRequest, group: Group, game: str) -> HttpResponse:
    """Seat today's table and start a match of `game`: tap members in dealing order, move or remove them,
    type newcomers; last settings first. Buttons post the whole form back (htmx swaps the region);
    only Start changes anything (counted against the new-match limits)."""
    entry = rules.GAMES.get(game)
    if entry is None:
        return message_response(request, _("There is no such game here: pick one from the list."), 404)
    members = {p.pk: p for p in group.members()}
    if request.method != "POST":
        seating = last_table(group, entry, members)
        initial = remembered_settings(group, entry)
        form = settings_form(entry, len(seating), initial)
        playing = match_in_progress(request, group)
        return show_new_match(request, group, entry, members, seating, form, remembered=bool(initial), playing=playing)
    data = request.POST
    try:
        seating, gone = posted_seating(data, members)
    except BadInput as refusal:
        form = settings_form(entry, 0, posted_settings(data, entry, 0, 0))
        return show_new_match(request, group, entry, members, [], form, notice=refusal_text(refusal), status=400)
    before = len(data.getlist("seat"))
    action = data.get("action", "start")
    typed = data.get("newcomer", "")
    if action == "enter":  # Enter in a field: add the newcomer typed, else start
        action = "newcomer" if clean_name(typed) else "start"
    if gone:
        form = settings_form(entry, len(seating), posted_settings(data, entry, before, len(seating)))
        return show_new_match(request, group, entry, members, seating, form, refusal_text(group.left_refusal(gone)), 409, typed=typed)
    if action == "start":
        return start_from_group(request, group, entry, members, seating)
    try:
        if action == "newcomer":
            seating = seat_newcomer(group, entry, members, seating, typed_text(data, "newcomer"))
            typed = ""
        else:
            seating = rearranged(entry, members, seating, action)
    except BadInput as refusal:
        form = settings_form(entry, len(seating), posted_settings(data, entry, before, len(seating)))
        newcomer_error = refusal_text(refusal) if action == "newcomer" else ""
        return show_new_match(
            request,
            group,
            entry,
            members,
            seating,
            form,
            "" if newcomer_error else refusal_text(refusal),
            400,
            typed=typed,
            newcomer_error=newcomer_error,
        )
    form = settings_form(entry, len(seating), posted_settings(data, entry, before, len(seating)))
    return show_new_match(request, group, entry, members, seating, form, typed=typed)


def start_from_group(
    request: HtmxHttpRequest, group: Group, game: rules.Game, members: dict[int, Player], seating: list[Seated]
) -> HttpResponse:
    """Check the table and settings as the start form does, then Group.start_match and go to the table."""
    data = request.POST.copy()
    for key in [key for key in data if key.startswith("player_")]:
        data.pop(key)
    for row, seated in enumerate(seating, start=1):
        data[f"player_{row}"] = seated.name
    form = StartForm(data, game=game)
    count = len(seating)
    if count < game.min_players:
        message = _("%(game)s needs at least %(min)d players: tap the names of those at the table.") % {
            "game": _(game.name),
            "min": game.min_players,
        }
        return show_new_match(request, group, game, members, seating, form, message, 400, bound=False)
    try:
        game.check_player_count(count)
    except rules.RuleError as refusal:
        return show_new_match(request, group, game, members, seating, form, rule_message(refusal), 400, bound=False)
    if not form.is_valid():
        names = [error for field in form.player_fields() for error in field.errors]
        return show_new_match(request, group, game, members, seating, form, joined(names), 400)
    once = Once("group-start", request.POST.get(ONCE), request)
    if (sitting := made_before(once, Sitting, wait=5)) is not None:  # Start tapped twice: the same match
        remember(request, sitting)
        remember_group(request, group)
        return go_to(request, sitting)
    if limited := over_limit(request, STARTS, known_phone(request)):
        once.drop()
        return limited
    try:
        sitting = group.start_match(
            game.slug,
            [s.entry for s in seating],
            form.match_end(),
            time_zone=posted_zone(request.POST),
            **form.options(),
        )
    except TableError as refusal:
        once.drop()
        return show_new_match(request, group, game, members, seating, form, refusal_text(refusal), refusal.status)
    once.keep(sitting.pk)
    remember(request, sitting)
    remember_group(request, group)
    if note := uneven_deals(game, form.match_end(), count):
        messages.info(request, note)
    return go_to(request, sitting)


def seating_hint(game: rules.Game, seated: bool, to_tap: bool) -> str:
    """The seating hint: nobody seated, some seated with names left to tap, or nobody left to tap."""
    clockwise = game.direction == rules.Direction.CLOCKWISE
    if not seated and to_tap:
        if clockwise:
            return _(
                "Tap whoever deals first, then the next player to the left (clockwise), and so on round the table."
            )
        return _(
            "Tap whoever deals first, then the next player to the right (counter-clockwise), and so on round the table."
        )
    if not seated:
        if clockwise:
            return _(
                "Type the name of whoever deals first and tap Add, then the next player to the left (clockwise), "
                "and so on round the table."
            )
        return _(
            "Type the name of whoever deals first and tap Add, then the next player to the right "
            "(counter-clockwise), and so on round the table."
        )
    if to_tap:
        if clockwise:
            return _(
                "The first in the list deals first, then the next to the left (clockwise). Tap a name below to "
                "seat them next; ↑ and ↓ change the order, ✕ takes a player off."
            )
        return _(
            "The first in the list deals first, then the next to the right (counter-clockwise). Tap a name below "
            "to seat them next; ↑ and ↓ change the order, ✕ takes a player off."
        )
    if clockwise:
        return _(
            "The first in the list deals first, then the next to the left (clockwise). ↑ and ↓ change the order, "
            "✕ takes a player off."
        )
    return _(
        "The first in the list deals first, then the next to the right (counter-clockwise). ↑ and ↓ change the "
        "order, ✕ takes a player off."
    )


def show_new_match(
    request: HtmxHttpRequest,
    group: Group,
    game: rules.Game,
    members: dict[int, Player],
    seating: list[Seated],
    form: StartForm,
    notice: str = "",
    status: int = 200,
    typed: str = "",
    newcomer_error: str = "",
    remembered: bool = False,
    bound: bool = True,
    playing: Sitting | None = None,
) -> HttpResponse:
    """The new-match page or its htmx form region; `bound=False` shows values without errors; `playing`:
    this phone's match of the group still being played, offered first."""
    if not bound and form.is_bound:
        form = settings_form(game, len(seating), {key: form.data.get(key) for key in form.data})
    seated_ids = {s.member for s in seating}
    if any(s.member is None for s in seating):  # who comes back to the group, who joins it
        former = [p.name for p in group.players.former()]
        for seated in seating:
            seated.returning = seated.member is None and same_as(seated.name, former) is not None
    others = by_name((p for p in members.values() if p.pk not in seated_ids), lambda p: p.name)
    full = len(seating) >= game.max_players
    context = {
        "group": group,
        "name": group_name(group),
        "game": game,
        "form": form,
        "seated": seating,
        "others": others,
        "seating_hint": seating_hint(game, bool(seating), bool(others) and not full),
        "pack_line": pack_line(game),
        "player_range": player_range(game),
        "table_full": table_full(game) if full else "",
        "notice": notice,
        "status_is_error": status >= 400,
        "typed": typed,
        "newcomer_error": newcomer_error,
        # A member typed in other letters, accents or spacing: offered, one tap to seat them.
        "offer": same_as(clean_name(typed), others, lambda player: player.name) if newcomer_error else None,
        "remembered": remembered,
        "playing": playing,
        "once": new_token(),
    }
    return page_or_partial(request, "matches/group_new_match.html", "new-match", context, status=status)
