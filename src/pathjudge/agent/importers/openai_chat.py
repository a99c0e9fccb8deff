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
    IDENTITY_KEYS,
    Json,
    StepDraft,
    Unmapped,
    as_dict,
    as_list,
    content_text,
    finish_record,
    import_transcripts,
    join_path,
    require_str,
    split_transcripts,
    take_metadata,
    usage_from,
)
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord
from pathjudge.errors import InputError

__all__ = ["DEFAULT_ERROR_PREFIXES", "FORMAT", "from_openai_chat", "import_file"]

FORMAT = "openai-chat"
DEFAULT_ERROR_PREFIXES: tuple[str, ...] = ("Error:",)

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
    unmapped = Unmapped()
    metadata: dict[str, Json] = {}
    model: str | None = None
    usage_raw: Json = None
    base = ""
    stop_reason: str | None = None
    if isinstance(transcript, dict):
        base = "traj" if "traj" in transcript and "messages" not in transcript else "messages"
        messages = as_list(transcript.get(base), base, "the transcript's messages")
        if isinstance(transcript.get("model"), str):
            model = transcript["model"]
        usage_raw = transcript.get("usage")
        for key in ("reward", "info"):
            if key in transcript:
                metadata[key] = transcript[key]
        for key in ("stop_reason", "finish_reason"):
            if isinstance(transcript.get(key), str):
                stop_reason = _FINISH_REASONS.get(transcript[key], transcript[key])
        if base == "traj" and not isinstance(transcript.get("reward"), int | float):
            stop_reason = "missing_reward"  # a tau-bench record without its reward never finished
        elif base == "traj" and stop_reason is None and _tau_cut(messages):
            stop_reason = "max_steps"  # the episode hit tau-bench's step cap (its reward is then 0)
        take_metadata(transcript, metadata, unmapped)
        unmapped.extra_keys(transcript, _TRANSCRIPT_KEYS | IDENTITY_KEYS, "")
    else:
        messages = as_list(transcript, "", "a list of messages")
    usage = usage_from(
        usage_raw,
        "usage",
        unmapped,
        names=_USAGE_NAMES,
        cached_in=("prompt_tokens_details", "cached_tokens"),
    )

    drafts: list[StepDraft] = []
    by_id: dict[str, StepDraft] = {}
    input_value: Json = None
    seen_user = seen_system = False
    final_answer: str | None = None
    replies: list[Reply] = []
    turn = -1
    last_assistant = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=-1,
    )
    for i, raw in enumerate(messages):
        where = join_path(base, i)
        message = as_dict(raw, where, "a message with 'role'")
        role = require_str(message, "role", where)
        content = message.get("content")
        known = {"role", "content"}
        if role == "system" and not seen_system:
            seen_system = True
            metadata["system"] = content_text(content)
        elif role == "user" and not seen_user:
            seen_user = True
            input_value = content_text(content)
        elif role == "assistant":
            known |= {"tool_calls", "function_call", "reasoning_content"}
            calls = message.get("tool_calls") or []
            calls = as_list(calls, join_path(where, "tool_calls"), "tool calls")
            legacy = message.get("function_call")
            text = content_text(content)
            reasoning = message.get("reasoning_content")
            decision_parts = [p for p in (reasoning, text) if isinstance(p, str) and p]
            if calls or legacy is not None:
                turn += 1
                decision = "\n\n".join(decision_parts) or None
                if not isinstance(text, str | None):
                    unmapped.add(join_path(where, "content"), content)
                for j, call_raw in enumerate(calls):
                    cwhere = join_path(join_path(where, "tool_calls"), j)
                    call = as_dict(call_raw, cwhere, "a tool call")
                    fn = as_dict(call.get("function"), join_path(cwhere, "function"), "a function")
                    draft = StepDraft(
                        tool=require_str(fn, "name", join_path(cwhere, "function")),
                        turn=turn,
                        where=cwhere,
                        call_id=call.get("id") if isinstance(call.get("id"), str) else None,
                        decision=decision,
                        raw_arguments=fn.get("arguments"),
                    )
                    decision = None
                    drafts.append(draft)
                    if draft.call_id is not None:
                        by_id[draft.call_id] = draft
                    unmapped.extra_keys(
                        fn, frozenset({"name", "arguments"}), join_path(cwhere, "function")
                    )
                    for key, value in call.items():
                        if key not in ("id", "function") and not (
                            key == "type" and value == "function"
                        ):
                            unmapped.add(join_path(cwhere, key), value)
                if legacy is not None:
                    lwhere = join_path(where, "function_call")
                    fn = as_dict(legacy, lwhere, "a function call")
                    drafts.append(
                        StepDraft(
                            tool=require_str(fn, "name", lwhere),
                            turn=turn,
                            where=lwhere,
                            decision=decision,
                            raw_arguments=fn.get("arguments"),
                        )
                    )
            else:
                if isinstance(text, str) and text:
                    replies.append(Reply(text=text, after_steps=len(drafts)))
                elif content is not None:
                    unmapped.add(join_path(where, "content"), content)
                if i == last_assistant:
                    final_answer = text if isinstance(text, str) else None
                    if isinstance(reasoning, str) and reasoning:
                        unmapped.add(join_path(where, "reasoning_content"), reasoning)
                elif reasoning is not None:
                    unmapped.add(join_path(where, "reasoning_content"), reasoning)
        elif role in ("tool", "function"):
            known |= {"tool_call_id", "name"}
            target: StepDraft | None = None
            if role == "tool":
                call_id = message.get("tool_call_id")
                target = by_id.get(call_id) if isinstance(call_id, str) else None
            else:
                name = message.get("name")
                target = next(
                    (
                        d
                        for d in drafts
                        if d.call_id is None and d.tool == name and not d.has_result
                    ),
                    None,
                )
            if target is None or target.has_result:
                unmapped.add(where, raw)
                continue
            result = content_text(content)
            failed = isinstance(result, str) and result.startswith(error_prefixes)
            target.set_result(result, is_error=failed)
            name = message.get("name")
            if name is not None and name != target.tool:
                unmapped.add(join_path(where, "name"), name)
        else:
            unmapped.add(where, raw)
            continue
        for key, value in message.items():
            if key not in known and value is not None:  # a null (e.g. "refusal": null) says nothing
                unmapped.add(join_path(where, key), value)

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
