"""The sentence a phone sees for each refusal code a verb raises (matches.domain.errors)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from matches.domain.errors import TableError
from matches.web.bidi import bdi, sentence
from matches.web.texts import rule_message

# Parameters that hold a person's name: isolated, so a right-to-left name keeps the sentence in order.
NAMES = frozenset({"winner", "name", "player", "other"})

REFUSALS: dict[str, str] = {}


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
