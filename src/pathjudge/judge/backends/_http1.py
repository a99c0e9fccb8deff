"""A small HTTP/1.1 client for the judge's hot path: one origin, keep-alive, asyncio protocols.

Why it exists: with the request prepared once (:class:`~pathjudge.judge.backends.anthropic._Wire`),
more than 80 % of the judge client's CPU per call was httpx2, httpcore2, h11 and anyio: request and
header models, a pool scan and a socket probe per idle connection, h11's per-header validation, anyio
locks and cancel scopes. Here a call is one ``transport.write`` of bytes prepared once per request
shape, and the answer is parsed in place as it arrives. The judge posts small JSON bodies and gets
small JSON answers, so this covers the whole common path at a fraction of the cost.

What it does: ``POST`` (any method) to one ``http``/``https`` origin with a fixed header block; TLS
through the caller's :class:`ssl.SSLContext` with SNI; answers framed by ``Content-Length``, by
``Transfer-Encoding: chunked`` (trailers skipped) or by the connection closing; informational
``1xx`` heads skipped; ``Connection: close`` and HTTP/1.0 honoured; idle connections expire after
``keepalive_expiry`` seconds and one that the server closed while idle is never reused (a reused
connection that dies before the first byte of the answer is retried once on a fresh one, as
urllib3 does for stale keep-alive sockets). Timeouts: ``connect``, ``read`` (inactivity between
bytes of the answer, as httpx times reads) and ``pool`` (waiting for a free connection).

What it leaves to httpx2 (the caller checks before choosing this path): proxies, HTTP/2,
redirects, cookies, request streaming and content decoding other than gzip (see
:func:`decode_body`). A malformed answer raises :class:`ProtocolError`; the caller maps every error
here to the exceptions its SDK raises.
"""

from __future__ import annotations

import asyncio
import ssl as _ssl
import zlib
from collections import deque
from dataclasses import dataclass

__all__ = [
    "Answer",
    "ConnectError",
    "ConnectTimeout",
    "HTTPError",
    "Origin",
    "PoolTimeout",
    "ProtocolError",
    "ReadTimeout",
    "decode_body",
    "header_map",
    "request_head",
    "with_body",
]

MAX_HEAD = 64 * 1024
"""Most bytes in a status line plus headers (h11's default limit is 16 KiB; be generous)."""
_CRLF = b"\r\n"
_END_HEAD = b"\r\n\r\n"


class HTTPError(Exception):
    """Base of this module's errors."""


class ProtocolError(HTTPError):
    """The server's bytes are not a valid HTTP/1.1 answer (or it closed before finishing one)."""


class ConnectError(HTTPError):
    """The connection could not be opened (refused, unreachable, TLS handshake failed)."""


class ReadTimeout(HTTPError, TimeoutError):
    """No byte of the answer arrived within the read timeout."""


class PoolTimeout(HTTPError, TimeoutError):
    """No connection became free within the pool timeout."""


class ConnectTimeout(ConnectError, TimeoutError):
    """Opening the connection took longer than the connect timeout."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One HTTP answer: status, reason, raw header pairs (in order), and the body as sent."""

    status: int
    reason: str
    headers: list[tuple[bytes, bytes]]
    body: bytes


def header_map(headers: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """Lower-case name -> value (Latin-1, as httpx decodes); repeated names joined by ``", "``."""
    out: dict[str, str] = {}
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def decode_body(answer: Answer) -> bytes | None:
    """The body with its ``Content-Encoding`` undone, or None for a coding this module leaves to
    httpx2 (``deflate``, ``br``, ``zstd``, stacked codings). Identity and gzip are done here."""
    coding = b""
    for name, value in answer.headers:
        if name.lower() == b"content-encoding":
            coding = (coding + b"," + value) if coding else value
    coding = coding.strip().lower()
    if coding in (b"", b"identity"):
        return answer.body
    if coding in (b"gzip", b"x-gzip"):
        try:
            decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
            return decoder.decompress(answer.body) + decoder.flush()
        except zlib.error as exc:
            raise ProtocolError(f"invalid gzip body: {exc}") from None
    return None


class _Parser:
    """Incremental parse of one answer from a growing buffer (status line, headers, body)."""

    __slots__ = (
        "chunks",
        "done",
        "head_end",
        "headers",
        "keep_alive",
        "length",
        "pos",
        "reason",
        "status",
        "until_close",
    )

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.status = 0
        self.reason = ""
        self.headers: list[tuple[bytes, bytes]] = []
        self.head_end = -1  # index just past the blank line, once the head is in
        self.length = -1  # Content-Length, -1 when chunked or until close
        self.until_close = False
        self.chunks: list[bytes] | None = None  # the chunked body so far
        self.pos = 0  # where chunk parsing resumes
        self.keep_alive = True
        self.done = False

    def feed(self, buffer: bytearray, eof: bool) -> Answer | None:
        """The complete answer once ``buffer`` holds one (its bytes consumed), else None."""
        while self.head_end < 0:
            end = buffer.find(_END_HEAD)
            if end < 0:
                if len(buffer) > MAX_HEAD:
                    raise ProtocolError("the answer's headers are too long")
                if eof:
                    raise ProtocolError("the server closed the connection without an answer")
                return None
            if end > MAX_HEAD:
                raise ProtocolError("the answer's headers are too long")
            self._head(bytes(buffer[:end]))
            if 100 <= self.status < 200:  # informational: skip it and read the next head
                if self.status == 101:
                    raise ProtocolError("unexpected protocol switch (HTTP 101)")
                del buffer[: end + 4]
                self._reset()
                continue
            self.head_end = end + 4
            self.pos = self.head_end
        if self.length >= 0:
            end = self.head_end + self.length
            if len(buffer) < end:
                if eof:
                    raise ProtocolError("the server closed the connection in the middle of a body")
                return None
            body = bytes(buffer[self.head_end : end])
            if len(buffer) > end:  # bytes beyond the answer: the connection is out of step
                self.keep_alive = False
            del buffer[:end]
            return self._answer(body)
        if self.chunks is not None:
            return self._chunked(buffer, eof)
        if not eof:  # until close
            return None
        body = bytes(buffer[self.head_end :])
        del buffer[:]
        return self._answer(body)

    def _answer(self, body: bytes) -> Answer:
        self.done = True
        return Answer(self.status, self.reason, self.headers, body)

    def _head(self, head: bytes) -> None:
        lines = head.split(_CRLF)
        status_line = lines[0]
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            raise ProtocolError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
        code = parts[1]
        if len(code) != 3 or not code.isdigit():
            raise ProtocolError(f"invalid status code {code[:10]!r}")
        self.status = int(code)
        self.reason = parts[2].decode("latin-1") if len(parts) > 2 else ""
        version_10 = parts[0] == b"HTTP/1.0"
        headers = self.headers
        lengths: set[bytes] = set()
        codings: list[bytes] = []
        connection: list[bytes] = []
        for line in lines[1:]:
            if not line:
                continue
            if line[:1] in (b" ", b"\t"):
                raise ProtocolError("obsolete folded header line in the answer")
            name, sep, value = line.partition(b":")
            if not sep or not name or name != name.strip():
                raise ProtocolError(f"invalid header line {line[:80]!r}")
            value = value.strip(b" \t")
            headers.append((name, value))
            key = name.lower()
            if key == b"content-length":
                lengths.update(v.strip() for v in value.split(b","))
            elif key == b"transfer-encoding":
                codings.extend(v.strip().lower() for v in value.split(b",") if v.strip())
            elif key == b"connection":
                connection.extend(v.strip().lower() for v in value.split(b","))
        if b"close" in connection or (version_10 and b"keep-alive" not in connection):
            self.keep_alive = False
        if codings:  # Transfer-Encoding wins over Content-Length (RFC 9112 6.3)
            if codings[-1] == b"chunked":
                self.chunks = []
            else:
                self.until_close = True
                self.keep_alive = False
        elif lengths:
            if len(lengths) != 1:
                raise ProtocolError("conflicting Content-Length values in the answer")
            (text,) = lengths
            if not text.isdigit():
                raise ProtocolError(f"invalid Content-Length {text[:20]!r}")
            self.length = int(text)
        elif self.status in (204, 304):
            self.length = 0
        else:
            self.until_close = True
            self.keep_alive = False

    def _chunked(self, buffer: bytearray, eof: bool) -> Answer | None:
        chunks = self.chunks
        assert chunks is not None
        pos = self.pos
        while True:
            line_end = buffer.find(_CRLF, pos)
            if line_end < 0:
                if len(buffer) - pos > MAX_HEAD:
                    raise ProtocolError("a chunk size line is too long")
                break
            size_text = bytes(buffer[pos:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"invalid chunk size {size_text[:20]!r}") from None
            if size < 0 or size_text[:1] in (b"-", b"+"):
                raise ProtocolError(f"invalid chunk size {size_text[:20]!r}")
            if size == 0:  # last chunk: trailers (skipped) up to an empty line
                trailer_end = buffer.find(_CRLF, line_end + 2)
                while trailer_end >= 0 and trailer_end != line_end + 2:
                    line_end = trailer_end
                    trailer_end = buffer.find(_CRLF, line_end + 2)
                if trailer_end < 0:
                    break
                end = trailer_end + 2
                if len(buffer) > end:
                    self.keep_alive = False
                del buffer[:end]
                return self._answer(b"".join(chunks))
            data_end = line_end + 2 + size
            if len(buffer) < data_end + 2:
                break
            if buffer[data_end : data_end + 2] != _CRLF:
                raise ProtocolError("a chunk is not followed by CRLF")
            chunks.append(bytes(buffer[line_end + 2 : data_end]))
            pos = data_end + 2
        self.pos = pos
        if eof:
            raise ProtocolError("the server closed the connection in the middle of a chunked body")
        return None


class _Connection(asyncio.Protocol):
    """One keep-alive connection; at most one exchange at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[Answer] | None = None
        self.parser: _Parser | None = None
        self.lost = False
        self.received = False  # a byte of the current answer arrived
        self.last = 0.0  # loop time of the last byte received (or of the request write)
        self.idle_since = 0.0

    # -- asyncio.Protocol ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():  # bytes nobody asked for: the connection is unusable
            self.close()
            return
        self.received = True
        self.last = self.loop.time()
        self.buffer += data
        self._advance(eof=False)

    def eof_received(self) -> bool:
        waiter = self.waiter
        if not self.received and waiter is not None and not waiter.done():
            waiter.set_exception(_Closed(False))
        else:
            self._advance(eof=True)
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            if self.parser is not None and self.received:
                self._advance(eof=True)
            if not waiter.done():
                waiter.set_exception(_Closed(self.received))

    # -- use ------------------------------------------------------------------------------------------
    def _advance(self, *, eof: bool) -> None:
        waiter, parser = self.waiter, self.parser
        if waiter is None or parser is None or waiter.done():
            return
        try:
            answer = parser.feed(self.buffer, eof)
        except ProtocolError as exc:
            waiter.set_exception(exc)
            self.close()
            return
        if answer is not None:
            waiter.set_result(answer)

    async def exchange(self, request: bytes, read_timeout: float | None) -> Answer:
        loop = self.loop
        waiter: asyncio.Future[Answer] = loop.create_future()
        self.waiter, self.parser, self.received = waiter, _Parser(), False
        self.last = loop.time()
        assert self.transport is not None
        self.transport.write(request)
        timer = None
        if read_timeout is not None:
            timer = loop.call_at(self.last + read_timeout, self._check_read, read_timeout)
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            self.waiter = None

    def _check_read(self, read_timeout: float) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        due = self.last + read_timeout
        if self.loop.time() >= due:
            waiter.set_exception(ReadTimeout("the server sent nothing within the read timeout"))
            self.close()
        else:  # bytes arrived since: wait for the rest
            self.loop.call_at(due, self._check_read, read_timeout)

    @property
    def reusable(self) -> bool:
        parser = self.parser
        return (
            not self.lost
            and parser is not None
            and parser.done
            and parser.keep_alive
            and not self.buffer
        )

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.close()


class _Closed(ProtocolError):
    """The connection closed before the answer was complete (``received``: after some of it)."""

    def __init__(self, received: bool) -> None:
        super().__init__(
            "the server closed the connection in the middle of the answer"
            if received
            else "the server closed the connection without sending an answer"
        )
        self.received = received


class Origin:
    """Keep-alive connections to one ``scheme://host:port``, at most ``limit`` open at once."""

    def __init__(
        self,
        scheme: str,
        host: str,
        port: int,
        *,
        tls: _ssl.SSLContext | None,
        limit: int,
        keepalive_expiry: float = 5.0,
    ) -> None:
        if scheme not in ("http", "https"):
            raise ValueError(f"unsupported URL scheme {scheme!r}")
        self.host, self.port = host, port
        self.tls = tls if scheme == "https" else None
        if scheme == "https" and tls is None:
            raise ValueError("an https origin needs a TLS context")
        self.limit = max(1, limit)
        self.keepalive_expiry = keepalive_expiry
        self.open = 0  # connections opened and not discarded
        self._idle: list[_Connection] = []
        self._waiting: deque[asyncio.Future[_Connection | None]] = deque()

    async def request(
        self,
        data: bytes,
        *,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        pool_timeout: float | None = None,
    ) -> Answer:
        """Send ``data`` (a whole request) and return the answer; see the module docstring."""
        connection, reused = await self._acquire(connect_timeout, pool_timeout)
        try:
            answer = await connection.exchange(data, read_timeout)
        except _Closed as exc:
            self._discard(connection)
            if not reused or exc.received:
                raise
            # a kept-alive socket the server had already closed: once more on a fresh one
            connection = await self._connect(connect_timeout)
            try:
                answer = await connection.exchange(data, read_timeout)
            except BaseException:
                self._discard(connection)
                raise
        except BaseException:
            self._discard(connection)
            raise
        if connection.reusable:
            self._release(connection)
        else:
            self._discard(connection)
        return answer

    async def aclose(self) -> None:
        """Close the idle connections (those in use close when their exchange ends)."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
            self.open -= 1
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(ProtocolError("the connection pool was closed"))

    # -- pool -----------------------------------------------------------------------------------------
    async def _acquire(
        self, connect_timeout: float | None, pool_timeout: float | None
    ) -> tuple[_Connection, bool]:
        loop = asyncio.get_running_loop()
        while True:
            idle = self._idle
            now = loop.time()
            while idle:
                connection = idle.pop()  # the most recently used first
                if connection.lost or now - connection.idle_since > self.keepalive_expiry:
                    connection.close()
                    self.open -= 1
                    continue
                return connection, True
            if self.open < self.limit:
                return await self._connect(connect_timeout), False
            waiter: asyncio.Future[_Connection | None] = loop.create_future()
            self._waiting.append(waiter)
            try:
                handed = await asyncio.wait_for(waiter, pool_timeout)
            except TimeoutError:
                raise PoolTimeout("no connection became free within the pool timeout") from None
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                    handed = waiter.result()
                    if handed is not None:
                        self._release(handed)
                    else:
                        self._wake_one()
                raise
            if handed is not None:
                return handed, True
            # a slot freed up (a connection was discarded): loop to open one

    async def _connect(self, timeout: float | None) -> _Connection:
        loop = asyncio.get_running_loop()
        self.open += 1
        try:
            coroutine = loop.create_connection(
                lambda: _Connection(loop),
                self.host,
                self.port,
                ssl=self.tls,
                server_hostname=self.host if self.tls is not None else None,
            )
            _transport, connection = await asyncio.wait_for(coroutine, timeout)
        except TimeoutError:
            self.open -= 1
            self._wake_one()
            raise ConnectTimeout(f"connecting to {self.host}:{self.port} timed out") from None
        except (OSError, _ssl.SSLError) as exc:
            self.open -= 1
            self._wake_one()
            raise ConnectError(f"could not connect to {self.host}:{self.port}: {exc}") from None
        except BaseException:
            self.open -= 1
            self._wake_one()
            raise
        return connection

    def _release(self, connection: _Connection) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        connection.idle_since = connection.loop.time()
        self._idle.append(connection)

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self.open -= 1
        self._wake_one()

    def _wake_one(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


def request_head(method: str, target: bytes, headers: list[tuple[bytes, bytes]]) -> bytes:
    """The request line and header block, up to (not including) the ``Content-Length`` line.

    ``headers`` are sent as given, in order (a ``Content-Length`` among them is dropped: the caller
    appends one per body).
    """
    lines = [method.encode("ascii") + b" " + target + b" HTTP/1.1\r\n"]
    for name, value in headers:
        if name.lower() == b"content-length":
            continue
        if b"\r" in name + value or b"\n" in name + value:
            raise ValueError("a header contains a line break")
        lines.append(name + b": " + value + _CRLF)
    return b"".join(lines)


def with_body(head: bytes, body: bytes) -> bytes:
    """A whole request: ``head`` (see :func:`request_head`), its ``Content-Length`` and ``body``."""
    return b"%sContent-Length: %d\r\n\r\n%s" % (head, len(body), body)
