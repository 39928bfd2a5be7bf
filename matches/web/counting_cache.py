"""A request-counting cache shared by a machine's workers without a server. Django's file cache reads
then writes a pickled file, so two workers can both read 5 and write 6; here each counter is one
"<expiry> <count>" file rewritten under flock, so every request counts once. (Redis is atomic itself.)
diskcache's DjangoCache would count atomically too (in SQLite transactions), but that library is no
longer maintained (its advisory on pickled values stays open), and the limits need only these counters."""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

SUFFIX = ".djcache"
SWEEP_EVERY = 500  # new counters made by this process between two sweeps of expired ones


class CountingFileCache(BaseCache):
    """Int counters in files, atomic across processes (add, incr, get, set, delete, clear); else TypeError."""

    def __init__(self, location: str, params: dict) -> None:
        super().__init__(params)
        self._dir = os.path.abspath(location)
        self._made = 0  # counters written by this process, for the sweep

    def path_of(self, key, version) -> str:
        key = self.make_and_validate_key(key, version=version)
        return os.path.join(self._dir, hashlib.md5(key.encode(), usedforsecurity=False).hexdigest() + SUFFIX)

    def counter(self, key, version, create: bool):
        """Context manager: (fd, count or None if missing/expired) with the file locked, or None when absent and not `create`."""
        return locked_counter(self.path_of(key, version), self._dir, create)

    def write(self, fd: int, value: int, timeout) -> None:
        write_count(fd, self.get_backend_timeout(timeout), value)
        self._made += 1
        if self._made % SWEEP_EVERY == 0:
            self.sweep()

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        with self.counter(key, version, create=True) as (fd, count):
            if count is not None:
                return False
            self.write(fd, _whole(value), timeout)
            return True

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        with self.counter(key, version, create=True) as (fd, _count):
            self.write(fd, _whole(value), timeout)

    def incr(self, key, delta: int = 1, version=None) -> int:
        with self.counter(key, version, create=False) as found:
            if found is None or found[1] is None:
                raise ValueError(f"Key '{key}' not found")
            fd, count = found
            data = os.pread(fd, 64, 0).split()
            os.pwrite(fd, f"{data[0].decode()} {count + delta}".encode().ljust(40), 0)
            return count + delta

    def get(self, key, default=None, version=None):
        with self.counter(key, version, create=False) as found:
            return default if found is None or found[1] is None else found[1]

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        with self.counter(key, version, create=False) as found:
            if found is None or found[1] is None:
                return False
            self.write(found[0], found[1], timeout)
            return True

    def delete(self, key, version=None) -> bool:
        try:
            os.remove(self.path_of(key, version))
            return True
        except FileNotFoundError:
            return False

    def has_key(self, key, version=None) -> bool:
        return self.get(key, version=version) is not None

    def clear(self) -> None:
        for path in Path(self._dir).glob(f"*{SUFFIX}"):
            path.unlink(missing_ok=True)

    def sweep(self) -> None:
        """Remove expired counters (their windows are over), so the directory stays small."""
        for path in Path(self._dir).glob(f"*{SUFFIX}"):
            try:
                fd = os.open(path, os.O_RDWR)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                if _live_count(os.pread(fd, 64, 0)) is None:
                    path.unlink(missing_ok=True)
            finally:
                os.close(fd)


@contextmanager
def locked_counter(path: str, directory: str, create: bool) -> Iterator[tuple[int, int | None] | None]:
    """Yields (fd, count or None if missing/expired) with the file at `path` locked, or None when it is
    absent and not `create`."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
        except FileNotFoundError:
            if not create:
                yield None
                return
            os.makedirs(directory, 0o700, exist_ok=True)
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink:
            break
        os.close(fd)  # swept away while this process waited for its lock: open the new one
    try:
        yield fd, _live_count(os.pread(fd, 64, 0))
    finally:
        os.close(fd)


def write_count(fd: int, expiry: float | None, value: int) -> None:
    """Write "<expiry> <count>" (expiry 0: never) over the locked counter file's first bytes."""
    data = f"{0 if expiry is None else expiry:.3f} {value}".encode()
    os.pwrite(fd, data.ljust(40), 0)


def _live_count(data: bytes) -> int | None:
    """The count a counter file holds, or None when it is empty, unreadable or expired."""
    try:
        expiry, count = data.split()
        expiry_at = float(expiry)
        return None if expiry_at and expiry_at < time.time() else int(count)
    except ValueError:
        return None


def _whole(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("CountingFileCache keeps whole-number counters only.")
    return value
