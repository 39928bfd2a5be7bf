"""Refusals raised by the model verbs: a code, its parameters and an HTTP status; no sentence.

The web layer turns a code into the reader's language (matches/web/refusals.py).
"""

from __future__ import annotations


class TableError(Exception):
    """A change the table refuses; nothing was written. `status` is the HTTP answer (4xx).

    `code` names the refusal ("hand_not_started"); `params` fill its sentence (numbers, names).
    """

    status = 409

    def __init__(self, code: str, **params: object):
        super().__init__(code)
        self.code = code
        self.params = params


class BadInput(TableError):
    """The request itself is wrong (missing field, unknown seat, extras that do not belong)."""

    status = 400


class Conflict(TableError):
    """The request was fine when sent but the table has moved on (hand already recorded, match over)."""

    status = 409


class AlreadyRecorded(Conflict):
    """The tapped hand already has a row: a double tap, a retry or a second phone.

    `number` is that hand, so the answer can offer to correct it.
    """

    def __init__(self, code: str, number: int, **params: object):
        super().__init__(code, number=number, **params)
        self.number = number
