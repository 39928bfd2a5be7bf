"""Refusals raised by the model verbs. Each carries the message a player sees and an HTTP status."""

from __future__ import annotations


class TableError(Exception):
    """A change the table refuses; nothing was written. `status` is the HTTP answer (4xx)."""

    status = 409

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


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

    def __init__(self, message: str, number: int):
        super().__init__(message)
        self.number = number
