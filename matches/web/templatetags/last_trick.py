"""Template filters that put the rules registry's texts in the reader's language."""

import functools
import secrets

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from matches.web import bidi as isolation
from matches.domain import rules
from matches.web import texts
from matches.domain.names import shared

register = template.Library()


@register.filter
def tr(message: str) -> str:
    """Translate a text that comes from the rules registry ("Agram in Mali", a question, a note)."""
    return gettext(message) if message else message


@register.filter
def region(game: rules.Game) -> str:
    """Where the game is played, in the reader's language; "" when its name says it already ("Agram in Mali")."""
    place = tr(game.region)
    return "" if place and place in tr(game.name) else place


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
    """A name in escaped <bdi> (also in {% blocktranslate %}), so "عائشة 3" never shows as "3 عائشة"."""
    return isolation.bdi(name)


@register.filter
def fsi(name: object) -> str:
    """A right-to-left name between Unicode's FSI and PDI, where no element can go (a page's <title>, an
    SVG label); a left-to-right name reads the same without them (some phones show the marks as boxes)."""
    return shared(str(name))


@register.simple_tag
def game_help(game: rules.Game) -> str:
    """The game's "How to play" card (matches/_help.html), rendered once per game, language and worker."""
    return _help_card(game.slug, get_language())


@functools.lru_cache(maxsize=64)
def _help_card(slug: str, language: str) -> str:  # `language`: the active one, part of the key
    return render_to_string("matches/_help.html", {"game": rules.GAMES[slug]})


@register.simple_tag
def change_key() -> SafeString:
    """A hidden key for the change this form makes (models.receipts), new on every page: the same form
    sent twice is one change. Only in pages for one phone: app's offline.js keys the taps of a region
    pushed to every phone as each is made."""
    return format_html('<input type="hidden" name="key" value="{}">', secrets.token_urlsafe(12))


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or "" when it has none (a template cannot index a dict by a variable)."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""
