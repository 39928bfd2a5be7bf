"""The table's forms: a tap (and a correction), an undo or an end, a change of who plays, Cat Tê's new
stacks. Each field is posted once (one_value); the verbs check the rest."""

from __future__ import annotations

from django import forms
from django.core.validators import RegexValidator
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from matches.domain import rules
from matches.domain.capacity import MATCH_HANDS
from matches.models import KEY_MAX_LENGTH
from matches.web.one_value import OneValueEach, PageNumber

MAX_SEATS = max(game.max_players for game in rules.GAMES.values())
TAP_FIELDS = {"number", "winner", "stamp", "key", "seen", "again", "csrfmiddlewaretoken"}  # the rest: the answers


def hand_number(missing: str) -> PageNumber:
    """The hand a request is about; `missing` says what to fix when it is absent."""
    return PageNumber(
        min_value=1,
        max_value=MATCH_HANDS + 1,  # the hand after a full match is refused as such; beyond, no match has it
        error_messages={
            "required": missing,
            "invalid": _("Hand numbers are whole numbers: reload the page, then tap again."),
            "min_value": _("Hands are numbered from 1."),
            "max_value": _("There is no hand of that number: reload the page, then tap again."),
        },
    )


def key_field() -> forms.CharField:
    """A change's key, made on the phone when the person acted (models.receipts); optional: a page of an
    older version sends none."""
    return forms.CharField(
        required=False,
        max_length=KEY_MAX_LENGTH,
        validators=[RegexValidator(r"\A[A-Za-z0-9_-]*\Z")],
        error_messages={"max_length": OLDER_PAGE, "invalid": OLDER_PAGE},
    )


OLDER_PAGE = _("This button is from an older page: reload the page, then tap again.")


def stamp_field() -> forms.CharField:
    """A hand's stamp as the page showed it (an undo's, a correction's): without it, the change could undo
    what another phone did since. One longer than any stamp came from no page here."""
    return forms.CharField(
        max_length=12,
        validators=[RegexValidator(r"\A[A-Za-z0-9_-]+\Z")],  # as models.tokens.new_stamp writes them
        error_messages=dict.fromkeys(("required", "max_length", "invalid"), OLDER_PAGE),
    )


NO_SUCH_SEAT = dict.fromkeys(
    ("invalid", "min_value", "max_value"), _("There is no such seat at this table: tap one of the names shown.")
)


class TapForm(OneValueEach):
    """A tap: its hand number and the winner's 1-based seat; other posted fields are the game's extras."""

    number = hand_number(_("The tap did not say which hand it was for."))
    winner = PageNumber(
        min_value=1,
        max_value=MAX_SEATS,
        error_messages={"required": _("Tap a player's name."), **NO_SUCH_SEAT},
    )

    key = key_field()
    seen = PageNumber(required=False, min_value=1, error_messages={"invalid": OLDER_PAGE, "min_value": OLDER_PAGE})
    # Tapped again after "another phone recorded that hand just before": the phone means the next hand.
    again = forms.BooleanField(required=False)

    def extras(self) -> dict[str, object]:
        """The posted extra facts: lists for fields posted several times (seats), single values otherwise."""
        data: QueryDict = self.data
        return {
            key: values if len(values) > 1 or key in self.seat_keys else values[0]
            for key, values in data.lists()
            if key not in TAP_FIELDS
        }

    seat_keys = {q.key for game in rules.GAMES.values() for q in game.questions if q.kind == "seats"}


class CorrectionForm(TapForm):
    """A tap that changes a recorded hand: the stamp of the hand as the phone saw it."""

    stamp = stamp_field()


class HandNumberForm(OneValueEach):
    """End match names the open hand it abandons."""

    number = hand_number(_("Say which hand this is about."))
    key = key_field()


class UndoForm(HandNumberForm):
    """Undo names the hand it undoes: its number and its stamp as the phone saw it."""

    stamp = stamp_field()


class TableChangeForm(OneValueEach):
    """A change of who plays: `change` says which; `seat` (1-based) for leaving and renaming; `name`
    for sitting down and renaming (the verb checks it as a name)."""

    change = forms.ChoiceField(
        choices=[("join", "join"), ("leave", "leave"), ("rename", "rename")],
        error_messages={"required": _("Say which change this is."), "invalid_choice": _("Say which change this is.")},
    )
    seat = PageNumber(min_value=1, max_value=99, required=False, error_messages=NO_SUCH_SEAT)
    key = key_field()
    name = forms.CharField(required=False, strip=False)  # the verb's name rule says what is too long
    was = forms.CharField(required=False, strip=False, max_length=400)  # a rename's: the name the page showed

    def clean(self):
        data = super().clean()
        if data.get("change") in ("leave", "rename") and data.get("seat") is None:
            raise forms.ValidationError(_("Say which player this is about."))
        return data


class ChipsForm(OneValueEach):
    """Cat Tê's new stacks: `seen` the batches the phone had seen (so a double tap hands out one)."""

    seen = PageNumber(
        min_value=0,
        error_messages={
            key: _("The chips button did not say which hand-out it saw: reload the page, then tap again.")
            for key in ("required", "invalid", "min_value")
        },
    )
    key = key_field()
