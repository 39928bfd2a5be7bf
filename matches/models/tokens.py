"""Random tokens: the links that reach a sitting or a group, and the stamp of a hand's version."""

import secrets


def new_token() -> str:
    """128 random bits, URL-safe: the only way to reach a sitting or a group. Never starting with
    "-", which a command line would take for an option (`manage.py export_group <token>`)."""
    while (token := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return token


def new_stamp() -> str:
    """Marks one version of a hand row, so Undo removes only the version a phone saw."""
    return secrets.token_urlsafe(6)
