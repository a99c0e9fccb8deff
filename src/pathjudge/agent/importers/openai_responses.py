"""Import OpenAI Responses API item lists.

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file with one transcript per line):

- a list of items ``[{"role": "user", ...}, {"type": "function_call", ...}, ...]``;
- an object ``{"input": [...] or "text", "output": [...], "model": ..., "usage": ...}`` (a stored
  response plus the input it answered) or ``{"items": [...]}``;
- a list of either (one run each).

Mapping: each ``function_call`` item is a step (``arguments`` is a JSON string; malformed JSON is kept in
``raw_arguments`` with ``arguments_error``), matched to its ``function_call_output`` by ``call_id``. Each
``mcp_call`` item (an MCP tool the API ran) is a step too: its ``output`` is the result, a non-null
``error`` or a ``status`` of ``failed`` or ``incomplete`` flags ``is_error`` (one still ``in_progress``
or ``calling`` has no result: ``result_missing``), and ``server_label`` is kept in the step's
``state["mcp_server"]``; the model saw its result, so the next output item starts a new turn.
``mcp_list_tools`` and approval items are kept in ``metadata["unmapped"]``. A
model turn is the run of output items (``reasoning``, assistant ``message``, calls) between
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
    DEFAULT_ERROR_PREFIXES,
    Json,
    RunParts,
    StepDraft,
    as_dict,
    as_list,
    content_text,
    error_at,
    import_transcripts,
    join_path,
    require_str,
    split_transcripts,
    text_parts,
    usage_from,
)
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.errors import InputError

__all__ = ["DEFAULT_ERROR_PREFIXES", "FORMAT", "from_openai_responses", "import_file"]

FORMAT = "openai-responses"

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
_RUNNING = ("in_progress", "calling")
"""Statuses of an ``mcp_call`` the API has not finished: no result yet."""


class _Turn:
    """One model turn: the output items between two input items."""

    __slots__ = ("has_calls", "leftover", "steps_before")

    def __init__(self, steps_before: int) -> None:
        self.has_calls = False
        # (json path, item, text when it is assistant message text, else None)
        self.leftover: list[tuple[str, Json, str | None]] = []
        self.steps_before = steps_before


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
    run = RunParts()
    items, usage_raw = _read_envelope(transcript, run)
    run.usage = usage_from(
        usage_raw,
        "usage",
        run.unmapped,
        names=_USAGE_NAMES,
        cached_in=("input_tokens_details", "cached_tokens"),
    )
    walk = _ItemWalk(run, error_prefixes)
    for where, raw in items:
        walk.item(raw, where)
    walk.take_replies()
    info = agent if agent is not None else AgentInfo(model=run.model)
    return run.record(info, run_id=run_id, task_id=task_id, epoch=epoch, source=source)


def _read_envelope(transcript: Json, run: RunParts) -> tuple[list[tuple[str, Json]], Json]:
    """The items with their JSON paths and the raw usage; the envelope's other fields into ``run``."""
    if not isinstance(transcript, dict):
        listed = as_list(transcript, "", "a list of items")
        return [(join_path("", i), it) for i, it in enumerate(listed)], None
    run.stop_reason = _stop_reason(transcript.get("status"), transcript.get("incomplete_details"))
    if isinstance(transcript.get("model"), str):
        run.model = transcript["model"]
    if transcript.get("instructions") is not None:
        run.metadata["system"] = transcript["instructions"]
    run.take_rest(transcript, _TRANSCRIPT_KEYS)
    items: list[tuple[str, Json]] = []
    given = transcript.get("input")
    if isinstance(given, str):
        run.input = given
    elif given is not None:
        listed = as_list(given, "input", "input items")
        items += [(join_path("input", i), it) for i, it in enumerate(listed)]
    for key in ("items", "output"):
        if transcript.get(key) is not None:
            listed = as_list(transcript[key], key, "items")
            items += [(join_path(key, i), it) for i, it in enumerate(listed)]
    return items, transcript.get("usage")


def _stop_reason(status: Json, details: Json) -> str | None:
    """A stored response's ``status`` as a stop reason (see the module docstring)."""
    if status == "incomplete":
        why = details.get("reason") if isinstance(details, dict) else None
        return "max_tokens" if why in (None, "max_output_tokens") else str(why)
    if status == "completed":
        return "end_turn"
    if status == "cancelled":
        return "interrupted"
    if isinstance(status, str):
        return status  # failed, in_progress: kept as given
    return None


class _ItemWalk:
    """Walks the items in order, grouping output items into model turns."""

    def __init__(self, run: RunParts, error_prefixes: tuple[str, ...]) -> None:
        self.run = run
        self.error_prefixes = error_prefixes
        self.turns: list[_Turn] = []
        self.current: _Turn | None = None
        self.pending: list[str] = []  # reasoning and assistant text not yet a call's decision
        self.seen_user = False
        self.seen_system = "system" in run.metadata
        self.turn = -1

    def item(self, raw: Json, where: str) -> None:
        item = as_dict(raw, where, "a Responses API item")
        kind = item.get("type", "message" if "role" in item else None)
        role = item.get("role")
        if kind == "function_call_output" or (kind == "message" and role in _INPUT_ROLES):
            self.current = None
            self.pending = []
        elif self.current is None:
            self.current = _Turn(steps_before=len(self.run.steps))
            self.turns.append(self.current)
        if kind == "message" and role in _INPUT_ROLES:
            self._input_message(item, raw, where)
        elif kind == "message" and role == "assistant":
            text = content_text(item.get("content"), part_types=_TEXT_PARTS)
            self._model_text(raw, where, text if isinstance(text, str) else None, answer=True)
        elif kind == "reasoning":
            summary = item.get("summary")
            text = text_parts(summary) if isinstance(summary, list) else None
            self._model_text(raw, where, text or None, answer=False)
        elif kind == "function_call":
            self._call(item, where)
        elif kind == "mcp_call":
            self._mcp_call(item, where)
        elif kind == "function_call_output":
            self._output(item, raw, where)
        elif kind is None:
            raise error_at(
                "an item needs a 'type' (or a 'role' for a message)",
                where=where,
                hint="export the items as the Responses API returns them",
            )
        else:
            self.run.unmapped.add(where, raw)

    def _input_message(self, item: dict[str, Json], raw: Json, where: str) -> None:
        """The first user message is the input, the first system/developer one the system prompt."""
        role = item.get("role")
        content = content_text(item.get("content"), part_types=_TEXT_PARTS)
        if role == "user" and not self.seen_user and self.run.input is None:
            self.seen_user = True
            self.run.input = content
        elif role in ("system", "developer") and not self.seen_system:
            self.seen_system = True
            self.run.metadata["system"] = content
        else:
            self.run.unmapped.add(where, raw)
            return
        self.run.unmapped.extra_keys(item, frozenset({"type", "role", "content"}), where)

    def _model_text(self, raw: Json, where: str, text: str | None, *, answer: bool) -> None:
        """Assistant text or a reasoning summary: a decision if a call follows, else a reply."""
        assert self.current is not None
        if text is None:
            self.run.unmapped.add(where, raw)
            return
        self.pending.append(text)
        self.current.leftover.append((where, raw, text if answer else None))

    def _call(self, item: dict[str, Json], where: str, *, id_key: str = "call_id") -> StepDraft:
        assert self.current is not None
        if not self.current.has_calls:
            self.turn += 1
            self.current.has_calls = True
        # text used as a decision is mapped; what came before it in this turn is not leftover
        self.current.leftover = []
        draft = StepDraft.from_call(
            item,
            where,
            turn=self.turn,
            decision="\n\n".join(self.pending) if self.pending else None,
            id_key=id_key,
        )
        self.run.add_step(draft)
        self.pending = []
        if id_key == "call_id":
            self._unmapped_keys(item, where, known=("type", "call_id", "name", "arguments", "id"))
        return draft

    def _mcp_call(self, item: dict[str, Json], where: str) -> None:
        """An MCP tool call the API ran: call and result in one item; ``error`` (or a ``failed`` or
        ``incomplete`` status) marks a failure; a call still running has no result yet."""
        draft = self._call(item, where, id_key="id")
        draft.state["mcp_server"] = require_str(item, "server_label", where)
        error, status = item.get("error"), item.get("status")
        failed = error is not None or status in ("failed", "incomplete")
        if status not in _RUNNING or failed or item.get("output") is not None:
            output = content_text(item.get("output"), part_types=_TEXT_PARTS)
            draft.set_result(output, is_error=failed)
        if error is not None:
            draft.state["error"] = error
        known = ("type", "id", "name", "arguments", "server_label", "output", "error")
        self._unmapped_keys(item, where, known=known)
        self.current = None  # the model saw the result: what follows is a new turn
        self.pending = []

    def _output(self, item: dict[str, Json], raw: Json, where: str) -> None:
        target = self.run.awaiting_result(item.get("call_id"))
        if target is None:
            self.run.unmapped.add(where, raw)
            return
        result = content_text(item.get("output"), part_types=_TEXT_PARTS)
        target.set_text_result(result, self.error_prefixes)
        self._unmapped_keys(item, where, known=("type", "call_id", "output", "id"))

    def _unmapped_keys(self, item: dict[str, Json], where: str, *, known: tuple[str, ...]) -> None:
        """Keys not in ``known``; a ``status`` of ``completed`` says nothing about the run."""
        for key, value in item.items():
            if key in known or (key == "status" and value == "completed"):
                continue
            self.run.unmapped.add(join_path(where, key), value)

    def take_replies(self) -> None:
        """Each turn without calls that has assistant text is a reply; the last one is the answer."""
        for index, model_turn in enumerate(self.turns):
            answer = [t for _, _, t in model_turn.leftover if t is not None]
            if model_turn.has_calls or not answer:
                for where, raw, _ in model_turn.leftover:
                    self.run.unmapped.add(where, raw)
                continue
            self.run.add_reply("\n\n".join(answer), after_steps=model_turn.steps_before)
            if index == len(self.turns) - 1:
                self.run.final_answer = "\n\n".join(answer)
            for where, raw, text in model_turn.leftover:
                if text is None:
                    self.run.unmapped.add(where, raw)


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
