"""Refusals (RuleError and the verbs' codes) in the reader's language, for the archive and the web
layer (web/refusals.py isolates the names)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.formats import number_format
from django.utils.text import get_text_list
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from matches.domain import rules
from matches.domain.errors import TableError


def rule_message(error: rules.RuleError) -> str:
    """A RuleError in the active language: its template and every text parameter translated (a tuple of texts
    listed: "a, b or c"); a question's prompt ends its sentence before the refusal's own."""
    params = {key: _translated(value) for key, value in error.params.items()}
    if isinstance(prompt := params.get("prompt"), str) and prompt and prompt.rstrip()[-1] not in ".?!:;…":
        params["prompt"] = prompt.rstrip() + "."
    return _(error.template) % params if params else _(error.template)


def _translated(value: object) -> object:
    if isinstance(value, tuple):
        return get_text_list([_(text) for text in value], _("or"))
    return _(value) if isinstance(value, str) and value else value


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


def _ends_before_changed_table(params: Mapping[str, object]) -> str:
    return ngettext(
        "With this change the match ends at hand %(end)d, but hand %(last)d was played after it and who "
        "plays has changed since: an undo cannot reach back past that, so this correction cannot be made.",
        "With this change the match ends at hand %(end)d, but hands %(next)d to %(last)d were played after "
        "it and who plays changed meanwhile: an undo cannot reach back past that, so this correction cannot be made.",
        params["last"] - params["end"],
    ) % params


def _match_end_not_allowed(params: Mapping[str, object]) -> str:
    game = rules.get_game(params["slug"])
    choices = ", ".join(gettext(rules.MATCH_END_WORDS[kind]) for kind in game.match_ends)
    return gettext("%(game)s cannot end that way: %(choices)s.") % {"game": gettext(game.name), "choices": choices}


def _full(template: str):
    """A refusal saying a limit (matches.domain.capacity) as the reader's language groups numbers."""

    def words(params: Mapping[str, object]) -> str:
        return gettext(template) % {"max": number_format(params["max"], force_grouping=True)}

    return words


REFUSALS: dict[str, object] = {
    "match_end_not_allowed": _match_end_not_allowed,
    "no_chips": gettext_lazy("%(game)s is not played with chips."),
    "no_stake": gettext_lazy("%(game)s is not played for a stake."),
    "starting_chips_range": gettext_lazy("Start each player with 1 to %(max)d chips."),
    "stake_range": gettext_lazy("A stake is between 1 and %(max)d."),
    "currency_too_long": gettext_lazy("Keep the currency to %(max)d characters, like FCFA."),
    "no_such_seat": gettext_lazy("Seat %(seat)d is not at this table: tap one of the names shown."),
    "match_over": gettext_lazy("This match is over: no more hands can be recorded."),
    "seat_not_playing": gettext_lazy("%(name)s does not play this hand: tap one of the names shown."),
    "too_few_to_leave": gettext_lazy("%(game)s needs at least %(min)d players: nobody can leave the table now."),
    "name_at_table": gettext_lazy("%(name)s is at this table already."),
    "table_change_over": gettext_lazy("This match is over: who plays can no longer change."),
    "name_left_table": gettext_lazy("%(name)s left this match: they can play the next one."),
    "name_left_earlier": gettext_lazy("%(name)s played in this match before leaving it: choose another name."),
    "undo_table_changed": gettext_lazy(
        "Who plays changed after hand %(number)d, so it cannot be undone: correct it on the hands page instead."
    ),
    "hand_not_started": gettext_lazy("Hand %(number)d has not started: hand %(open)d is being played."),
    "tap_right_after": gettext_lazy(
        "Another phone recorded hand %(number)d for %(winner)s just before this tap, so this tap recorded nothing. "
        "If it was for hand %(open)d, tap again."
    ),
    "hand_abandoned": gettext_lazy("Hand %(number)d was not played: the match was ended."),
    "hand_recorded": gettext_lazy("Hand %(number)d is already recorded: %(winner)s."),
    "match_ended": gettext_lazy("This match was ended: it can no longer change."),
    "reopens_rematched": gettext_lazy(
        "A rematch followed the end of this match: corrected so, hand %(number)d would reopen it. Correct it so "
        "that the match still ends, or note the change in the rematch."
    ),
    "undo_rematched": gettext_lazy(
        "A rematch followed the end of this match: hand %(number)d can no longer be undone, only corrected."
    ),
    "correct_unrecorded": gettext_lazy("Hand %(number)d has not been recorded, so it cannot be corrected."),
    "correct_changed": gettext_lazy(
        "Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was corrected."
    ),
    "ends_before_later_hands": _ends_before_later_hands,
    "ends_before_changed_table": _ends_before_changed_table,
    "nothing_to_undo": gettext_lazy("There is no hand to undo yet."),
    "correct_unchanged": gettext_lazy("Hand %(number)d says this already: nothing was changed."),
    "undo_unrecorded": gettext_lazy("Hand %(number)d has not been recorded: nothing was undone."),
    "undo_done_elsewhere": gettext_lazy("Hand %(number)d was already undone on another phone: it is open to tap again."),
    "undo_done_here": gettext_lazy("Hand %(number)d was already undone from this phone: it is open to tap again."),
    "undo_not_last": gettext_lazy("Hand %(number)d is not the last hand any more: nothing was undone."),
    "undo_changed": gettext_lazy("Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was undone."),
    "already_over": gettext_lazy("This match is already over."),
    "end_moved_on": gettext_lazy("Hand %(open)d is open now, not hand %(seen)d: check the score, then end the match again."),
    "chips_match_over": gettext_lazy("This match is over: no more chips can be handed out."),
    "version_unseen": gettext_lazy("This tap names a change of the table that was never made: reload the page, then tap again."),
    "chips_unseen": gettext_lazy("The chips button did not say which hand-out it saw: reload the page, then tap again."),
    "chips_reissued_elsewhere": gettext_lazy("Chips were just re-issued from another phone."),
    "chips_reissued_here": gettext_lazy("Chips were just re-issued from this phone: nothing more was handed out."),
    "nobody_ran_out": gettext_lazy("Nobody has run out of chips yet."),
    # A player's name (matches.domain.names) and a group's verbs (matches.models.groups).
    "name_blank": gettext_lazy("Type the player's name."),
    "name_unreadable": gettext_lazy("This name holds a character that could not be read (�): retype it."),
    "name_too_long": gettext_lazy("Keep names to %(max)d characters (this one has %(length)d)."),
    "name_mixed_scripts": gettext_lazy(
        "%(name)s mixes letters of alphabets that look alike (Latin, Greek, Cyrillic…): "
        "type each word of a name in one alphabet."
    ),
    "name_taken": gettext_lazy("%(name)s is in this group already."),
    "name_erased": gettext_lazy("%(name)s is the name an erased player keeps: choose another name."),
    "name_former": gettext_lazy(
        "%(name)s played in this group before: bring them back from the former players, or choose another name."
    ),
    "name_was_other": gettext_lazy(
        "%(other)s was %(name)s’s name in this group, before a rename: choose another name, so that nobody "
        "takes another player’s place in the history or on the tab."
    ),
    "seat_claimed": gettext_lazy(
        "Another phone already says it is %(name)s’s: only that phone can give the name up (This phone belongs "
        "to: nobody in particular). Meanwhile this phone’s taps and changes carry no player’s name."
    ),
    "listed_twice": gettext_lazy("%(name)s is on the list twice: type each player once."),
    "group_name_too_long": gettext_lazy("Keep the group's name to %(max)d characters."),
    "not_in_group": gettext_lazy("That player is not in this group."),
    "player_gone": gettext_lazy("Someone picked is no longer in this group: pick the players again."),
    "players_left": gettext_lazy("No longer in this group: %(name)s. Check who is seated, then start."),
    "picked_twice": gettext_lazy("%(name)s is picked twice: seat each player once."),
    "rematch_unlinked": gettext_lazy(
        "This match’s rematch was given new links after a link leaked: ask a player at that table for its link."
    ),
    "saved_elsewhere": gettext_lazy("This match is saved in another group already."),
    # A group's tab (matches.models.payments).
    "paid_self": gettext_lazy("A payment goes from one player to another: pick two players."),
    "payment_amount": gettext_lazy("A payment is a whole amount of at least 1."),
    "payment_currency": gettext_lazy("That currency is not one this group plays for."),
    "payment_gone": gettext_lazy("That payment is not in this group's tab."),
    "payment_unseen": gettext_lazy("That payment could not be read: tap Mark paid again."),
    "paid_meanwhile": gettext_lazy("A payment between these two was just marked: check the tab as it is now, then tap again."),
    "not_owed": gettext_lazy("Nothing is owed between these two players in this currency now: check the tab as it is now."),
    "payment_not_yours": gettext_lazy("Only the phone that marked this payment can take it back."),
    "payment_too_old": gettext_lazy("A payment can be taken back only on the night it was marked."),
    "renamed_meanwhile": gettext_lazy("%(player)s was renamed %(name)s on another phone meanwhile: nothing was changed. Rename again if needed."),
    "payment_forgiven": gettext_lazy("This payment was wiped off with the rest when the tab was forgiven: it can no longer be taken back."),
    "same_name_in_match": gettext_lazy("Two players of this match are both called %(name)s: this group cannot tell them apart."),
    # How big a group grows (matches.domain.capacity).
    "group_players_full": _full(
        gettext_noop(
            "This group is full: a group keeps at most %(max)s players, counting those who left. "
            "Start a new group for the others."
        )
    ),
    "group_matches_full": _full(
        gettext_noop("This group is full: a group keeps at most %(max)s matches. Start a new group to play on.")
    ),
    "group_hands_full": _full(
        gettext_noop("This group is full: a group keeps at most %(max)s hands. Start a new group to play on.")
    ),
    "match_hands_full": _full(
        gettext_noop("This match is full: a match keeps at most %(max)s hands. End it and start a new match.")
    ),
}


def wording(error: TableError) -> tuple[str, dict]:
    """The translated template of `error` and its parameters, or a template-less code's sentence and {}."""
    if error.code == "rule":
        return rule_message(error.params["error"]), {}
    found = REFUSALS.get(error.code)
    if found is None:  # a refusal raised with its sentence as the code (web-only refusals)
        return error.code, {}
    if callable(found):
        return found(error.params), {}
    params = dict(error.params)
    if isinstance(params.get("game"), str):
        params["game"] = gettext(params["game"])
    return str(found), params


def refusal_sentence(error: TableError) -> str:
    """`error` as plain text in the active language (names as typed: for files and commands)."""
    template, params = wording(error)
    return template % params if params else template
