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
