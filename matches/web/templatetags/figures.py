"""Template filters and a tag for settling up and for the result a table shares at the match end."""

from django import template

from matches.web.presenters import numbers
from matches.web.presenters.numbers import grouped, money_text, signed_money as signed_in
from matches.domain.settlement import Settling, Transfer
from matches.web.views import figures

register = template.Library()


@register.filter
def signed(net: int) -> str:
    """A net with its sign: "+1,100", "−400", "0"."""
    return numbers.signed_points(net)


@register.filter
def signed_money(net: int, label: str) -> str:
    """A net in smallest units of `label`'s currency, with its sign and decimals: "+1,50", "−400"."""
    return signed_in(net, label)


@register.filter
def typed_amount(amount: int, label: str) -> str:
    """An amount as a form field holds it, to be typed over: "1,50", "300"."""
    return numbers.typed_amount(amount, label)


@register.filter
def number(value: int) -> str:
    """A whole number as every screen writes it (table_state.grouped): "1,100", "−400" (U+2212)."""
    return grouped(value)


@register.filter
def score_in(value: int, sitting) -> str:
    """A Sitting.scores score for lists: signed money with currency at a stake ("+700 FCFA"), else the
    number (Cat Tê: the chips in front)."""
    if not sitting.stake_amount or sitting.rules.uses_chips:
        return grouped(value)
    return money_text(value, sitting.stake_label, signed=True)


@register.filter
def whole_percent(value: int) -> str:
    """A whole percent as every screen writes it in the active language: "36%", "36 %"."""
    return figures.whole_percent(value)


@register.simple_tag
def no_figure() -> str:
    """The mark of a number column's cell without a figure: "—", said "no figure"."""
    return figures.no_figure()


@register.filter
def payment(transfer: Transfer, settled: Settling) -> str:
    """One payment of `settled` as a sentence: "Mbarga pays Ngono 300 FCFA."."""
    return figures.payment(transfer, settled)


@register.filter
def settling_title(settled: Settling) -> str:
    """ "Settling up in FCFA", "Settling up in chips", "Settling up"."""
    return figures.settling_title(settled)


@register.simple_tag(takes_context=True)
def result_text(context: template.Context) -> str:
    """The match-end result to share, with the watch link only, so recipients can follow but not change it."""
    state = context["table"]
    return figures.result_text(state, figures.watch_url(context.get("request"), state.sitting))
