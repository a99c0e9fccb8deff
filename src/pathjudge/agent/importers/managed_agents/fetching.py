"""Fetching a Managed Agents session from the API (beta ``managed-agents-2026-04-01``) → one run."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any, cast

from pathjudge.agent.importers._common import one_run
from pathjudge.agent.importers.managed_agents.conversion import from_managed_agents
from pathjudge.agent.importers.managed_agents.events import FORMAT, Json
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.errors import ImportFormatError, InputError, RemoteImportError

__all__ = ["DEFAULT_DEADLINE_S", "DEFAULT_TIMEOUT_S", "fetch_session"]

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one request of a session fetch may take."""
DEFAULT_DEADLINE_S = 600.0
"""Seconds a whole session fetch may take (every page and retry together)."""


def _api_error(exc: Exception, session_id: str, what: str) -> RemoteImportError:
    status = getattr(exc, "status_code", None)
    hints = {
        401: "check ANTHROPIC_API_KEY (or --api-key)",
        403: "the key cannot read this session; check its workspace",
        404: "check the session id (sesn_...) and the workspace",
    }
    if isinstance(status, int):
        return RemoteImportError(
            f"fetching the {what} of session {session_id!r} failed with HTTP {status}",
            hint=hints.get(status, "retry later; the API may be unavailable"),
        )
    return RemoteImportError(
        f"fetching the {what} of session {session_id!r} failed ({exc.__class__.__name__})",
        hint="check the base URL (ANTHROPIC_BASE_URL) and the network",
    )


def fetch_session(
    session_id: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    http_client: Any = None,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    errors: list[InputError] | None = None,
    epoch: int = 0,
    page_size: int | None = None,
    include_session: bool = True,
    max_retries: int = 2,
    timeout: float = DEFAULT_TIMEOUT_S,
    deadline: float | None = DEFAULT_DEADLINE_S,
) -> Iterator[RunRecord]:
    """Pull a session's events through the anthropic SDK (beta ``managed-agents-2026-04-01``) → one run.

    Uses ``client.beta.sessions.events.list`` page by page (the cursor ``next_page`` is sent back as
    ``page``), reading the raw JSON so every field is kept exactly as sent, and, with
    ``include_session``, the session object (``client.beta.sessions.retrieve``) for the agent's name,
    model and cumulative usage. ``http_client`` is an ``httpx2.Client`` handed to the SDK; ``base_url``
    and ``api_key`` default to the SDK's ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY``. ``task_id``,
    ``agent``, ``epoch`` are as in :func:`from_managed_agents`. API failures raise
    :class:`RemoteImportError`; a session with no events raises :class:`ImportFormatError`; with
    ``errors`` given, either is recorded there instead and nothing is yielded.

    A bad server cannot hang it: each request times out after ``timeout`` seconds (default
    :data:`DEFAULT_TIMEOUT_S`), the whole fetch stops after ``deadline`` seconds (default
    :data:`DEFAULT_DEADLINE_S`; None for none), a page cursor the server already sent is an error
    (a loop), and a reply that is not JSON is an error, not a traceback. A redirect to another
    host (scheme, host or port) is refused before it is followed, with one
    :class:`RemoteImportError`; a redirect on the same host is followed. (A caller's
    ``http_client`` keeps its own redirect policy.)
    """

    def build() -> RunRecord:
        events, session, pages = _fetch(
            session_id,
            base_url=base_url,
            api_key=api_key,
            http_client=http_client,
            page_size=page_size,
            include_session=include_session,
            max_retries=max_retries,
            timeout=timeout,
            deadline=deadline,
        )
        source: dict[str, Json] = {"format": FORMAT, "session_id": session_id, "pages": pages}
        if base_url is not None:
            source["base_url"] = base_url
        return from_managed_agents(
            events,
            session_id=session_id,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            session=session,
            source=source,
        )

    yield from one_run(build, errors)


class _Fetch:
    """One session fetch: the client, the request timeout, the deadline, and the pages read."""

    def __init__(
        self, session_id: str, client: Any, timeout: float, deadline: float | None
    ) -> None:
        import time

        self.session_id = session_id
        self.client = client
        self.timeout = timeout
        self.deadline = deadline
        self.stop_at = None if deadline is None else time.monotonic() + deadline
        self.pages = 0
        self.what = "events"

    def past_deadline(self) -> RemoteImportError:
        return RemoteImportError(
            f"fetching session {self.session_id!r} did not finish within the deadline of "
            f"{self.deadline:g} s ({self.pages} page(s) read)",
            hint="raise --deadline if the session is genuinely long, or check the server",
        )

    def options(self) -> dict[str, Any]:
        """The per-request options: the timeout, cut to what is left before the deadline."""
        import time

        if self.stop_at is None:
            return {"timeout": self.timeout}
        left = self.stop_at - time.monotonic()
        if left <= 0:
            raise self.past_deadline()
        return {"timeout": min(self.timeout, left)}

    def json_of(self, response: Any, label: str) -> Json:
        try:
            return cast(Json, response.json())
        except (ValueError, RecursionError) as exc:
            raise RemoteImportError(
                f"the {label} of session {self.session_id!r} is not valid JSON "
                f"({type(exc).__name__}; HTTP {getattr(response, 'status_code', '?')})",
                hint="check that the base URL points at the Anthropic API",
            ) from None

    def events(self, page_size: int | None) -> list[Json]:
        """Every page of the session's events, following the ``next_page`` cursor."""
        events: list[Json] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            params: dict[str, Any] = {}
            if cursor is not None:
                params["page"] = cursor
            if page_size is not None:
                params["limit"] = page_size
            raw = self.client.beta.sessions.events.with_raw_response.list(
                self.session_id, **params, **self.options()
            )
            self.pages += 1
            body = self.json_of(raw, f"events page {self.pages}")
            if not isinstance(body, dict) or not isinstance(body.get("data"), list):
                raise RemoteImportError(
                    f"page {self.pages} of the events of session {self.session_id!r} has no "
                    "'data' list",
                    hint="check that the base URL points at the Anthropic API",
                )
            events.extend(body["data"])
            next_page = body.get("next_page")
            if not isinstance(next_page, str) or not next_page or next_page == cursor:
                return events
            if next_page in seen:
                raise RemoteImportError(
                    f"the server sent the events page cursor {next_page[:60]!r} of session "
                    f"{self.session_id!r} a second time (after {self.pages} pages): its pages loop",
                    hint="check the server; pathjudge stops instead of fetching forever",
                )
            seen.add(next_page)
            cursor = next_page

    def session_object(self) -> Json:
        self.what = "session object"
        raw = self.client.beta.sessions.with_raw_response.retrieve(
            self.session_id, **self.options()
        )
        return self.json_of(raw, "session object")

    def api_failure(self, exc: Exception, anthropic: Any) -> RemoteImportError:
        """The one error for an SDK failure: a refused redirect, a timeout, or an API error."""
        import time

        if isinstance(exc, _RedirectRefused):
            return RemoteImportError(
                f"the server answered the request for the {self.what} of session "
                f"{self.session_id!r} with a redirect to another host ({exc.target}); "
                "pathjudge does not follow it",
                hint="point the base URL (ANTHROPIC_BASE_URL) at the API host itself",
            )
        if isinstance(exc, anthropic.APITimeoutError):
            if self.stop_at is not None and time.monotonic() >= self.stop_at - 0.1:
                return self.past_deadline()
            return RemoteImportError(
                f"a request for the {self.what} of session {self.session_id!r} timed out after "
                f"{self.timeout:g} s",
                hint="raise --timeout if the server is slow but alive, or check the base URL",
            )
        return _api_error(exc, self.session_id, self.what)


class _RedirectRefused(Exception):
    """A reply redirected the fetch to another origin (scheme, host or port)."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


def _same_origin_redirects_only(anthropic: Any) -> Any:
    """An httpx response hook that refuses a redirect to another origin before it is followed.

    The SDK follows redirects, and a redirect to another host would carry the request there (the
    API key included, or stripped and then failing in some other way): a fetch stops instead. The
    hook raises an error of the SDK's own family, which the SDK passes through unwrapped.
    """

    refused: Any = type("RedirectRefused", (_RedirectRefused, anthropic.AnthropicError), {})

    def check(response: Any) -> None:
        if not response.has_redirect_location:
            return
        source = response.request.url
        target = source.join(response.headers["location"])
        if (target.scheme, target.host, target.port) != (source.scheme, source.host, source.port):
            raise refused(
                f"{target.scheme}://{target.host}" + (f":{target.port}" if target.port else "")
            )

    return check


def _client(
    anthropic: Any,
    api_key: str | None,
    base_url: str | None,
    http_client: Any,
    max_retries: int,
    timeout: float,
) -> tuple[Any, Any]:
    """The SDK client and the HTTP client it owns (None when the caller handed one in)."""
    key = api_key or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise RemoteImportError(
            "no API key to fetch the session with", hint="set ANTHROPIC_API_KEY"
        )
    owned = None
    if http_client is None:
        owned = http_client = anthropic.DefaultHttpxClient(
            event_hooks={"response": [_same_origin_redirects_only(anthropic)]}
        )
    kwargs: dict[str, Any] = {"api_key": key, "max_retries": max_retries, "timeout": timeout}
    if base_url is not None:
        kwargs["base_url"] = base_url
    return anthropic.Anthropic(http_client=http_client, **kwargs), owned


def _fetch(
    session_id: str,
    *,
    base_url: str | None,
    api_key: str | None,
    http_client: Any,
    page_size: int | None,
    include_session: bool,
    max_retries: int,
    timeout: float = DEFAULT_TIMEOUT_S,
    deadline: float | None = DEFAULT_DEADLINE_S,
) -> tuple[list[Json], dict[str, Json] | None, int]:
    """The session's events (all pages), its session object (or None) and the number of pages.

    A caller's ``http_client`` keeps its own redirect policy; the client made here refuses a
    redirect to another origin (see :func:`_same_origin_redirects_only`).
    """
    if not (math.isfinite(timeout) and timeout > 0):
        raise InputError(f"the request timeout must be a positive number of seconds, got {timeout}")
    if deadline is not None and not (math.isfinite(deadline) and deadline > 0):
        raise InputError(f"the deadline must be a positive number of seconds, got {deadline}")
    from pathjudge._optional import require

    anthropic = require("anthropic", "judge", "Importing a Managed Agents session")
    client, owned = _client(anthropic, api_key, base_url, http_client, max_retries, timeout)
    fetch = _Fetch(session_id, client, timeout, deadline)
    session: Json = None
    try:
        events = fetch.events(page_size)
        if include_session:
            session = fetch.session_object()
    except anthropic.AnthropicError as exc:
        raise fetch.api_failure(exc, anthropic) from None
    finally:
        if owned is not None:
            client.close()  # and the HTTP client made for it; a caller's client stays open
    if not events:
        raise ImportFormatError(
            f"session {session_id!r} has no events", hint="send the session a user.message first"
        )
    return events, session if isinstance(session, dict) else None, fetch.pages
