"""The new-match form's seating list (views.group_new_match) in the order tapped: members by id,
newcomers by name."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from matches.domain import rules
from matches.domain.capacity import GROUP_PLAYERS
from matches.domain.errors import BadInput
from matches.domain.names import clean_name, name_refusal, same_as
from matches.models import Group, Player
from matches.web.bidi import bdi, sentence
from matches.web.forms import END_TARGET_FIELDS, MAX_FORM_ROWS
from matches.web.presenters.numbers import typed_amount
from matches.web.texts import table_full

NOT_ON_FORM = gettext_lazy("That button is not on this form: reload the page, then try again.")

SEAT = re.compile(r"m([0-9]{1,18})|n:(.{1,200})", re.DOTALL)
MOVE = re.compile(r"(seat|unseat|up|down)-([0-9]{1,18})")


@dataclass
class Seated:
    """A member (by id) or newcomer (by name) on the seating list; `returning`: a former player's name."""

    name: str
    member: int | None = None
    returning: bool = False

    @property
    def value(self) -> str:
        return f"m{self.member}" if self.member is not None else f"n:{self.name}"

    @property
    def entry(self) -> int | str:
        return self.member if self.member is not None else self.name


def posted_seating(data, members: dict[int, Player]) -> tuple[list[Seated], list[int]]:
    """The posted seating in order and the ids of those who have left the group since (dropped); a
    newcomer who joined meanwhile is seated as that member once. Raises BadInput for values no form makes."""
    values = data.getlist("seat")
    if len(values) > MAX_FORM_ROWS:
        raise BadInput(NOT_ON_FORM)
    seating: list[Seated] = []
    gone: list[int] = []
    for value in values:
        match = SEAT.fullmatch(value)
        if match is None:
            raise BadInput(NOT_ON_FORM)
        if match[1] is not None:
            member = members.get(int(match[1]))
            if member is None:
                gone.append(int(match[1]))
            elif all(s.member != member.pk for s in seating):
                seating.append(Seated(member.name, member.pk))
        else:
            name = clean_name(match[2])
            if name != match[2] or name_refusal(name) is not None:  # the form writes names as cleaned
                raise BadInput(NOT_ON_FORM)
            member = same_as(name, members.values(), _name_of)
            if member is not None:
                if all(s.member != member.pk for s in seating):
                    seating.append(Seated(member.name, member.pk))
                continue
            if same_as(name, seating, _name_of) is not None:
                raise BadInput(NOT_ON_FORM)
            seating.append(Seated(name))
    return seating, gone


def last_table(group: Group, game: rules.Game, members: dict[int, Player]) -> list[Seated]:
    """Who sat at the group's latest `game` match (else latest match), in their seats, if still members."""
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
    if game.uses_stake or game.uses_chips:
        if last["stake_amount"] is not None:
            initial["stake_amount"] = typed_amount(last["stake_amount"], last["stake_label"] or "")
        if last["stake_label"]:
            initial["stake_label"] = last["stake_label"]
    return initial


def rearranged(game: rules.Game, members: dict[int, Player], seating: list[Seated], action: str) -> list[Seated]:
    """`seating` after one of the form's buttons: seat-ID, unseat-N, up-N, down-N (N from 1)."""
    move = MOVE.fullmatch(action)
    if move is None:
        raise BadInput(NOT_ON_FORM)
    verb, number = move[1], int(move[2])
    seating = list(seating)
    if verb == "seat":
        member = members.get(number)
        if member is None:
            raise BadInput("player_gone")
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
    refusal = name_refusal(name)
    if refusal is not None and refusal.code == "name_blank":
        raise BadInput(_("Type the newcomer's name, then tap Add."))
    if refusal is not None:
        raise refusal
    if (seated := same_as(name, seating, _name_of)) is not None:
        raise BadInput(sentence(_("%(name)s is at the table already."), {"name": bdi(seated.name)}))
    if (member := same_as(name, members.values(), _name_of)) is not None:
        raise BadInput(
            sentence(_("%(name)s is in this group already: tap their name to seat them."), {"name": bdi(member.name)})
        )
    if len(seating) >= game.max_players:
        raise BadInput(table_full(game))
    formers = list(group.players.former())
    former = same_as(name, formers, _name_of)
    if former is None:  # a new player: the group keeps room for them and the other newcomers seated
        group.not_renamed_from(name)  # another player's name before a rename: said now, not at Start
        joining = 1 + sum(s.member is None and same_as(s.name, formers, _name_of) is None for s in seating)
        if group.players.count() + joining > GROUP_PLAYERS:
            raise BadInput("group_players_full", max=GROUP_PLAYERS)
    return [*seating, Seated(former.name if former else name)]


def _name_of(someone: Player | Seated) -> str:
    return someone.name
