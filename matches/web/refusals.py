"""The sentence a phone sees for each refusal code a verb raises (matches.domain.errors)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from matches.domain import rules
from matches.domain.errors import TableError
from matches.web.bidi import bdi, sentence
from matches.web.texts import rule_message

# Parameters that hold a person's name: isolated, so a right-to-left name keeps the sentence in order.
NAMES = frozenset({"winner", "name", "player", "other"})


def _ends_before_later_hands(params: Mapping[str, object]) -> str:
    return ngettext(
        "With this change the match ends at hand %(end)d, but hand %(last)d was played "
        "after it. To make this change, undo that hand first, then correct hand "
        "%(number)d again.",
        "With this change the match ends at hand %(end)d, but hands %(next)d to %(last)d "
        "were played after it. To make this change, undo them first (the last one each "
        "time), then correct hand %(number)d again.",
        params["last"] - params["end"],
    ) % params


def _match_end_not_allowed(params: Mapping[str, object]) -> str:
    game = rules.get_game(params["slug"])
    choices = ", ".join(gettext(rules.MATCH_END_WORDS[kind]) for kind in game.match_ends)
    return gettext("%(game)s cannot end that way: %(choices)s.") % {"game": gettext(game.name), "choices": choices}


REFUSALS: dict[str, object] = {
    # starting a sitting
    "match_end_not_allowed": _match_end_not_allowed,
    "no_chips": _("%(game)s is not played with chips."),
    "no_stake": _("%(game)s is not played for a stake."),
    "starting_chips_range": _("Start each player with 1 to %(max)d chips."),
    "stake_range": _("A stake is between 1 and %(max)d."),
    "currency_too_long": _("Keep the currency to %(max)d characters, like FCFA."),
    # recording a hand
    "no_such_seat": _("Seat %(seat)d is not at this table: tap one of the names shown."),
    "match_over": _("This match is over: no more hands can be recorded."),
    "hand_not_started": _("Hand %(number)d has not started: hand %(open)d is being played."),
    "hand_abandoned": _("Hand %(number)d was abandoned when the match ended."),
    "hand_recorded": _("Hand %(number)d is already recorded: %(winner)s."),
    # corrections and undo
    "match_ended": _("This match was ended: it can no longer change."),
    "correct_unrecorded": _("Hand %(number)d has not been recorded, so it cannot be corrected."),
    "correct_changed": _(
        "Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was corrected."
    ),
    "ends_before_later_hands": _ends_before_later_hands,
    "nothing_to_undo": _("There is no hand to undo yet."),
    "undo_unrecorded": _("Hand %(number)d has not been recorded: nothing was undone."),
    "undo_not_last": _("Hand %(number)d is not the last hand any more: nothing was undone."),
    "undo_changed": _("Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was undone."),
    # ending the match, chips
    "already_over": _("This match is already over."),
    "end_moved_on": _("Hand %(open)d is open now, not hand %(seen)d: check the score, then end the match again."),
    "chips_match_over": _("This match is over: no more chips can be handed out."),
    "chips_unseen": _("The chips button did not say which hand-out it saw: reload the page, then tap again."),
    "chips_reissued_elsewhere": _("Chips were just re-issued from another phone."),
    "nobody_ran_out": _("Nobody has run out of chips yet."),
}


def refusal_text(error: TableError) -> str:
    """`error` as a sentence in the active language (HTML-safe where it names a player)."""
    if error.code == "rule":
        return rule_message(error.params["error"])
    wording = REFUSALS.get(error.code)
    if wording is None:  # a verb not yet moved to codes raises its finished sentence
        return error.code
    if callable(wording):
        return wording(error.params)
    params = dict(error.params)
    if isinstance(params.get("game"), str):
        params["game"] = gettext(params["game"])
    names = {key: bdi(value) for key, value in params.items() if key in NAMES}
    if names:
        return sentence(str(wording), {**params, **names})
    return str(wording) % params if params else str(wording)


__all__: list[str] = ["REFUSALS", "refusal_text"]
