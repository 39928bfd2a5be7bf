"""HTTP/1.1 over a bare socket, for the requests that urllib and http.client refuse to send: raw bytes
in the request line (non-ASCII, %-escapes of anything, NUL), any header value, a Content-Length that
lies. One keep-alive connection answers many requests; a refused request that closes it opens another."""

from __future__ import annotations

import socket
import urllib.parse
from dataclasses import dataclass, field

CRLF = b"\r\n"


@dataclass
class RawAnswer:
    status: int  # 0: the server closed the connection (or said nothing) without an answer
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> str:
        return next((value for key, value in self.headers if key.lower() == name.lower()), "")

    def cookies(self) -> dict[str, str]:
        """The cookies this answer sets: {name: value}."""
        found = {}
        for key, value in self.headers:
            if key.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                found[name.strip()] = rest.split(";", 1)[0]
        return found


def as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8")


def request_bytes(
    method: str | bytes,
    target: str | bytes,
    headers: list[tuple[str | bytes, str | bytes]] = (),
    body: bytes = b"",
    host: str = "127.0.0.1",
    length: bool = True,
) -> bytes:
    """One request as sent on the wire; Host and (with `length`, for a body not chunked) Content-Length unless
    in `headers`."""
    names = {as_bytes(name).lower() for name, _ in headers}
    lines = [as_bytes(method) + b" " + as_bytes(target) + b" HTTP/1.1"]
    if b"host" not in names:
        lines.append(b"Host: " + host.encode())
    if length and body and not names & {b"content-length", b"transfer-encoding"}:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    lines += [as_bytes(name) + b": " + as_bytes(value) for name, value in headers]
    return CRLF.join(lines) + CRLF + CRLF + body


def form(fields: list[tuple[str | bytes, str | bytes]]) -> bytes:
    """An application/x-www-form-urlencoded body; each name and value given as bytes is %-escaped byte by byte."""
    return b"&".join(escaped(name) + b"=" + escaped(value) for name, value in fields)


def escaped(text: str | bytes) -> bytes:
    return urllib.parse.quote_from_bytes(as_bytes(text)).encode()


class RawConnection:
    """A keep-alive connection to a server on 127.0.0.1 (`base` is its http:// URL)."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        parsed = urllib.parse.urlsplit(base)
        self.base, self.address = base, (parsed.hostname, parsed.port)
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def send(self, raw: bytes, head: bool = False) -> RawAnswer:
        """Send one request (from request_bytes) and read its answer; a kept connection the server had
        closed meanwhile is opened again once."""
        for attempt in (1, 2):
            fresh = self.sock is None
            if fresh:
                self.sock = socket.create_connection(self.address, timeout=self.timeout)
            try:
                self.sock.sendall(raw)
                answer = self._read(head)
            except (ConnectionError, TimeoutError):  # (a timeout: the server holds the request, no answer)
                self.close()
                answer = RawAnswer(0)
            if answer.status or fresh or attempt == 2:
                return answer
            self.close()
        return answer

    def stream_head(self, raw: bytes, wait: float = 5.0) -> RawAnswer:
        """The status and headers of an answer that may never end (an event stream), on a connection of its
        own, then closed."""
        alone = RawConnection(self.base, timeout=wait)
        try:
            return alone.send(raw, head=True)
        finally:
            alone.close()

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buffer += chunk
        return bool(chunk)

    def _line(self) -> bytes | None:
        while CRLF not in self.buffer:
            if not self._fill():
                return None
        line, self.buffer = self.buffer.split(CRLF, 1)
        return line

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self._fill():
                raise ConnectionError("closed in the middle of a body")
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def _read(self, head: bool) -> RawAnswer:
        status_line = self._line()
        if not status_line:
            self.close()
            return RawAnswer(0)
        status = int(status_line.split(b" ")[1])
        headers = []
        while (line := self._line()) not in (b"", None):
            name, _, value = line.decode("latin-1").partition(":")
            headers.append((name.strip(), value.strip()))
        if 100 <= status < 200:  # 100 Continue: the answer follows
            return self._read(head)
        answer = RawAnswer(status, headers)
        if head:
            return answer
        if status in (204, 304):
            pass
        elif answer.header("Transfer-Encoding").lower() == "chunked":
            parts = []
            while (size := int(self._line().split(b";")[0], 16)) > 0:
                parts.append(self._exactly(size))
                self._exactly(2)
            while self._line() not in (b"", None):  # trailers
                pass
            answer.body = b"".join(parts)
        elif answer.header("Content-Length"):
            answer.body = self._exactly(int(answer.header("Content-Length")))
        else:
            while self._fill():
                pass
            answer.body, self.buffer = self.buffer, b""
            self.close()
        if answer.header("Connection").lower() == "close":
            self.close()
        return answer
