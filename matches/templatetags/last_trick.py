"""Template filters that put the rules registry's texts in the reader's language."""

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from .. import bidi as isolation
from .. import rules, texts
from ..names import isolate

register = template.Library()


@register.filter
def tr(message: str) -> str:
    """Translate a text that comes from the rules registry ("Agram in Mali", a question, a note)."""
    return gettext(message) if message else message


@register.filter
def summary(game: rules.Game) -> str:
    return texts.summary(game)


@register.filter
def cards_dealt(game: rules.Game, seats) -> str:
    """ "7 cards each.": what the dealer deals to these `seats` (a list of seats, or how many)."""
    return texts.cards_dealt(game, seats if isinstance(seats, int) else len(seats))


@register.filter
def help_card(game: rules.Game) -> list[tuple[str, str]]:
    return texts.help_card(game)


@register.filter
def bdi(name: object) -> SafeString:
    """A name (a player's, a group's) in <bdi>, escaped, to put beside other words or numbers, in a
    {% blocktranslate with name=seat.name|bdi %} too: it keeps its own direction and stays next to its
    own numbers, so "عائشة 3" never shows as "3 عائشة"."""
    return isolation.bdi(name)


@register.filter
def fsi(name: object) -> str:
    """A name between Unicode's FSI and PDI, where no element can go (a page's <title>, an option)."""
    return isolate(str(name))
