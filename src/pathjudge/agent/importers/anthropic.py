"""Import Anthropic Messages API transcripts.

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file with one transcript per line):

- a list of messages ``[{"role": "user", "content": ...}, {"role": "assistant", "content": [...]}, ...]``;
- an object ``{"messages": [...], "system": ..., "model": ..., "task_id": ..., "epoch": ...}``;
- a list of either of those (one run each).

Mapping: every ``tool_use`` block (and ``server_tool_use``) is a step; its result is the ``tool_result``
block with the same ``tool_use_id`` (``is_error`` carried over). Tool-use blocks of one assistant message
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
    IDENTITY_KEYS,
    Json,
    StepDraft,
    Unmapped,
    as_dict,
    as_list,
    error_at,
    finish_record,
    import_transcripts,
    join_path,
    require_str,
    split_transcripts,
    take_metadata,
    text_parts,
    usage_from,
)
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Usage
from pathjudge.errors import InputError

__all__ = ["FORMAT", "from_anthropic", "import_file"]

FORMAT = "anthropic"

_TRANSCRIPT_KEYS = frozenset({"messages", "system", "model", "usage", "metadata", "stop_reason"})
_MESSAGE_KEYS = frozenset({"role", "content", "usage", "model", "stop_reason"})
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
    unmapped = Unmapped()
    metadata: dict[str, Json] = {}
    usage = Usage()
    model: str | None = None
    stop_reason: str | None = None
    base = ""
    if isinstance(transcript, dict):
        messages = as_list(transcript.get("messages"), "messages", "the transcript's messages")
        base = "messages"
        if transcript.get("system") is not None:
            metadata["system"] = transcript["system"]
        if isinstance(transcript.get("model"), str):
            model = transcript["model"]
        if isinstance(transcript.get("stop_reason"), str):
            stop_reason = transcript["stop_reason"]
        usage = usage + usage_from(transcript.get("usage"), "usage", unmapped, names=_USAGE_NAMES)
        take_metadata(transcript, metadata, unmapped)
        unmapped.extra_keys(transcript, _TRANSCRIPT_KEYS | IDENTITY_KEYS, "")
    else:
        messages = as_list(transcript, "", "a list of messages")

    drafts: list[StepDraft] = []
    by_id: dict[str, StepDraft] = {}
    input_value: Json = None
    seen_user = False
    final_answer: str | None = None
    replies: list[Reply] = []
    turn = -1
    last_assistant = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=-1,
    )
    for i, raw in enumerate(messages):
        where = join_path(base, i)
        message = as_dict(raw, where, "a message with 'role' and 'content'")
        role = require_str(message, "role", where)
        content_where = join_path(where, "content")
        blocks = _blocks(message.get("content"), content_where)
        usage = usage + usage_from(
            message.get("usage"), join_path(where, "usage"), unmapped, names=_USAGE_NAMES
        )
        if isinstance(message.get("model"), str):
            model = message["model"]
        if isinstance(message.get("stop_reason"), str):
            stop_reason = message["stop_reason"]
        for key, value in message.items():
            if key in _MESSAGE_KEYS or (key == "type" and value == "message"):
                continue
            if key == "stop_sequence" and value is None:
                continue
            unmapped.add(join_path(where, key), value)

        if role == "assistant":
            calls = [
                b
                for b in blocks
                if isinstance(b, dict) and b.get("type") in ("tool_use", "server_tool_use")
            ]
            if calls:
                turn += 1
            pending: list[str] = []
            pending_at: list[tuple[str, Json]] = []
            texts: list[str] = []
            for j, block_raw in enumerate(blocks):
                bwhere = join_path(content_where, j)
                block = as_dict(block_raw, bwhere, "a content block")
                kind = block.get("type")
                if kind == "text" and isinstance(block.get("text"), str):
                    pending.append(block["text"])
                    pending_at.append((bwhere, block_raw))
                    texts.append(block["text"])
                elif kind == "thinking" and isinstance(block.get("thinking"), str):
                    pending.append(block["thinking"])
                    pending_at.append((bwhere, block_raw))
                elif kind in ("tool_use", "server_tool_use"):
                    draft = StepDraft(
                        tool=require_str(block, "name", bwhere),
                        turn=turn,
                        where=bwhere,
                        call_id=block.get("id") if isinstance(block.get("id"), str) else None,
                        decision="\n\n".join(pending) if pending else None,
                        raw_arguments=block.get("input"),
                    )
                    if kind == "server_tool_use":
                        draft.state["server_tool"] = True
                    pending, pending_at = [], []
                    drafts.append(draft)
                    if draft.call_id is not None:
                        by_id[draft.call_id] = draft
                    for key in block:
                        if key not in ("type", "id", "name", "input"):
                            unmapped.add(join_path(bwhere, key), block[key])
                elif (
                    isinstance(kind, str)
                    and kind.endswith("_tool_result")
                    and isinstance(block.get("tool_use_id"), str)
                    and block["tool_use_id"] in by_id
                ):
                    # Server tools (web search, code execution) return their result in the assistant turn.
                    content = block.get("content")
                    failed = isinstance(content, dict) and str(content.get("type", "")).endswith(
                        "_error"
                    )
                    by_id[block["tool_use_id"]].set_result(content, is_error=failed)
                else:
                    unmapped.add(bwhere, block_raw)
            if not calls:
                if texts:
                    replies.append(Reply(text="\n\n".join(texts), after_steps=len(drafts)))
                if i == last_assistant:
                    final_answer = "\n\n".join(texts) if texts else None
                for at, value in pending_at:
                    if isinstance(value, dict) and value.get("type") == "thinking":
                        unmapped.add(at, value)
            else:
                for at, value in pending_at:
                    unmapped.add(at, value)
        else:
            first_user = role == "user" and not seen_user
            if first_user:
                seen_user = True
                if not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
                    content = message.get("content")
                    text = text_parts(content)
                    plain = isinstance(content, str) or all(
                        isinstance(b, dict) and b.get("type") == "text" for b in blocks
                    )
                    input_value = text if plain and text is not None else content
                    continue
            for j, block_raw in enumerate(blocks):
                bwhere = join_path(content_where, j)
                block = as_dict(block_raw, bwhere, "a content block")
                if block.get("type") == "tool_result":
                    use_id = block.get("tool_use_id")
                    draft_for = by_id.get(use_id) if isinstance(use_id, str) else None
                    is_error = block.get("is_error", False)
                    if not isinstance(is_error, bool):
                        raise error_at(
                            "expected true or false", where=join_path(bwhere, "is_error")
                        )
                    if draft_for is None or draft_for.has_result:
                        unmapped.add(bwhere, block_raw)
                        continue
                    draft_for.set_result(_result_content(block.get("content")), is_error=is_error)
                    for key in block:
                        if key not in ("type", "tool_use_id", "content", "is_error"):
                            unmapped.add(join_path(bwhere, key), block[key])
                else:
                    unmapped.add(bwhere, block_raw)

    info = agent if agent is not None else AgentInfo(model=model, backend="anthropic")
    return finish_record(
        drafts,
        metadata=metadata,
        unmapped=unmapped,
        source=source,
        run_id=run_id,
        task_id=task_id,
        epoch=epoch,
        agent=info,
        input=input_value,
        final_answer=final_answer,
        replies=tuple(replies),
        stop_reason=stop_reason,
        usage=usage,
    )


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
