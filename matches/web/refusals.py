"""The sentence a phone sees for each refusal a verb raises, names isolated (HTML)."""

from __future__ import annotations

from matches.domain.errors import TableError
from matches.services.wording import REFUSALS, wording
from matches.web.bidi import bdi, sentence

# Parameters that hold a person's name: isolated, so a right-to-left name keeps the sentence in order.
NAMES = frozenset({"winner", "name", "player", "other"})


def refusal_text(error: TableError) -> str:
    """`error` as a sentence in the active language (HTML-safe where it names a player)."""
    template, params = wording(error)
    names = {key: bdi(value) for key, value in params.items() if key in NAMES}
    if names:
        return sentence(template, {**params, **names})
    return template % params if params else template


__all__ = ["REFUSALS", "refusal_text"]
