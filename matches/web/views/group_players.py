"""A group's players: a newcomer joins, one player's page, rename, take off the list, erase."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.domain.errors import TableError
from matches.models import Group
from matches.services.tab import read_tab
from matches.web.bidi import bdi, sentence
from matches.web.forms import typed_text
from matches.web.presenters.tab import owed_sentence
from matches.web.refusals import REFUSALS, refusal_text
from matches.web.presenters.player_changes import change_words
from matches.web.views.common import HtmxHttpRequest, action, known_phone, phone_id, reached
from matches.web.views.errors import message_response
from matches.web.views.groups import after_change, group_name, group_page

NOT_IN_GROUP = REFUSALS["not_in_group"]


@vary_on_headers("HX-Request")
@action(Group)
def add_player(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """A newcomer joins the group (a former player of the same name comes back)."""
    typed = request.POST.get("name", "")
    try:
        player = group.add_player(typed_text(request.POST, "name"), by=phone_id(request))
    except TableError as refusal:
        return group_page(request, group, refusal_text(refusal), refusal.status, region="members", typed=typed)
    return after_change(
        request, group, sentence(_("%(name)s is in the group."), {"name": bdi(player.name)}), region="members"
    )


def player_page(
    request: HtmxHttpRequest, group: Group, player_id: int, notice: str = "", status: int = 200, typed=None
) -> HttpResponse:
    player = group.find_player(player_id)
    if player is None:
        return message_response(request, NOT_IN_GROUP, 404 if status < 400 else status)
    context = {
        "group": group,
        "name": group_name(group),
        "player": player,
        "typed": player.name if typed is None else typed,
        "notice": notice,
        "changes": change_words(player, group.zone, known_phone(request)),
    }
    return render(request, "matches/group_player.html", context, status=status)


@require_safe
@reached(Group)
def player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    """One player of the group: rename, take off the group's list (or bring back), erase."""
    return player_page(request, group, player_id)


@action(Group)
def rename_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    before = group.find_player(player_id)
    typed = request.POST.get("name", "")
    if before is None:
        return message_response(request, NOT_IN_GROUP, 404)
    try:
        player = group.rename_player(player_id, typed_text(request.POST, "name"), by=phone_id(request))
    except TableError as refusal:
        return player_page(request, group, player_id, refusal_text(refusal), refusal.status, typed=typed)
    if player.name == before.name:
        return after_change(request, group, sentence(_("%(name)s keeps that name."), {"name": bdi(player.name)}))
    return after_change(
        request,
        group,
        sentence(_("%(old)s is now %(new)s, in every match too."), {"old": bdi(before.name), "new": bdi(player.name)}),
    )


@action(Group)
def remove_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    if group.find_player(player_id) is None:
        return message_response(request, NOT_IN_GROUP, 404)
    player = group.remove_player(player_id, by=phone_id(request))
    return after_change(
        request,
        group,
        sentence(
            _("%(name)s is off the group's list; their matches stay. Add the name again to bring them back."),
            {"name": bdi(player.name)},
        ),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@reached(Group)
def erase_player(request: HtmxHttpRequest, group: Group, player_id: int) -> HttpResponse:
    """GET asks to confirm; POST (with the confirmation) replaces the name everywhere, scores stay."""
    player = group.find_player(player_id)
    if player is None:
        return message_response(request, NOT_IN_GROUP, 404)
    context = {"group": group, "name": group_name(group), "player": player}
    if request.method != "POST":
        return render(request, "matches/group_erase.html", {**context, "on_tab": on_tab(group, player.pk)})
    if request.POST.get("confirm") != "erase":
        notice = _("Nothing was erased: confirm with the button below.")
        return render(request, "matches/group_erase.html", {**context, "notice": notice}, status=400)
    old = player.name
    erased = group.erase_player(player_id, erased_name=_("Erased player %(n)d"), by=phone_id(request))
    return after_change(
        request,
        group,
        sentence(
            _("%(old)s is erased: every match now says %(new)s, and the scores stay."),
            {"old": bdi(old), "new": bdi(erased.name)},
        ),
    )


def on_tab(group: Group, player_id: int) -> list[str]:
    """The tab's open payments from or to `player_id`, worded (shown before an erasure is confirmed)."""
    return [owed_sentence(owed) for owed in read_tab(group).owed if player_id in (owed.payer, owed.payee)]
