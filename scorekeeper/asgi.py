"""ASGI entry point (`make run`, the README's production command).

A speed trick, kept because `make bench` shows it (BENCHMARKS.md, live updates): Django's ASGI handler
runs a sync view and its sync middleware in a thread made for each request, so no database connection
can be kept from one request to the next. Here each thread of a fixed pool keeps its SQLite connection,
so a tap does not pay for opening one. Only the async views (the live streams, held by the event loop)
go to Django's ASGI handler; every other request goes to Django's WSGI handler in a fixed pool of
threads, its body read first by the event loop, so a slow client holds no thread. The thread hands the
whole answer back at once: one crossing between the loop and a thread per request (a2wsgi's bridge
crosses for the headers, each chunk and the end, and waits on the loop each time). A body over
BUFFERED bytes, or a path or query that only Django's ASGI handler reads safely, goes to Django's ASGI
handler too. tests/web/test_asgi_dispatch.py checks that both answer alike.

A stream is served by the ASGI handler's `handle`, without the per-request ThreadSensitiveContext that
its `__call__` opens: that context keeps a thread of its own until the request ends, hours for a
stream. Without it the few thread-sensitive steps of a stream (its sync middleware, closing the
response) run on asgiref's one thread for the process, as asgiref does by default, and an open stream
holds no thread."""

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")

from a2wsgi.wsgi import build_environ  # noqa: E402
from asgiref.sync import iscoroutinefunction  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402  (sets Django up)
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import Resolver404, resolve  # noqa: E402

BUFFERED = 1024 * 1024  # bytes of a request body read before the view: every form, not a big upload


def held_by_the_loop(path: str) -> bool:
    """Whether `path` reaches an async view (a live stream)."""
    try:
        return iscoroutinefunction(resolve(path).func)
    except Resolver404:
        return False


def wsgi_safe(scope: dict) -> bool:
    """a2wsgi needs an ASCII query string and a path that encodes as UTF-8; browsers send no other."""
    try:
        scope["query_string"].decode("ascii")
        scope["path"].encode("utf-8")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return False
    return True


class Dispatcher:
    def __init__(self, threads: int) -> None:
        self.asgi = get_asgi_application()
        self.wsgi = get_wsgi_application()
        self.threads = ThreadPoolExecutor(threads, thread_name_prefix="request")

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] != "http":
            return await self.asgi(scope, receive, send)
        if held_by_the_loop(path_info(scope)):
            return await self.asgi.handle(scope, receive, send)
        if not wsgi_safe(scope):
            return await self.asgi(scope, receive, send)
        chunks, size, more = [], 0, True
        while more and size <= BUFFERED:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the phone went away before its request was whole: nothing to answer
            chunks.append(message.get("body", b""))
            size, more = size + len(chunks[-1]), message.get("more_body", False)
        replay = replaying({"type": "http.request", "body": b"".join(chunks), "more_body": more}, receive)
        if more:
            return await self.asgi(scope, replay, send)
        # A header named with underscores (X_Forwarded_For) would read as its dashed twin in a WSGI environ,
        # after the proxy's own: dropped, as Django's ASGI handler and runserver drop it.
        headers = [(name, value) for name, value in scope["headers"] if b"_" not in name]
        if not any(name == b"content-length" for name, _ in headers):  # a chunked body: WSGI needs its size
            headers.append((b"content-length", str(size).encode()))
        environ = build_environ({**scope, "headers": headers}, BytesIO(b"".join(chunks)))
        status, response_headers, body = await asyncio.get_running_loop().run_in_executor(
            self.threads, self.answer, environ
        )
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})

    def answer(self, environ: dict) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """Django's WSGI answer to `environ`, whole (a view's streamed answer too: none streams for long)."""
        started, body = [], []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info=None):
            encoded = [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers]
            started[:] = [int(status.split(" ", 1)[0]), encoded]
            return body.append

        chunks = self.wsgi(environ, start_response)
        try:
            body.extend(chunks)
        finally:
            if close := getattr(chunks, "close", None):
                close()  # request_finished: the thread's connection is checked as Django does
        return started[0], started[1], b"".join(body)


def path_info(scope: dict) -> str:
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def replaying(first: dict, receive):
    """`receive` whose first message is `first` (the body read so far)."""
    pending = [first]

    async def replayed() -> dict:
        return pending.pop() if pending else await receive()

    return replayed


application = Dispatcher(threads=settings.REQUEST_THREADS)
