"""Checking a verb's refusal as the phone reads it."""

import re
from contextlib import contextmanager

import pytest

from matches.web.refusals import refusal_text


@contextmanager
def refused(kind: type, message: str):
    """The block raises `kind`, which the phone reads as a sentence that `message` (a regex) finds."""
    with pytest.raises(kind) as caught:
        yield caught
    assert re.search(message, str(refusal_text(caught.value))), refusal_text(caught.value)
