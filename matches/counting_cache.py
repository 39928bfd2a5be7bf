"""A cache for counting requests across every worker process of one machine, without a server.

Django's file cache keeps values where all workers see them, but its `add` and `incr` read and then
write, so two workers counting at once can both read 5 and both write 6. Here they take an
exclusive lock file first: every request is counted once. (Redis, at CACHE_URL, counts atomically
on its own and is shared by several machines.)
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache


class CountingFileCache(FileBasedCache):
    """FileBasedCache whose add() and incr() are atomic across processes (an flock on one file)."""

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with open(os.path.join(self._dir, "counting.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        with self._locked():
            return super().add(key, value, timeout, version)

    def incr(self, key, delta: int = 1, version=None) -> int:
        with self._locked():
            return super().incr(key, delta, version)
