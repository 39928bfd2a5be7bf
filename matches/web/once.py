"""A form that makes something (a match, a group, an imported group) acts once however often it is sent
(Start or Import tapped twice with no script to grey the button, a slow network):
the form carries a token made when it was shown; the first post claims it in the cache every worker
shares (settings.CACHES["ratelimit"]: Redis, or counters in files) and keeps there the id of what it
made; a second post of the same form waits for that id and answers with the same thing. A post without
a token (an old page, a script) is simply made. With the shared cache away (Redis down), the claims are kept
in this worker's own memory until it is back: the form still makes its thing, once on this worker."""

from __future__ import annotations

import logging
import re
import secrets
import time

from django.core.cache import caches

from matches.web.views.errors import BACKING_SERVICE_ERRORS

logger = logging.getLogger(__name__)

FIELD = "once"  # the form's hidden field
KEEP = 10 * 60  # seconds a token's answer is kept: far longer than a double tap
MAKING = 0  # the claim's value while the first post is still making its thing (ids start at 1)
STEP = 0.1  # seconds between two looks at a claim being made
TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")


def new_token() -> str:
    return secrets.token_urlsafe(16)


class Once:
    """The post of form `kind` carrying `posted` (the token, maybe missing or not one of ours), in `request`."""

    def __init__(self, kind: str, posted: object, request: object = None):
        self.key = f"once:{kind}:{posted}" if isinstance(posted, str) and TOKEN.fullmatch(posted) else None
        self.cache = caches["ratelimit"]
        self.request = request

    def claim(self) -> bool:
        """True for the first post of this form (it makes the thing, then `keep`s or `drop`s it), a post
        without a token, or the same request run again (its connection was lost: outages.py); False for a
        later post: `made` says what the first one made."""
        claims = getattr(self.request, "once_claims", set())
        if self.key is None or self.key in claims:
            return True
        try:
            added = self.cache.add(self.key, MAKING, KEEP)
        except (*BACKING_SERVICE_ERRORS, OSError) as error:
            logger.warning("a form's second post looked for on this worker alone: %s", error)
            self.cache = caches["default"]  # (this process's memory)
            added = self.cache.add(self.key, MAKING, KEEP)
        if not added:
            return False
        if self.request is not None:
            self.request.once_claims = claims | {self.key}
        return True

    def made(self, wait: float) -> int | None:
        """The id the first post made, waiting up to `wait` seconds while it is making it; None if it
        made nothing (it gave up its claim) or is not done by then."""
        deadline = time.monotonic() + wait
        while True:
            found = self.cache.get(self.key)
            if found != MAKING or time.monotonic() >= deadline:
                return found or None
            time.sleep(STEP)

    def keep(self, made: int) -> None:
        if self.key is not None:
            self.cache.set(self.key, made, KEEP)

    def drop(self) -> None:
        """Give the claim up (nothing made: a refusal), so that the form sent again is tried again."""
        if self.key is not None:
            self.cache.delete(self.key)


def made_before(once: Once, model: type, wait: float):
    """The row of `model` an earlier post of this form made (waiting up to `wait` seconds for it), or None
    when this post is the one to make it (it then `keep`s or `drop`s the claim)."""
    if once.claim():
        return None
    made = once.made(wait)
    return model.objects.filter(pk=made).first() if made else None
