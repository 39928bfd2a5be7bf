"""Forms whose every field is posted once: a field sent twice with different values (a page edited by hand,
two forms' fields mixed) is refused, never read as its last value."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

TWO_VALUES = _("This form sent two different values for one field: reload the page, then try again.")


class OneValueEach(forms.Form):
    def clean(self):
        data = super().clean()
        values = getattr(self.data, "getlist", None)  # (a QueryDict; a dict holds one value a key)
        if values is not None and any(len(set(values(name))) > 1 for name in self.fields):
            raise forms.ValidationError(TWO_VALUES)
        return data


class TwoValues(ValueError):
    """A field posted twice with two values (TWO_VALUES says what to do)."""


def posted_once(data, field: str) -> str:
    """`field` of posted `data` as a view reads it without a form ("" when absent); TwoValues when it came
    twice with two values."""
    values = data.getlist(field) if hasattr(data, "getlist") else [data.get(field, "")]
    if len(set(values)) > 1:
        raise TwoValues(str(TWO_VALUES))
    return values[-1] if values else ""
