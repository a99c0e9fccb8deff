"""The judge's direct HTTP/1.1 path (``judge/backends/_http1.py``): framing, keep-alive, timeouts,
the pool bound, TLS, and the same outcomes as httpx2 for the same bytes from a server."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.judge.backends import _http1
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.backends.base import BackendCallError, TransientError
from pathjudge.judge.prompt import render_prompt
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import FakeAnthropic

from .conftest import SECRET, jobs_for, judge_run, verdict_input

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, dict[bytes, bytes], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head[:-4].split(b"\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
    return lines[0], headers, body


class Raw:
    """A raw TCP server on 127.0.0.1 running ``handler`` per connection (same event loop)."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler, self.tls = handler, tls
        self.connections = 0
        self.peak = 0
        self._live = 0

    async def __aenter__(self) -> Raw:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            self._live += 1
            self.peak = max(self.peak, self._live)
            try:
                await self.handler(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass
            finally:
                self._live -= 1
                writer.close()

        self.server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


def origin(port: int, **options: Any) -> _http1.Origin:
    return _http1.Origin(
        "http", "127.0.0.1", port, tls=None, limit=options.pop("limit", 4), **options
    )


REQUEST = _http1.with_body(
    _http1.request_head("POST", b"/v1/messages", [(b"Host", b"127.0.0.1")]), b'{"x":1}'
)


def answers(*replies: bytes, keep: bool = True) -> Handler:
    """A handler that answers each request on a connection with the next of ``replies``."""
    queue = list(replies)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while queue:
            await read_request(reader)
            writer.write(queue.pop(0))
            await writer.drain()
            if not keep:
                return

    return handler


OK = b'{"ok": true}'
PLAIN = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n" + OK
CHUNKED = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b'5;ext=1\r\n{"ok"\r\n7\r\n: true}\r\n0\r\nX-Trailer: t\r\n\r\n'
)
UNTIL_CLOSE = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + OK
CONTINUE_THEN_OK = b"HTTP/1.1 100 Continue\r\n\r\n" + PLAIN


@pytest.mark.parametrize(
    "reply",
    [PLAIN, CHUNKED, UNTIL_CLOSE, CONTINUE_THEN_OK],
    ids=["length", "chunked", "close", "1xx"],
)
def test_every_framing_gives_the_body(reply: bytes) -> None:
    async def main() -> tuple[_http1.Answer, int]:
        async with Raw(answers(reply, keep=reply is not UNTIL_CLOSE)) as server:
            pool = origin(server.port)
            answer = await pool.request(REQUEST, read_timeout=5)
            await pool.aclose()
            return answer, pool.open

    answer, still_open = asyncio.run(main())
    assert (answer.status, answer.body) == (200, OK)
    assert still_open == 0


def test_answers_split_into_single_bytes_parse_the_same() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for reply in (PLAIN, CHUNKED):
            await read_request(reader)
            for i in range(len(reply)):
                writer.write(reply[i : i + 1])
                await writer.drain()
                await asyncio.sleep(0)

    async def main() -> list[bytes]:
        async with Raw(slow) as server:
            pool = origin(server.port, limit=1)
            bodies = [(await pool.request(REQUEST, read_timeout=5)).body for _ in range(2)]
            await pool.aclose()
            assert server.connections == 1  # kept alive across both
            return bodies

    assert asyncio.run(main()) == [OK, OK]


def _answers(buffer: bytes, cuts: list[int]) -> list[tuple[int, bytes]]:
    """Feed ``buffer`` to parsers in pieces cut at ``cuts``; the (status, body) of each answer."""
    out = []
    pending = bytearray()
    parser = _http1._Parser()
    pieces = [buffer[a:b] for a, b in zip([0, *cuts], [*cuts, len(buffer)], strict=True)]
    for piece in pieces:
        pending += piece
        while True:
            answer = parser.feed(pending, eof=False)
            if answer is None:
                break
            out.append((answer.status, answer.body))
            parser = _http1._Parser()
    return out


@settings(max_examples=200, deadline=None)
@given(
    bodies=st.lists(st.binary(max_size=40), min_size=1, max_size=4),
    chunked=st.lists(st.booleans(), min_size=4, max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_a_stream_of_answers_parses_the_same_however_it_is_cut(
    bodies: list[bytes], chunked: list[bool], cuts: list[int]
) -> None:
    stream = b""
    for body, use_chunks in zip(bodies, chunked, strict=False):
        if use_chunks:
            parts = [body[i : i + 7] for i in range(0, len(body), 7)]
            encoded = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"
            stream += b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n" + encoded
        else:
            stream += b"HTTP/1.1 201 Created\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    expected = [(201, body) for body in bodies]
    assert _answers(stream, []) == expected
    assert _answers(stream, sorted({c for c in cuts if 0 < c < len(stream)})) == expected


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (b"HTTX/1.1 200 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "status code"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", "conflicting"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
        (b"HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n", "folded"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "middle of a body"),
        (b"", "without sending an answer"),
    ],
)
def test_a_malformed_or_cut_answer_is_a_protocol_error(reply: bytes, problem: str) -> None:
    async def main() -> None:
        async with Raw(answers(reply, keep=False)) as server:
            pool = origin(server.port)
            with pytest.raises(_http1.ProtocolError, match=problem):
                await pool.request(REQUEST, read_timeout=5)
            assert pool.open == 0

    asyncio.run(main())


def test_connection_close_and_http10_are_not_reused() -> None:
    close = PLAIN.replace(b"OK\r\n", b"OK\r\nConnection: close\r\n", 1)
    http10 = PLAIN.replace(b"HTTP/1.1", b"HTTP/1.0", 1)

    async def main() -> int:
        async with Raw(answers(close, http10, PLAIN, keep=False)) as server:
            pool = origin(server.port, limit=1)
            for _ in range(3):
                assert (await pool.request(REQUEST, read_timeout=5)).body == OK
            await pool.aclose()
            return server.connections

    assert asyncio.run(main()) == 3


def test_a_kept_alive_socket_the_server_dropped_is_retried_once_on_a_fresh_one() -> None:
    """The server answers, keeps the connection, then drops it on the next request unanswered
    (an idle timeout racing our reuse): the call goes through on a new connection."""
    served = 0

    async def flaky(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal served
        while True:
            await read_request(reader)
            served += 1
            if served == 2:
                return  # drop without a byte
            writer.write(PLAIN)
            await writer.drain()

    async def main() -> int:
        async with Raw(flaky) as server:
            pool = origin(server.port, limit=1)
            for _ in range(2):
                assert (await pool.request(REQUEST, read_timeout=5)).body == OK
            await pool.aclose()
            return server.connections

    assert asyncio.run(main()) == 2


def test_a_fresh_connection_dropped_without_an_answer_is_not_retried() -> None:
    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    async def main() -> int:
        async with Raw(drop) as server:
            pool = origin(server.port)
            with pytest.raises(_http1.ProtocolError, match="without sending an answer"):
                await pool.request(REQUEST, read_timeout=5)
            return server.connections

    assert asyncio.run(main()) == 1


def test_the_read_timeout_is_inactivity_not_total_time() -> None:
    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        for i in range(0, len(PLAIN), 10):  # 0.6 s in all, never 0.3 s without a byte
            writer.write(PLAIN[i : i + 10])
            await writer.drain()
            await asyncio.sleep(0.06)

    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(PLAIN[:20])
        await asyncio.sleep(5)

    async def main() -> None:
        async with Raw(trickle) as server:
            pool = origin(server.port)
            assert (await pool.request(REQUEST, read_timeout=0.3)).body == OK
        async with Raw(stall) as server:
            pool = origin(server.port)
            with pytest.raises(_http1.ReadTimeout):
                await pool.request(REQUEST, read_timeout=0.3)
            assert pool.open == 0

    asyncio.run(main())


def test_the_pool_never_opens_more_than_its_limit_and_a_cancelled_call_frees_its_slot() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            await asyncio.sleep(0.05)
            writer.write(PLAIN)
            await writer.drain()

    async def main() -> tuple[int, int]:
        async with Raw(slow) as server:
            pool = origin(server.port, limit=3)
            calls = [pool.request(REQUEST, read_timeout=5) for _ in range(12)]
            results = await asyncio.gather(*calls)
            assert all(r.body == OK for r in results)
            victim = asyncio.ensure_future(pool.request(REQUEST, read_timeout=5))
            await asyncio.sleep(0.01)
            victim.cancel()
            with pytest.raises(asyncio.CancelledError):
                await victim
            assert (await pool.request(REQUEST, read_timeout=5)).body == OK
            await pool.aclose()
            return server.peak, pool.open

    peak, still_open = asyncio.run(main())
    assert peak <= 3
    assert still_open == 0


def test_gzip_is_decoded_here_and_other_codings_are_left_to_httpx() -> None:
    packed = gzip.compress(OK)
    answer = _http1.Answer(200, "OK", [(b"Content-Encoding", b"gzip")], packed)
    assert _http1.decode_body(answer) == OK
    assert _http1.decode_body(_http1.Answer(200, "OK", [], OK)) == OK
    assert (
        _http1.decode_body(_http1.Answer(200, "OK", [(b"content-encoding", b"br")], b"x")) is None
    )
    with pytest.raises(_http1.ProtocolError, match="gzip"):
        _http1.decode_body(_http1.Answer(200, "OK", [(b"Content-Encoding", b"gzip")], b"nope"))


def test_header_map_joins_repeats_and_lowers_names() -> None:
    mapped = _http1.header_map([(b"Retry-After", b"1"), (b"X-A", b"1"), (b"x-a", b"2")])
    assert mapped == {"retry-after": "1", "x-a": "1, 2"}


def test_a_header_with_a_line_break_is_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        _http1.request_head("POST", b"/", [(b"X", b"a\r\nInjected: 1")])


# -- the backend: the direct path against httpx2, byte for byte --------------------------------------
def _verdict_message() -> bytes:
    return json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Verdict", "input": verdict_input()}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    ).encode()


def _reply(kind: str) -> bytes:
    message = _verdict_message()
    if kind == "gzip":
        packed = gzip.compress(message)
        return (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(packed), packed)
        )
    if kind == "chunked":
        half = len(message) // 2
        parts = (message[:half], message[half:])
        return (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts)
            + b"0\r\n\r\n"
        )
    if kind == "close":
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + message
    if kind == "not-json":
        return b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    if kind == "garbage":
        return b"NOT HTTP AT ALL\r\n\r\n"
    if kind == "cut":
        return b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"
    raise AssertionError(kind)


def _outcome(result: Any) -> tuple[Any, ...]:
    if isinstance(result, BackendCallError):
        return (type(result).__name__, result.failure_type, result.message)
    return ("ok", result.verdict.verdict, result.usage.input_tokens)


@pytest.mark.parametrize("kind", ["gzip", "chunked", "close", "not-json", "garbage", "cut"])
def test_the_direct_path_and_httpx2_agree_on_what_a_server_sends(kind: str, api_key: str) -> None:
    prompt = render_prompt(
        get_criterion("answer-correct"), {"question": "q", "answer": "a", "reference": "r"}
    )

    async def once(direct: bool) -> Any:
        async with Raw(answers(_reply(kind), keep=False)) as server:
            backend = AnthropicJudgeBackend(
                base_url=f"http://127.0.0.1:{server.port}", max_connections=1, reasks=0
            )
            wire = backend._wires[0]
            assert wire is not None
            assert wire.origin is not None
            if not direct:
                wire.origin = None
            try:
                return await backend.judge(prompt, timeout=5.0)
            except BackendCallError as error:
                return error
            finally:
                await backend.aclose()

    direct, httpx = asyncio.run(once(True)), asyncio.run(once(False))
    assert _outcome(direct) == _outcome(httpx)
    if kind in ("gzip", "chunked", "close"):
        assert _outcome(direct)[0] == "ok"
    if kind in ("garbage", "cut"):
        assert isinstance(direct, TransientError)


def test_a_proxy_in_the_environment_keeps_calls_on_httpx2(
    monkeypatch: pytest.MonkeyPatch, api_key: str
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    backend = AnthropicJudgeBackend(base_url="http://127.0.0.1:1", max_connections=1)
    wire = backend._wires[0]
    assert wire is not None
    assert wire.origin is None
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.delenv("HTTP_PROXY")
    wire = AnthropicJudgeBackend(base_url="http://127.0.0.1:1", max_connections=1)._wires[0]
    assert wire is not None
    assert wire.origin is not None


def test_direct_connections_are_bounded_by_max_connections(server: FakeAnthropic) -> None:
    run = judge_run(server, jobs_for(40), concurrency=40, backend_options={"max_connections": 8})
    assert len(run.results) == 40
    assert server.peak_in_flight <= 8


def _self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
    command += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    command += ["-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(command, check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The server's certificate and key, and another self-signed certificate (trusting only it
    must refuse the server)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed (needed to make test certificates)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = _self_signed(folder, "server")
    other, _ = _self_signed(folder, "other")
    return cert, key, other


def test_https_goes_direct_with_the_trusted_roots_and_checks_the_certificate(
    certificates: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, api_key: str
) -> None:
    cert, key, other = certificates
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    prompt = render_prompt(
        get_criterion("answer-correct"), {"question": "q", "answer": "a", "reference": "r"}
    )

    async def once() -> Any:
        async with Raw(answers(_reply("gzip"), _reply("chunked")), tls=server_tls) as server:
            backend = AnthropicJudgeBackend(
                base_url=f"https://127.0.0.1:{server.port}", max_connections=1, reasks=0
            )
            wire = backend._wires[0]
            assert wire is not None
            assert wire.origin is not None
            try:
                first = await backend.judge(prompt, timeout=5.0)
                second = await backend.judge(prompt, timeout=5.0)
                return first, second, server.connections
            except BackendCallError as error:
                return error
            finally:
                await backend.aclose()

    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    first, second, connections = asyncio.run(once())
    assert first.verdict.verdict == second.verdict.verdict == "pass"
    assert connections == 1  # one TLS connection kept alive
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # trusts another certificate only
    refused = asyncio.run(once())
    assert isinstance(refused, TransientError)
    assert refused.failure_type == "connection_error"
    assert SECRET not in refused.message
