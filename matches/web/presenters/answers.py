"""The forms a tap offers once a winner is picked: one button per answer of a single "choice"
question (common answer first); other questions become checkboxes in their answer's form or one
form with a Record button."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from matches.domain import rules
from matches.web.bidi import bdi, sentence
from matches.models import Seat


@dataclass
class Check:
    """A checkbox group: `options` are (value, label, checked)."""

    name: str
    legend: str
    options: list[tuple[str, str, bool]]


@dataclass
class AnswerForm:
    button: str
    primary: bool
    fixed: dict[str, str] = field(default_factory=dict)
    current: bool = False  # the answer recorded for the hand being corrected
    checks: list[Check] = field(default_factory=list)
    # An answer that asks more (Cat Tê's sweep: who held back an Ace?) opens its question above its
    # checkboxes and this button records it; "" when the tap records it.
    confirm: str = ""
    short: str = ""  # the answer in running text ("a six"), as a hand row says it: for a line about the tap


def answer_forms(
    game: rules.Game, seats: list[Seat], winner: int, current: Mapping[str, object] | None = None
) -> list[AnswerForm]:
    """The forms offered for `winner` (a position), one of `seats` (those who play the hand); `current`
    pre-checks a recorded hand's answers."""
    current = current or {}
    name = next(seat.name for seat in seats if seat.position == winner)
    choices = [q for q in game.questions if q.kind == "choice"]
    others = [q for q in game.questions if q.kind != "choice"]

    def checks_for(answer: str | None) -> list[Check]:
        return [
            checkboxes(q, seats, winner, current)
            for q in others
            if q.when is None or (choices and q.when == (choices[0].key, answer))
        ]

    if not choices:
        button = sentence(_("Record: %(name)s wins"), {"name": bdi(name)})
        return [AnswerForm(button=button, primary=True, checks=checks_for(None))]  # the only one: to confirm
    question = choices[0]
    confirm = sentence(_("Record: %(name)s wins"), {"name": bdi(name)})
    forms = []
    for choice in question.choices:
        checks = checks_for(choice.value)
        forms.append(
            AnswerForm(
                button=_(choice.label),
                primary=current.get(question.key) == choice.value,  # none looks chosen before the tap
                fixed={question.key: choice.value},
                checks=checks,
                current=current.get(question.key) == choice.value,
                confirm=confirm if checks else "",
                short=_(choice.short),
            )
        )
    return forms


def choice_prompt(game: rules.Game) -> str:
    """The translated question the buttons answer; checkbox-only games: what to do; "" for the winner alone."""
    if not game.questions:
        return ""
    return next(
        (_(q.prompt) for q in game.questions if q.kind == "choice"),
        _("Anything else this hand? Tick what happened (often nothing), then tap Record."),
    )


def checkboxes(question: rules.Question, seats: list[Seat], winner: int, current: Mapping[str, object]) -> Check:
    answer = current.get(question.key)
    if question.kind == "flag":
        return Check(question.key, "", [("1", _(question.prompt), bool(answer))])
    options = [
        (str(seat.position + 1), seat.name, seat.position in (answer or ()))
        for seat in seats
        if not (question.others_only and seat.position == winner)
    ]
    return Check(question.key, _(question.prompt), options)
