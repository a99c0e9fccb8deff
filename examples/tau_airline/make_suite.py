"""Write a pathjudge suite from tau-bench task data: expected actions and required outputs.

    python examples/tau_airline/make_suite.py TASKS.json suite.yaml [--name tau-airline]
    pathjudge import --format openai-chat RESULTS.json runs.jsonl
    pathjudge score runs.jsonl --suite suite.yaml --json out.json    # grades[].passed ~ reward

``TASKS.json`` is either a tau-bench results file (a list of ``{"task_id", "info": {"task": {...}}}``
records, as in ``historical_trajectories/``), or a list of task objects ``{"actions": [{"name",
"kwargs"}], "outputs": [...], "instruction": ..., "user_id": ...}`` whose task ids are their positions
in the list (tau-bench's ``task_id`` is the index into its task list).

What tau-bench checks, and how the suite says it (no preprocessing of the runs):

- **End state.** The reward replays the expected actions on a fresh database and compares its hash with
  the database the agent left. Only calls that change the database count: reads (``get_*``,
  ``search_*``, ``list_*``), ``calculate``, ``think`` and ``transfer_to_human_agents`` change nothing,
  and a call that returned an error raised before writing. The suite declares the read-only tools once
  (``defaults.tools.read_only``), ignores errored calls (``errored_calls: ignore``) and gives each task
  one reference with ``mode: unordered`` and ``scope: state_changing``: the successful state-changing
  calls must be exactly the expected actions, as a multiset, with exactly the expected arguments. A
  missing write, a wrong argument, a fourth ``cancel_reservation`` when three are expected, or any
  write in a task that expects none, fails the path.
- **Outputs.** Each required output must appear, lowercased, in some message the agent sent the user,
  lowercased with its commas removed. The suite says ``all_of`` one ``contains_any`` part per output,
  read ``over: any_reply`` with ``normalize: {casefold: true, remove: ","}``.
- **One verdict.** ``passed`` counts the path and the success only (``passed: {checks: [], path:
  true}``). A run cut short (``truncated: fail``: tau-bench scores an unfinished episode 0) fails,
  and any other undecided run counts as failed too (``undecided: fail``).

What this approximates (see docs/how-to/benchmarks.md): the hash compares end states,
the suite compares calls. They differ when two different call multisets leave the same database (a
write that sets a value it already had), when the order of writes matters (two updates of one
reservation applied in the other order), when an argument is equal as JSON but not as Python text
(``5`` and ``5.0``), when an output contains a comma (tau-bench removes commas from the reply only), or
when a record hides that its episode was cut short.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

READ_ONLY: tuple[str, ...] = (
    "get_*",
    "search_*",
    "list_*",
    "find_*",
    "calculate",
    "think",
    "transfer_to_human_agents",
)
"""tau-bench's tools that never change the database (airline and retail domains)."""


class TaskDataError(ValueError):
    """The task data is not in a shape this generator reads; the message says where and why."""


def _expect(value: object, kind: type, where: str) -> Any:
    if not isinstance(value, kind):
        raise TaskDataError(f"{where}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def read_tasks(data: object) -> dict[str, dict[str, Any]]:
    """Task id -> task object, from a results file or a task list (see the module docstring).

    A results file may hold several runs of one task: their task objects must agree.
    """
    records = _expect(data, list, "top level")
    tasks: dict[str, dict[str, Any]] = {}
    for index, record in enumerate(records):
        where = f"[{index}]"
        entry = _expect(record, dict, where)
        if "info" in entry or "traj" in entry:
            info = _expect(entry.get("info"), dict, f"{where}.info")
            task = _expect(info.get("task"), dict, f"{where}.info.task")
            raw_id = entry.get("task_id")
            if isinstance(raw_id, bool) or not isinstance(raw_id, int | str):
                raise TaskDataError(f"{where}.task_id: expected an integer or a string")
            task_id = str(raw_id)
            where = f"{where}.info.task"
        else:
            task, task_id = entry, str(index)
        _check_task(task, where)
        known = tasks.get(task_id)
        if known is not None and (
            known["actions"] != task["actions"] or known.get("outputs") != task.get("outputs")
        ):
            raise TaskDataError(
                f"{where}: task {task_id} appears twice with different actions or outputs"
            )
        tasks[task_id] = task
    if not tasks:
        raise TaskDataError("top level: no tasks")
    return tasks


def _check_task(task: Mapping[str, Any], where: str) -> None:
    actions = _expect(task.get("actions"), list, f"{where}.actions")
    for i, action in enumerate(actions):
        step = _expect(action, dict, f"{where}.actions[{i}]")
        name = step.get("name")
        if not isinstance(name, str) or not name:
            raise TaskDataError(f"{where}.actions[{i}].name: expected a tool name")
        _expect(step.get("kwargs", {}), dict, f"{where}.actions[{i}].kwargs")
    for i, output in enumerate(_expect(task.get("outputs", []), list, f"{where}.outputs")):
        if not isinstance(output, str) or not output:
            raise TaskDataError(f"{where}.outputs[{i}]: expected a non-empty string")


def _literal(value: Any) -> Any:
    """An argument value as a matcher that means exactly this value.

    Plain values match exactly, except a mapping with a key starting with ``$``, which the matcher
    language would read as an operator: it is wrapped in ``$eq`` (taken literally).
    """
    if _has_dollar_key(value):
        return {"$eq": value}
    return value


def _has_dollar_key(value: Any) -> bool:
    if isinstance(value, dict):
        return any(str(k).startswith("$") or _has_dollar_key(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_dollar_key(v) for v in value)
    return False


def _is_read_only(tool: str, read_only: Sequence[str]) -> bool:
    from fnmatch import fnmatchcase

    return any(fnmatchcase(tool, pattern) for pattern in read_only)


def task_entry(
    task_id: str, task: Mapping[str, Any], read_only: Sequence[str] = READ_ONLY
) -> dict[str, Any]:
    """One suite task: the reference of expected writes and, when there are outputs, the success."""
    steps = []
    for action in task["actions"]:
        name = action["name"]
        if _is_read_only(name, read_only):
            continue  # replaying a read changes no state: the hash never sees it
        kwargs = action.get("kwargs", {})
        steps.append({"tool": name, "args": {key: _literal(v) for key, v in kwargs.items()}})
    entry: dict[str, Any] = {"id": task_id}
    instruction = task.get("instruction")
    if isinstance(instruction, str):
        entry["input"] = instruction
    entry["references"] = [
        {
            "name": "expected actions",
            "mode": "unordered",
            "scope": "state_changing",
            "steps": steps,
        }
    ]
    outputs = task.get("outputs") or []
    if outputs:
        entry["success"] = {
            "kind": "all_of",
            "parts": [
                {"name": f"output {output}", "criterion": output_criterion(output)}
                for output in outputs
            ],
        }
    return entry


def output_criterion(output: str) -> dict[str, Any]:
    """tau-bench's output rule: ``output.lower()`` in some reply, lowercased with commas removed.

    ``over: any_reply`` reads each message the agent sent the user (an assistant message without tool
    calls, as tau-bench's ``respond`` action); the declared normalisation casefolds and deletes commas
    on both sides, so ``"$23,553"`` contains ``"23553"`` while dots and spaces still count. A reply
    that sounds like a refusal still counts (``allow_refusal``): tau-bench only looks for the text.
    """
    return {
        "kind": "contains_any",
        "values": [output],
        "over": "any_reply",
        "normalize": {"casefold": True, "remove": ","},
        "allow_refusal": True,
    }


def build_suite(
    tasks: Mapping[str, Mapping[str, Any]],
    *,
    name: str = "tau-airline",
    read_only: Sequence[str] = READ_ONLY,
) -> dict[str, Any]:
    """The suite (as plain data, ready for YAML) for ``tasks`` (task id -> task object)."""
    return {
        "schema_version": 1,
        "name": name,
        "description": "Generated from tau-bench task data by examples/tau_airline/make_suite.py.",
        "defaults": {
            "tools": {"read_only": list(read_only)},
            "errored_calls": "ignore",
            "truncated": "fail",
            "steps": {"scope": "state_changing"},
            "recovery": {"require_recovery": False},
            "passed": {"checks": [], "path": True, "undecided": "fail"},
        },
        "tasks": [task_entry(task_id, task, read_only) for task_id, task in _ordered(tasks)],
    }


def _ordered(tasks: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Any]]]:
    def key(item: tuple[str, Mapping[str, Any]]) -> tuple[int, int, str]:
        task_id = item[0]
        return (0, int(task_id), "") if task_id.isdigit() else (1, 0, task_id)

    return sorted(tasks.items(), key=key)


def write_suite(suite: Mapping[str, Any], target: Path) -> None:
    """Write the suite YAML atomically: a failure leaves an existing file as it was."""
    text = "# Generated by examples/tau_airline/make_suite.py; edit the generator, not this file.\n"
    text += yaml.safe_dump(dict(suite), sort_keys=False, allow_unicode=True, width=100)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", type=Path, help="tau-bench results or task list (JSON)")
    parser.add_argument("suite", type=Path, help="the suite YAML to write")
    parser.add_argument("--name", default="tau-airline", help="suite name")
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.tasks.read_text(encoding="utf-8"))
        tasks = read_tasks(data)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: {args.tasks}: cannot read ({exc.__class__.__name__})", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: {args.tasks}:{exc.lineno}: not valid JSON ({exc.msg})", file=sys.stderr)
        return 2
    except TaskDataError as exc:
        print(f"error: {args.tasks}: {exc}", file=sys.stderr)
        return 2
    if args.suite.resolve() == args.tasks.resolve():
        print("error: the suite would overwrite the task data; pick another path", file=sys.stderr)
        return 2
    write_suite(build_suite(tasks, name=args.name), args.suite)
    print(f"wrote {len(tasks)} tasks to {args.suite}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
