"""Groups: the people who play together, reached by the group's link (members) or its watch link
(read-only). The group page, its players, its links, a new match seated from it, a new group, and
saving a match into a group.

Like the match table: a GET reads the group in one snapshot; a POST calls one verb on the group, then
answers the changed region for htmx or redirects a plain form (so Reload never posts twice); a refusal
answers 4xx with its message and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages
from django.db import transaction
from django.db.models import Max, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from matches.web.refusals import refusal_text
from matches.domain import rules
from matches.web.bidi import bdi, joined, sentence
from matches.domain.errors import BadInput, TableError
from matches.web.forms import END_TARGET_FIELDS, MAX_FORM_ROWS, StartForm, posted_settings
from matches.models import GROUP_NAME_MAX_LENGTH, NAME_MAX_LENGTH, Group, Player, Seat, Sitting
from matches.domain.names import clean_name, is_visible, same_name
from matches.models.snapshot import read_snapshot
from matches.web.texts import pack_line, player_range, rule_message, table_full
from matches.models.zones import posted_zone
from matches.web.views.common import (
    TOKEN,
    HtmxHttpRequest,
    go_to,
    known_phone,
    page_or_partial,
    phone_id,
    remember,
    wants_partial,
    with_sitting,
)
from matches.web.views.errors import message_response
from matches.web.views.limits import CHANGES, STARTS, Limit, over_limit
from matches.web.views.links import qr_svg, shareable_url

REMEMBERED_GROUPS = 20  # groups a phone keeps on its home screen
MATCHES_SHOWN = 50  # newest matches listed on the group page
MAX_NEW_PLAYERS = 30  # names a new group may be created with
LARGEST_ID = 2**63 - 1  # ids beyond this are no row's (and would overflow the database's integers)

NO_SUCH_GROUP = gettext_lazy(
    "No group at this link. If someone in the group made new links, ask them for the new one "
    "(their group page shows its QR code); otherwise check the link."
)
GONE = gettext_lazy("Someone picked is no longer in this group: pick the players again.")
NOT_ON_FORM = gettext_lazy("That button is not on this form: reload the page, then try again.")


# --- this phone's groups ------------------------------------------------------------


def remember_group(request: HttpRequest, group: Group) -> None:
    """Put `group` first in this phone's list of groups (beside its sittings, in the signed session
    cookie), and give the phone its id if it has none yet."""
    phone_id(request)
    tokens = [t for t in request.session.get("groups", []) if t != group.token]
    request.session["groups"] = [group.token, *tokens][:REMEMBERED_GROUPS]


def forget_group(request: HttpRequest, token: str) -> None:
    request.session["groups"] = [t for t in request.session.get("groups", []) if t != token]


def remembered_groups(request: HttpRequest) -> list[Group]:
    """The groups this phone opened, most recent first, each with `current` (its members, by name).
    Links made new since are left out. Read inside the caller's snapshot."""
    tokens = list(request.session.get("groups", []))
    if not tokens:
        return []
    current = Prefetch(
        "players", queryset=Player.objects.filter(left=False, erased=False).order_by("name"), to_attr="current"
    )
    found = {g.token: g for g in Group.objects.filter(token__in=tokens).prefetch_related(current)}
    return [found[t] for t in tokens if t in found]


# --- finding a group by its link -----------------------------------------------------


def with_group(
    view: Callable[..., HttpResponse] | None = None, *, link: str = "token", limit: Limit | None = CHANGES
) -> Callable[..., HttpResponse]:
    """Resolve the URL's token (the group's `link` field) to its group, then call
    `view(request, group, ...)`; 404 with a message if none, or if the group is deleted or its links
    made new while the request runs (a verb raises Group.DoesNotExist).

    A GET or HEAD runs whole in one read snapshot, so the members and matches it shows agree; a POST's
    verb locks and reads the group afresh, and counts against `limit` (the tap limits; None: the view
    counts what it must itself). A refusal no view caught still answers its message and 4xx. Group
    pages carry the group's links: never stored by a browser or a proxy.
    """

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
            if request.method in ("GET", "HEAD"):
                with read_snapshot():
                    response = resolved(request, token, *args, **kwargs)
            else:
                limited = over_limit(request, limit, known_phone(request)) if limit is not None else None
                response = limited or resolved(request, token, *args, **kwargs)
            add_never_cache_headers(response)
            return response

        def resolved(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
            found = list(Group.objects.filter(**{link: token})[:1]) if TOKEN.fullmatch(token) else []
            try:
                if found:
                    return view(request, found[0], *args, **kwargs)
            except Group.DoesNotExist:  # deleted, or its links made new, while this request ran
                pass
            except TableError as refusal:
                return message_response(request, refusal_text(refusal), refusal.status)
            return message_response(request, NO_SUCH_GROUP, 404)

        return wrapper

    return decorate(view) if view is not None else decorate


def group_action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST-only change to a group. A GET (a reload, a shared link of the action's address) goes
    back to the group page instead of a blank 405."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, group: Group, *args, **kwargs) -> HttpResponse:
        if request.method != "POST":
            return redirect(group)
        return view(request, group, *args, **kwargs)

    return with_group(wrapper)


JUST_MADE = "just-made"
"""The tag of the message that follows a group just made to its page: the page opens its links."""


def group_name(group: Group) -> str:
    return group.name or _("Your group")


def optional_url(name: str, *args: object) -> str:
    """The address of a page another module serves (figures, files, import), or "" while it has none."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


# --- the group page --------------------------------------------------------------------


@dataclass
class MatchLine:
    """One of the group's matches as its list shows it: where it leads and its standings in one line."""

    sitting: Sitting
    url: str

    @property
    def standings(self) -> list[tuple[str, int]]:
        """(name, score) per seat, best first (ties in seat order)."""
        return sorted(self.sitting.scores(), key=lambda pair: -pair[1])


def group_context(request: HtmxHttpRequest, group: Group, watching: bool = False, links: bool = True) -> dict:
    """What the group page (or its watch view) shows: members, former players, newest matches, and for
    members with `links` the links to bring phones in (the QR code is drawn only for a whole page)."""
    players = list(group.players.filter(erased=False).order_by("name", "pk"))
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    sittings = list(group.sittings.order_by("-started_at", "-pk").prefetch_related(seats)[:MATCHES_SHOWN])
    more = group.sittings.count() - len(sittings)  # always counted: the same queries for any group
    lines = [
        MatchLine(s, reverse("watch", args=[s.watch_token]) if watching else s.get_absolute_url()) for s in sittings
    ]
    token = group.watch_token if watching else group.token
    context = {
        "group": group,
        "name": group_name(group),
        "members": [p for p in players if not p.left],
        "former": [] if watching else [p for p in players if p.left],
        "matches": lines,
        "more": more,
        "watching": watching,
        "figures_url": optional_url("group-watch-stats" if watching else "group-stats", token),
        "csv_url": "" if watching else optional_url("group-csv", token),
        "json_url": "" if watching else optional_url("group-json", token),
    }
    if links and not watching:
        member_url = shareable_url(request, group.get_absolute_url())
        context.update(
            member_url=member_url,
            watch_url=shareable_url(request, reverse("group-watch", args=[group.watch_token])),
            qr=mark_safe(qr_svg(member_url)),
        )
    return context


def group_page(
    request: HtmxHttpRequest, group: Group, notice: str = "", status: int = 200, region: str = "group", **extra
) -> HttpResponse:
    """The group page, or one of its regions for an htmx swap: `group` (everything above the links)
    or `members` (the players and the form that adds one; its notice beside them)."""
    if not notice and not request.htmx:
        told = list(messages.get_messages(request))
        notice = joined(message.message for message in told)
        # A group just made: its links open at once, where the message says (no JavaScript needed).
        extra.setdefault("share_open", any(JUST_MADE in (message.extra_tags or "").split() for message in told))
    partial = wants_partial(request)
    context = group_context(request, group, links=not partial)
    key = "member_notice" if region == "members" else "notice"
    context.update({key: notice, "status_is_error": status >= 400, **extra})
    return page_or_partial(request, "matches/group.html", region, context, status=status)


@require_safe
@vary_on_headers("HX-Request")
@with_group
def group(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The group by its member link: New match, the players, the matches, the links."""
    remember_group(request, group)
    return group_page(request, group)


@require_safe
@with_group(link="watch_token")
def watch(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The read-only view of a group: members and matches (each by its watch link), no control, no
    member link. It takes no POST (405 with a message)."""
    return render(request, "matches/group.html", group_context(request, group, watching=True))


def after_change(request: HtmxHttpRequest, group: Group, notice: str, region: str = "group") -> HttpResponse:
    """htmx: the fresh region in the same answer. Plain form: redirect to the group page, the notice
    following in a message."""
    if request.htmx:
        return group_page(request, group, notice, region=region)
    messages.success(request, notice)
    return redirect(group)


# --- players ---------------------------------------------------------------------------


@vary_on_headers("HX-Request")
@group_action
def add_player(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """A newcomer joins the group (a former player of the same name comes back)."""
    typed = request.POST.get("name", "")
    try:
        player = group.add_player(typed)
    except TableError as refusal:
        return group_page(request, group, refusal_text(refusal), refusal.status, region="members", typed=typed)
    return after_change(
        request, group, sentence(_("%(name)s is in the group."), {"name": bdi(player.name)}), region="members"
    )


def find_player(group: Group, player_id: int) -> Player | None:
    """The group's player `player_id` (a member or a former player), None when erased or not the group's."""
    if player_id > LARGEST_ID:
        return None
    return group.players.filter(pk=player_id, erased=False).first()


NOT_IN_GROUP = gettext_lazy("That player is not in this group.")


def player_page(
    request: HtmxHttpRequest, group: Group, player_id: int, notice: str = "", status: int = 200, typed=None
) -> HttpResponse:
    player = find_player(group, player_id)
    if player is None:
        return message_response(request, NOT_IN_GROUP, 404 if status < 400 else status)
    context = {
        "group": group,
        "name": group_name(group),
        "player": player,
        "typed": player.name if typed is None else typed,
        "notice": notice,
    }
    return render(request, "matches/group_player.html", context, status=status)


@require_safe
@with_group
def player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    """One player of the group: rename, take off the group's list (or bring back), erase."""
    return player_page(request, group, player_id)


@group_action
def rename_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    before = find_player(group, player_id)
    typed = request.POST.get("name", "")
    if before is None:
        return message_response(request, NOT_IN_GROUP, 404)
    try:
        player = group.rename_player(player_id, typed)
    except TableError as refusal:
        return player_page(request, group, player_id, refusal_text(refusal), refusal.status, typed=typed)
    if player.name == before.name:
        return after_change(request, group, sentence(_("%(name)s keeps that name."), {"name": bdi(player.name)}))
    return after_change(
        request,
        group,
        sentence(_("%(old)s is now %(new)s, in every match too."), {"old": bdi(before.name), "new": bdi(player.name)}),
    )


@group_action
def remove_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    if find_player(group, player_id) is None:
        return message_response(request, NOT_IN_GROUP, 404)
    player = group.remove_player(player_id)
    return after_change(
        request,
        group,
        sentence(
            _("%(name)s is off the group's list; their matches stay. Add the name again to bring them back."),
            {"name": bdi(player.name)},
        ),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@with_group
def erase_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    """GET asks to confirm; POST (with the confirmation) replaces the name everywhere, scores stay."""
    player = find_player(group, player_id)
    if player is None:
        return message_response(request, NOT_IN_GROUP, 404)
    context = {"group": group, "name": group_name(group), "player": player}
    if request.method != "POST":
        return render(request, "matches/group_erase.html", context)
    if request.POST.get("confirm") != "erase":
        notice = _("Nothing was erased: confirm with the button below.")
        return render(request, "matches/group_erase.html", {**context, "notice": notice}, status=400)
    old = player.name
    erased = group.erase_player(player_id, erased_name=_("Erased player %(n)d"))
    return after_change(
        request,
        group,
        sentence(
            _("%(old)s is erased: every match now says %(new)s, and the scores stay."),
            {"old": bdi(old), "new": bdi(erased.name)},
        ),
    )


# --- links -------------------------------------------------------------------------------


@group_action
def rotate(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """New member and watch links; the old ones answer 404 from now on."""
    old = group.token
    group.rotate_links()
    forget_group(request, old)
    remember_group(request, group)
    messages.success(request, _("New links made: the old ones no longer work. Share the new one with the group."))
    return go_to(request, group)


# --- a new group ----------------------------------------------------------------------------


def checked_group_name(raw: str) -> str:
    """The group's name as typed, cleaned; raises BadInput when there is none (the model refuses one
    that is too long)."""
    name = clean_name(raw)
    if not is_visible(name):
        raise BadInput(_("Type the group's name."))
    return name


@require_http_methods(["GET", "HEAD", "POST"])
def create_group(request: HtmxHttpRequest) -> HttpResponse:
    """A new group: its name, and its players if known (one a line; more can join later). Counted as a
    new match against the phone's and the address's limits."""
    context = {"typed_name": "", "typed_players": "", "max_length": GROUP_NAME_MAX_LENGTH}
    if request.method != "POST":
        return no_store(render(request, "matches/group_create.html", context))
    context.update(typed_name=request.POST.get("name", ""), typed_players=request.POST.get("players", ""))
    names = [line for line in context["typed_players"].splitlines() if clean_name(line)]
    try:
        name = checked_group_name(context["typed_name"])
        if len(names) > MAX_NEW_PLAYERS:
            raise BadInput(
                _("A new group takes at most %(max)d names; add the others on its page.") % {"max": MAX_NEW_PLAYERS}
            )
    except BadInput as refusal:
        return no_store(
            render(request, "matches/group_create.html", {**context, "notice": refusal_text(refusal)}, status=400)
        )
    if limited := over_limit(request, STARTS, known_phone(request)):
        return limited
    try:
        group = Group.create(name, names, time_zone=posted_zone(request.POST))
    except TableError as refusal:
        page = render(request, "matches/group_create.html", {**context, "notice": refusal_text(refusal)}, status=400)
        return no_store(page)
    remember_group(request, group)
    messages.success(request, _("Group made. Share its link (below) with the others."), extra_tags=JUST_MADE)
    return redirect(group)


def no_store(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    return response


# --- saving a match into a group --------------------------------------------------------------


def save_page(request: HtmxHttpRequest, sitting: Sitting, notice: str = "", status: int = 200, typed: str = ""):
    with read_snapshot():
        groups = remembered_groups(request)
        context = {
            "sitting": sitting,
            "standings": MatchLine(sitting, sitting.get_absolute_url()).standings,
            "groups": groups,
            "saved_in": sitting.group,
            "notice": notice,
            "typed": typed,
            "max_length": GROUP_NAME_MAX_LENGTH,
        }
        return render(request, "matches/group_save.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@with_sitting
def save_to_group(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """Save a match played outside any group into one of this phone's groups (`group`: its token) or
    into a new group (`group=new`, named by `name`): seats become the members of the same name (case
    aside), the others join the group."""
    if request.method != "POST":
        return save_page(request, sitting)
    choice, typed = request.POST.get("group", ""), request.POST.get("name", "")
    try:
        if choice == "new":
            name = checked_group_name(typed)
            if limited := over_limit(request, STARTS, known_phone(request)):
                return limited
            with transaction.atomic():  # no empty group left behind when the match cannot be saved
                group = Group.create(name, time_zone=posted_zone(request.POST) or sitting.time_zone)
                group.save_sitting(sitting)
        else:
            found = list(Group.objects.filter(token=choice)[:1]) if TOKEN.fullmatch(choice) else []
            if not found:
                return save_page(request, sitting, str(NO_SUCH_GROUP), 404)
            group = found[0]
            group.save_sitting(sitting)
    except TableError as refusal:
        return save_page(request, sitting, refusal_text(refusal), refusal.status, typed=typed)
    except Group.DoesNotExist:
        return save_page(request, sitting, str(NO_SUCH_GROUP), 404)
    remember_group(request, group)
    remember(request, sitting)
    messages.success(
        request,
        sentence(_("This match now belongs to the group %(group)s."), {"group": bdi(group_name(group))}),
        extra_tags=JUST_MADE if choice == "new" else "",
    )
    return redirect(group)


# --- a new match from the group -----------------------------------------------------------------


@require_safe
@with_group
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


SEAT = re.compile(r"m([0-9]{1,18})|n:(.{1,200})", re.DOTALL)
MOVE = re.compile(r"(seat|unseat|up|down)-([0-9]{1,18})")


@dataclass
class Seated:
    """Someone on the new-match form's seating list: a member (by id) or a newcomer (by name);
    `returning`, for a newcomer, when a former player of that name comes back to the group."""

    name: str
    member: int | None = None
    returning: bool = False

    @property
    def value(self) -> str:
        return f"m{self.member}" if self.member is not None else f"n:{self.name}"

    @property
    def entry(self) -> int | str:
        """As Group.start_match takes it."""
        return self.member if self.member is not None else self.name


def posted_seating(data, members: dict[int, Player]) -> tuple[list[Seated], bool]:
    """The seating the form posted, in order, and whether someone in it has left the group since (they
    are left out). A newcomer who has joined the group since (another phone added them) is seated as
    that member, once. Raises BadInput for values the form never makes."""
    values = data.getlist("seat")
    if len(values) > MAX_FORM_ROWS:
        raise BadInput(NOT_ON_FORM)
    seating: list[Seated] = []
    gone = False
    for value in values:
        match = SEAT.fullmatch(value)
        if match is None:
            raise BadInput(NOT_ON_FORM)
        if match[1] is not None:
            member = members.get(int(match[1]))
            if member is None:
                gone = True
            elif all(s.member != member.pk for s in seating):
                seating.append(Seated(member.name, member.pk))
        else:
            name = clean_name(match[2])
            if not is_visible(name) or len(name) > NAME_MAX_LENGTH:
                raise BadInput(NOT_ON_FORM)
            member = next((p for p in members.values() if same_name(p.name, name)), None)
            if member is not None:
                if all(s.member != member.pk for s in seating):
                    seating.append(Seated(member.name, member.pk))
                continue
            if any(same_name(s.name, name) for s in seating):
                raise BadInput(NOT_ON_FORM)
            seating.append(Seated(name))
    return seating, gone


def last_table(group: Group, game: rules.Game, members: dict[int, Player]) -> list[Seated]:
    """Who sat at the group's latest match of `game` (else its latest match), in their seats, if still
    members: the usual table, ready to start or to change."""
    latest = group.sittings.filter(game=game.slug).order_by("-started_at").first()
    latest = latest or group.sittings.order_by("-started_at").first()
    if latest is None:
        return []
    ids = latest.seats.order_by("position").values_list("player_id", flat=True)
    return [Seated(members[pk].name, pk) for pk in ids if pk in members][: game.max_players]


def remembered_settings(group: Group, game: rules.Game) -> dict:
    """The group's last settings for `game`, as the start form's initial values ({} if never played)."""
    last = group.last_settings(game.slug)
    kinds = {kind.value: kind for kind in game.match_ends}
    if not last or last["end_kind"] not in kinds:
        return {}
    initial: dict[str, object] = {"end_kind": last["end_kind"]}
    field = END_TARGET_FIELDS.get(kinds[last["end_kind"]])
    if field and last["end_target"] is not None:
        initial[field] = last["end_target"]
    if game.uses_chips and last["starting_chips"] is not None:
        initial["starting_chips"] = last["starting_chips"]
    if game.uses_stake:
        if last["stake_amount"] is not None:
            initial["stake_amount"] = last["stake_amount"]
        if last["stake_label"]:
            initial["stake_label"] = last["stake_label"]
    return initial


def settings_form(game: rules.Game, seated: int, initial: dict) -> StartForm:
    return StartForm(game=game, rows=max(1, seated), initial=initial)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@with_group(limit=None)
def new_match(request: HtmxHttpRequest, group: Group, game: str) -> HttpResponse:
    """Seat today's table from the group and start a match of `game`.

    Tap a member's name to seat them (in the order tapped: whoever deals first, then round the table),
    move them up or down, take them off; type a newcomer (who joins the group when the match starts).
    The group's last settings for the game come first. Every button posts the whole form back: without
    JavaScript the page comes back, with htmx the form region is swapped. Only Start changes anything
    (counted against the new-match limits); the other buttons only rearrange the form.
    """
    entry = rules.GAMES.get(game)
    if entry is None:
        return message_response(request, _("There is no such game here: pick one from the list."), 404)
    members = {p.pk: p for p in group.members()}
    if request.method != "POST":
        seating = last_table(group, entry, members)
        initial = remembered_settings(group, entry)
        form = settings_form(entry, len(seating), initial)
        return show_new_match(request, group, entry, members, seating, form, remembered=bool(initial))
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
        return show_new_match(request, group, entry, members, seating, form, str(GONE), 409, typed=typed)
    if action == "start":
        return start_from_group(request, group, entry, members, seating)
    try:
        if action == "newcomer":
            seating = seat_newcomer(group, entry, members, seating, typed)
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


def rearranged(game: rules.Game, members: dict[int, Player], seating: list[Seated], action: str) -> list[Seated]:
    """`seating` after one of the form's buttons: seat-ID, unseat-N, up-N, down-N (N from 1)."""
    move = MOVE.fullmatch(action)
    if move is None:
        raise BadInput(NOT_ON_FORM)
    verb, number = move[1], int(move[2])
    seating = list(seating)
    if verb == "seat":
        member = members.get(number) if number <= LARGEST_ID else None
        if member is None:
            raise BadInput(GONE)
        if any(s.member == member.pk for s in seating):
            return seating
        if len(seating) >= game.max_players:
            raise BadInput(table_full(game))
        return [*seating, Seated(member.name, member.pk)]
    index = number - 1
    if not 0 <= index < len(seating):
        raise BadInput(NOT_ON_FORM)
    if verb == "unseat":
        del seating[index]
    elif verb == "up" and index > 0:
        seating[index - 1], seating[index] = seating[index], seating[index - 1]
    elif verb == "down" and index < len(seating) - 1:
        seating[index + 1], seating[index] = seating[index], seating[index + 1]
    return seating


def seat_newcomer(
    group: Group, game: rules.Game, members: dict[int, Player], seating: list[Seated], typed: str
) -> list[Seated]:
    """`seating` with the newcomer named `typed` at the end; they join the group when the match starts."""
    name = clean_name(typed)
    if not is_visible(name):
        raise BadInput(_("Type the newcomer's name, then tap Add."))
    if len(name) > NAME_MAX_LENGTH:
        raise BadInput(
            _("Keep names to %(max)d characters (this one has %(length)d).")
            % {"max": NAME_MAX_LENGTH, "length": len(name)}
        )
    for seated in seating:
        if same_name(seated.name, name):
            raise BadInput(sentence(_("%(name)s is at the table already."), {"name": bdi(seated.name)}))
    for member in members.values():
        if same_name(member.name, name):
            raise BadInput(
                sentence(
                    _("%(name)s is in this group already: tap their name to seat them."), {"name": bdi(member.name)}
                )
            )
    if len(seating) >= game.max_players:
        raise BadInput(table_full(game))
    former = next((p for p in group.players.filter(left=True, erased=False) if same_name(p.name, name)), None)
    return [*seating, Seated(former.name if former else name)]


def start_from_group(
    request: HtmxHttpRequest, group: Group, game: rules.Game, members: dict[int, Player], seating: list[Seated]
) -> HttpResponse:
    """Check the table and the settings (the start form's own checks), then Group.start_match and go
    to the match table."""
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
    if limited := over_limit(request, STARTS, known_phone(request)):
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
        return show_new_match(request, group, game, members, seating, form, refusal_text(refusal), refusal.status)
    remember(request, sitting)
    remember_group(request, group)
    if request.htmx:
        return HttpResponseClientRedirect(sitting.get_absolute_url())
    return redirect(sitting)


def seating_hint(game: rules.Game, seated: bool, to_tap: bool) -> str:
    """What the seating list offers now, in the game's direction: nobody seated yet (tap, else type,
    whoever deals first, then round the table), some seated with names left to tap (tap the next;
    move or take off), or nobody left to tap (everyone seated, or the table full: move or take off)."""
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
) -> HttpResponse:
    """The new-match page, or its form region for htmx. `bound=False` shows a bound form's values
    without its errors (when the table itself is what to fix)."""
    if not bound and form.is_bound:
        form = settings_form(game, len(seating), {key: form.data.get(key) for key in form.data})
    seated_ids = {s.member for s in seating}
    if any(s.member is None for s in seating):  # who comes back to the group, who joins it
        former = [p.name for p in group.players.filter(left=True, erased=False)]
        for seated in seating:
            seated.returning = seated.member is None and any(same_name(seated.name, name) for name in former)
    others = sorted((p for p in members.values() if p.pk not in seated_ids), key=lambda p: p.name.casefold())
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
        "remembered": remembered,
    }
    return page_or_partial(request, "matches/group_new_match.html", "new-match", context, status=status)
