"""The sentence a phone sees for each refusal code a verb raises (matches.domain.errors)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from matches.domain.errors import TableError
from matches.web.bidi import bdi, sentence
from matches.web.texts import rule_message

# Parameters that hold a person's name: isolated, so a right-to-left name keeps the sentence in order.
NAMES = frozenset({"winner", "name", "player", "other"})

REFUSALS: dict[str, str] = {
    # A player's name (matches.domain.names) and a group's verbs (matches.models.groups).
    "name_blank": _("Type the player's name."),
    "name_too_long": _("Keep names to %(max)d characters (this one has %(length)d)."),
    "name_taken": _("%(name)s is in this group already."),
    "name_erased": _("%(name)s is the name an erased player keeps: choose another name."),
    "name_former": _(
        "%(name)s played in this group before: bring them back from the former players, or choose another name."
    ),
    "listed_twice": _("%(name)s is on the list twice: type each player once."),
    "group_name_too_long": _("Keep the group's name to %(max)d characters."),
    "not_in_group": _("That player is not in this group."),
    "player_gone": _("Someone picked is no longer in this group: pick the players again."),
    "picked_twice": _("%(name)s is picked twice: seat each player once."),
    "saved_elsewhere": _("This match is saved in another group already."),
    "same_name_in_match": _("Two players of this match are both called %(name)s: this group cannot tell them apart."),
}


def refusal_text(error: TableError) -> str:
    """`error` as a sentence in the active language (HTML-safe where it names a player)."""
    if error.code == "rule":
        return rule_message(error.params["error"])
    template = REFUSALS.get(error.code)
    if template is None:  # a verb not yet moved to codes raises its finished sentence
        return error.code
    names = {key: bdi(value) for key, value in error.params.items() if key in NAMES}
    if names:
        return sentence(str(template), {**error.params, **names})
    return str(template) % error.params if error.params else str(template)
