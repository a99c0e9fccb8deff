"""``grade_chunk`` partials give the one-process result whatever the split and the merge order: the
report byte for byte (weak paths and checks that broke included, in order), the first bad record, the
error count and the bad records kept (the lowest positions win)."""

from __future__ import annotations

import itertools
import json
import pickle
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.report.json_report import ScoreReport, dumps_report
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring import PartialScorecard, grade_chunk

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docent"


def breaks(run: RunRecord) -> bool:
    raise ValueError(f"broke on {run.run_id}")


def breaks_differently(run: RunRecord) -> bool:
    raise KeyError(run.run_id)


SUITE = parse_suite_text(
    """\
name: any-split
tasks:
  - id: breaks
    success: {kind: callable, function: "tests.scoring.test_chunk_any_split:breaks"}
  - id: breaks-too
    success: {kind: callable, function: "tests.scoring.test_chunk_any_split:breaks_differently"}
  - id: answer
    success: {kind: contains_all, values: ["429"]}
    references: [{mode: strict, steps: [{tool: search}, {tool: fetch}]}]
""",
    allow_callables=True,  # the suite is ours
)


def _lines() -> list[tuple[str, int, str | bytes]]:
    rng = random.Random(11)
    out: list[tuple[str, int, str | bytes]] = []
    for number in range(1, 61):
        kind = rng.choice(["breaks", "breaks-too", "good", "weak", "bad-json", "unknown", "nan"])
        steps = (Step(tool="search", turn=0), Step(tool="fetch", turn=1))
        if kind == "bad-json":
            raw: str | bytes = '{"run_id": "x' + str(number)
        elif kind == "nan":
            raw = json.dumps({"run_id": f"n{number}", "task_id": "answer"})[:-1] + ', "x": NaN}'
        elif kind == "unknown":
            raw = RunRecord(run_id=f"u{number}", task_id="nope").model_dump_json()
        else:
            task = {"good": "answer", "weak": "answer"}.get(kind, kind)
            answer = "it is 429" if kind == "good" else "no idea"
            if kind == "weak":
                steps = (*steps, Step(tool="search", turn=2))  # a repeated call, a wrong answer
            raw = RunRecord(
                run_id=f"r{number}", task_id=task, steps=steps, final_answer=answer
            ).model_dump_json()
        out.append(("runs.jsonl", number, raw if number % 2 else raw.encode()))
    return out


LINES = _lines()
MAX_WEAK = 3
MAX_ERRORS = 2


def _grade(chunk: list[Any]) -> PartialScorecard:
    partial = PartialScorecard(max_weak=MAX_WEAK, max_errors=MAX_ERRORS)
    return partial.merge(grade_chunk(chunk, SUITE, fast=True, max_weak=MAX_WEAK))


def _state(partial: PartialScorecard) -> tuple[str, Any, int, list[tuple[Any, str]]]:
    card = partial.finish(SUITE)
    report = dumps_report(ScoreReport(fast=True, judge="fast", scorecard=card, passed=True))
    first = partial.first_error()
    kept = sorted((position, str(error)) for position, error in partial.errors)[:MAX_ERRORS]
    return report, (first.line, str(first)) if first else None, partial.error_total, kept


WHOLE = None


def _whole() -> tuple[str, Any, int, list[tuple[Any, str]]]:
    global WHOLE
    if WHOLE is None:
        WHOLE = _state(_grade(LINES))
    return WHOLE


def test_the_workload_has_every_kind_of_entry() -> None:
    report, first, errors, kept = _whole()
    card = json.loads(report)["scorecard"]
    assert card["weak_total"] > MAX_WEAK  # the weak-path list is cut
    assert [b["check"] for b in card["broken_checks"]] == ["outcome.callable"]
    assert card["broken_checks"][0]["count"] > 1
    first_broken = next(
        json.loads(raw)["run_id"]
        for _, _, raw in LINES
        if b'"task_id":"breaks' in (raw if isinstance(raw, bytes) else raw.encode())
    )
    assert card["broken_checks"][0]["example_run"] == first_broken  # the first, by position
    assert [w["run_id"] for w in card["weak"]] == sorted(
        (w["run_id"] for w in card["weak"]), key=lambda run_id: int(run_id[1:])
    )  # the weak paths listed are the first ones, in line order
    assert errors > MAX_ERRORS  # the bad-record list is cut
    assert first is not None
    assert len(kept) == MAX_ERRORS


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_split_merged_in_any_order_is_the_one_process_result(data: st.DataObject) -> None:
    k = data.draw(st.integers(1, 8), label="chunks")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(LINES)), min_size=k - 1, max_size=k - 1)))
    bounds = [0, *cuts, len(LINES)]
    parts = [_grade(LINES[a:b]) for a, b in itertools.pairwise(bounds)]
    parts = [pickle.loads(pickle.dumps(p)) for p in parts]  # as from worker processes
    # merge in a random tree: any two partials, either way round, until one is left
    while len(parts) > 1:
        i = data.draw(st.integers(0, len(parts) - 1))
        left = parts.pop(i)
        j = data.draw(st.integers(0, len(parts) - 1))
        right = parts.pop(j)
        merged = left.merge(right) if data.draw(st.booleans()) else right.merge(left)
        parts.append(merged)
    assert _state(parts[0]) == _whole()
