"""The link tokens in addresses: one path converter for every route that takes a sitting's or a group's
member or watch token, so that a view only ever gets a well-formed token (any other address is the
URLconf's 404, worded by views.errors.not_found)."""

from __future__ import annotations

from matches.models.tokens import TOKEN_PATTERN


class LinkToken:
    """`<link:token>` in matches/web/urls.py."""

    regex = TOKEN_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def link_field(watching: bool) -> str:
    """The field that keeps a link's token: the read-only watch link's, or the member link's."""
    return "watch_token" if watching else "token"
