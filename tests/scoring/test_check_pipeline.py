"""The check pipeline: declared checks run guarded, a check that breaks is an ``error`` (undecided,
listed as a check that broke, never a fail), results are immutable, and ``grade_chunk`` partials merge
to the one-process scorecard whatever the chunking."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import RecordError, SuiteError
from pathjudge.report.json_report import ScoreReport, dumps_report
from pathjudge.rubrics.assertions.base import CheckResult, FrozenDict
from pathjudge.rubrics.checks import CHECKS, Check, SuitePlan, TaskPlan
from pathjudge.rubrics.suite import load_suite, parse_suite_text
from pathjudge.scoring import PartialScorecard, grade_chunk, score_file_parallel
from pathjudge.scoring.chunk import grade_records_chunk, iter_lines
from pathjudge.scoring.grade import RunGrade, grade
from pathjudge.scoring.scorecard import build_scorecard

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docent"


# user callables for the success criterion (imported by dotted name)
def raises_value_error(run: RunRecord) -> bool:
    raise ValueError("boom")


def raises_system_exit(run: RunRecord) -> bool:
    raise SystemExit(3)


def raises_keyboard_interrupt(run: RunRecord) -> bool:
    raise KeyboardInterrupt


SUITE = """\
name: pipeline
tasks:
  - id: value-error
    success: {kind: callable, function: "tests.scoring.test_check_pipeline:raises_value_error"}
    references: [{mode: strict, steps: [{tool: search}]}]
  - id: system-exit
    success: {kind: callable, function: "tests.scoring.test_check_pipeline:raises_system_exit"}
  - id: interrupt
    success: {kind: callable, function: "tests.scoring.test_check_pipeline:raises_keyboard_interrupt"}
  - id: plain
    success: {kind: contains_all, values: ["429"]}
    references: [{mode: strict, steps: [{tool: search}]}]
"""


def _run(task_id: str, run_id: str = "r", answer: str | None = "429", **extra: Any) -> RunRecord:
    steps = extra.pop("steps", (Step(tool="search", turn=0, arguments={"q": "x"}),))
    return RunRecord(run_id=run_id, task_id=task_id, steps=steps, final_answer=answer, **extra)


@pytest.mark.parametrize("task_id", ["value-error", "system-exit", "interrupt"])
def test_a_success_callable_that_raises_is_undecided_never_a_fail(task_id: str) -> None:
    suite = parse_suite_text(SUITE, allow_callables=True)  # the suite is ours: callables may run
    (graded,) = grade([_run(task_id)], suite, fast=True)
    outcome = next(c for c in graded.checks if c.check.startswith("outcome."))
    assert outcome.status == "error"
    assert graded.success == "undecided"
    assert graded.success_score is None
    assert "failed" not in graded.weak
    assert graded.check_errors == 1
    assert graded.axes["goal_completion"] is None  # an error is not a score of 0
    card = build_scorecard([graded], suite)
    assert card.success_failed == 0
    assert card.success_undecided == 1
    assert card.check_errors == 1
    assert [b.check for b in card.broken_checks] == [outcome.check]
    assert card.broken_checks[0].example_run == "r"


def _explodes(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    raise RuntimeError("the check itself is broken")


def _returns_a_list(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    return [  # type: ignore[return-value]
        CheckResult(check="x.list", axis="tool_selection", status="fail", reason="r")
    ]


def _wrong_axis(run: RunRecord, plan: TaskPlan) -> tuple[CheckResult, ...]:
    return (CheckResult(check="x.axis", axis="goal_completion", status="fail", reason="r"),)


def test_a_declared_check_that_breaks_never_stops_the_stream() -> None:
    suite = parse_suite_text(SUITE, allow_callables=True)  # the suite is ours: callables may run
    extra = (
        Check("x.explodes", "step_efficiency", _explodes),
        Check("x.list", "tool_selection", _returns_a_list),
        Check("x.axis", "tool_selection", _wrong_axis),
    )
    plans = SuitePlan(suite, checks=(*CHECKS, *extra))
    runs = [_run("plain", f"r{i}") for i in range(5)]
    grades = list(grade(runs, plans, fast=True))
    assert len(grades) == 5
    for graded in grades:
        broken = {c.check: c for c in graded.broken_checks}
        assert set(broken) == {"x.explodes", "x.list", "x.axis"}
        assert "RuntimeError" in broken["x.explodes"].reason
        assert broken["x.explodes"].axis == "step_efficiency"
        assert graded.success == "pass"  # the other checks still decide
        assert graded.check_errors == 3
        assert graded.axes["step_efficiency"] == 1.0  # errors count as undecided, not 0
    # a declaration pickles (to a worker process) and is extensible by concatenation
    assert pickle.loads(pickle.dumps(plans)).checks == plans.checks


def test_check_results_are_immutable_all_the_way_down() -> None:
    suite = parse_suite_text(SUITE, allow_callables=True)  # the suite is ours: callables may run
    first, second = grade([_run("plain", "a"), _run("plain", "b")], suite, fast=True)
    a = {c.check: c for c in first.checks}
    b = {c.check: c for c in second.checks}
    # the common outcomes are one shared result: changing it through one run must be impossible
    assert a["steps.redundant"] is b["steps.redundant"]
    pairs = a["steps.redundant"].details["pairs"]
    with pytest.raises(TypeError):
        pairs.append([0, 1])  # type: ignore[union-attr]
    with pytest.raises(TypeError):
        a["recovery.ending"].details["answered"] = False  # type: ignore[index]
    with pytest.raises(AttributeError):
        a["steps.redundant"].status = "fail"  # type: ignore[misc]
    assert b["steps.redundant"].details["pairs"] == []
    # a copy is mutable and detached
    copy = dict(a["steps.redundant"].details)
    copy["pairs"] = [[0, 1]]
    assert b["steps.redundant"].details["pairs"] == []
    nested = CheckResult(
        check="n", axis="tool_selection", status="pass", details={"x": [{"y": [1]}]}
    )
    with pytest.raises(TypeError):
        nested.details["x"][0]["y"].append(2)  # type: ignore[index]
    assert isinstance(nested.details, FrozenDict)
    assert json.loads(json.dumps(nested.details)) == {"x": [{"y": [1]}]}


def test_a_grade_round_trips_through_its_json_form() -> None:
    suite = load_suite(EXAMPLES / "suite.yaml")
    runs = [
        RunRecord.model_validate_json(line) for _, _, line in iter_lines(EXAMPLES / "runs.jsonl")
    ]
    for graded in grade(runs, suite, fast=True):
        back = RunGrade.from_dict(json.loads(graded.to_json()))
        assert back.to_json() == graded.to_json()
        assert back.reason == graded.reason


# ------------------------------------------------------------------------------------------------
# grade_chunk and PartialScorecard


def _report(partial: PartialScorecard, suite: Any) -> str:
    card = partial.finish(suite)
    return dumps_report(ScoreReport(fast=True, judge="fast", scorecard=card, passed=True))


@pytest.mark.parametrize("name", ["runs", "capstone-runs", "support-runs"])
def test_chunked_and_merged_in_any_order_equals_one_process(name: str) -> None:
    suite_file = {
        "runs": "suite",
        "capstone-runs": "capstone-suite",
        "support-runs": "support-suite",
    }
    suite = load_suite(EXAMPLES / f"{suite_file[name]}.yaml")
    lines = list(iter_lines(EXAMPLES / f"{name}.jsonl"))
    whole = _report(grade_chunk(lines, suite, fast=True, max_weak=3), suite)
    rng = random.Random(7)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(lines)), min(3, len(lines) - 1)))
        parts = [
            grade_chunk(lines[a:b], suite, fast=True, max_weak=3)
            for a, b in zip([0, *cuts], [*cuts, len(lines)], strict=True)
        ]
        rng.shuffle(parts)
        parts = [pickle.loads(pickle.dumps(p)) for p in parts]  # as from a worker
        merged = parts[0]
        for part in parts[1:]:
            merged = merged.merge(part)
        assert _report(merged, suite) == whole


def test_a_partial_sums_its_runs_in_batches_and_pickles_with_runs_pending(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # each run's values wait in a list and are summed every _FOLD_EVERY runs: whatever the number
    # of runs, at most that many runs' values wait, and a partial pickled (to or from a worker)
    # while some wait is the same scorecard
    from pathjudge.scoring import scorecard

    monkeypatch.setattr(scorecard, "_FOLD_EVERY", 3)
    suite = load_suite(EXAMPLES / "suite.yaml")
    lines = list(iter_lines(EXAMPLES / "runs.jsonl"))
    many = [("runs.jsonl", n, raw) for n, (_, _, raw) in enumerate(lines * 4, 1)]
    partial = PartialScorecard()
    for grade_ in grade(
        [RunRecord.model_validate_json(raw) for _, _, raw in many], suite, fast=True
    ):
        partial.add(grade_)
        waiting = [partial._pending, *(acc.pending for acc in partial.tasks.values())]
        assert max(len(runs) for runs in waiting) <= 3
    assert any(waiting)  # 4 x the runs is not a multiple of 3
    again = pickle.loads(pickle.dumps(partial))
    assert _report(again, suite) == _report(partial, suite)
    whole = _report(grade_chunk(many, suite, fast=True), suite)
    assert _report(partial, suite) == whole


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_merge_is_associative_and_commutative(data: st.DataObject) -> None:
    suite = load_suite(EXAMPLES / "suite.yaml")
    lines = list(iter_lines(EXAMPLES / "runs.jsonl"))
    order = data.draw(st.permutations(range(len(lines))))
    k1 = data.draw(st.integers(0, len(lines)))
    k2 = data.draw(st.integers(k1, len(lines)))
    picked = [lines[i] for i in order]

    def part(chunk: list[Any]) -> PartialScorecard:
        return grade_chunk(chunk, suite, fast=True, max_weak=2)

    a, b, c = picked[:k1], picked[k1:k2], picked[k2:]
    left = part(a).merge(part(b)).merge(part(c))
    right = part(a).merge(part(b).merge(part(c)))
    swapped = part(c).merge(part(a)).merge(part(b))
    whole = _report(grade_chunk(lines, suite, fast=True, max_weak=2), suite)
    assert _report(left, suite) == whole
    assert _report(right, suite) == whole
    assert _report(swapped, suite) == whole


def test_bad_records_are_kept_with_their_line_never_dropped(tmp_path: Path) -> None:
    suite = parse_suite_text(SUITE, allow_callables=True)  # the suite is ours: callables may run
    good = _run("plain").model_dump_json()
    lines = [
        ("runs.jsonl", 1, good),
        ("runs.jsonl", 2, "   "),
        ("runs.jsonl", 3, '{"run_id": "x"'),
        ("runs.jsonl", 4, _run("no-such-task").model_dump_json()),
        ("runs.jsonl", 5, b"\xff\xfe"),
        ("runs.jsonl", 6, good),
    ]
    partial = grade_chunk(lines, suite, fast=True)
    assert partial.runs == 2
    assert partial.error_total == 3
    assert sorted(e.line for _, e in partial.errors) == [3, 4, 5]
    first = partial.first_error()
    assert isinstance(first, RecordError)
    assert first.line == 3
    assert first.file == "runs.jsonl"
    unknown = next(e for _, e in partial.errors if e.line == 4)
    assert isinstance(unknown, SuiteError)
    assert "no-such-task" in str(unknown)
    stopped = grade_chunk(lines, suite, fast=True, stop_at_error=True)
    assert stopped.runs == 1
    assert stopped.error_total == 1
    # errors survive a trip to and from a worker process, and merge by position
    later = grade_chunk([("a.jsonl", 9, "{")], suite)
    merged = pickle.loads(pickle.dumps(later)).merge(partial)
    assert merged.first_error() is not None
    assert merged.first_error().line == 9
    assert merged.error_total == 4


def test_records_chunk_and_streamed_grades() -> None:
    suite = load_suite(EXAMPLES / "suite.yaml")
    runs = [
        (src, n, RunRecord.model_validate_json(raw))
        for src, n, raw in iter_lines(EXAMPLES / "runs.jsonl")
    ]
    seen: list[tuple[str, int]] = []
    partial = grade_records_chunk(
        runs, suite, fast=True, on_grade=lambda grade_, where: seen.append(where)
    )
    assert seen == [(src, n) for src, n, _ in runs]
    lines = grade_chunk(iter_lines(EXAMPLES / "runs.jsonl"), suite, fast=True)
    assert _report(partial, suite) == _report(lines, suite)


def test_the_process_pool_equals_one_process(tmp_path: Path) -> None:
    suite = load_suite(EXAMPLES / "suite.yaml")
    source = (EXAMPLES / "runs.jsonl").read_bytes()
    big = tmp_path / "runs.jsonl"
    big.write_bytes(source * 5)  # 80 runs, several chunks per worker
    one = grade_chunk(iter_lines(big), suite, fast=True)
    import gc

    assert gc.get_freeze_count() == 0
    pooled = score_file_parallel(big, suite, fast=True, jobs=2)
    assert _report(pooled, suite) == _report(one, suite)
    # the heap was parked outside the collector while the workers forked, and handed back after
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
    import gzip

    packed = tmp_path / "runs.jsonl.gz"
    packed.write_bytes(gzip.compress(source * 5))
    zipped = score_file_parallel(packed, suite, fast=True, jobs=2, chunk_lines=7)
    assert _report(zipped, suite) == _report(one, suite)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    with pytest.raises(RecordError, match="has no run records"):
        score_file_parallel(empty, suite, fast=True, jobs=2)


def test_the_terminal_lists_the_checks_that_broke() -> None:
    from io import StringIO

    from rich.console import Console

    from pathjudge.report.terminal import print_scorecard

    suite = parse_suite_text(SUITE, allow_callables=True)  # the suite is ours: callables may run
    card = build_scorecard(grade([_run("value-error", "v1"), _run("plain")], suite), suite)
    out = StringIO()
    print_scorecard(Console(file=out, width=200), card, [])
    text = out.getvalue()
    assert "checks that broke" in text
    assert "outcome.callable x1 (first on run v1)" in text
    assert "ValueError: boom" in text


def test_jobs_default_to_the_core_count_only_for_a_large_file(tmp_path: Path) -> None:
    from pathjudge.scoring.chunk import default_jobs
    from pathjudge.scoring.pipeline import auto_jobs as _auto_jobs

    small = tmp_path / "small.jsonl"
    small.write_bytes(b"{}\n")
    large = tmp_path / "large.jsonl"
    with large.open("wb") as handle:
        handle.truncate(9 * 1024 * 1024)  # sparse: only the size matters
    assert _auto_jobs(small) == 1
    assert _auto_jobs(large) == default_jobs()
    assert _auto_jobs(tmp_path / "missing.jsonl") == 1


def test_score_with_the_default_jobs_equals_one_process(tmp_path: Path) -> None:
    from pathjudge.cli import main

    runs = tmp_path / "runs.jsonl"
    import json

    # three copies of the example runs, as further epochs (a duplicated run is refused, issue 13)
    lines = (EXAMPLES / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    copies = []
    for copy in range(3):
        for line in lines:
            record = json.loads(line)
            record["epoch"] += 1000 * copy
            copies.append(json.dumps(record))
    runs.write_text("\n".join(copies) + "\n", encoding="utf-8")
    suite = str(EXAMPLES / "suite.yaml")
    outputs = []
    for jobs in ([], ["--jobs", "1"], ["--jobs", "2"]):
        out = tmp_path / f"report{len(outputs)}.json"
        code = main(
            ["score", str(runs), "--suite", suite, "--fast", "-q", "--json", str(out), *jobs]
        )
        assert code == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


def test_a_partial_keeps_a_bounded_weak_list_and_error_list_lowest_positions_first() -> None:
    suite = parse_suite_text(SUITE)
    (weak_grade,) = grade([_run("plain", "w", answer="nope")], suite, fast=True)
    assert weak_grade.weak == ("failed",)
    partial = PartialScorecard(max_weak=5, max_errors=3)
    positions = list(range(200, 0, -1))  # worst case: every run comes before the ones kept
    for line in positions:
        partial.add(weak_grade, ("f", line))
        partial.add_error(RecordError("bad", file="f", line=line), ("f", line))
        assert len(partial.weak) <= 2 * 5 + 1
        assert len(partial.errors) <= 2 * 3 + 1
    card = partial.finish(suite)
    assert card.weak_total == 200
    assert len(card.weak) == 5
    assert sorted(position for position, _ in partial.weak) == [("f", n) for n in range(1, 6)]
    assert partial.error_total == 200
    first = partial.first_error()
    assert first is not None
    assert first.line == 1


def test_a_grade_read_back_without_some_axes_counts_them_as_undefined() -> None:
    # a partial takes each run's five axis values in one call; a grade read back from JSON may lack
    # an axis, which counts as undefined (None), exactly as when it is present and None
    import dataclasses

    suite = load_suite(EXAMPLES / "suite.yaml")
    graded = list(grade(_example_runs(), suite, fast=True))
    present, absent = PartialScorecard(), PartialScorecard()
    for g in graded:
        axes = {**g.axes, "error_recovery": None}
        present.add(dataclasses.replace(g, axes=FrozenDict(axes)))
        del axes["error_recovery"]
        absent.add(dataclasses.replace(g, axes=FrozenDict(axes)))
    assert present.finish(suite).axes["error_recovery"] is None
    assert _report(absent, suite) == _report(present, suite)


def _example_runs() -> list[RunRecord]:
    return [RunRecord.model_validate_json(raw) for _, _, raw in iter_lines(EXAMPLES / "runs.jsonl")]
