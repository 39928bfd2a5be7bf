"""Forms: the start screen (players in seating order, match end, the game's settings) and the tap."""

from __future__ import annotations

import unicodedata

from django import forms
from django.http import QueryDict
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import rules
from .models import (
    MATCH_END_WORDS,
    MAX_STAKE,
    MAX_STARTING_CHIPS,
    NAME_MAX_LENGTH,
    STAKE_LABEL_MAX_LENGTH,
    default_match_end,
)
from .texts import rule_message

MAX_ROWS = max(game.max_players for game in rules.GAMES.values())
MAX_FORM_ROWS = 30  # rows a posted form may carry; more is refused as too many players
INVISIBLE = {"\u200b", "\u2060", "\ufeff", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
TAP_FIELDS = {"number", "winner", "csrfmiddlewaretoken"}


def clean_name(raw: str) -> str:
    """A typed name as stored: Unicode NFC, control and invisible formatting characters dropped
    (joiners inside emoji stay), spaces trimmed and runs of spaces folded to one."""
    kept = "".join(
        char
        for char in unicodedata.normalize("NFC", raw)
        if char not in INVISIBLE and (unicodedata.category(char) != "Cc" or char.isspace())
    )
    return " ".join(kept.split())


def is_visible(name: str) -> bool:
    """At least one letter, digit or symbol (an emoji counts)."""
    return any(unicodedata.category(char)[0] in "LNS" for char in name)


def whole_number(label: str, low: int, high: int, **kwargs) -> forms.IntegerField:
    """An IntegerField whose messages name the field and its bounds."""
    return forms.IntegerField(
        label=label,
        min_value=low,
        max_value=high,
        error_messages={
            "invalid": _("Type a whole number, like 5."),
            "min_value": format_lazy(_("{label} must be at least {low}."), label=label, low=low),
            "max_value": format_lazy(_("{label} must be at most {high}."), label=label, high=high),
        },
        **kwargs,
    )


class StartForm(forms.Form):
    """Start a sitting of `game`. Player rows are fields `player_1` ... `player_N`, in seating order.

    `rows` is how many name rows to show; the Add and Remove buttons of the
    start screen post the form back with one more or one fewer.
    """

    def __init__(self, *args, game: rules.Game, rows: int = 4, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.rows = max(1, min(rows, MAX_FORM_ROWS))
        for row in range(1, self.rows + 1):
            self.fields[f"player_{row}"] = forms.CharField(
                label=format_lazy(_("Player {row}"), row=row),
                required=False,
                strip=True,
            )
        default = default_match_end(game)
        self.fields["end_kind"] = forms.ChoiceField(
            label=_("Match end"),
            choices=[(kind.value, capfirst(MATCH_END_WORDS[kind])) for kind in game.match_ends],
            initial=default.kind.value,
            widget=forms.RadioSelect,
            error_messages={
                "required": _("Choose how the match ends."),
                "invalid_choice": _("Choose how the match ends."),
            },
        )
        self.fields["end_target"] = whole_number(
            _("N"), 1, rules.core.MAX_TARGET, required=False, initial=default.target
        )
        if game.uses_chips:
            self.fields["starting_chips"] = whole_number(
                _("Chips each"), 1, MAX_STARTING_CHIPS, initial=20, required=False
            )
        if game.uses_stake:
            self.fields["stake_amount"] = whole_number(_("Stake"), 1, MAX_STAKE, required=False)
            self.fields["stake_label"] = forms.CharField(
                label=_("Currency"),
                required=False,
                max_length=STAKE_LABEL_MAX_LENGTH,
                strip=True,
                error_messages={
                    "max_length": format_lazy(
                        _("Keep the currency to {max} characters, like FCFA."), max=STAKE_LABEL_MAX_LENGTH
                    )
                },
            )

    @staticmethod
    def rows_in(data) -> int:
        """How many player rows a posted form carries."""
        return sum(1 for key in data if key.startswith("player_") and key[7:].isdigit()) or 4

    def player_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{row}"] for row in range(1, self.rows + 1)]

    def clean(self):
        data = super().clean()
        names, seen = [], {}
        for row in range(1, self.rows + 1):
            field = f"player_{row}"
            name = clean_name(data.get(field) or "")
            if field in self.errors:
                continue
            if not is_visible(name):
                self.add_error(field, _("Type a name, or remove this row."))
            elif len(name) > NAME_MAX_LENGTH:
                self.add_error(
                    field,
                    gettext("Keep names to %(max)d characters (this one has %(length)d).")
                    % {"max": NAME_MAX_LENGTH, "length": len(name)},
                )
            elif name.casefold() in seen:
                self.add_error(
                    field,
                    gettext("%(name)s is already at the table (player %(row)d).")
                    % {"name": name, "row": seen[name.casefold()]},
                )
            else:
                seen[name.casefold()] = row
            names.append(name)
        data["names"] = names
        try:
            self.game.check_player_count(self.rows)
        except rules.RuleError as refusal:
            self.add_error(None, rule_message(refusal))

        kind = data.get("end_kind")
        if kind in (rules.MatchEndKind.OPEN, rules.MatchEndKind.THRESHOLDS):
            data["end_target"] = None  # a number left in the box does not matter
            self.errors.pop("end_target", None)
        elif kind and data.get("end_target") is None and "end_target" not in self.errors:
            self.add_error("end_target", _("Type N, the number this match ends at."))
        if self.game.uses_stake and data.get("stake_label") and not data.get("stake_amount"):
            self.add_error("stake_amount", _("Type the stake for one hand, or leave the currency empty."))
        return data

    def match_end(self) -> rules.MatchEnd:
        return rules.MatchEnd(rules.MatchEndKind(self.cleaned_data["end_kind"]), self.cleaned_data["end_target"])

    def options(self) -> dict:
        """The game-specific settings for Sitting.start."""
        data = self.cleaned_data
        keys = ("starting_chips", "stake_amount", "stake_label")
        return {key: data[key] for key in keys if data.get(key) not in (None, "")}


def hand_number(missing: str) -> forms.IntegerField:
    """The hand a request is about; `missing` says what to fix when it is absent."""
    return forms.IntegerField(
        min_value=1,
        error_messages={
            "required": missing,
            "invalid": _("The hand number must be a number."),
            "min_value": _("Hands are numbered from 1."),
        },
    )


class TapForm(forms.Form):
    """A tap: the hand it was made for and the winner's seat, 1-based as shown on the button.

    Every other posted field is one of the game's extra facts, checked by the rules.
    """

    number = hand_number(_("The tap did not say which hand it was for."))
    winner = forms.IntegerField(
        min_value=1,
        max_value=MAX_ROWS,
        error_messages={
            "required": _("Tap a player's name."),
            "invalid": _("The winner must be a seat number."),
            "min_value": _("There is no such seat at this table: tap one of the names shown."),
            "max_value": _("There is no such seat at this table: tap one of the names shown."),
        },
    )

    def extras(self) -> dict[str, object]:
        """The posted extra facts: lists for fields posted several times (seats), single values otherwise."""
        data: QueryDict = self.data
        return {
            key: values if len(values) > 1 or key in self.seat_keys else values[0]
            for key, values in data.lists()
            if key not in TAP_FIELDS
        }

    seat_keys = {q.key for game in rules.GAMES.values() for q in game.questions if q.kind == "seats"}


class HandNumberForm(forms.Form):
    """Undo names the hand it undoes (number and stamp); End match names the open hand it abandons."""

    stamp = forms.CharField(required=False, max_length=12)
    number = hand_number(_("Say which hand this is about."))
