"""An amount of money typed on a phone ("0,50", "45.000", "2.50"), read in the smallest units of the
currency its label names (matches.domain.money), or refused saying what to type in that currency."""

from __future__ import annotations

import re

from django import forms
from django.utils import formats
from django.utils.translation import gettext

from matches.domain import money
from matches.web.one_value import OneValueEach, PageNumber
from matches.web.presenters.numbers import money_text, typed_amount


NOT_FIGURES = re.compile(r"[^\d\s.,'\u00a0\u202f]")  # letters, signs, a currency's symbol


AMOUNT_AND_WORDS = re.compile(r"(?P<before>[^\d]*?)\s*(?P<amount>\d[\d\s.,'\u00a0\u202f]*?)\s*(?P<after>[^\d]*)")


def without_label(typed: str, label: str) -> str:
    """The amount typed with its currency written before or after it ("0,50 €", "100 F CFA" for FCFA,
    "EUR 2") left out: words that name the same currency as `label`."""
    found = AMOUNT_AND_WORDS.fullmatch(typed)
    if not label or found is None:
        return typed
    words = [found[part] for part in ("before", "after") if found[part].strip()]
    if len(words) == 1 and money.same_currency(words[0], label):
        return found["amount"]
    return typed


class PaidForm(OneValueEach):
    """Mark paid: who paid whom in which currency, the amount typed (left out: all that is owed), the newest
    payment the page showed (`after`), and the change's key made on the phone."""

    payer = PageNumber(min_value=1, max_value=2**62)
    payee = PageNumber(min_value=1, max_value=2**62)
    after = PageNumber(min_value=0, max_value=2**62)
    currency = forms.CharField(max_length=40, required=False, strip=False)
    amount = forms.CharField(max_length=60, required=False)
    key = forms.RegexField(r"\A[A-Za-z0-9_-]*\Z", max_length=32, required=False)


class AmountRefused(ValueError):
    """What to type instead, in the reader's language."""


def read_amount(typed: str, label: str, low: int, high: int) -> int:
    """`typed` in smallest units of `label`'s currency, from `low` to `high`; raises AmountRefused."""
    places, typed = money.decimals(label), without_label(typed.strip(), label)
    example = max(low, min(10**places // 2 if places else 100, high))  # one this field takes
    words = {"currency": label, "places": places, "example": typed_amount(example, label)}
    try:
        amount = money.parse_amount(typed[:60], places, formats.get_format("DECIMAL_SEPARATOR"))
    except money.AmountError as refusal:
        if refusal.code == "not_a_number" and NOT_FIGURES.search(typed):
            message = gettext("Type the amount in figures only, like %(example)s.")
        elif refusal.code == "not_a_number":
            message = gettext("Type an amount, like %(example)s.")
        elif places:
            message = gettext("%(currency)s counts to %(places)d decimals: type an amount like %(example)s.")
        elif label:
            message = gettext("%(currency)s has no smaller unit: type a whole amount, like %(example)s.")
        else:
            message = gettext("Type a whole amount, like 100; to count cents, type the currency too, like €.")
        raise AmountRefused(message % words) from None
    if not low <= amount <= high:
        bounds = {"low": money_text(low, label), "high": money_text(high, label)}
        raise AmountRefused(gettext("Type an amount from %(low)s to %(high)s.") % bounds)
    return amount
