"""Write runs that make BFCL's ground-truth calls, as a model would write them (for the demo).

    python examples/bfcl/make_runs.py ../shared/data/bfcl_v4 simple_java -o runs.jsonl

Each entry's calls take the first acceptable value of every parameter (a parameter that may only be
omitted is left out), in the model's form: JSON values for Python, source text for Java and
JavaScript (see ``literals.py``). Grade them with the suite of ``make_suite.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from literals import render

from pathjudge.agent.trajectory import RunRecord, Step

LANGUAGES = {"simple_java": "java", "simple_javascript": "javascript"}


def first_value(values: list[Any]) -> Any:
    """The first acceptable value (dict answers built key by key); None when it may only be omitted."""
    for value in values:
        if isinstance(value, str) and value == "":
            continue
        if isinstance(value, dict):
            return {
                key: first_value(options) if isinstance(options, list) else options
                for key, options in value.items()
                if not (isinstance(options, list) and options and all(o == "" for o in options))
            }
        if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            return [first_value([x]) for x in value]
        return value
    return None


def ground_truth_calls(
    ground_truth: list[dict[str, Any]], functions: list[dict[str, Any]], language: str
) -> list[dict[str, Any]]:
    """``[{"tool": name, "arguments": {...}}]`` for one entry's ground truth."""
    by_name = {f["name"]: f for f in functions}
    calls = []
    for call in ground_truth:
        ((name, params),) = call.items()
        properties = by_name[name].get("parameters", {}).get("properties", {})
        arguments = {}
        for param, values in params.items():
            value = first_value(values)
            if value is None or param not in properties:
                continue
            prop = properties[param]
            items = (
                prop.get("items", {}).get("type") if isinstance(prop.get("items"), dict) else None
            )
            arguments[param] = render(value, prop.get("type"), items, language)
        calls.append({"tool": name, "arguments": arguments})
    return calls


def runs_for(root: Path, category: str) -> Iterator[RunRecord]:
    language = LANGUAGES.get(category, "python")
    questions = {}
    with (root / f"BFCL_v4_{category}.json").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                entry = json.loads(line)
                questions[entry["id"]] = entry
    with (root / "possible_answer" / f"BFCL_v4_{category}.json").open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            answer = json.loads(line)
            calls = ground_truth_calls(
                answer["ground_truth"], questions[answer["id"]]["function"], language
            )
            yield RunRecord(
                run_id=f"{answer['id']}:gt",
                task_id=answer["id"],
                steps=tuple(Step(tool=c["tool"], arguments=c["arguments"], turn=0) for c in calls),
                stop_reason="end_turn",
                metadata={"source": "bfcl ground truth"},
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("categories", nargs="+")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    lines = [run.model_dump_json() for c in args.categories for run in runs_for(args.data, c)]
    tmp = args.output.with_name(args.output.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(args.output)
    print(f"wrote {len(lines)} runs to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
