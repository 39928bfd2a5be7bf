"""This install's secret key when the environment sets none: made once and kept in the env file."""

import fcntl
import os
import secrets
from pathlib import Path


def kept_secret_key(env_file: Path) -> str:
    """The SECRET_KEY line of `env_file`, added to it first when missing (a new random key; the file
    is created readable by its owner alone, and a last line without its newline is ended first).
    Processes starting together agree: the file is locked while read and written. Raises
    ImproperlyConfigured, naming the file, when it cannot be written."""
    try:
        with os.fdopen(os.open(env_file, os.O_RDWR | os.O_CREAT, 0o600), "r+") as kept:
            fcntl.flock(kept, fcntl.LOCK_EX)
            text = kept.read()
            for line in text.splitlines():
                if line.startswith("SECRET_KEY=") and line[len("SECRET_KEY=") :].strip():
                    return line[len("SECRET_KEY=") :].strip()
            key = secrets.token_urlsafe(50)
            kept.write(("\n" if text and not text.endswith("\n") else "") + f"SECRET_KEY={key}\n")
            return key
    except OSError as error:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"Set SECRET_KEY, or let this install keep one in {env_file}: {error}") from None
