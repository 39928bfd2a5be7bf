"""The gunicorn worker that serves the app (`make run`, the README's production command): uvicorn's, with
what a room of phones each holding a live stream needs from it.

- Open files: each connected phone holds one file descriptor in a worker. At start the master raises
  its soft RLIMIT_NOFILE (often 1,024) to the hard limit, which its workers inherit, and logs the limit.
- A worker out of file descriptors says so. It runs asyncio's event loop, not uvloop: libuv accepts a
  connection it has no descriptor for and closes it at once, saying nothing; asyncio leaves it waiting
  in the listening queue, tries again a second later, and tells the loop's exception handler, which
  logs one line.
- Request headers get HEADER_TIMEOUT seconds (default 20) from the connection's opening, or from the
  previous answer on it, to arrive whole; else the connection is closed. uvicorn has no such limit: a
  client sending half a request line ("slowloris") held its connection for ever.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import sys
import time

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from scorekeeper.workers import UvicornWorker  # (never reads a client's address from its headers)

logger = logging.getLogger(__name__)

HEADER_TIMEOUT = float(os.environ.get("HEADER_TIMEOUT") or 20)
MACOS_OPEN_MAX = 10240  # where the hard limit is "unlimited", the most a process may set


def open_files_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_open_files_limit() -> str:
    """Raise the soft limit of open files to the hard limit where the system allows; says the outcome."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for wanted in (hard, MACOS_OPEN_MAX) if hard == resource.RLIM_INFINITY else (hard,):
        if wanted <= soft:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            return f"open files: up to {wanted} per process (raised from {soft}), one per connected phone"
        except (ValueError, OSError):
            continue
    return f"open files: up to {soft} per process (the most allowed here), one per connected phone"


class HeaderTimeout(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 connection (httptools), closed when a request's headers take over HEADER_TIMEOUT
    seconds from the connection's opening or the previous answer's end."""

    deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.deadline = self.loop.call_later(HEADER_TIMEOUT, self.headers_too_slow)

    def on_headers_complete(self) -> None:
        self.stop_deadline()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline and self.deadline is None:
            self.deadline = self.loop.call_later(HEADER_TIMEOUT, self.headers_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_deadline()
        super().connection_lost(exc)

    def stop_deadline(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def headers_too_slow(self) -> None:
        self.deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def event_loop() -> asyncio.AbstractEventLoop:
    """asyncio's loop, whose failed accepts are logged (see the module's docstring)."""
    loop = asyncio.SelectorEventLoop()
    loop.set_exception_handler(AcceptErrors())
    return loop


class AcceptErrors:
    """The loop's exception handler: an accept that failed for lack of file descriptors is logged, at most
    once every LOG_EVERY seconds (asyncio tries again up to the listening queue's length each second)."""

    LOG_EVERY = 10.0

    def __init__(self) -> None:
        self.logged_at: float | None = None
        self.failed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        error = context.get("exception")
        if not (isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE)):
            loop.default_exception_handler(context)
            return
        self.failed += 1
        now = time.monotonic()
        if self.logged_at is None or now - self.logged_at >= self.LOG_EVERY:
            logger.error(
                "not accepting new connections, they wait: %s (open files limit %d per process; failed accepts since "
                "the last such line: %d)",
                error, open_files_limit(), self.failed,
            )
            self.logged_at, self.failed = now, 0


class Worker(UvicornWorker):
    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "loop": "scorekeeper.server:event_loop", "http": HeaderTimeout}

    @classmethod
    def check_config(cls, cfg, log) -> None:
        """gunicorn calls this once in the master, before it starts the workers."""
        print(raise_open_files_limit(), file=sys.stderr, flush=True)
