"""Fields posted once: a field sent twice with different values (a page edited by hand, two forms' fields
mixed) is refused, never read as its last value, whether a form or a view reads it."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

TWO_VALUES = _("This form sent two different values for one field: reload the page, then try again.")


class TwoValues(ValueError):
    """A field posted twice with two values (TWO_VALUES says what to do)."""


def posted_once(data, field: str) -> str:
    """`field` of posted `data` as a view reads it without a form ("" when absent); TwoValues when it came
    twice with two values."""
    values = data.getlist(field) if hasattr(data, "getlist") else [data.get(field, "")]
    if len(set(values)) > 1:
        raise TwoValues(str(TWO_VALUES))
    return values[-1] if values else ""


class OneValueEach(forms.Form):
    """A form whose every field is posted_once."""

    def clean(self):
        data = super().clean()
        try:
            for name in self.fields:
                posted_once(self.data, name)
        except TwoValues as refusal:
            raise forms.ValidationError(str(refusal)) from None
        return data


def is_digits(text: str) -> bool:
    """Whether `text` is a number as a page or a link writes it: ASCII digits only (str.isdecimal takes other
    scripts' digits too, and int() reads them)."""
    return text.isascii() and text.isdecimal()


class PageNumber(forms.IntegerField):
    """A number a page writes in a hidden field (a hand, a seat, a version): ASCII digits (a minus sign is
    left to the field's bounds, which say what to fix). Django's IntegerField also reads "+14", " 14 ",
    "1.0", "14_0" (as 140) and other scripts' digits, none of which came from a page here."""

    def to_python(self, value):
        text = str(value)
        below_zero = text.startswith("-") and is_digits(text[1:]) and text.strip("-0") != ""  # ("-0" is no number)
        if value not in self.empty_values and not (is_digits(text) or below_zero):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)
