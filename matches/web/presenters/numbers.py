"""Numbers and money as the phone's language writes them: whole numbers grouped ("1 000"), and an amount
kept in the currency's smallest units (matches.domain.money) with the currency's decimals: "1,50 €",
"45.000 ₫", "−4.00" (U+2212 for a minus, as every number on a screen)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.utils import formats
from django.utils.translation import get_language

from matches.domain.money import as_decimal, decimals


def grouped(number: int) -> str:
    """Whole number grouped as the active language writes it: "1,000", "1 000" (no-break space), "1.000".
    Negatives use U+2212 ("−1,000") on every screen; the CSV keeps ASCII "-". The `number` filter."""
    return grouper()(number)


def grouper() -> Callable[[int], str]:
    """`grouped` with the language's format looked up once; groups of three written directly;
    Django's number_format, which is slower, only for the other groupings."""
    separator = thousands_separator(get_language())

    def write(number: int) -> str:
        if separator is None:
            text = formats.number_format(abs(number), force_grouping=True)
        else:
            text = f"{abs(number):,}".replace(",", separator)
        return f"\u2212{text}" if number < 0 else text

    return write


@cache
def thousands_separator(language: str | None) -> str | None:
    """The language's thousands separator when it groups by three (scorekeeper/formats), else None."""
    if formats.get_format("NUMBER_GROUPING", language) != 3:
        return None
    return formats.get_format("THOUSAND_SEPARATOR", language)


def signed_points(points: int) -> str:
    """Signed points of a hand: "+2", "−3" (U+2212), "0"."""
    return f"+{grouped(points)}" if points > 0 else grouped(points)


def money_number(amount: int, label: str) -> str:
    """`amount` smallest units of `label`'s currency, grouped, with its decimals: "1,50", "45.000"."""
    places = decimals(label)
    if not places:
        return grouped(amount)
    text = formats.number_format(as_decimal(abs(amount), places), decimal_pos=places, force_grouping=True)
    return f"\u2212{text}" if amount < 0 else text


def signed_money(amount: int, label: str) -> str:
    """`money_number` with a plus for a gain: "+1,50", "−4,00", "0"."""
    return f"+{money_number(amount, label)}" if amount > 0 else money_number(amount, label)


def money_text(amount: int, label: str, signed: bool = False) -> str:
    """The amount with its currency after a no-break space ("1,50 €"); the number alone without one."""
    number = signed_money(amount, label) if signed else money_number(amount, label)
    return f"{number}\u00a0{label}" if label else number


def typed_amount(amount: int | None, label: str) -> str:
    """An amount as a form shows it back to be typed again: no grouping, the language's decimal mark."""
    if amount is None:
        return ""
    places = decimals(label)
    return formats.number_format(as_decimal(amount, places), decimal_pos=places) if places else str(amount)
