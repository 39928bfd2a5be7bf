"""An amount of money typed on a phone ("0,50", "45.000", "2.50"), read in the smallest units of the
currency its label names (matches.domain.money), or refused saying what to type in that currency."""

from __future__ import annotations

from django.utils.translation import gettext

from matches.domain import money
from matches.web.presenters.numbers import money_number, typed_amount


class AmountRefused(ValueError):
    """What to type instead, in the reader's language."""


def read_amount(typed: str, label: str, low: int, high: int) -> int:
    """`typed` in smallest units of `label`'s currency, from `low` to `high`; raises AmountRefused."""
    places = money.decimals(label)
    words = {"currency": label, "places": places, "example": typed_amount(10**places // 2 if places else 100, label)}
    try:
        amount = money.parse_amount(typed[:60], places)
    except money.AmountError as refusal:
        if refusal.code == "not_a_number":
            message = gettext("Type an amount, like %(example)s.")
        elif places:
            message = gettext("%(currency)s counts to %(places)d decimals: type an amount like %(example)s.")
        elif label:
            message = gettext("%(currency)s has no smaller unit: type a whole amount, like %(example)s.")
        else:
            message = gettext("Type a whole amount, like 100; to count cents, type the currency too, like €.")
        raise AmountRefused(message % words) from None
    if not low <= amount <= high:
        bounds = {"low": money_number(low, label), "high": money_number(high, label)}
        raise AmountRefused(gettext("Type an amount from %(low)s to %(high)s.") % bounds)
    return amount
