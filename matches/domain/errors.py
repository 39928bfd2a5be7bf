"""Refusals raised by the model verbs: a code, its parameters and an HTTP status, no sentence;
matches/web/refusals.py words them in the reader's language."""

from __future__ import annotations


class TableError(Exception):
    """A refused change, nothing written: `code` ("hand_not_started"), `params`, `status` (HTTP 4xx)."""

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
    """The tapped hand already has a row (double tap, retry); `number` lets the answer offer a correction."""

    def __init__(self, code: str, number: int, **params: object):
        super().__init__(code, number=number, **params)
        self.number = number
