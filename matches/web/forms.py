"""The start screen's form: players in seating order, match end, the game's settings (table_forms: the rest)."""

from __future__ import annotations

import re

from django import forms
from django.utils.functional import lazy
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from matches.domain import rules
from matches.domain.errors import BadInput
from matches.web.bidi import bdi, sentence
from matches.models import (
    DEFAULT_STARTING_CHIPS,
    MAX_STAKE,
    MAX_STARTING_CHIPS,
    STAKE_LABEL_MAX_LENGTH,
    default_match_end,
)
from matches.web.amounts import AmountRefused, read_amount
from matches.web.one_value import TwoValues, posted_once
from matches.web.presenters.numbers import grouped
from matches.domain.names import clean_name, name_key, name_refusal
from matches.web.refusals import refusal_text
from matches.web.texts import rule_message

# Django's null-character refusal, missing from its Vietnamese catalogue: ours carries it
# (LOCALE_PATHS are read before Django's catalogues).
gettext_noop("Null characters are not allowed.")

MAX_FORM_ROWS = 30  # rows a posted form shows again; names beyond are still counted (too many players)
DEFAULT_ROWS = 4  # name rows a new form shows; blank ones are ignored
END_TARGET_FIELDS = {
    rules.MatchEndKind.WINS: "end_target_wins",
    rules.MatchEndKind.HANDS: "end_target_hands",
    rules.MatchEndKind.POINTS: "end_target_points",
}
OLD_END_TARGET = "end_target"  # one N field for any match end, as some pages and scripts post it


GROUPED = re.compile(r"\d{1,3}(?:([ ,.\u00a0\u202f'])\d{3})(?:\1\d{3})*")


class WholeNumberField(forms.IntegerField):
    """IntegerField also taking thousands grouped ("1 000", "1,000", "1.000", "1'000"); "1,5" stays refused."""

    def to_python(self, value):
        text = str(value).strip() if value is not None else value
        if text and "_" in text:  # int() reads "1_0" as 10: nobody types a number so
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        if text and GROUPED.fullmatch(text):
            value = re.sub(r"\D", "", text)
        return super().to_python(value)


def whole_number(label: str, low: int, high: int, invalid: str, **kwargs) -> forms.IntegerField:
    """IntegerField whose messages name the field and its bounds; `invalid` says what to type."""
    return WholeNumberField(
        label=label,
        min_value=low,
        max_value=high,
        error_messages={
            "invalid": invalid,
            # The bounds written as the language groups numbers ("10 000" in French), when shown.
            "min_value": format_lazy(_("{label} must be at least {low}."), label=label, low=lazy(grouped, str)(low)),
            "max_value": format_lazy(_("{label} must be at most {high}."), label=label, high=lazy(grouped, str)(high)),
        },
        **kwargs,
    )


TYPED = forms.CharField(required=False, strip=False)


def typed_text(data, field: str) -> str:
    """`field` of posted `data` as typed, checked as a form's text field checks it (no null character): a name
    or a list of names read without a form meets the start form's refusal, never a silent change (BadInput)."""
    try:
        return TYPED.clean(posted_once(data, field))
    except forms.ValidationError as error:
        raise BadInput(error.messages[0]) from None
    except TwoValues as refusal:
        raise BadInput(str(refusal)) from None


# A player row's field name: its number in ASCII digits, at most 4 of them (no form has 10,000 rows; a
# name of 5,000 digits would stop int() and answer 500). Any other name is no row, as an unknown field.
PLAYER_ROW = re.compile(r"player_([0-9]{1,4})")


def posted_rows(data) -> dict[int, str]:
    """The player rows a posted form carries: {row number: text as typed}."""
    rows = {key: PLAYER_ROW.fullmatch(key) for key in data}
    return {int(row[1]): data.get(key) or "" for key, row in rows.items() if row is not None}


def rows_to_show(game: rules.Game, typed: dict[int, str]) -> int:
    """Name rows a posted form shows again: the rows posted, less trailing blanks beyond the game's
    maximum (a refusal keeps every typed name), at most MAX_FORM_ROWS."""
    if not typed:
        return min(DEFAULT_ROWS, game.max_players)
    filled = [row for row, text in typed.items() if text.strip()]
    return min(max(typed), max(game.max_players, *filled, 1), MAX_FORM_ROWS)


def with_old_end_target(data):
    """`data` with a single `end_target` copied to the chosen end's field, for pages and scripts that post
    one N field for any match end."""
    field = END_TARGET_FIELDS.get(data.get("end_kind"))
    if field is None or OLD_END_TARGET not in data or field in data:
        return data
    data = data.copy()
    data[field] = data[OLD_END_TARGET]
    return data


class StartForm(forms.Form):
    """Start a sitting of `game`: fields `player_1`...`player_N` in seating order (blanks ignored) and one
    number field per match end (`end_target_wins` ...), only the chosen one used as cleaned_data["end_target"].
    Add and Remove post the form back and get `rearranged`, never past the game's maximum."""

    def __init__(self, data=None, *, game: rules.Game, rows: int = DEFAULT_ROWS, **kwargs):
        typed = posted_rows(data) if data is not None else {}
        if data is not None:
            data, rows = with_old_end_target(data), rows_to_show(game, typed)
        super().__init__(data, **kwargs)
        self.game = game
        self.rows = max(1, min(rows, MAX_FORM_ROWS))
        self.names_beyond = sum(1 for row, text in typed.items() if row > self.rows and text.strip())
        for row in range(1, self.rows + 1):
            self.fields[f"player_{row}"] = forms.CharField(
                label=format_lazy(_("Player {row}"), row=row),
                required=False,
                strip=True,
            )
        self.fields["end_kind"] = forms.ChoiceField(
            label=_("Match end"),
            choices=[(kind.value, capfirst(match_end_words(game, kind))) for kind in game.match_ends],
            initial=default_match_end(game).kind.value,
            widget=forms.RadioSelect,
            error_messages={
                "required": _("Choose how the match ends."),
                "invalid_choice": _("Choose how the match ends."),
            },
        )
        for kind in game.match_ends:
            if kind.takes_target:
                self.fields[END_TARGET_FIELDS[kind]] = end_target_field(game.target_for(kind, self.rows))
        if game.uses_chips:
            self.fields["starting_chips"] = whole_number(
                _("Chips each"),
                1,
                MAX_STARTING_CHIPS,
                _("Type the chips each as a whole number, like 20."),
                initial=DEFAULT_STARTING_CHIPS,
                required=False,
            )
        if game.uses_stake or game.uses_chips:  # a stake, or what one chip is worth
            self.fields["stake_amount"] = forms.CharField(
                label=_("Stake") if game.uses_stake else _("One chip is worth"),
                required=False,
                max_length=100,  # more is no amount; a number too large (read_amount) is told the range
                strip=True,
                error_messages={"max_length": _("Type an amount, like 100.")},
            )
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

    @classmethod
    def rearranged(cls, game: rules.Game, data, add: bool = False, remove: int | None = None) -> StartForm:
        """An unbound copy of `data` with a name row added or row `remove` removed; a number still at the
        old default takes the new one (Letzter Stich's hands), a typed one stays."""
        data = with_old_end_target(data)
        typed = posted_rows(data)
        names = [typed.get(row, "") for row in range(1, rows_to_show(game, typed) + 1)]
        shown = len(names)
        if add and len(names) < game.max_players:
            names.append("")
        elif remove is not None and len(names) > 1 and 1 <= remove <= len(names):
            del names[remove - 1]
        while len(names) > game.max_players and not names[-1].strip():
            names.pop()
        initial = posted_settings(data, game, shown, len(names))
        initial.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
        return cls(game=game, initial=initial, rows=len(names))

    def player_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{row}"] for row in range(1, self.rows + 1)]

    def end_choices(self) -> list[tuple[forms.BoundField, forms.BoundField | None]]:
        """Each match-end radio button with its own number field (None when it takes no number)."""
        return [
            (radio, self[END_TARGET_FIELDS[radio.data["value"]]] if radio.data["value"] in END_TARGET_FIELDS else None)
            for radio in self["end_kind"]
        ]

    def clean(self):
        data = super().clean()
        refused = sum(1 for field in self.player_fields() if field.name in self.errors)  # typed, not blank
        data["names"] = self._names()
        try:
            self.game.check_player_count(len(data["names"]) + refused + self.names_beyond)
        except rules.RuleError as refusal:
            self.player_count_error = rule_message(refusal)
            self.add_error(None, self.player_count_error)
        data["end_target"] = self._end_target(data.get("end_kind"))
        if "stake_amount" in self.fields and "stake_amount" not in self.errors:
            data["stake_amount"] = self._stake(data.get("stake_amount") or "", data.get("stake_label") or "")
        return data

    player_count_error = ""  # shown with the names it is about, not with the other errors

    # The settings' fields in the order the form shows them, after the names and their count.
    SHOWN_AFTER_NAMES = ("end_kind", *END_TARGET_FIELDS.values(), "starting_chips", "stake_amount", "stake_label")

    @property
    def first_error(self) -> str:
        """What the phone is taken to once the form is refused (its autofocus), in the order the form
        shows it: a field's name, "players" (their number), "other" (the errors of no field), or ""."""
        if not self.is_bound or not self.errors:
            return ""
        for name in [field.name for field in self.player_fields()]:
            if name in self.errors:
                return name
        if self.player_count_error:
            return "players"
        return next((name for name in self.SHOWN_AFTER_NAMES if name in self.errors), "other")

    def other_errors(self) -> list[str]:
        """The form's errors that belong to no field, but for the number of players."""
        return [error for error in self.non_field_errors() if error != self.player_count_error]

    def clean_stake_label(self) -> str:
        """As a name is kept: a currency spelt with hidden marks would read its amount in another one's decimals."""
        return clean_name(self.cleaned_data.get("stake_label") or "")

    def _stake(self, typed: str, label: str) -> int | None:
        """The stake (or a chip's worth) typed, in smallest units of the currency `label` names (None:
        none); a refusal says what to type, in the currency's own decimals ("0,50 €"; FCFA has none)."""
        if not typed:
            if label:
                self.add_error("stake_amount", gettext("Type the stake for one hand, or leave the currency empty.")
                               if self.game.uses_stake else gettext("Type what one chip is worth, or leave the currency empty."))
            return None
        try:
            return read_amount(typed, label, 1, MAX_STAKE)
        except AmountRefused as refusal:
            self.add_error("stake_amount", str(refusal))
            return None

    def _names(self) -> list[str]:
        """The names of the non-blank rows, in order; a row that is no usable name gets its error."""
        names, seen = [], {}
        for row in range(1, self.rows + 1):
            field = f"player_{row}"
            if not self.cleaned_data.get(field):
                continue
            name = clean_name(self.cleaned_data[field])
            names.append(name)
            refusal = name_refusal(name)
            if refusal is not None and refusal.code == "name_blank":
                self.add_error(field, _("Type a name, or remove this row."))
            elif refusal is not None:
                self.add_error(field, refusal_text(refusal))
            elif name_key(name) in seen:  # the same player in other letters, accents or spacing
                self.add_error(
                    field,
                    sentence(
                        gettext("%(name)s is already at the table (player %(row)d)."),
                        {"name": bdi(seen[name_key(name)][1]), "row": seen[name_key(name)][0]},
                    ),
                )
            else:
                seen[name_key(name)] = (row, name)  # the spelling typed first is the one named
        return names

    def _end_target(self, kind: str | None) -> int | None:
        """The chosen match end's number (None if it takes none); other ends' fields are ignored, even if invalid."""
        chosen = END_TARGET_FIELDS.get(kind)
        for field in END_TARGET_FIELDS.values():
            if field != chosen:
                self.errors.pop(field, None)
        if chosen is None or chosen in self.errors:
            return None
        target = self.cleaned_data.get(chosen)
        if target is None:
            self.add_error(chosen, _("Type N, the number this match ends at."))
        return target

    def match_end(self) -> rules.MatchEnd:
        return rules.MatchEnd(rules.MatchEndKind(self.cleaned_data["end_kind"]), self.cleaned_data["end_target"])

    def options(self) -> dict:
        data = self.cleaned_data
        keys = ("starting_chips", "stake_amount", "stake_label")
        return {key: data[key] for key in keys if data.get(key) not in (None, "")}


def end_target_field(default: int) -> forms.IntegerField:
    """N for one match end, starting at that end's own default."""
    return whole_number(
        _("N"),
        1,
        rules.core.MAX_TARGET,
        format_lazy(_("Type N as a whole number, like {example}."), example=default),
        required=False,
        initial=default,
    )


def match_end_words(game: rules.Game, kind: rules.MatchEndKind) -> str:
    """A match end as the start form offers it: "first to N ..." names the game's own unit."""
    if kind is rules.MatchEndKind.POINTS:
        return gettext("first to N %(unit)s") % {"unit": gettext(game.unit)}
    return gettext(rules.MATCH_END_WORDS[kind])


def posted_settings(data, game: rules.Game, before: int, after: int) -> dict:
    """The posted settings for the form shown after reseating `before` -> `after`; old defaults become new."""
    initial = {
        key: data.get(key) for key in ("end_kind", "starting_chips", "stake_amount", "stake_label") if key in data
    }
    for kind in game.match_ends:
        field = END_TARGET_FIELDS.get(kind)
        if field in data:
            kept = data.get(field)
            initial[field] = game.target_for(kind, after) if kept == str(game.target_for(kind, before)) else kept
    return initial
