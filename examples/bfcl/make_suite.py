"""Write a pathjudge suite from BFCL's own task data: its possible answers and function docs.

    python examples/bfcl/make_suite.py ../shared/data/bfcl_v4 simple_python simple_java -o bfcl.yaml

Each BFCL question becomes a task whose one reference path holds its ground-truth calls: ``strict``
for one call (simple, multiple, live_simple, simple_java, simple_javascript), ``unordered`` for the
parallel categories (BFCL grades parallel calls in any order). Each parameter becomes
``{$one_of: [possible answers], $declared: <documented type>, $items: <item type>}``; the suite's
``defaults`` say ``types: bfcl`` once, Java and JavaScript tasks add ``language``. Nothing else is
needed: no preprocessing of runs, no code in the suite. A run passes BFCL's AST check exactly when
its reference path is satisfied (the reference matched, nothing extra), so the suite says so: its
``defaults`` declare ``passed: {checks: [], path: true}``, and the run's one verdict (the ``runs
passed`` headline) is BFCL's verdict, whatever other checks report (a repeated call is trajectory
quality, not something BFCL grades).

Left out by default: a task whose ground truth lists no acceptable value for some parameter (an empty
possible-answer list, ``$one_of: []``). No call can ever pass it, in BFCL as here; ``pathjudge audit``
reports such a task as unsound. The v4 data has two (``live_simple_106-63-0``,
``live_simple_112-68-0``); ``--keep-unreachable`` keeps them, to grade on BFCL's exact task set.

The data files are read, never copied: the suite is written where ``-o`` says.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from pathjudge.rubrics.assertions.arguments import dump_matcher, expectations_from_bfcl

LANGUAGES = {"simple_java": "java", "simple_javascript": "javascript"}
CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "simple_java",
    "simple_javascript",
)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _question_text(question: Any) -> str:
    """The last user message of the first turn (BFCL's ``question`` is a list of turns)."""
    turns = question if isinstance(question, list) else []
    messages = turns[0] if turns and isinstance(turns[0], list) else turns
    texts = [
        m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "user"
    ]
    return str(texts[-1]) if texts else ""


def unreachable(task: dict[str, Any]) -> list[str]:
    """The parameters of ``task`` whose possible-answer list is empty (no value can pass)."""
    return [
        f"{step['tool']}.{name}"
        for reference in task["references"]
        for step in reference["steps"]
        for name, matcher in step["args"].items()
        if isinstance(matcher, dict) and matcher.get("$one_of") == []
    ]


def tasks_for(root: Path, category: str) -> Iterator[dict[str, Any]]:
    """One task mapping per BFCL entry of ``category``."""
    language = LANGUAGES.get(category, "python")
    answers = {
        e["id"]: e["ground_truth"]
        for e in _lines(root / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    for question in _lines(root / f"BFCL_v4_{category}.json"):
        ground_truth = answers[question["id"]]
        expectations = expectations_from_bfcl(ground_truth, question["function"], language=language)
        steps = []
        for expected in expectations:
            step: dict[str, Any] = {
                "tool": expected.tool,
                "args": {name: dump_matcher(m) for name, m in expected.args.items()},
            }
            if expected.json_schema is not None:
                step["json_schema"] = expected.json_schema
            steps.append(step)
        task: dict[str, Any] = {
            "id": question["id"],
            "input": _question_text(question.get("question")),
            "references": [{"mode": "strict" if len(steps) == 1 else "unordered", "steps": steps}],
        }
        if language != "python":
            task["language"] = language
        yield task


def make_suite(
    root: Path, categories: Iterable[str], *, keep_unreachable: bool = False
) -> dict[str, Any]:
    """The suite (as a mapping) for ``categories`` of the BFCL data under ``root``, without the
    tasks no call can pass unless ``keep_unreachable`` (see the module docstring)."""
    tasks = [
        task
        for category in categories
        for task in tasks_for(root, category)
        if keep_unreachable or not unreachable(task)
    ]
    return {
        "schema_version": 1,
        "name": "bfcl",
        "description": "BFCL v4 AST categories, graded with the official checker's typing rules",
        "defaults": {
            "types": "bfcl",
            # BFCL's verdict is the AST check, which is the reference path: nothing else counts
            "passed": {"checks": [], "path": True},
        },
        "tasks": tasks,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "data", type=Path, help="the bfcl_v4 folder (BFCL_v4_*.json, possible_answer/)"
    )
    parser.add_argument("categories", nargs="*", default=list(CATEGORIES))
    parser.add_argument("-o", "--output", type=Path, required=True, help="suite YAML to write")
    parser.add_argument(
        "--keep-unreachable",
        action="store_true",
        help="keep the tasks whose ground truth accepts no value (no call can pass them)",
    )
    args = parser.parse_args(argv)
    unknown = [c for c in args.categories if not (args.data / f"BFCL_v4_{c}.json").is_file()]
    if unknown:
        print(f"no BFCL_v4_{unknown[0]}.json under {args.data}", file=sys.stderr)
        return 2
    suite = make_suite(args.data, args.categories, keep_unreachable=args.keep_unreachable)
    text = yaml.safe_dump(suite, sort_keys=False, allow_unicode=True, width=100)
    tmp = args.output.with_name(args.output.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.output)
    dropped = [
        task["id"]
        for category in ([] if args.keep_unreachable else args.categories)
        for task in tasks_for(args.data, category)
        if unreachable(task)
    ]
    print(f"wrote {len(suite['tasks'])} tasks to {args.output}")
    if dropped:
        print(
            f"left out {len(dropped)} tasks whose ground truth accepts no value: "
            f"{', '.join(dropped)} (--keep-unreachable keeps them)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
