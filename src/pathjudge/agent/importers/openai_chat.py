"""Import OpenAI chat-completions message lists (and tau-bench trajectories, which are the same).

Accepted shapes (a ``.json`` file, or a ``.jsonl`` file with one transcript per line):

- a list of messages ``[{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", ...}]``;
- an object ``{"messages": [...], "model": ..., "usage": ..., "task_id": ..., "epoch": ...}``;
- a tau-bench record ``{"task_id", "trial", "reward", "info", "traj": [...]}``;
- a list of any of those (one run each).

Mapping: each entry of an assistant message's ``tool_calls`` is a step (``function.arguments`` is a JSON
string; malformed JSON is kept in ``raw_arguments`` with ``arguments_error``); calls of one message share
``turn``. The message's text (and ``reasoning_content`` when a server sends it) is the first call's
``decision``. A ``role: tool`` message is the result of the call with its ``tool_call_id``; the chat API
has no error flag, so a result whose text starts with one of ``error_prefixes`` (default ``"Error:"``,
tau-bench's convention) is flagged ``is_error``. The legacy ``function_call`` / ``role: function`` pair is
read the same way. The first system message goes to ``metadata["system"]``, the first user message is
the ``input``; every assistant message without tool calls is a reply to the user (``replies``, with
the number of calls before it), and the last assistant message, when it has no tool calls, is the
``final_answer``; tau-bench's ``reward`` and ``info`` go to ``metadata``. ``stop_reason`` comes from a
transcript-level ``stop_reason``/``finish_reason`` (``length`` reads as ``max_tokens``), and a tau-bench
record whose ``reward`` is missing or null is ``missing_reward`` (the episode did not finish); a tau-bench
tool-calling record that ends neither with the user's stop token (``###STOP###``) nor with a call to
``transfer_to_human_agents`` hit the step cap: ``max_steps``. Everything else unmapped lands in ``metadata["unmapped"]``
(message keys whose value is null, such as ``"refusal": null``, carry nothing and are not kept).
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
    call_id_text,
    content_text,
    decision_text,
    import_transcripts,
    join_path,
    last_with_role,
    require_str,
    split_transcripts,
    tool_calls,
    usage_from,
)
from pathjudge.agent.trajectory import AgentInfo, RunRecord
from pathjudge.errors import InputError

__all__ = ["DEFAULT_ERROR_PREFIXES", "FORMAT", "from_openai_chat", "import_file"]

FORMAT = "openai-chat"

_TRANSCRIPT_KEYS = frozenset(
    {
        "messages",
        "traj",
        "model",
        "usage",
        "metadata",
        "reward",
        "info",
        "finish_reason",
        "stop_reason",
    }
)
_FINISH_REASONS = {"length": "max_tokens", "stop": "end_turn", "tool_calls": "tool_use"}
_USAGE_NAMES = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens"}


_TAU_STOP_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
_TAU_TERMINATE_TOOLS = frozenset({"transfer_to_human_agents"})


def _tau_cut(messages: list[Json]) -> bool:
    """Whether a tau-bench tool-calling trajectory ended before the episode did.

    An episode ends when the simulated user says a stop token (``###STOP###``) or the agent calls a
    terminate tool (``transfer_to_human_agents``); otherwise the loop stopped at its step cap. Only a
    trajectory in the tool-calling format (it has a ``role: tool`` message) is judged: the ReAct-style
    agents record tool output as user text, where the end cannot be told apart.
    """
    if not messages or not any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
        return False
    last = messages[-1]
    if not isinstance(last, dict):
        return False
    if last.get("role") == "user":
        text = content_text(last.get("content"))
        if not isinstance(text, str):
            return False  # not text: the end cannot be read
        return not any(token in text for token in _TAU_STOP_TOKENS)
    if last.get("role") == "tool":
        for message in reversed(messages[:-1]):
            if isinstance(message, dict) and message.get("role") == "assistant":
                calls = message.get("tool_calls")
                if isinstance(calls, list):
                    names = {
                        c.get("function", {}).get("name")
                        for c in calls
                        if isinstance(c, dict) and isinstance(c.get("function"), dict)
                    }
                    return not (names & _TAU_TERMINATE_TOOLS)
                return True
        return True
    return False  # an assistant message last: not how tau-bench records an episode


def from_openai_chat(
    transcript: Json,
    *,
    task_id: str,
    run_id: str,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    source: dict[str, Json] | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
) -> RunRecord:
    """Convert one parsed chat-completions transcript (see the module docstring) to a RunRecord.

    Pure: reads ``transcript`` without changing it. Empty input (no messages, or no assistant message)
    gives a run with no steps and no final answer. A problem raises
    :class:`~pathjudge.errors.ImportFormatError` naming the JSON path inside the transcript.
    """
    run = RunParts()
    base, messages, usage_raw = _read_envelope(transcript, run)
    run.usage = usage_from(
        usage_raw,
        "usage",
        run.unmapped,
        names=_USAGE_NAMES,
        cached_in=("prompt_tokens_details", "cached_tokens"),
    )
    walk = _MessageWalk(run, error_prefixes)
    last_assistant = last_with_role(messages, "assistant")
    for i, raw in enumerate(messages):
        walk.message(raw, join_path(base, i), is_last_assistant=i == last_assistant)
    info = agent if agent is not None else AgentInfo(model=run.model)
    return run.record(info, run_id=run_id, task_id=task_id, epoch=epoch, source=source)


def _read_envelope(transcript: Json, run: RunParts) -> tuple[str, list[Json], Json]:
    """The JSON path and list of the messages and the raw usage; the envelope's other fields into ``run``."""
    if not isinstance(transcript, dict):
        return "", as_list(transcript, "", "a list of messages"), None
    base = "traj" if "traj" in transcript and "messages" not in transcript else "messages"
    messages = as_list(transcript.get(base), base, "the transcript's messages")
    if isinstance(transcript.get("model"), str):
        run.model = transcript["model"]
    for key in ("reward", "info"):
        if key in transcript:
            run.metadata[key] = transcript[key]
    run.stop_reason = _stop_reason(transcript, messages, tau_bench=base == "traj")
    run.take_rest(transcript, _TRANSCRIPT_KEYS)
    return base, messages, transcript.get("usage")


def _stop_reason(
    transcript: dict[str, Json], messages: list[Json], *, tau_bench: bool
) -> str | None:
    """The recorded stop/finish reason; for a tau-bench record, whether the episode finished."""
    stop_reason: str | None = None
    for key in ("stop_reason", "finish_reason"):
        if isinstance(transcript.get(key), str):
            stop_reason = _FINISH_REASONS.get(transcript[key], transcript[key])
    if tau_bench and not isinstance(transcript.get("reward"), int | float):
        return "missing_reward"  # a tau-bench record without its reward never finished
    if tau_bench and stop_reason is None and _tau_cut(messages):
        return "max_steps"  # the episode hit tau-bench's step cap (its reward is then 0)
    return stop_reason


class _MessageWalk:
    """Walks the messages in order: system prompt, input, steps, their results, replies and answer."""

    def __init__(self, run: RunParts, error_prefixes: tuple[str, ...]) -> None:
        self.run = run
        self.error_prefixes = error_prefixes
        self.turn = -1
        self.seen_user = self.seen_system = False

    def message(self, raw: Json, where: str, *, is_last_assistant: bool) -> None:
        message = as_dict(raw, where, "a message with 'role'")
        role = require_str(message, "role", where)
        content = message.get("content")
        known = {"role", "content"}
        if role == "system" and not self.seen_system:
            self.seen_system = True
            self.run.metadata["system"] = content_text(content)
        elif role == "user" and not self.seen_user:
            self.seen_user = True
            self.run.input = content_text(content)
        elif role == "assistant":
            known |= {"tool_calls", "function_call", "reasoning_content"}
            self._assistant(message, where, is_last=is_last_assistant)
        elif role in ("tool", "function"):
            known |= {"tool_call_id", "name"}
            if not self._tool_result(message, where):
                self.run.unmapped.add(where, raw)
                return
        else:
            self.run.unmapped.add(where, raw)
            return
        for key, value in message.items():
            if key not in known and value is not None:  # a null (e.g. "refusal": null) says nothing
                self.run.unmapped.add(join_path(where, key), value)

    def _assistant(self, message: dict[str, Json], where: str, *, is_last: bool) -> None:
        """Tool calls (the text and reasoning are the first one's decision), else a reply."""
        content = message.get("content")
        calls = tool_calls(message, where)
        legacy = message.get("function_call")
        text = content_text(content)
        reasoning = message.get("reasoning_content")
        if not calls and legacy is None:
            self._reply(content, text, reasoning, where, is_last=is_last)
            return
        self.turn += 1
        decision = decision_text(reasoning, text)
        if not isinstance(text, str | None):
            self.run.unmapped.add(join_path(where, "content"), content)
        for call_where, call_raw in calls:
            self._tool_call(call_raw, call_where, decision)
            decision = None
        if legacy is not None:
            lwhere = join_path(where, "function_call")
            fn = as_dict(legacy, lwhere, "a function call")
            self.run.add_step(
                StepDraft(
                    tool=require_str(fn, "name", lwhere),
                    turn=self.turn,
                    where=lwhere,
                    decision=decision,
                    raw_arguments=fn.get("arguments"),
                )
            )

    def _tool_call(self, raw: Json, where: str, decision: str | None) -> None:
        call = as_dict(raw, where, "a tool call")
        fn_where = join_path(where, "function")
        fn = as_dict(call.get("function"), fn_where, "a function")
        self.run.add_step(
            StepDraft(
                tool=require_str(fn, "name", fn_where),
                turn=self.turn,
                where=where,
                call_id=call_id_text(call.get("id")),
                decision=decision,
                raw_arguments=fn.get("arguments"),
            )
        )
        self.run.unmapped.extra_keys(fn, frozenset({"name", "arguments"}), fn_where)
        for key, value in call.items():
            if key not in ("id", "function") and not (key == "type" and value == "function"):
                self.run.unmapped.add(join_path(where, key), value)

    def _reply(
        self, content: Json, text: Json, reasoning: Json, where: str, *, is_last: bool
    ) -> None:
        """An assistant message without calls: a reply; the last one is the final answer."""
        if isinstance(text, str) and text:
            self.run.add_reply(text)
        elif content is not None:
            self.run.unmapped.add(join_path(where, "content"), content)
        if is_last:
            self.run.final_answer = text if isinstance(text, str) else None
            if isinstance(reasoning, str) and reasoning:
                self.run.unmapped.add(join_path(where, "reasoning_content"), reasoning)
        elif reasoning is not None:
            self.run.unmapped.add(join_path(where, "reasoning_content"), reasoning)

    def _tool_result(self, message: dict[str, Json], where: str) -> bool:
        """A ``role: tool`` (by call id) or legacy ``role: function`` (by name) result; False if unpaired."""
        name = message.get("name")
        target: StepDraft | None
        if message["role"] == "tool":
            target = self.run.awaiting_result(message.get("tool_call_id"))
        else:
            target = next(
                (
                    d
                    for d in self.run.steps
                    if d.call_id is None and d.tool == name and not d.has_result
                ),
                None,
            )
        if target is None:
            return False
        result = content_text(message.get("content"))
        target.set_text_result(result, self.error_prefixes)
        if name is not None and name != target.tool:
            self.run.unmapped.add(join_path(where, "name"), name)
        return True


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
    errors: list[InputError] | None = None,
) -> Iterator[RunRecord]:
    """Stream the runs in a chat-completions or tau-bench file (see the module docstring).

    ``task_id`` overrides every run's task id (default: the record's ``task_id``, else
    ``<file stem>#<index>``); ``epoch`` comes from ``epoch`` or tau-bench's ``trial``. With ``errors``
    given, a transcript that fails is recorded and skipped. Empty input raises
    :class:`~pathjudge.errors.ImportFormatError`.
    """
    convert = partial(from_openai_chat, agent=agent, error_prefixes=tuple(error_prefixes))
    return import_transcripts(
        path, FORMAT, split_transcripts, convert, task_id=task_id, errors=errors
    )
