"""Random tokens: the links that reach a sitting or a group, and the stamp of a hand's version."""

import re
import secrets
from datetime import datetime

from django.db import models

# A link's token as new_token() makes it (22 characters); anything else is no link and is not looked up.
TOKEN_PATTERN = r"[A-Za-z0-9_-]{16,32}"
TOKEN = re.compile(TOKEN_PATTERN)
LINKS = ("token", "watch_token")  # the member link's field, the read-only watch link's


def new_token() -> str:
    """128 random bits, URL-safe: the only way to reach a sitting or a group. Never starting with
    "-", which a command line would take for an option (`manage.py export_group <token>`)."""
    while (token := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return token


def new_stamp() -> str:
    """Marks one version of a hand row, so Undo removes only the version a phone saw."""
    return secrets.token_urlsafe(6)


def reachable(link: str, token: object) -> bool:
    """Whether `token` may be looked up as a `link` ("token" or "watch_token"): a malformed one is not."""
    if link not in LINKS:
        raise ValueError(f"no such link: {link!r}")
    return isinstance(token, str) and TOKEN.fullmatch(token) is not None


class LinkedQuerySet(models.QuerySet):
    """Sittings or groups: each reached by its member and watch links, each changed at `changed_at`."""

    def reached_by(self, link: str, token: object) -> models.QuerySet:
        """The row whose `link` field ("token" or "watch_token") is `token`; none for a malformed token
        (not looked up)."""
        return self.filter(**{link: token}) if reachable(link, token) else self.none()

    def member_links(self, tokens: list[str]) -> models.QuerySet:
        """The rows whose member link is one of `tokens` (those a phone remembers)."""
        return self.filter(token__in=tokens)

    def changed_since(self, moment: datetime) -> models.QuerySet:
        return self.filter(changed_at__gte=moment)
