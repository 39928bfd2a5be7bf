"""The phone's session: Django's signed cookie, read only in the shape this app writes it.

The views take the session's values as they wrote them (a list of sitting tokens, a seat per token...).
A cookie with a good signature and another shape (written by another version of the app, or by hand
with the key) would make them answer 500 on every page; here each value of another shape is dropped
when the cookie is read, as a bad signature drops the whole cookie: the phone forgets that much."""

from __future__ import annotations

import re

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends import signed_cookies

LINK = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a sitting's or group's token, as remembered
PHONE = re.compile(r"[A-Za-z0-9_-]{1,12}")  # views.common.phone_id's; stored with each change (12 characters)
MOST_SEATS = 64  # far above any game's table; a seat is 0-based


def is_link_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(token, str) and LINK.fullmatch(token) for token in value)


def is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value < MOST_SEATS  # (not a bool)


# The app's keys (views.common, views.groups, views.pages), each with what its value must be.
SHAPES = {
    "sittings": is_link_list,
    "groups": is_link_list,
    "seats": lambda value: isinstance(value, dict) and all(LINK.fullmatch(k) and is_seat(v) for k, v in value.items()),
    "phone": lambda value: isinstance(value, str) and PHONE.fullmatch(value) is not None,
    "demo_group": lambda value: type(value) is int and 0 < value < 2**63,
}
# The operator's login (django.contrib.auth): a user id that is no number would answer 500 on /admin/.
LOGIN = (SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY)


def as_written(data: object) -> dict:
    """`data` without the values this app never writes; {} unless it is a dict."""
    if not isinstance(data, dict):
        return {}
    kept = {key: value for key, value in data.items() if key not in SHAPES or SHAPES[key](value)}
    user = kept.get(SESSION_KEY)
    if SESSION_KEY in kept and not (isinstance(user, str) and user.isascii() and user.isdecimal() and len(user) < 19):
        kept = {key: value for key, value in kept.items() if key not in LOGIN}
    return kept


class SessionStore(signed_cookies.SessionStore):
    """The signed-cookie session (SESSION_ENGINE "matches.web.sessions"), its values checked as read."""

    def load(self) -> dict:
        data = super().load()
        kept = as_written(data)
        if kept != data:
            self.modified = True  # the phone gets the cookie without them
        return kept
