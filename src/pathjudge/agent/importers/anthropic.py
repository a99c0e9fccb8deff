"""Import Anthropic Messages API transcripts.

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file with one transcript per line):

- a list of messages ``[{"role": "user", "content": ...}, {"role": "assistant", "content": [...]}, ...]``;
- an object ``{"messages": [...], "system": ..., "model": ..., "task_id": ..., "epoch": ...}``;
- a list of either of those (one run each).

Mapping: every ``tool_use`` block (and ``server_tool_use``, and the MCP connector's ``mcp_tool_use``,
whose ``server_name`` is kept in the step's ``state["mcp_server"]``) is a step; its result is the
``tool_result`` (or ``mcp_tool_result``) block with the same ``tool_use_id`` (``is_error`` carried over). Tool-use blocks of one assistant message
are parallel calls and share ``turn``. Text and thinking before a ``tool_use`` in the same message become
its ``decision``. The first user message is the run's ``input``; the text of every assistant message
that calls no tool is a reply to the user (``replies``), and that of the last assistant message, when
it calls no tool, is the ``final_answer``; ``stop_reason`` is the last one recorded (``max_tokens``
marks a cut run). ``usage`` is summed over the transcript's and messages'
usage objects. Everything without a field (system prompt, later user turns, trailing text, unknown keys
and blocks) is kept under ``metadata`` (``system``, ``unmapped``); only the opaque ``signature`` of a
thinking block whose text became a decision is not kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from pathjudge.agent.importers._common import (
    Json,
    RunParts,
    StepDraft,
    as_dict,
    as_list,
    error_at,
    import_transcripts,
    join_path,
    last_with_role,
    require_str,
    split_transcripts,
    text_parts,
    usage_from,
)
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.errors import InputError

__all__ = ["FORMAT", "from_anthropic", "import_file"]

FORMAT = "anthropic"

_TRANSCRIPT_KEYS = frozenset({"messages", "system", "model", "usage", "metadata", "stop_reason"})
_MESSAGE_KEYS = frozenset({"role", "content", "usage", "model", "stop_reason"})
_CALL_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")
_USAGE_NAMES = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_creation_input_tokens": "cache_creation_input_tokens",
    "cache_read_input_tokens": "cache_read_input_tokens",
}


def _blocks(content: Json, where: str) -> list[Json]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if content is None:
        return []
    return as_list(content, where, "message content: a string or a list of content blocks")


def _result_content(content: Json) -> Json:
    """A tool_result's content: a string as is; only-text blocks joined; anything else verbatim."""
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        for b in content
    ):
        return "\n".join(b["text"] for b in content)
    return content


def from_anthropic(
    transcript: Json,
    *,
    task_id: str,
    run_id: str,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    source: dict[str, Json] | None = None,
) -> RunRecord:
    """Convert one parsed Anthropic transcript (message list or ``{"messages": ...}``) to a RunRecord.

    Pure: reads ``transcript`` without changing it. Empty input (no messages, or no assistant message)
    gives a run with no steps, no final answer and the first user message (if any) as input. A problem
    raises :class:`~pathjudge.errors.ImportFormatError` naming the JSON path inside the transcript.
    """
    run = RunParts()
    base, messages = _read_envelope(transcript, run)
    walk = _MessageWalk(run)
    last_assistant = last_with_role(messages, "assistant")
    for i, raw in enumerate(messages):
        walk.message(raw, join_path(base, i), is_last_assistant=i == last_assistant)
    info = agent if agent is not None else AgentInfo(model=run.model, backend="anthropic")
    return run.record(info, run_id=run_id, task_id=task_id, epoch=epoch, source=source)


def _read_envelope(transcript: Json, run: RunParts) -> tuple[str, list[Json]]:
    """The JSON path and list of the messages; a ``{"messages": ...}`` object's other fields into ``run``."""
    if not isinstance(transcript, dict):
        return "", as_list(transcript, "", "a list of messages")
    messages = as_list(transcript.get("messages"), "messages", "the transcript's messages")
    if transcript.get("system") is not None:
        run.metadata["system"] = transcript["system"]
    _take_model_and_stop(transcript, run)
    run.usage = run.usage + usage_from(
        transcript.get("usage"), "usage", run.unmapped, names=_USAGE_NAMES
    )
    run.take_rest(transcript, _TRANSCRIPT_KEYS)
    return "messages", messages


def _take_model_and_stop(obj: dict[str, Json], run: RunParts) -> None:
    """The latest ``model`` and ``stop_reason`` win (``max_tokens`` marks a cut run)."""
    if isinstance(obj.get("model"), str):
        run.model = obj["model"]
    if isinstance(obj.get("stop_reason"), str):
        run.stop_reason = obj["stop_reason"]


class _MessageWalk:
    """Walks the messages in order: steps, their results, the input, the replies and the answer."""

    def __init__(self, run: RunParts) -> None:
        self.run = run
        self.turn = -1
        self.seen_user = False

    def message(self, raw: Json, where: str, *, is_last_assistant: bool) -> None:
        message = as_dict(raw, where, "a message with 'role' and 'content'")
        role = require_str(message, "role", where)
        content_where = join_path(where, "content")
        blocks = _blocks(message.get("content"), content_where)
        self.run.usage = self.run.usage + usage_from(
            message.get("usage"), join_path(where, "usage"), self.run.unmapped, names=_USAGE_NAMES
        )
        _take_model_and_stop(message, self.run)
        for key, value in message.items():
            if key in _MESSAGE_KEYS or (key == "type" and value == "message"):
                continue
            if key == "stop_sequence" and value is None:
                continue
            self.run.unmapped.add(join_path(where, key), value)
        if role == "assistant":
            self._assistant(blocks, content_where, is_last=is_last_assistant)
        elif not self._take_input(role, message, blocks):
            self._tool_results(blocks, content_where)

    def _assistant(self, blocks: list[Json], content_where: str, *, is_last: bool) -> None:
        """Tool calls (text and thinking before one are its decision), else a reply to the user."""
        has_calls = any(isinstance(b, dict) and b.get("type") in _CALL_TYPES for b in blocks)
        if has_calls:
            self.turn += 1
        pending: list[tuple[str, Json, str]] = []  # (json path, block, its text) not yet a decision
        texts: list[str] = []
        for j, block_raw in enumerate(blocks):
            bwhere = join_path(content_where, j)
            block = as_dict(block_raw, bwhere, "a content block")
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                pending.append((bwhere, block_raw, block["text"]))
                texts.append(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                pending.append((bwhere, block_raw, block["thinking"]))
            elif kind in _CALL_TYPES:
                decision = "\n\n".join(text for _, _, text in pending) if pending else None
                self._tool_use(block, bwhere, decision=decision)
                pending = []
            elif not self._server_tool_result(block, bwhere):
                self.run.unmapped.add(bwhere, block_raw)
        if has_calls:
            for at, value, _ in pending:
                self.run.unmapped.add(at, value)
            return
        if texts:
            self.run.add_reply("\n\n".join(texts))
        if is_last:
            self.run.final_answer = "\n\n".join(texts) if texts else None
        for at, value, _ in pending:
            if isinstance(value, dict) and value.get("type") == "thinking":
                self.run.unmapped.add(at, value)

    def _tool_use(self, block: dict[str, Json], where: str, *, decision: str | None) -> None:
        draft = StepDraft.from_call(
            block, where, turn=self.turn, decision=decision, arguments_key="input"
        )
        if block.get("type") == "server_tool_use":
            draft.state["server_tool"] = True
        if block.get("type") == "mcp_tool_use":
            draft.state["mcp_server"] = require_str(block, "server_name", where)
        self.run.add_step(draft)
        for key in block:
            if key not in ("type", "id", "name", "input", "server_name"):
                self.run.unmapped.add(join_path(where, key), block[key])

    def _server_tool_result(self, block: dict[str, Json], where: str) -> bool:
        """Server tools (web search, code execution, MCP) return their result in the assistant turn.

        It answers a server or MCP call of that id that has no result yet; any other (a second
        result, an unknown id, a client tool's id) is not mapped.
        """
        kind = block.get("type")
        if not (isinstance(kind, str) and kind.endswith("_tool_result")):
            return False
        draft = self.run.awaiting_result(block.get("tool_use_id"))
        if draft is None or not ("server_tool" in draft.state or "mcp_server" in draft.state):
            return False
        content = block.get("content")
        failed = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        if kind == "mcp_tool_result":  # the MCP connector's result carries its own flag
            failed = block.get("is_error", False)
            if not isinstance(failed, bool):
                raise error_at("expected true or false", where=join_path(where, "is_error"))
            content = _result_content(content)
        draft.set_result(content, is_error=failed)
        return True

    def _take_input(self, role: str, message: dict[str, Json], blocks: list[Json]) -> bool:
        """The first user message is the run's input, unless it answers tool calls."""
        if role != "user" or self.seen_user:
            return False
        self.seen_user = True
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            return False
        content = message.get("content")
        text = text_parts(content)
        plain = isinstance(content, str) or all(
            isinstance(b, dict) and b.get("type") == "text" for b in blocks
        )
        self.run.input = text if plain and text is not None else content
        return True

    def _tool_results(self, blocks: list[Json], content_where: str) -> None:
        for j, block_raw in enumerate(blocks):
            bwhere = join_path(content_where, j)
            block = as_dict(block_raw, bwhere, "a content block")
            if block.get("type") != "tool_result":
                self.run.unmapped.add(bwhere, block_raw)
                continue
            is_error = block.get("is_error", False)
            if not isinstance(is_error, bool):
                raise error_at("expected true or false", where=join_path(bwhere, "is_error"))
            draft = self.run.awaiting_result(block.get("tool_use_id"))
            if draft is None:
                self.run.unmapped.add(bwhere, block_raw)
                continue
            draft.set_result(_result_content(block.get("content")), is_error=is_error)
            for key in block:
                if key not in ("type", "tool_use_id", "content", "is_error"):
                    self.run.unmapped.add(join_path(bwhere, key), block[key])


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    errors: list[InputError] | None = None,
) -> Iterator[RunRecord]:
    """Stream the runs in an Anthropic transcript file (see the module docstring for the shapes).

    ``task_id`` overrides the task id of every run (default: the transcript's ``task_id``, else
    ``<file stem>#<index>``). With ``errors`` given, a transcript that fails is recorded and skipped.
    Empty input raises :class:`~pathjudge.errors.ImportFormatError`.
    """
    convert = partial(from_anthropic, agent=agent)
    return import_transcripts(
        path, FORMAT, split_transcripts, convert, task_id=task_id, errors=errors
    )
