"""Template filters that put the rules registry's texts in the reader's language."""

from django import template
from django.utils.translation import gettext

from .. import rules, texts

register = template.Library()


@register.filter
def tr(message: str) -> str:
    """Translate a text that comes from the rules registry ("Agram in Mali", a question, a note)."""
    return gettext(message) if message else message


@register.filter
def summary(game: rules.Game) -> str:
    return texts.summary(game)


@register.filter
def help_card(game: rules.Game) -> list[tuple[str, str]]:
    return texts.help_card(game)
