"""Write a pathjudge suite, and the golden runs, from ToolTalk's own conversations.

    python examples/tooltalk/make_suite.py ../shared/data/tooltalk -o tooltalk.yaml --runs golden.jsonl

ToolTalk (microsoft/ToolTalk) gives, for each conversation, the API calls a correct assistant makes at
each of its turns (``api_name``, ``parameters``, the ``response`` or the ``exception``) and the text it
says. Each conversation becomes a task whose one reference path holds those calls in order
(``in_order``: an assistant may look more up in between) with their exact parameters; a call whose
ground truth raised an exception is expected too (ToolTalk counts it), and the importer flags its
result as an error. ``--runs`` also writes the golden conversations as OpenAI chat transcripts
(``pathjudge import --format openai-chat`` reads them): every assistant turn's calls, their results
(an exception as ``"Error: ..."``), then its text, which becomes one of the run's ``replies``.

ToolTalk's own success is a recall of 1 (every ground-truth call made) and no wrong action, so
the suite's ``defaults`` declare ``passed: {checks: [], path: true}``: a run passes exactly when
its reference path is satisfied, whatever other checks (a repeated lookup, a recovered error)
report, and the ``runs passed`` headline is ToolTalk's success count. (ToolTalk also fails a
call with side effects that no ground truth has, which the conversations do not tell apart from
lookups; ``in_order`` lets every extra call through.)

The data files are read, never copied: outputs go where ``-o`` and ``--runs`` say.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml


def conversations(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(task id, conversation)`` for every ToolTalk file under ``root`` (``easy/``, ``tooltalk/``)."""
    for path in sorted(root.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("conversation"), list):
            yield f"{path.parent.name}/{path.stem}", data


def _calls(conversation: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for turn in conversation["conversation"]:
        if turn.get("role") == "assistant":
            yield from turn.get("apis") or []


def task_for(task_id: str, conversation: dict[str, Any]) -> dict[str, Any]:
    """The task: the first user message as input, the ground-truth calls as an in-order reference."""
    first_user = next(
        (t["text"] for t in conversation["conversation"] if t.get("role") == "user"), ""
    )
    steps = [
        {
            "tool": call["request"]["api_name"],
            # a plain mapping matches exactly; an operator-like key would need {$eq: ...}
            "args": {k: {"$eq": v} for k, v in call["request"]["parameters"].items()},
        }
        for call in _calls(conversation)
    ]
    task: dict[str, Any] = {"id": task_id, "input": first_user}
    if steps:
        task["references"] = [{"mode": "in_order", "steps": steps}]
    return task


def golden_transcript(task_id: str, conversation: dict[str, Any]) -> dict[str, Any]:
    """The golden conversation as an OpenAI chat transcript object (one run)."""
    messages: list[dict[str, Any]] = []
    counter = 0
    for turn in conversation["conversation"]:
        if turn.get("role") == "user":
            messages.append({"role": "user", "content": turn["text"]})
            continue
        for call in turn.get("apis") or []:
            counter += 1
            call_id = f"call_{counter}"
            request = call["request"]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": request["api_name"],
                                "arguments": json.dumps(request["parameters"]),
                            },
                        }
                    ],
                }
            )
            exception = call.get("exception")
            content = f"Error: {exception}" if exception else json.dumps(call.get("response"))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        if turn.get("text"):
            messages.append({"role": "assistant", "content": turn["text"]})
    return {"task_id": task_id, "run_id": f"{task_id}:golden", "messages": messages}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="the ToolTalk data folder (easy/, tooltalk/)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="suite YAML to write")
    parser.add_argument("--runs", type=Path, help="also write the golden transcripts (JSONL)")
    args = parser.parse_args(argv)
    found = list(conversations(args.data))
    if not found:
        print(f"no ToolTalk conversations under {args.data}", file=sys.stderr)
        return 2
    suite = {
        "schema_version": 1,
        "name": "tooltalk",
        "description": "ToolTalk golden conversations: the ground-truth API calls, in order",
        # ToolTalk's verdict is the calls (the reference path): nothing else counts
        "defaults": {"passed": {"checks": [], "path": True}},
        "tasks": [task_for(task_id, c) for task_id, c in found],
    }
    outputs = [(args.output, yaml.safe_dump(suite, sort_keys=False, allow_unicode=True, width=100))]
    if args.runs is not None:
        lines = [json.dumps(golden_transcript(t, c), ensure_ascii=False) for t, c in found]
        outputs.append((args.runs, "\n".join(lines) + "\n"))
    for path, text in outputs:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    print(f"wrote {len(found)} tasks to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
