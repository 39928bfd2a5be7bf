"""Money as a table counts it: every amount is a whole number of the currency's smallest unit (cents for
euros, the franc itself for FCFA, the đồng), never a float. How many decimals a currency has comes from the
label the table types ("€", "EUR", "euros", "FCFA", "đ"), read through Babel's copy of the Unicode CLDR;
a label it does not know counts in whole units."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache

from babel import Locale
from babel.numbers import get_currency_name, get_currency_precision, list_currencies

# The languages the app speaks, then English: their symbols and names of a currency are what tables type.
LOCALES = ("fr", "de", "vi", "en")
# What tables type that CLDR does not spell so (CLDR: "F CFA", "FCFA"; "₫").
ALIASES = {"cfa": "XOF", "francscfa": "XOF", "đ": "VND", "d": "VND", "đồng": "VND", "dong": "VND"}
SPACES = re.compile(r"[\s.\u00a0\u202f]+")
# A typed amount: digits, thousands grouped by spaces, dots, commas or apostrophes, then maybe decimals.
AMOUNT = re.compile(r"\d+(?:[ .,'\u00a0\u202f]\d+)*")


def label_key(label: str) -> str:
    """A currency label as compared: case, spaces and dots ignored ("F CFA", "fcfa", "F.CFA" are one)."""
    return SPACES.sub("", label).casefold()


@cache
def known_labels() -> dict[str, str]:
    """Each label a table may type (code, symbol, name, plural name) -> the ISO 4217 code."""
    codes: dict[str, str] = {label_key(code): code for code in sorted(list_currencies())}
    for language in LOCALES:
        locale = Locale.parse(language)
        for code, symbol in sorted(locale.currency_symbols.items()):
            codes.setdefault(label_key(symbol), code)
        for code in sorted(locale.currencies):
            for count in (1, 2):
                codes.setdefault(label_key(get_currency_name(code, count, locale)), code)
    for alias, code in ALIASES.items():
        codes.setdefault(alias, code)
    return codes


def same_currency(typed: str, label: str) -> bool:
    """Whether `typed` names the currency `label` does ("F CFA" and "FCFA", "€" and "EUR")."""
    key, other = label_key(typed), label_key(label)
    if not key:
        return False
    codes = known_labels()
    return key == other or (codes.get(key) is not None and codes.get(key) == codes.get(other))


@cache
def decimals(label: str) -> int:
    """Decimals of the currency `label` names (2 for "€", 0 for "FCFA" or "đ"); 0 for "" or one unknown."""
    code = known_labels().get(label_key(label))
    return get_currency_precision(code) if code else 0


class AmountError(ValueError):
    """A typed amount the currency cannot hold: `code` is "not_a_number" or "too_many_decimals"."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def parse_amount(text: str, places: int, decimal_mark: str = ".") -> int:
    """`text` ("0,50", "2.50", "1 000", "1.000,50", "45.000") in smallest units of a currency with `places`
    decimals. A last "," or "." followed by other than three digits is the decimal mark. Followed by three,
    it groups thousands in a currency without decimals, marks them in one of three or more, and otherwise
    marks them when it is the reader's `decimal_mark` ("1,000 $" is refused in French, a thousand in
    English). Every other mark groups thousands (three digits after it). Raises AmountError."""
    text = text.strip()
    if not AMOUNT.fullmatch(text):
        raise AmountError("not_a_number")
    parts = re.split(r"[ .,'\u00a0\u202f]", text)
    fraction = ""
    marked = len(parts) > 1 and text[-len(parts[-1]) - 1] in ".,"
    mark = text[-len(parts[-1]) - 1] if marked else ""
    ambiguous = len(parts) == 2 and places and (places >= 3 or mark == decimal_mark)  # "1,000", "1.000"
    if marked and (len(parts[-1]) != 3 or parts[0].startswith("0") or ambiguous):
        fraction = parts.pop()  # "0,500" is half of one
    if any(len(group) != 3 for group in parts[1:]) or (len(parts) > 1 and len(parts[0]) > 3):
        raise AmountError("not_a_number")
    if len(fraction) > places:
        raise AmountError("too_many_decimals")
    return int("".join(parts)) * 10**places + int(fraction.ljust(places, "0") or 0)


def as_decimal(amount: int, places: int) -> Decimal:
    """`amount` smallest units as an exact Decimal of the currency's unit (150, 2 -> 1.50)."""
    return Decimal(amount).scaleb(-places)


def in_smallest_units(whole: int, label: str) -> int:
    """A whole amount of `label`'s currency in its smallest units (1 € -> 100)."""
    return whole * 10 ** decimals(label)
