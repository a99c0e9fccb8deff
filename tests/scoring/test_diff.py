"""Baseline vs candidate diff: per-task findings, the paired test, and the promote/block gate."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pathjudge._io import write_jsonl
from pathjudge.agent.backends import ScriptedBackend
from pathjudge.agent.docent import DocentPolicy, run_docent
from pathjudge.agent.trajectory import RunRecord, Step, Usage
from pathjudge.cli import main
from pathjudge.errors import InputError, SuiteError
from pathjudge.rubrics.suite import Suite, SuiteGate, parse_suite_text
from pathjudge.scoring.diff import (
    DiffGate,
    diff_runs,
    mcnemar_exact,
    paired_bootstrap,
    paired_test,
    parse_gate_rules,
    resolve_gate,
    retry_loops,
)

SUITE = """\
schema_version: 1
name: diff-mini
defaults:
  kind: factual
  tools: {required: [search_docs]}
  arguments:
    - tool: search_docs
      args: {query: {$regex: "\\\\S"}}
  steps: {budget: 4}
tasks:
  - id: rate-429
    input: What HTTP status code does Meridian return when you exceed the rate limit?
    success: {kind: contains_all, values: ["429"]}
    references: [{mode: strict, steps: [{tool: search_docs, result_contains: [ratelimits]}]}]
    surface: [ratelimits]
  - id: pro-cost
    input: How much does the Pro plan cost per month?
    success: {kind: contains_all, values: ["25"]}
    references: [{mode: strict, steps: [{tool: search_docs, result_contains: [plans]}]}]
    surface: [plans]
  - id: scale-bkup
    input: How long are backups retained on the Scale plan?
    success: {kind: contains_all, values: ["90"]}
    references: [{mode: strict, steps: [{tool: search_docs, result_contains: [backups]}]}]
    surface: [backups]
  - id: oos-mongo
    input: Does Meridian support MongoDB-style aggregation pipelines?
    kind: out_of_scope
    references: [{mode: strict, steps: [{tool: search_docs}]}]
"""


@pytest.fixture(scope="module")
def suite() -> Suite:
    return parse_suite_text(SUITE)


@pytest.fixture(scope="module")
def baseline(suite: Suite) -> list[RunRecord]:
    async def collect() -> list[RunRecord]:
        backend = ScriptedBackend(DocentPolicy())
        return [
            await run_docent(backend, task_id=t.id, question=t.input_text, epoch=e)
            for e in range(2)
            for t in suite.tasks
        ]

    return asyncio.run(collect())


def with_steps(run: RunRecord, steps: list[Step], **changes: object) -> RunRecord:
    return run.model_copy(update={"steps": tuple(steps), **changes})


def extra_search(run: RunRecord) -> RunRecord:
    """The same run with one more search (a different query) before the answer."""
    extra = run.steps[-1].model_copy(
        update={
            "turn": run.steps[-1].turn + 1,
            "arguments": {"query": "pro plan price"},
            "call_id": "x",
        }
    )
    return with_steps(run, [*run.steps, extra])


def test_mcnemar_by_hand_and_against_scipy() -> None:
    # b=3, c=0: n=3, P(X<=0) = C(3,0)/2^3 = 1/8 → p = 2/8 = 0.25
    assert mcnemar_exact(3, 0) == 0.25
    # b=5, c=1: n=6, P(X<=1) = (1 + 6)/64 = 7/64 → p = 14/64 = 0.21875
    assert mcnemar_exact(5, 1) == pytest.approx(0.21875)
    # b=6, c=0: 2/64 = 0.03125 (significant at 0.05)
    assert mcnemar_exact(6, 0) == pytest.approx(0.03125)
    # b=2, c=2: 2 * (1+4+6)/16 = 1.375, capped at 1
    assert mcnemar_exact(2, 2) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(3, 0), (5, 1), (7, 2), (10, 4), (1, 9)]:
        assert mcnemar_exact(b, c) == pytest.approx(stats.binomtest(min(b, c), b + c, 0.5).pvalue)


def test_bootstrap_and_paired_test() -> None:
    assert paired_bootstrap([]) is None
    assert paired_bootstrap([0.0, 0.0, 0.0]) == (0.0, 0.0, 0.0)
    # every task lost everything: all resampled means are -1
    assert paired_bootstrap([-1.0] * 5, resamples=200) == (-1.0, -1.0, -1.0)
    a = paired_bootstrap([0.5, -1.0, 0.0, 0.25], resamples=500, seed=7)
    assert a == paired_bootstrap(
        [0.5, -1.0, 0.0, 0.25], resamples=500, seed=7
    )  # seeded: reproducible
    assert a is not None
    assert a[0] == pytest.approx(-0.0625)  # (0.5 - 1 + 0 + 0.25) / 4
    assert a[1] <= a[0] <= a[2]
    # six tasks pass → fail: McNemar p = 0.03125 < 0.05, b > c → significantly worse
    test = paired_test({f"t{i}": [("pass", "fail")] for i in range(6)}, resamples=100)
    assert (test.tasks, test.worse, test.better, test.significantly_worse) == (6, 6, 0, True)
    # undecided epochs are left out; a task with none left is left out
    test = paired_test(
        {"a": [("undecided", "pass")], "b": [("pass", "pass"), ("pass", "undecided")]}
    )
    assert (test.tasks, test.worse, test.better, test.mcnemar_p) == (1, 0, 0, 1.0)


def test_retry_loops() -> None:
    def step(q: str) -> Step:
        return Step(tool="search_docs", arguments={"query": q})

    run = RunRecord(
        run_id="r", task_id="t", steps=tuple(step(q) for q in ["a", "a", "a", "b", "b", "c", "a"])
    )
    assert retry_loops(run) == 2  # a,a,a is one loop; b,b another; the final a is not back-to-back
    assert retry_loops(RunRecord(run_id="r", task_id="t")) == 0


def test_identical_runs_promote_with_no_finding(suite: Suite, baseline: list[RunRecord]) -> None:
    report = diff_runs(baseline, baseline, suite)
    assert report.verdict == "promote"
    assert report.changed_tasks == ()
    assert report.reasons == ("no gated rule fired; no difference found",)
    assert (report.test.worse, report.test.better, report.test.mcnemar_p) == (0, 0, 1.0)


def test_one_extra_search_on_one_task_reports_exactly_that_task(
    suite: Suite, baseline: list[RunRecord]
) -> None:
    candidate = [
        extra_search(r) if (r.task_id, r.epoch) == ("pro-cost", 0) else r for r in baseline
    ]
    report = diff_runs(baseline, candidate, suite)
    assert report.changed_tasks == ("pro-cost",)
    assert report.regressed_tasks == ("pro-cost",)
    (pair,) = [p for p in report.tasks[1].pairs if p.findings]
    assert (
        pair.epoch,
        pair.step_delta,
        pair.tools_added,
        pair.success_before,
        pair.success_after,
    ) == (
        0,
        1,
        {"search_docs": 1},
        "pass",
        "pass",
    )
    whats = [f.what for f in pair.findings]
    assert "steps 1 → 2 (+1): added search_docs ×1" in whats
    assert all(f.rule == "trajectory" for f in pair.findings)
    # the answer stayed right, so success is untouched; the trajectory gate blocks
    assert report.test.worse == 0
    assert report.verdict == "block"
    assert report.reasons[0].startswith("[trajectory] pro-cost: steps 1 → 2 (+1)")
    # without the trajectory rule it promotes, but the regression is still flagged
    lenient = diff_runs(baseline, candidate, suite, gate=DiffGate(block_on=("success",)))
    assert lenient.verdict == "promote"
    assert any(r.startswith("[trajectory, not gated] pro-cost") for r in lenient.reasons)


def test_new_retry_loop_and_argument_changes_are_reported(
    suite: Suite, baseline: list[RunRecord]
) -> None:
    def loop(run: RunRecord) -> RunRecord:
        first = run.steps[0]
        failed = first.model_copy(update={"result": "Error: timeout", "is_error": True})
        again = first.model_copy(update={"turn": 1, "call_id": "again"})
        return with_steps(run, [failed, again])

    def new_query(run: RunRecord) -> RunRecord:
        return with_steps(
            run, [run.steps[0].model_copy(update={"arguments": {"query": "scale backups"}})]
        )

    candidate = [
        loop(r)
        if (r.task_id, r.epoch) == ("rate-429", 1)
        else new_query(r)
        if r.task_id == "scale-bkup"
        else r
        for r in baseline
    ]
    report = diff_runs(baseline, candidate, suite)
    assert report.changed_tasks == ("rate-429", "scale-bkup")
    rate = report.tasks[0].pairs[1]
    assert (
        rate.retry_loops_before,
        rate.retry_loops_after,
        rate.new_retry_loops,
        rate.error_delta,
    ) == (0, 1, 1, 1)
    assert "new retry loop: 0 → 1 back-to-back repeated calls" in [f.what for f in rate.findings]
    scale = report.tasks[2]
    assert not scale.regressed  # argument changes alone are changes, not regressions
    change = scale.pairs[0].argument_changes[0]
    assert (change.tool, change.keys, change.after) == (
        "search_docs",
        ("query",),
        {"query": "scale backups"},
    )
    assert report.verdict == "block"
    assert report.regressed_tasks == ("rate-429",)


def test_success_flips_block_and_coverage(suite: Suite, baseline: list[RunRecord]) -> None:
    refusal = "I don't have that in the docs."
    candidate = [
        r.model_copy(update={"final_answer": refusal})
        if r.task_id in ("rate-429", "pro-cost")
        else r
        for r in baseline
    ]
    report = diff_runs(baseline, candidate, suite, gate=DiffGate(block_on=("significance",)))
    assert (report.test.worse, report.test.better) == (2, 0)
    # b=2, c=0: p = 2 * 1/4 = 0.5 → not significant, so a significance-only gate promotes...
    assert report.test.mcnemar_p == 0.5
    assert report.verdict == "promote"
    # ...while the default gate blocks on the flips
    strict = diff_runs(baseline, candidate, suite)
    assert strict.verdict == "block"
    assert [r for r in strict.reasons if r.startswith("[success]")] == [
        "[success] rate-429: success rate 1.00 → 0.00",
        "[success] pro-cost: success rate 1.00 → 0.00",
    ]
    # a missing candidate epoch is a coverage regression
    partial = [r for r in baseline if (r.task_id, r.epoch) != ("oos-mongo", 1)]
    cov = diff_runs(baseline, partial, suite)
    assert cov.verdict == "block"
    assert cov.tasks[3].baseline_only == (1,)
    assert "[coverage] oos-mongo: no candidate run for epoch(s) 1" in cov.reasons


def test_cost_rule(suite: Suite, baseline: list[RunRecord]) -> None:
    def heavier(run: RunRecord) -> RunRecord:
        return run.model_copy(
            update={"usage": run.usage + Usage(input_tokens=run.usage.total_tokens)}
        )

    candidate = [heavier(r) for r in baseline]
    assert (
        diff_runs(baseline, candidate, suite).verdict == "promote"
    )  # tokens alone are not a finding
    gate = DiffGate(block_on=("cost",), max_token_increase=0.5)
    report = diff_runs(baseline, candidate, suite, gate=gate)
    assert report.tokens_after == 2 * report.tokens_before
    assert report.verdict == "block"
    assert report.reasons[0].startswith("[cost] tokens")


def test_bad_input(suite: Suite, baseline: list[RunRecord]) -> None:
    with pytest.raises(InputError, match="twice"):
        diff_runs(baseline + baseline[:1], baseline, suite)
    with pytest.raises(InputError, match="has no runs"):
        diff_runs(baseline, [], suite)
    with pytest.raises(SuiteError, match="not in suite"):
        diff_runs(baseline, [RunRecord(run_id="x", task_id="nope")], suite)
    assert parse_gate_rules("success, trajectory") == ("success", "trajectory")
    with pytest.raises(InputError, match="unknown gate rule 'speed'"):
        parse_gate_rules("success,speed")


def test_cli_diff_exit_codes(
    tmp_path: Path, suite: Suite, baseline: list[RunRecord], capsys: pytest.CaptureFixture[str]
) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(SUITE)
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    write_jsonl(base, baseline)
    write_jsonl(
        cand, [extra_search(r) if (r.task_id, r.epoch) == ("pro-cost", 0) else r for r in baseline]
    )
    assert main(["diff", str(base), str(base), "--suite", str(suite_file)]) == 0
    assert "verdict: PROMOTE" in capsys.readouterr().out
    out_json = tmp_path / "diff.json"
    assert (
        main(["diff", str(base), str(cand), "--suite", str(suite_file), "--json", str(out_json)])
        == 1
    )
    printed = capsys.readouterr().out
    assert "pro-cost" in printed
    assert "verdict: BLOCK" in printed
    data = json.loads(out_json.read_text())
    assert data["verdict"] == "block"
    assert [t["task_id"] for t in data["tasks"] if t["findings"]] == ["pro-cost"]
    assert (
        main(["diff", str(base), str(cand), "--suite", str(suite_file), "--block-on", "success"])
        == 0
    )
    capsys.readouterr()
    assert (
        main(["diff", str(base), str(tmp_path / "missing.jsonl"), "--suite", str(suite_file)]) == 2
    )
    assert "file not found" in capsys.readouterr().err
    assert (
        main(["diff", str(base), str(cand), "--suite", str(suite_file), "--block-on", "vibes"]) == 2
    )
    assert main(["diff", str(base), str(cand), "--suite", str(suite_file), "--alpha", "2"]) == 2
    assert "field '--alpha'" in capsys.readouterr().err


def test_bundled_runs_with_one_extra_search(repo_root: Path) -> None:
    from pathjudge.agent.io import read_runs
    from pathjudge.rubrics.suite import load_suite

    suite = load_suite(repo_root / "examples/docent/suite.yaml")
    baseline = list(read_runs(repo_root / "examples/docent/runs.jsonl"))
    candidate = [extra_search(r) if r.task_id == "pro-cost" else r for r in baseline]
    report = diff_runs(baseline, candidate, suite)
    assert report.changed_tasks == ("pro-cost",)
    assert report.verdict == "block"
    assert all(r.startswith("[trajectory] pro-cost") for r in report.reasons)
    assert diff_runs(baseline, baseline, suite).verdict == "promote"


def gated(rules: str) -> str:
    """SUITE with a ``gate:`` block listing ``rules``."""
    return SUITE.replace("defaults:\n", f"gate: {{block_on: [{rules}]}}\ndefaults:\n", 1)


def test_suite_gate_decides_when_no_gate_is_passed(baseline: list[RunRecord]) -> None:
    candidate = [
        extra_search(r) if (r.task_id, r.epoch) == ("pro-cost", 0) else r for r in baseline
    ]
    strict = parse_suite_text(gated("success, trajectory"))
    assert strict.gate == SuiteGate(block_on=("success", "trajectory"))
    report = diff_runs(baseline, candidate, strict)
    assert report.changed_tasks == ("pro-cost",)
    assert report.gate.block_on == ("success", "trajectory")
    assert report.verdict == "block"
    assert report.reasons[0].startswith("[trajectory] pro-cost: steps 1 → 2 (+1)")

    lenient = parse_suite_text(gated("success"))
    report = diff_runs(baseline, candidate, lenient)
    assert report.changed_tasks == ("pro-cost",)
    assert report.verdict == "promote"
    assert any(r.startswith("[trajectory, not gated] pro-cost") for r in report.reasons)
    # a gate passed by the caller wins over the suite's
    assert diff_runs(baseline, candidate, lenient, gate=DiffGate()).verdict == "block"


def test_resolve_gate_precedence() -> None:
    plain = parse_suite_text(SUITE)
    assert resolve_gate(plain) == DiffGate()
    suite = parse_suite_text(
        SUITE.replace(
            "defaults:\n",
            "gate: {block_on: [success], alpha: 0.1, max_token_increase: 0.2}\ndefaults:\n",
            1,
        )
    )
    gate = resolve_gate(suite, alpha=0.01, seed=7)
    # flags win (alpha, seed); the suite fills the rest (block_on, tokens); defaults after that
    assert (gate.block_on, gate.alpha, gate.seed, gate.max_token_increase, gate.resamples) == (
        ("success",),
        0.01,
        7,
        0.2,
        10_000,
    )
    assert resolve_gate(suite, block_on=()).block_on == ()  # an empty flag value gates nothing


def test_bad_suite_gate_names_the_line() -> None:
    with pytest.raises(SuiteError) as caught:
        parse_suite_text(gated("success, vibes"), file="s.yaml")
    assert caught.value.line == 3
    assert caught.value.field is not None
    assert caught.value.field.startswith("gate.block_on")


def test_cli_diff_uses_the_suite_gate(
    tmp_path: Path, baseline: list[RunRecord], capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    write_jsonl(base, baseline)
    write_jsonl(
        cand, [extra_search(r) if (r.task_id, r.epoch) == ("pro-cost", 0) else r for r in baseline]
    )
    strict, lenient = tmp_path / "strict.yaml", tmp_path / "lenient.yaml"
    strict.write_text(gated("success, trajectory"))
    lenient.write_text(gated("success"))
    assert main(["diff", str(base), str(cand), "--suite", str(strict)]) == 1
    assert "verdict: BLOCK" in capsys.readouterr().out
    assert main(["diff", str(base), str(cand), "--suite", str(lenient)]) == 0
    assert "verdict: PROMOTE" in capsys.readouterr().out
    # --block-on overrides the suite's gate
    assert (
        main(["diff", str(base), str(cand), "--suite", str(lenient), "--block-on", "trajectory"])
        == 1
    )
    assert "verdict: BLOCK" in capsys.readouterr().out
