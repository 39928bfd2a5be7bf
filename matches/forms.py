"""Forms: the start screen (game, players in seating order, match end) and the tap."""

from __future__ import annotations

import unicodedata

from django import forms

from . import rules
from .models import NAME_MAX_LENGTH

MAX_ROWS = max(game.max_players for game in rules.GAMES.values())
END_CHOICES = [
    (rules.MatchEndKind.OPEN.value, "Open: play until someone taps End match"),
    (rules.MatchEndKind.WINS.value, "First to N hands won"),
    (rules.MatchEndKind.HANDS.value, "After N hands"),
]


def clean_name(raw: str) -> str:
    """A typed name as stored: Unicode NFC, spaces trimmed and runs of spaces folded to one."""
    return " ".join(unicodedata.normalize("NFC", raw).split())


class StartForm(forms.Form):
    """Start a sitting. Player rows are fields `player_1` ... `player_N`, in seating order.

    `rows` is how many name rows to show; the Add and Remove buttons of the
    start screen post the form back with one more or one fewer.
    """

    game = forms.ChoiceField(
        choices=[(slug, game.name) for slug, game in rules.GAMES.items()],
        widget=forms.RadioSelect,
        initial="agram",
        error_messages={"required": "Choose the game you are playing.", "invalid_choice": "Choose a game from the list."},
    )
    end_kind = forms.ChoiceField(
        choices=END_CHOICES,
        widget=forms.RadioSelect,
        initial="open",
        label="Match end",
        error_messages={"required": "Choose how the match ends.", "invalid_choice": "Choose how the match ends."},
    )
    end_target = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=rules.core.MAX_TARGET,
        label="N",
        error_messages={
            "invalid": "Type a whole number, like 5.",
            "min_value": "N must be at least 1.",
            "max_value": f"N must be at most {rules.core.MAX_TARGET}.",
        },
    )

    def __init__(self, *args, rows: int = 4, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = max(1, min(rows, MAX_ROWS))
        for row in range(1, self.rows + 1):
            self.fields[f"player_{row}"] = forms.CharField(
                label=f"Player {row}",
                required=False,
                max_length=200,  # longer than allowed, so the message below names the limit
                strip=True,
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
            if not name:
                self.add_error(field, "Type a name, or remove this row.")
            elif len(name) > NAME_MAX_LENGTH:
                self.add_error(field, f"Keep names to {NAME_MAX_LENGTH} characters (this one has {len(name)}).")
            elif name.casefold() in seen:
                self.add_error(field, f"{name} is already at the table (player {seen[name.casefold()]}).")
            else:
                seen[name.casefold()] = row
            names.append(name)
        data["names"] = names

        game = rules.GAMES.get(data.get("game", ""))
        if game and not game.min_players <= self.rows <= game.max_players:
            self.add_error(None, game.players_reason())

        kind = data.get("end_kind")
        if kind and kind != rules.MatchEndKind.OPEN and data.get("end_target") is None and "end_target" not in self.errors:
            self.add_error("end_target", "Type N, the number this match ends at.")
        if kind == rules.MatchEndKind.OPEN:
            data["end_target"] = None
        return data

    def match_end(self) -> rules.MatchEnd:
        return rules.MatchEnd(rules.MatchEndKind(self.cleaned_data["end_kind"]), self.cleaned_data["end_target"])


class TapForm(forms.Form):
    """A tap: the hand it was made for and the winner's seat, 1-based as shown on the button."""

    number = forms.IntegerField(
        min_value=1,
        error_messages={
            "required": "The tap did not say which hand it was for.",
            "invalid": "The hand number must be a number.",
            "min_value": "Hands are numbered from 1.",
        },
    )
    winner = forms.IntegerField(
        min_value=1,
        max_value=MAX_ROWS,
        error_messages={
            "required": "Tap a player's name.",
            "invalid": "The winner must be a seat number.",
            "min_value": "There is no such seat at this table: tap one of the names shown.",
            "max_value": "There is no such seat at this table: tap one of the names shown.",
        },
    )


class HandNumberForm(forms.Form):
    """Undo names the hand it undoes."""

    number = forms.IntegerField(
        min_value=1,
        error_messages={
            "required": "Say which hand to undo.",
            "invalid": "The hand number must be a number.",
            "min_value": "Hands are numbered from 1.",
        },
    )
