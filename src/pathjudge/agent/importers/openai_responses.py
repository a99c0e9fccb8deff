"""Import OpenAI Responses API item lists.

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file with one transcript per line):

- a list of items ``[{"role": "user", ...}, {"type": "function_call", ...}, ...]``;
- an object ``{"input": [...] or "text", "output": [...], "model": ..., "usage": ...}`` (a stored
  response plus the input it answered) or ``{"items": [...]}``;
- a list of either (one run each).

Mapping: each ``function_call`` item is a step (``arguments`` is a JSON string; malformed JSON is kept in
``raw_arguments`` with ``arguments_error``), matched to its ``function_call_output`` by ``call_id``. A
model turn is the run of output items (``reasoning``, assistant ``message``, ``function_call``) between
two input items; the calls of one turn are parallel and share ``turn``. ``reasoning`` summaries and
assistant text before a call are its ``decision``. The Responses API has no error flag on outputs, so an
output whose text starts with one of ``error_prefixes`` (default ``"Error:"``) is flagged ``is_error``.
The first user message is the ``input``; the assistant text of every turn that calls no tool is a reply
to the user (``replies``), and that of the last turn is the ``final_answer``; a stored response whose
``status`` is ``incomplete`` gives ``stop_reason`` ``max_tokens`` (``incomplete_details.reason``
``max_output_tokens``) or that reason, ``cancelled`` gives ``interrupted``, ``completed`` gives
``end_turn``; ``instructions`` / the first system or developer message go to
``metadata["system"]``; everything else lands in ``metadata["unmapped"]``, except the item ``id`` s
of calls and outputs and a ``status`` of ``completed``, which carry no information about the run.
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
    content_text,
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
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord
from pathjudge.errors import InputError

__all__ = ["DEFAULT_ERROR_PREFIXES", "FORMAT", "from_openai_responses", "import_file"]

FORMAT = "openai-responses"
DEFAULT_ERROR_PREFIXES: tuple[str, ...] = ("Error:",)

_TRANSCRIPT_KEYS = frozenset(
    {
        "input",
        "output",
        "items",
        "model",
        "usage",
        "instructions",
        "metadata",
        "status",
        "incomplete_details",
    }
)
_USAGE_NAMES = {"input_tokens": "input_tokens", "output_tokens": "output_tokens"}
_INPUT_ROLES = ("user", "system", "developer")
_TEXT_PARTS = ("input_text", "output_text", "text")


class _Turn:
    __slots__ = ("has_calls", "leftover", "steps_before")

    def __init__(self) -> None:
        self.has_calls = False
        # (json path, item, text when it is assistant message text, else None)
        self.leftover: list[tuple[str, Json, str | None]] = []
        self.steps_before = 0


def from_openai_responses(
    transcript: Json,
    *,
    task_id: str,
    run_id: str,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    source: dict[str, Json] | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
) -> RunRecord:
    """Convert one parsed Responses API transcript (see the module docstring) to a RunRecord.

    Pure: reads ``transcript`` without changing it. Empty input (no items) gives a run with no steps, no
    input and no final answer. A problem raises :class:`~pathjudge.errors.ImportFormatError` naming the
    JSON path inside the transcript.
    """
    unmapped = Unmapped()
    metadata: dict[str, Json] = {}
    model: str | None = None
    usage_raw: Json = None
    input_value: Json = None
    items: list[tuple[str, Json]] = []
    stop_reason: str | None = None
    if isinstance(transcript, dict):
        status = transcript.get("status")
        if status == "incomplete":
            details = transcript.get("incomplete_details")
            why = details.get("reason") if isinstance(details, dict) else None
            stop_reason = "max_tokens" if why in (None, "max_output_tokens") else str(why)
        elif status == "completed":
            stop_reason = "end_turn"
        elif status == "cancelled":
            stop_reason = "interrupted"
        elif isinstance(status, str):
            stop_reason = status  # failed, in_progress: kept as given
        if isinstance(transcript.get("model"), str):
            model = transcript["model"]
        usage_raw = transcript.get("usage")
        if transcript.get("instructions") is not None:
            metadata["system"] = transcript["instructions"]
        take_metadata(transcript, metadata, unmapped)
        given = transcript.get("input")
        if isinstance(given, str):
            input_value = given
        elif given is not None:
            items += [
                (join_path("input", i), it)
                for i, it in enumerate(as_list(given, "input", "input items"))
            ]
        for key in ("items", "output"):
            if transcript.get(key) is not None:
                items += [
                    (join_path(key, i), it)
                    for i, it in enumerate(as_list(transcript[key], key, "items"))
                ]
        unmapped.extra_keys(transcript, _TRANSCRIPT_KEYS | IDENTITY_KEYS, "")
    else:
        items = [
            (join_path("", i), it)
            for i, it in enumerate(as_list(transcript, "", "a list of items"))
        ]
    usage = usage_from(
        usage_raw,
        "usage",
        unmapped,
        names=_USAGE_NAMES,
        cached_in=("input_tokens_details", "cached_tokens"),
    )

    drafts: list[StepDraft] = []
    by_id: dict[str, StepDraft] = {}
    turns: list[_Turn] = []
    current: _Turn | None = None
    pending: list[str] = []
    seen_user = False
    seen_system = "system" in metadata
    turn = -1
    for where, raw in items:
        item = as_dict(raw, where, "a Responses API item")
        kind = item.get("type", "message" if "role" in item else None)
        role = item.get("role")
        is_input = kind == "function_call_output" or (kind == "message" and role in _INPUT_ROLES)
        if is_input:
            current = None
            pending = []
        elif current is None:
            current = _Turn()
            current.steps_before = len(drafts)
            turns.append(current)
        if kind == "message" and role in _INPUT_ROLES:
            content = content_text(item.get("content"), part_types=_TEXT_PARTS)
            if role == "user" and not seen_user and input_value is None:
                seen_user = True
                input_value = content
            elif role in ("system", "developer") and not seen_system:
                seen_system = True
                metadata["system"] = content
            else:
                unmapped.add(where, raw)
                continue
            unmapped.extra_keys(item, frozenset({"type", "role", "content"}), where)
        elif kind == "message" and role == "assistant":
            assert current is not None
            content = item.get("content")
            text = content_text(content, part_types=_TEXT_PARTS)
            if isinstance(text, str):
                pending.append(text)
                current.leftover.append((where, raw, text))
            else:
                unmapped.add(where, raw)
        elif kind == "reasoning":
            assert current is not None
            summary = item.get("summary")
            text = text_parts(summary) if isinstance(summary, list) else None
            if text:
                pending.append(text)
                current.leftover.append((where, raw, None))
            else:
                unmapped.add(where, raw)
        elif kind == "function_call":
            assert current is not None
            if not current.has_calls:
                turn += 1
                current.has_calls = True
            # text used as a decision is mapped; what came before it in this turn is not leftover
            current.leftover = []
            call_id = item.get("call_id")
            draft = StepDraft(
                tool=require_str(item, "name", where),
                turn=turn,
                where=where,
                call_id=call_id if isinstance(call_id, str) else None,
                decision="\n\n".join(pending) if pending else None,
                raw_arguments=item.get("arguments"),
            )
            pending = []
            drafts.append(draft)
            if draft.call_id is not None:
                by_id[draft.call_id] = draft
            for key, value in item.items():
                if key in ("type", "call_id", "name", "arguments", "id"):
                    continue
                if key == "status" and value == "completed":
                    continue
                unmapped.add(join_path(where, key), value)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            target = by_id.get(call_id) if isinstance(call_id, str) else None
            if target is None or target.has_result:
                unmapped.add(where, raw)
                continue
            result = content_text(item.get("output"), part_types=_TEXT_PARTS)
            failed = isinstance(result, str) and result.startswith(error_prefixes)
            target.set_result(result, is_error=failed)
            for key, value in item.items():
                if key in ("type", "call_id", "output", "id"):
                    continue
                if key == "status" and value == "completed":
                    continue
                unmapped.add(join_path(where, key), value)
        else:
            if kind is None:
                raise error_at(
                    "an item needs a 'type' (or a 'role' for a message)",
                    where=where,
                    hint="export the items as the Responses API returns them",
                )
            unmapped.add(where, raw)

    final_answer: str | None = None
    replies: list[Reply] = []
    for index, model_turn in enumerate(turns):
        last = index == len(turns) - 1
        answer = [t for _, _, t in model_turn.leftover if t is not None]
        if not model_turn.has_calls and answer:
            replies.append(Reply(text="\n\n".join(answer), after_steps=model_turn.steps_before))
            if last:
                final_answer = "\n\n".join(answer)
            for where, raw, text in model_turn.leftover:
                if text is None:
                    unmapped.add(where, raw)
        else:
            for where, raw, _ in model_turn.leftover:
                unmapped.add(where, raw)

    info = agent if agent is not None else AgentInfo(model=model)
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


def _split(value: Json) -> list[tuple[str, Json]]:
    return split_transcripts(value, item_keys=("role", "type"))


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
    errors: list[InputError] | None = None,
) -> Iterator[RunRecord]:
    """Stream the runs in a Responses API items file (see the module docstring).

    ``task_id`` overrides every run's task id (default: the object's ``task_id``, else
    ``<file stem>#<index>``). With ``errors`` given, a transcript that fails is recorded and skipped.
    Empty input raises :class:`~pathjudge.errors.ImportFormatError`.
    """
    convert = partial(from_openai_responses, agent=agent, error_prefixes=tuple(error_prefixes))
    return import_transcripts(path, FORMAT, _split, convert, task_id=task_id, errors=errors)
