"""Import Harbor's Agent Trajectory Interchange Format (ATIF, ``ATIF-v1.0`` to ``ATIF-v1.8``).

Accepted shapes: a ``trajectory.json`` file (one trajectory object), a JSON list of trajectories, or a
``.jsonl`` file with one trajectory per line. Each trajectory is one run.

Mapping (RFC 0001 of the Harbor project): every entry of an agent step's ``tool_calls`` is a step
(``function_name`` the tool, ``arguments``, ``tool_call_id`` the call id); the calls of one agent step
are parallel and share ``turn``. Each ``observation.results`` entry whose ``source_call_id`` names a
call is that call's result (text content joined, multimodal content kept verbatim). ATIF has no error
flag, so a result whose text starts with one of ``error_prefixes`` (default ``"Error:"``) is flagged
``is_error``. An agent step's ``reasoning_content`` and ``message`` are the ``decision`` of its first
call; the ``message`` of an agent step without calls is a reply to the user, and that of the last agent
step, when it calls nothing, is the ``final_answer``. The first ``user`` step is the ``input``, the
first ``system`` step ``metadata["system"]``. Per-step ``metrics`` are summed into ``usage``
(``prompt_tokens`` counts cached tokens, so ``cached_tokens`` moves to ``cache_read_input_tokens``);
``final_metrics`` is used only when no step has metrics. ``agent.name`` / ``version`` / ``model_name``
give the agent; step timestamps give the timing. ``run_id`` is ``trajectory_id``, else ``session_id``.
Everything else (``tool_definitions``, ``notes``, ``extra`` objects, later user turns, results without a
call, token ids, embedded ``subagent_trajectories``) is kept under ``metadata`` (``atif`` and
``unmapped``), never dropped; each step's ``state`` records the ATIF ``step_id`` it came from.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
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
    decision_text,
    error_at,
    import_transcripts,
    join_path,
    present,
    require_str,
    tool_calls,
)
from pathjudge.agent.trajectory import AgentInfo, RunRecord, Timing, Usage
from pathjudge.errors import InputError

__all__ = ["DEFAULT_ERROR_PREFIXES", "FORMAT", "from_atif", "import_file"]

FORMAT = "atif"

_ROOT_KEYS = frozenset({"schema_version", "session_id", "trajectory_id", "agent", "steps"})
_ROOT_KEPT = ("notes", "extra", "continued_trajectory_ref")  # → metadata["atif"]
_STEP_KEYS = frozenset(
    {"step_id", "source", "message", "reasoning_content", "tool_calls", "observation", "metrics"}
)
_CALL_KEYS = frozenset({"tool_call_id", "function_name", "arguments"})
_METRIC_NAMES = ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd")


def from_atif(
    trajectory: Json,
    *,
    task_id: str,
    run_id: str | None = None,
    epoch: int = 0,
    agent: AgentInfo | None = None,
    source: dict[str, Json] | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
) -> RunRecord:
    """Convert one parsed ATIF trajectory to a RunRecord (see the module docstring for the mapping).

    Pure: reads ``trajectory`` without changing it. ``run_id`` defaults to the ``trajectory_id``, else
    the ``session_id``. A trajectory without steps gives a run with no steps. A problem raises
    :class:`~pathjudge.errors.ImportFormatError` naming the JSON path inside the trajectory.
    """
    root = as_dict(trajectory, "", "an ATIF trajectory")
    version = require_str(root, "schema_version", "")
    if not version.startswith("ATIF-"):
        raise error_at(
            f"schema_version {version!r} is not an ATIF version",
            where="schema_version",
            hint='an ATIF trajectory says e.g. "schema_version": "ATIF-v1.8"',
        )
    run = RunParts()
    kept = _root_metadata(root, version)
    run.metadata["atif"] = kept
    walk = _StepWalk(run, error_prefixes)
    steps = as_list(root.get("steps"), "steps", "the trajectory's steps")
    for i, raw in enumerate(steps):
        walk.step(raw, join_path("steps", i), is_last=i == len(steps) - 1)
    if walk.metrics_seen == 0:
        run.usage = _final_usage(root.get("final_metrics"), run)
    elif root.get("final_metrics") is not None:
        run.unmapped.add("final_metrics", root["final_metrics"])
    run.unmapped.extra_keys(root, _ROOT_KEYS | frozenset(_ROOT_KEPT) | {"final_metrics"}, "")
    own = _agent_info(root.get("agent"), run.model, kept)
    info = agent if agent is not None else own
    ident = run_id or _id(root)
    return run.record(
        info, run_id=ident, task_id=task_id, epoch=epoch, source=source, timing=walk.timing()
    )


def _root_metadata(root: dict[str, Json], version: str) -> dict[str, Json]:
    """``metadata["atif"]``: the version, the ids and the root fields the schema has no place for."""
    return {
        "schema_version": version,
        **present(root, ("session_id", "trajectory_id", *_ROOT_KEPT)),
    }


def _id(root: dict[str, Json]) -> str:
    for key in ("trajectory_id", "session_id"):
        value = root.get(key)
        if isinstance(value, str) and value:
            return value
    raise error_at(
        "the trajectory has no trajectory_id or session_id to name the run",
        where="session_id",
        hint="set session_id in the trajectory, or import it with pathjudge import (ids from the file)",
    )


def _agent_info(raw: Json, step_model: str | None, kept: dict[str, Json]) -> AgentInfo:
    """``agent.name`` / ``version`` / ``model_name`` (else the first step's model); the rest kept."""
    obj = as_dict(raw, "agent", "the agent: name, version, model_name")
    for key, value in obj.items():
        if key not in ("name", "version", "model_name") and value is not None:
            kept[key if key == "tool_definitions" else f"agent_{key}"] = value
    name, version, model = (obj.get(k) for k in ("name", "version", "model_name"))
    return AgentInfo(
        name=name if isinstance(name, str) else None,
        version=version if isinstance(version, str) else None,
        model=model if isinstance(model, str) else step_model,
    )


class _StepWalk:
    """Walks the steps in order: calls and their results, the input, replies, answer and usage."""

    def __init__(self, run: RunParts, error_prefixes: tuple[str, ...]) -> None:
        self.run = run
        self.error_prefixes = error_prefixes
        self.turn = -1
        self.metrics_seen = 0
        self.times: list[datetime] = []
        self.seen = {"user": False, "system": False}

    def step(self, raw: Json, where: str, *, is_last: bool) -> None:
        step = as_dict(raw, where, "an ATIF step")
        source = require_str(step, "source", where)
        self._time(step.get("timestamp"), join_path(where, "timestamp"))
        if isinstance(step.get("model_name"), str) and self.run.model is None:
            self.run.model = step["model_name"]
        kept = {"timestamp", "model_name"}
        text = content_text(step.get("message"))
        if source == "agent":
            self._agent(step, where, text, is_last=is_last)
        elif source in self.seen and not self.seen[source]:
            self.seen[source] = True
            if source == "user":
                self.run.input = text
            else:
                self.run.metadata["system"] = text
        else:
            self.run.unmapped.add(join_path(where, "message"), step.get("message"))
        self._metrics(step.get("metrics"), join_path(where, "metrics"))
        if source != "agent" and step.get("observation") is not None:
            self._results(step["observation"], join_path(where, "observation"), step_id=None)
        for key, value in step.items():
            if key not in _STEP_KEYS and key not in kept and value is not None:
                self.run.unmapped.add(join_path(where, key), value)

    def _agent(self, step: dict[str, Json], where: str, text: Json, *, is_last: bool) -> None:
        calls = tool_calls(step, where)
        reasoning = step.get("reasoning_content")
        if not calls:
            if isinstance(text, str) and text:
                self.run.add_reply(text)
                if is_last:
                    self.run.final_answer = text
            elif text not in (None, ""):
                self.run.unmapped.add(join_path(where, "message"), text)
            if reasoning is not None:
                self.run.unmapped.add(join_path(where, "reasoning_content"), reasoning)
        else:
            self.turn += 1
            decision = decision_text(reasoning, text)
            for call_where, call in calls:
                self._call(call, call_where, step, decision)
                decision = None
        if step.get("observation") is not None:
            self._results(
                step["observation"], join_path(where, "observation"), step_id=step.get("step_id")
            )

    def _call(self, raw: Json, where: str, step: dict[str, Json], decision: str | None) -> None:
        call = as_dict(raw, where, "a tool call: tool_call_id, function_name, arguments")
        draft = StepDraft.from_call(
            call,
            where,
            turn=self.turn,
            decision=decision,
            name_key="function_name",
            id_key="tool_call_id",
        )
        draft.state["atif_step_id"] = step.get("step_id")
        if call.get("extra") is not None:
            draft.state["extra"] = call["extra"]
        if step.get("is_copied_context") is True:
            draft.state["copied_context"] = True
        self.run.add_step(draft)
        self.run.unmapped.extra_keys(call, _CALL_KEYS | {"extra"}, where)

    def _results(self, raw: Json, where: str, *, step_id: Json) -> None:
        observation = as_dict(raw, where, "an observation with 'results'")
        results_where = join_path(where, "results")
        for k, entry_raw in enumerate(
            as_list(observation.get("results"), results_where, "results")
        ):
            ewhere = join_path(results_where, k)
            entry = as_dict(entry_raw, ewhere, "an observation result")
            draft = self.run.awaiting_result(entry.get("source_call_id"))
            if draft is None:
                self.run.unmapped.add(ewhere, entry_raw)
                continue
            result = content_text(entry.get("content"))
            draft.set_text_result(result, self.error_prefixes)
            draft.state.update(present(entry, ("extra", "subagent_trajectory_ref")))
            known = {"source_call_id", "content", "extra", "subagent_trajectory_ref"}
            self.run.unmapped.extra_keys(entry, frozenset(known), ewhere)
        self.run.unmapped.extra_keys(observation, frozenset({"results"}), where)

    def _metrics(self, raw: Json, where: str) -> None:
        if raw is None:
            return
        metrics = as_dict(raw, where, "step metrics")
        self.metrics_seen += 1
        self.run.usage = self.run.usage + _usage(metrics, where)
        self.run.unmapped.extra_keys(metrics, frozenset(_METRIC_NAMES), where)

    def _time(self, raw: Json, where: str) -> None:
        if raw is None:
            return
        if isinstance(raw, str):
            try:
                self.times.append(datetime.fromisoformat(raw.replace("Z", "+00:00")))
                return
            except ValueError:
                pass
        raise error_at("expected an ISO 8601 timestamp", where=where)

    def timing(self) -> Timing:
        aware = [t for t in self.times if t.tzinfo is not None]
        if len(aware) != len(self.times) or not aware:
            return Timing()
        start, end = min(aware), max(aware)
        return Timing(
            started_at=start, ended_at=end, duration_ms=(end - start).total_seconds() * 1000
        )


def _count(metrics: dict[str, Json], key: str, where: str) -> int:
    value = metrics.get(key, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise error_at("expected a non-negative integer", where=join_path(where, key))
    return value


def _usage(metrics: dict[str, Json], where: str, *, prefix: str = "") -> Usage:
    """ATIF counts cached tokens inside ``prompt_tokens``; Usage keeps uncached input apart."""
    prompt = _count(metrics, f"{prefix}prompt_tokens", where)
    cached = _count(metrics, f"{prefix}cached_tokens", where)
    return Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=_count(metrics, f"{prefix}completion_tokens", where),
        cache_read_input_tokens=cached,
        cost_usd=_cost(metrics, f"{prefix}cost_usd", where),
    )


def _cost(metrics: dict[str, Json], key: str, where: str) -> float | None:
    value = metrics.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e15:
        raise error_at("expected a non-negative number of dollars", where=join_path(where, key))
    return float(value)


def _final_usage(raw: Json, run: RunParts) -> Usage:
    """``final_metrics`` totals when no step carried metrics; its other fields kept."""
    if raw is None:
        return Usage()
    metrics = as_dict(raw, "final_metrics", "final metrics")
    names = frozenset(f"total_{name}" for name in _METRIC_NAMES)
    run.unmapped.extra_keys(metrics, names, "final_metrics")
    return _usage(metrics, "final_metrics", prefix="total_")


def _split(value: Json) -> list[tuple[str, Json]]:
    if isinstance(value, list):
        return [(f"[{i}]", item) for i, item in enumerate(value)]
    return [("", value)]


def _convert(
    trajectory: Json,
    /,
    *,
    task_id: str,
    run_id: str,
    epoch: int,
    source: dict[str, Json],
    agent: AgentInfo | None,
    error_prefixes: tuple[str, ...],
) -> RunRecord:
    """``from_atif`` for a file: the trajectory's own id wins over the ``<stem>#<index>`` fallback."""
    own = trajectory.get("run_id") if isinstance(trajectory, dict) else None
    has_id = isinstance(trajectory, dict) and any(
        isinstance(trajectory.get(k), str) and trajectory[k]
        for k in ("trajectory_id", "session_id")
    )
    return from_atif(
        trajectory,
        task_id=task_id,
        run_id=run_id if own is not None or not has_id else None,
        epoch=epoch,
        agent=agent,
        source=source,
        error_prefixes=error_prefixes,
    )


def import_file(
    path: str | Path,
    *,
    task_id: str | None = None,
    agent: AgentInfo | None = None,
    error_prefixes: tuple[str, ...] = DEFAULT_ERROR_PREFIXES,
    errors: list[InputError] | None = None,
) -> Iterator[RunRecord]:
    """Stream the runs in an ATIF file: one ``trajectory.json``, a list of them, or JSONL.

    ``task_id`` overrides every run's task id (default: ``<file stem>#<index>``). With ``errors``
    given, a trajectory that fails is recorded and skipped. Empty input raises
    :class:`~pathjudge.errors.ImportFormatError`.
    """
    convert = partial(_convert, agent=agent, error_prefixes=tuple(error_prefixes))
    return import_transcripts(path, FORMAT, _split, convert, task_id=task_id, errors=errors)
