"""The browser tests' live server: the app under uvicorn (scorekeeper.asgi's dispatcher, as `make run` serves it) in a thread of the
test process, on the test database, so that pushed updates (Server-Sent Events) reach the pages.
It replaces pytest-django's WSGI live server, which cannot hold a stream open."""

from __future__ import annotations

import socket
import threading
import time


class AsgiLiveServer:
    def __init__(self, host: str = "localhost") -> None:
        import uvicorn
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.test.utils import modify_settings

        from scorekeeper.asgi import Dispatcher

        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.in_flight = 0  # requests begun and not yet ended (an open event stream counts)
        config = uvicorn.Config(
            self.counting(ASGIStaticFilesHandler(Dispatcher(threads=4))),  # as scorekeeper.asgi serves the app
            log_level="warning",
            lifespan="off",
            proxy_headers=False,  # as scorekeeper/workers.py serves it
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.url = f"http://{host}:{self.port}"
        # Enabled and disabled around each test by pytest-django's _live_server_helper.
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": host})
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the ASGI live server did not start")
            time.sleep(0.02)

    def counting(self, app):
        async def counted(scope, receive, send):
            self.in_flight += 1
            try:
                await app(scope, receive, send)
            finally:
                self.in_flight -= 1

        return counted

    def wait_until_idle(self, timeout: float = 10) -> None:
        """Wait until every request has ended (a closed page's event stream ends when the server sees it go)."""
        deadline = time.monotonic() + timeout
        while self.in_flight:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.in_flight} requests still open on the live server")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()

    def __str__(self) -> str:
        return self.url
