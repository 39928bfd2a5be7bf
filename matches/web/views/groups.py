"""Groups reached by their link (members) or watch link (read-only): the phone's groups, lookup,
the group page and its links (players, new match, saving: sibling modules). A GET reads in one
snapshot; a POST calls one verb, then answers the region for htmx or redirects; a refusal is a 4xx."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from matches.domain.names import by_name
from matches.models import Group, Player, Seat, Sitting
from matches.web.bidi import joined
from matches.web.one_value import is_digits
from matches.web.views.common import HtmxHttpRequest, action, go_to, known_phone, page_or_partial, phone_id, reached
from matches.web.views.common import follow_links, wants_partial
from matches.services.tab import read_tab
from matches.web.presenters.tab import tab_context
from matches.web.views.figures import tonight
from matches.web.views.links import JUST_MADE, group_share_context, opens_links, share_response
from matches.web.live.regions import group_shown

REMEMBERED_GROUPS = 20  # groups a phone keeps on its home screen
MATCHES_SHOWN = 50  # newest matches listed on the group page


def remember_group(request: HttpRequest, group: Group) -> None:
    """Put `group` first in this phone's groups (in the signed session cookie); give the phone an id."""
    phone_id(request)
    tokens = [t for t in request.session.get("groups", []) if t != group.token]
    request.session["groups"] = [group.token, *tokens][:REMEMBERED_GROUPS]


def forget_group(request: HttpRequest, token: str) -> None:
    request.session["groups"] = [t for t in request.session.get("groups", []) if t != token]


def remembered_groups(request: HttpRequest) -> list[Group]:
    """The groups this phone opened, most recent first, with `current` members; rotated links left out."""
    tokens = list(request.session.get("groups", []))
    if not tokens:
        return []
    current = Prefetch("players", queryset=Player.objects.current().order_by("name"), to_attr="current")
    found = {g.token: g for g in Group.objects.member_links(tokens).prefetch_related(current)}
    for group in found.values():
        group.current = by_name(group.current, _name)  # as people read a list, not the database's byte order
    return [found[t] for t in tokens if t in found]


def _name(player: Player) -> str:
    return player.name


def group_name(group: Group) -> str:
    return group.name or _("Your group")


def optional_url(name: str, *args: object) -> str:
    """The address of a page another module serves (figures, files, import), or "" while it has none."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


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
    """The group page's data; with `links`, the share panel's links to bring phones in (QR code included)."""
    players = by_name(group.players.named().order_by("pk"), _name)
    lines = match_lines(group, 0, watching)
    more = group.sittings.count() - len(lines)  # always counted: the same queries for any group
    token = group.watch_token if watching else group.token
    context = {
        "group": group,
        "shown_version": group_shown(group),
        "name": group_name(group),
        "members": [p for p in players if not p.left],
        "former": [] if watching else [p for p in players if p.left],
        "matches": lines,
        "more": more,
        "older_url": f"{reverse('group-watch-matches' if watching else 'group-matches', args=[token])}?page=2",
        "watching": watching,
        "figures_url": optional_url("group-watch-stats" if watching else "group-stats", token),
        "csv_url": "" if watching else optional_url("group-csv", token),
        "json_url": "" if watching else optional_url("group-json", token),
        "tonight": tonight(group),
        **tab_context(read_tab(group), phone="" if watching else known_phone(request) or "", zone=group.zone),
    }
    if links and not watching:
        context.update(group_share_context(request, group))
    return context


def match_lines(group: Group, skip: int, watching: bool) -> list[MatchLine]:
    """The group's matches, newest first, after the newest `skip`: MATCHES_SHOWN of them (two queries)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    sittings = group.sittings.order_by("-started_at", "-pk").prefetch_related(seats)[skip : skip + MATCHES_SHOWN]
    return [MatchLine(s, reverse("watch", args=[s.watch_token]) if watching else s.get_absolute_url()) for s in sittings]


@require_safe
@reached(Group)
def matches(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """Every match of the group, MATCHES_SHOWN a page, newest first (?page=2 the next older ones)."""
    return matches_page(request, group, watching=False)


@require_safe
@reached(Group, watching=True)
def watch_matches(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    return matches_page(request, group, watching=True)


def matches_page(request: HtmxHttpRequest, group: Group, watching: bool) -> HttpResponse:
    """One page of the group's matches; a page number beyond them (or not one) shows the nearest page."""
    pages = max(1, -(-group.sittings.count() // MATCHES_SHOWN))
    asked = request.GET.get("page", "")
    page = min(int(asked), pages) if is_digits(asked) and len(asked) < 6 and int(asked) > 0 else 1
    token = group.watch_token if watching else group.token
    here = reverse("group-watch-matches" if watching else "group-matches", args=[token])
    context = {
        "group": group,
        "name": group_name(group),
        "watching": watching,
        "matches": match_lines(group, (page - 1) * MATCHES_SHOWN, watching),
        "page": page,
        "pages": pages,
        "newer_url": f"{here}?page={page - 1}" if page > 1 else "",
        "older_url": f"{here}?page={page + 1}" if page < pages else "",
        "back": reverse("group-watch" if watching else "group", args=[token]),
    }
    return render(request, "matches/group_matches.html", context)


def group_page(
    request: HtmxHttpRequest, group: Group, notice: str = "", status: int = 200, region: str = "group", **extra
) -> HttpResponse:
    """The group page, or an htmx region: `group` (above the links) or `members`."""
    if not notice and not request.htmx:
        told = list(messages.get_messages(request))
        notice = joined(message.message for message in told)
        # A group just made: its links open at once, where the message says (no JavaScript needed).
        extra.setdefault("share_open", opens_links(told))
    partial = wants_partial(request)
    # Else the share panel's body comes when it is opened (share, below).
    context = group_context(request, group, links=extra.get("share_open", False) and not partial)
    key = "member_notice" if region == "members" else "notice"
    context.update({key: notice, "status_is_error": status >= 400, **extra})
    return page_or_partial(request, "matches/group.html", region, context, status=status)


@require_safe
@vary_on_headers("HX-Request")
@reached(Group)
def group(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The group by its member link: New match, the players, the matches, the links."""
    remember_group(request, group)
    return group_page(request, group)


@require_safe
@reached(Group, watching=True)
def watch(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The read-only group view: no controls, no member link, no POST (405)."""
    return render(request, "matches/group.html", group_context(request, group, watching=True))


def after_change(request: HtmxHttpRequest, group: Group, notice: str, region: str = "group") -> HttpResponse:
    """htmx: the fresh region. Plain form: redirect to the group page, notice in a message."""
    if request.htmx:
        return group_page(request, group, notice, region=region)
    messages.success(request, notice)
    return redirect(group)


@require_safe
@vary_on_headers("HX-Request")
@reached(Group)
def share(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The share panel's body (htmx, when the group page's panel is opened), or a page of its own."""
    context = {"group": group, "name": group_name(group), **group_share_context(request, group)}
    return share_response(request, context, back=group.get_absolute_url())


@action(Group)
def rotate(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """New member and watch links; the old ones answer 404 from now on."""
    old = group.token
    moved = group.rotate_links()
    forget_group(request, old)
    remember_group(request, group)
    follow_links(request, moved)  # this phone keeps its matches of the group
    notice = _("New links made: the old ones no longer work. Share the new one with the group.")
    messages.success(request, notice, extra_tags=JUST_MADE)  # the group page opens its links
    return go_to(request, group)
