"""pass@k, pass^k, spreads and clustered intervals against hand-computed values."""

from __future__ import annotations

import math

import pytest

from pathjudge.scoring.variance import (
    EpochOutcome,
    clustered_interval,
    outcomes_from_pairs,
    pass_at_k,
    pass_hat_k,
    stability_label,
    variance_report,
)


def test_pass_at_k_and_pass_hat_k_by_hand() -> None:
    # n=5 epochs, c=3 successes
    # k=1: pass@1 = 1 - C(2,1)/C(5,1) = 1 - 2/5 = 0.6;   pass^1 = C(3,1)/C(5,1) = 3/5 = 0.6
    # k=2: pass@2 = 1 - C(2,2)/C(5,2) = 1 - 1/10 = 0.9;  pass^2 = C(3,2)/C(5,2) = 3/10 = 0.3
    # k=3: pass@3 = 1 - C(2,3)/C(5,3) = 1 - 0/10 = 1.0;  pass^3 = C(3,3)/C(5,3) = 1/10 = 0.1
    assert [pass_at_k(5, 3, k) for k in (1, 2, 3)] == pytest.approx([0.6, 0.9, 1.0])
    assert [pass_hat_k(5, 3, k) for k in (1, 2, 3)] == pytest.approx([0.6, 0.3, 0.1])
    # n < k: undefined
    assert pass_at_k(2, 1, 3) is None
    assert pass_hat_k(2, 2, 3) is None
    # all pass (c = n = 4): pass@k = pass^k = 1 for every k <= n
    assert [pass_at_k(4, 4, k) for k in (1, 4)] == [1.0, 1.0]
    assert [pass_hat_k(4, 4, k) for k in (1, 4)] == [1.0, 1.0]
    # all fail (c = 0): both 0
    assert [pass_at_k(4, 0, k) for k in (1, 4)] == [0.0, 0.0]
    assert [pass_hat_k(4, 0, k) for k in (1, 4)] == [0.0, 0.0]
    with pytest.raises(ValueError, match="k must be >= 1"):
        pass_at_k(3, 1, 0)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        pass_hat_k(3, 4, 1)


def test_stability_labels() -> None:
    assert [stability_label(n, c) for n, c in [(3, 3), (3, 0), (3, 1), (0, 0)]] == [
        "stable",
        "broken",
        "flaky",
        "ungraded",
    ]


def test_suite_report_means_per_task_values() -> None:
    report = variance_report(
        outcomes_from_pairs(
            {
                "a": [True, False, True, True, False],  # n=5, c=3
                "b": [True, True, True],  # n=3, c=3
                "c": [False, False, False],  # n=3, c=0
            }
        ),
        ks=(1, 2, 5),
    )
    a, b, c = report.tasks
    assert (a.n, a.c, a.stability, b.stability, c.stability) == (5, 3, "flaky", "stable", "broken")
    # suite pass@2 = mean(0.9, 1, 0) = 1.9/3 = 0.6333;  pass^2 = mean(0.3, 1, 0) = 1.3/3 = 0.4333
    assert report.pass_at[2] == pytest.approx(1.9 / 3)
    assert report.pass_hat[2] == pytest.approx(1.3 / 3)
    # suite pass@1 = mean(0.6, 1, 0) = 0.5333 (per-task mean, not the pooled 6/11)
    assert report.pass_at[1] == pytest.approx(1.6 / 3)
    # k=5: tasks b and c have n=3 < 5 → undefined, so the suite value is undefined too
    assert (a.pass_at[5], b.pass_at[5], report.pass_at[5], report.pass_hat[5]) == (
        1.0,
        None,
        None,
        None,
    )
    # pass^5 of a: C(3,5)/C(5,5) = 0/1 = 0
    assert a.pass_hat[5] == 0.0
    assert report.stability_counts == {"stable": 1, "flaky": 1, "broken": 1, "ungraded": 0}


def test_clustered_interval_by_hand() -> None:
    # tasks X=[1,1], Y=[0,1], Z=[0,0]: n=6, mean=0.5
    # residual sums per task: X = 0.5+0.5 = 1, Y = -0.5+0.5 = 0, Z = -0.5-0.5 = -1
    # SE = sqrt(1^2 + 0^2 + (-1)^2) / 6 = sqrt(2)/6 = 0.235702
    # 95%: z = 1.959964 → half-width 0.2357023*1.959964 = 0.461968 → [0.038032, 0.961968]
    values = [("x", 1.0), ("x", 1.0), ("y", 0.0), ("y", 1.0), ("z", 0.0), ("z", 0.0)]
    ci = clustered_interval(values)
    assert ci is not None
    assert (ci.mean, ci.clusters, ci.n) == (0.5, 3, 6)
    assert ci.se == pytest.approx(math.sqrt(2) / 6)
    assert (ci.low, ci.high) == pytest.approx((0.038032, 0.961968), abs=1e-6)
    # clustering matters: the naive iid SE would be sqrt(0.25/6) = 0.204124, smaller
    assert ci.se > math.sqrt(0.25 / 6)
    assert clustered_interval([("x", 1.0), ("x", 0.0)]) is None  # one cluster: undefined
    assert clustered_interval([]) is None


def test_metric_spreads_and_missing_values() -> None:
    outcomes = [
        EpochOutcome(
            task_id="t", epoch=0, success=True, scores={"path_score": 100.0, "steps": 1.0}
        ),
        EpochOutcome(task_id="t", epoch=1, success=True, scores={"path_score": 70.0, "steps": 3.0}),
        EpochOutcome(task_id="t", epoch=2, success=None, scores={"path_score": None, "steps": 2.0}),
        EpochOutcome(task_id="u", epoch=0, success=False, scores={"path_score": 40.0}),
    ]
    report = variance_report(outcomes, ks=(1, 2), task_order=["u", "t"])
    assert [t.task_id for t in report.tasks] == ["u", "t"]
    t = report.task("t")
    # path_score over t: 100 and 70 (None left out): min 70, mean 85, max 100
    assert (
        t.metrics["path_score"].min,
        t.metrics["path_score"].mean,
        t.metrics["path_score"].max,
    ) == (70.0, 85.0, 100.0)
    # steps over t: 1, 3, 2 → mean 2
    assert t.metrics["steps"].mean == 2.0
    assert t.metrics["steps"].n == 3
    # u has no 'steps' at all
    assert report.task("u").metrics["steps"].n == 0
    assert report.task("u").metrics["steps"].mean is None
    # t: 2 graded epochs, both passed (the undecided one is not counted) → stable, pass^2 = C(2,2)/C(2,2) = 1
    assert (t.n, t.c, t.runs, t.stability, t.pass_hat[2]) == (2, 2, 3, "stable", 1.0)
    # success CI over graded runs: t=[1,1], u=[0]; mean 2/3; residuals t: 2*(1/3)=2/3, u: -2/3
    # SE = sqrt((2/3)^2 + (2/3)^2)/3 = (2/3)*sqrt(2)/3 = 0.314270
    assert report.success is not None
    assert report.success.mean == pytest.approx(2 / 3)
    assert report.success.se == pytest.approx((2 / 3) * math.sqrt(2) / 3)


def test_empty_input() -> None:
    report = variance_report([], ks=(1, 3))
    assert report.tasks == ()
    assert report.pass_at == {1: None, 3: None}
    assert report.pass_hat == {1: None, 3: None}
    assert report.success is None
    assert report.metrics == {}
    with pytest.raises(ValueError, match="ks must be positive"):
        variance_report([], ks=(0,))


def test_matches_a_brute_force_enumeration() -> None:
    # cross-check the closed forms against enumerating every k-subset of epochs
    from itertools import combinations

    results = [True, False, True, False, False, True]  # n=6, c=3
    for k in range(1, 7):
        subsets = list(combinations(results, k))
        any_ok = sum(any(s) for s in subsets) / len(subsets)
        all_ok = sum(all(s) for s in subsets) / len(subsets)
        assert pass_at_k(6, 3, k) == pytest.approx(any_ok)
        assert pass_hat_k(6, 3, k) == pytest.approx(all_ok)


def test_success_interval_is_clipped_to_a_rate() -> None:
    # 14 tasks always pass, 1 always fails (3 epochs each): mean 42/45 = 0.9333
    # residual sums: passing tasks 3*(1-0.9333) = 0.2 each, the failing task 3*(0-0.9333) = -2.8
    # SE = sqrt(14*0.04 + 7.84)/45 = sqrt(8.4)/45 = 0.064406; high = 0.9333 + 1.96*0.0644 = 1.0596 → clipped to 1
    pairs = {f"t{i}": [True] * 3 for i in range(14)} | {"bad": [False] * 3}
    report = variance_report(outcomes_from_pairs(pairs))
    assert report.success is not None
    assert report.success.se == pytest.approx(math.sqrt(8.4) / 45)
    assert report.success.high == 1.0
    assert report.success.low == pytest.approx(42 / 45 - 1.959964 * math.sqrt(8.4) / 45, abs=1e-6)
    raw = clustered_interval([(t, 1.0 if ok else 0.0) for t, oks in pairs.items() for ok in oks])
    assert raw is not None
    assert raw.high > 1.0


def test_outcomes_from_grades_and_cli(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from pathjudge._io import write_jsonl
    from pathjudge.agent.backends import ScriptedBackend
    from pathjudge.agent.docent import DocentPolicy, run_docent
    from pathjudge.cli import main
    from pathjudge.rubrics.suite import parse_suite_text
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.variance import outcomes_from_grades

    text = """\
schema_version: 1
name: v
tasks:
  - id: pro-cost
    input: How much does the Pro plan cost per month?
    success: {kind: contains_all, values: ["25"]}
    references: [{mode: strict, steps: [{tool: search_docs, result_contains: [plans]}]}]
  - id: flaky
    input: How long are backups retained on the Pro plan?
    success: {kind: contains_all, values: ["30 days"]}
    metadata: {docent_variant: flaky_search}
"""
    suite = parse_suite_text(text)

    async def collect():  # type: ignore[no-untyped-def]
        backend = ScriptedBackend(DocentPolicy())
        runs = []
        for epoch in range(2):
            for task in suite.tasks:
                runs.append(
                    await run_docent(
                        backend,
                        task_id=task.id,
                        question=task.input_text,
                        epoch=epoch,
                        task_metadata=task.metadata,
                    )
                )
        return runs

    runs = asyncio.run(collect())
    # the second epoch of 'pro-cost' answers wrongly: pro-cost is flaky (1 of 2)
    runs[2] = runs[2].model_copy(update={"final_answer": "It costs 20 dollars."})
    outcomes = outcomes_from_grades(grade(runs, suite, fast=True))
    assert [(o.task_id, o.epoch, o.success) for o in outcomes] == [
        ("pro-cost", 0, True),
        ("flaky", 0, True),
        ("pro-cost", 1, False),
        ("flaky", 1, True),
    ]
    assert outcomes[0].scores["path_score"] == 100.0
    assert outcomes[1].scores["steps"] == 2.0  # error, then the retry
    assert outcomes[1].scores["path_score"] is None  # no reference on that task
    report = variance_report(outcomes, ks=(1, 2), task_order=[t.id for t in suite.tasks])
    assert [(t.task_id, t.stability) for t in report.tasks] == [
        ("pro-cost", "flaky"),
        ("flaky", "stable"),
    ]
    # pro-cost: n=2, c=1: pass@2 = 1 - C(1,2)/C(2,2) = 1; pass^2 = C(1,2)/C(2,2) = 0
    assert (report.tasks[0].pass_at[2], report.tasks[0].pass_hat[2]) == (1.0, 0.0)
    runs_file, suite_file, out = (
        tmp_path / "runs.jsonl",
        tmp_path / "suite.yaml",
        tmp_path / "v.json",
    )
    write_jsonl(runs_file, runs)
    suite_file.write_text(text)
    assert (
        main(
            [
                "variance",
                str(runs_file),
                "--suite",
                str(suite_file),
                "--k",
                "1,2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "1 stable, 1 flaky" in printed
    assert '"stability": "flaky"' in out.read_text()
    assert main(["variance", str(runs_file), "--suite", str(suite_file), "--k", "0"]) == 2
    assert main(["variance", str(runs_file), "--suite", str(suite_file), "--k", "x"]) == 2
