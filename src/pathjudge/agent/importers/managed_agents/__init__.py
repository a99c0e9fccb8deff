"""Claude Managed Agents session event logs (beta ``managed-agents-2026-04-01``) → one :class:`RunRecord`.

A Managed Agents session runs the tool loop on Anthropic's side and records it as a list of events
(``GET /v1/sessions/{id}/events``, or live over ``GET /v1/sessions/{id}/events/stream``). This module
turns one session's events into one run:

* every tool use — ``agent.tool_use`` (built-in toolset), ``agent.mcp_tool_use`` (MCP server tool) and
  ``agent.custom_tool_use`` (a client-side tool) — becomes a :class:`Step` whose ``call_id`` is the use
  event's ``id``; its result is the event that names that id: ``agent.tool_result.tool_use_id``,
  ``agent.mcp_tool_result.mcp_tool_use_id``, ``user.custom_tool_result.custom_tool_use_id`` or (on
  self-hosted environments) ``user.tool_result.tool_use_id``. The result text (text blocks joined by
  newlines) is ``result``; a result with image/document/search-result blocks keeps the block list as is.
  ``is_error`` comes from the result event. ``latency_ms`` is the gap between the two ``processed_at``.
* ``turn``: when the log carries ``span.model_request_start`` events, every tool use issued under the same
  model request shares a turn. Without spans, consecutive tool uses with no result, message, thinking or
  user event between them share a turn (status events do not break a turn). Equal turns are parallel.
* ``decision``: the text of the ``agent.thinking`` (when it carries text) and ``agent.message`` events
  since the previous tool use, joined by blank lines; calls later in the same turn with no text of their
  own share the turn's decision.
* ``step.state``: ``kind`` (``agent_tool``/``mcp_tool``/``custom_tool``), ``mcp_server_name``,
  ``evaluated_permission`` and ``evaluation`` (permission policy), ``confirmation`` (the
  ``user.tool_confirmation`` answer: ``result`` allow/deny, ``deny_message``, ``event_id``),
  ``interrupted_by`` (the ``user.interrupt`` that arrived while the call had no result),
  ``status`` (``completed``, ``denied``, ``interrupted`` or ``no_result``), ``session_thread_id`` and the
  event ids/timestamps; fields of the use/result events that this importer does not know go to
  ``state["unknown_fields"]``.
* ``input``: the first ``user.message`` (its text, or its content blocks when it is not text-only). Later
  user messages are kept in ``metadata["user_messages"]``, and the agent's replies to earlier user turns
  in ``metadata["agent_replies"]``; ``final_answer`` is the ``agent.message`` text after the last tool
  call of the last user turn (None when there is none). ``replies`` holds both, in order: each reply to
  an earlier user turn, then the final answer.
* ``stop_reason``: ``interrupted`` when a ``user.interrupt`` came after the last ``user.message`` (the
  run was stopped and not resumed); otherwise ``terminated`` after ``session.status_terminated``, the
  ``stop_reason.type`` of a final ``session.status_idle`` (``end_turn``, ``requires_action``,
  ``retries_exhausted``, ``budget_reached``, ``refusal``), ``running`` when the log ends while the session
  runs, None without any status event.
* ``usage``: the last ``session.usage`` snapshot (cumulative) when present, else the sum of
  ``span.model_request_end.model_usage``; the session object's ``usage`` (when fetched) wins over both.
  ``cost_usd`` comes from a ``list_cost`` in USD.
* Nothing is dropped: events this importer does not map (``session.error``, thread events, outcome
  spans, ``system.message``, compaction, workflow events, unknown types, ``error`` frames of a stream
  dump) and unknown fields of mapped events are kept in ``metadata["unmapped"]`` as
  ``{"at": "[index].field", "value": ...}``; statuses in ``metadata["statuses"]``; identical re-sent
  events (a stream reconnect) are counted in ``metadata["duplicate_events"]``; stream-only previews
  (``event_start``/``event_delta``) whose final event never arrived are rebuilt into
  ``metadata["unfinished_previews"]``.

Empty input: a log with no events is an error (there is no session to import); a log without tool
uses gives a run with no steps.

Inputs read by :func:`import_file`: a JSON array of events, a list page ``{"data": [...], "next_page":
...}``, JSON Lines (one event or page per line), or a dump of the server-sent-event stream
(``event:``/``data:``/``id:`` lines, ``:`` heartbeats, blank-line separated frames). Problems are one
:class:`~pathjudge.errors.ImportFormatError` naming the file, the line of the offending event and the field.

Verified against the documentation and the anthropic SDK 2.14 types (``anthropic.types.beta.sessions``):
the beta header; the list endpoint, its ``data``/``next_page`` cursor page and ``page``/``limit`` params;
the event type strings; ``id``, ``type``, ``processed_at`` (null while queued); ``content`` blocks of
``user.message``/``agent.message`` (``text``, ``redacted``...); ``name``/``input`` of the three tool-use
events; ``mcp_server_name``; ``evaluated_permission`` (allow/ask/deny) and ``evaluation``;
``session_thread_id``; the result id fields listed above, result ``content`` and ``is_error``;
``user.tool_confirmation`` ``tool_use_id``/``result``/``deny_message``; ``user.interrupt``;
``session.status_idle`` ``stop_reason`` (``end_turn``, ``requires_action`` with ``event_ids``,
``retries_exhausted``, ``budget_reached``, ``refusal``) and ``stop_details``;
``span.model_request_end`` ``model_usage`` and ``is_error``; ``session.usage`` ``usage`` snapshot with
``list_cost`` ``{amount, currency}``; stream-only ``event_start``/``event_delta`` previews.

Inferred (not stated by the documentation): ``agent.thinking`` is documented as a progress signal without
content — a ``content`` list or ``thinking`` string on it, as some older clients show, is used as decision
text when present; the SSE frame's ``event:`` name is ignored except ``ping`` (skipped) and ``error``
(kept); turn grouping without span events; a denied confirmation that never gets a result means the call
did not run; ``user.interrupt`` applies to every call still waiting for its result.

Layout: :mod:`.events` (the event vocabulary and reading saved logs), :mod:`.conversion` (events to a
run) and :mod:`.fetching` (pulling a session from the API).
"""

from __future__ import annotations

from pathjudge.agent.importers.managed_agents.conversion import from_managed_agents, import_file
from pathjudge.agent.importers.managed_agents.events import BETA_HEADER, FORMAT, read_events
from pathjudge.agent.importers.managed_agents.fetching import (
    DEFAULT_DEADLINE_S,
    DEFAULT_TIMEOUT_S,
    fetch_session,
)

__all__ = [
    "BETA_HEADER",
    "DEFAULT_DEADLINE_S",
    "DEFAULT_TIMEOUT_S",
    "FORMAT",
    "fetch_session",
    "from_managed_agents",
    "import_file",
    "read_events",
]
