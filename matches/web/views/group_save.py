"""A new group, and a match played outside any group saved into one of this phone's groups (or a new one)."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from matches.domain.errors import BadInput, TableError
from matches.domain.names import clean_name, is_visible
from matches.models import Group, Sitting
from matches.models.snapshot import read_snapshot
from matches.models.zones import posted_zone
from matches.web.bidi import bdi, sentence
from matches.web.forms import typed_text
from matches.web.one_value import TwoValues, posted_once
from matches.web.once import FIELD as ONCE
from matches.web.once import Once, made_before, new_token
from matches.web.refusals import refusal_text
from matches.web.views.common import HtmxHttpRequest, known_phone, reached, remember
from matches.web.views.errors import NO_SUCH_GROUP
from matches.web.views.groups import MatchLine, group_name, remember_group, remembered_groups
from matches.web.views.links import JUST_MADE
from matches.web.views.limits import STARTS, over_limit

MAX_NEW_PLAYERS = 30  # names a new group may be created with


def checked_group_name(raw: str) -> str:
    """The group's typed name, cleaned; BadInput when blank (the model refuses one too long)."""
    name = clean_name(raw)
    if not is_visible(name):
        raise BadInput(_("Type the group's name."))
    return name


@require_http_methods(["GET", "HEAD", "POST"])
def create_group(request: HtmxHttpRequest) -> HttpResponse:
    """A new group with its name and players (one a line); counted against the new-match limits."""
    context = {"typed_name": "", "typed_players": "", "once": new_token()}
    if request.method != "POST":
        return render(request, "matches/group_create.html", context)
    context.update(typed_name=request.POST.get("name", ""), typed_players=request.POST.get("players", ""))
    try:
        name = checked_group_name(typed_text(request.POST, "name"))
        names = [line for line in typed_text(request.POST, "players").splitlines() if clean_name(line)]
        if len(names) > MAX_NEW_PLAYERS:
            raise BadInput(
                _("A new group takes at most %(max)d names; add the others on its page.") % {"max": MAX_NEW_PLAYERS}
            )
    except BadInput as refusal:
        return render(request, "matches/group_create.html", {**context, "notice": refusal_text(refusal)}, status=400)
    once = Once("group-new", request.POST.get(ONCE))
    if (group := made_before(once, Group, wait=5)) is not None:  # Make the group tapped twice: the same group
        remember_group(request, group)
        return redirect(group)
    if limited := over_limit(request, STARTS, known_phone(request)):
        once.drop()
        return limited
    try:
        group = Group.create(name, names, time_zone=posted_zone(request.POST))
    except TableError as refusal:
        once.drop()
        page = render(request, "matches/group_create.html", {**context, "notice": refusal_text(refusal)}, status=400)
        return page
    once.keep(group.pk)
    remember_group(request, group)
    messages.success(request, _("Group made. Share its link (below) with the others."), extra_tags=JUST_MADE)
    return redirect(group)



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
        }
        return render(request, "matches/group_save.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@reached(Sitting)
def save_to_group(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """Save a group-less match into this phone's `group` (its token) or a new one (`group=new`, `name`):
    seats become same-named members (case aside), others join."""
    if request.method != "POST":
        return save_page(request, sitting)
    choice, typed = request.POST.get("group", ""), request.POST.get("name", "")
    try:
        choice = posted_once(request.POST, "group")
    except TwoValues as refusal:
        return save_page(request, sitting, str(refusal), 400, typed=typed)
    try:
        if choice == "new":
            name = checked_group_name(typed_text(request.POST, "name"))
            if limited := over_limit(request, STARTS, known_phone(request)):
                return limited
            with transaction.atomic():  # no empty group left behind when the match cannot be saved
                group = Group.create(name, time_zone=posted_zone(request.POST) or sitting.time_zone)
                group.save_sitting(sitting)
        else:
            group = Group.reached_by("token", choice)
            if group is None:
                return save_page(request, sitting, str(NO_SUCH_GROUP), 404)
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
