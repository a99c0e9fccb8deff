"""Mutation testing of a suite, and the broken-retriever experiment (deterministic, offline)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pathjudge._io import write_jsonl
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.cli import main
from pathjudge.rubrics.suite import load_suite, parse_suite_text
from pathjudge.scoring.mutate import (
    INJECTED_ERROR,
    MUTATION_KINDS,
    REFUSAL_TEXT,
    mutate,
    mutation_report,
    retriever_experiment,
)

HITS = [{"id": "ratelimits", "title": "Rate Limits", "text": "60 requests per minute"}]
RUN = RunRecord(
    run_id="r1",
    task_id="rate",
    steps=(
        Step(
            turn=0,
            call_id="a",
            tool="search_docs",
            arguments={"query": "rate limit"},
            result="Error: timeout",
            is_error=True,
        ),
        Step(
            turn=1, call_id="b", tool="search_docs", arguments={"query": "rate limit"}, result=HITS
        ),
        Step(
            turn=2, call_id="c", tool="lookup", arguments={"k": 3, "deep": True}, result={"ok": 1}
        ),
    ),
    final_answer="60 requests per minute",
)

SUITE = """\
schema_version: 1
name: mut-mini
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
  - id: oos-mongo
    input: Does Meridian support MongoDB-style aggregation pipelines?
    kind: out_of_scope
    references: [{mode: strict, steps: [{tool: search_docs}]}]
"""


def test_each_mutation_exactly() -> None:
    dropped = mutate(RUN, "drop_step")
    assert dropped is not None
    assert [s.call_id for s in dropped.steps] == ["a", "b"]  # the last successful call (c) is gone
    assert dropped.run_id == "r1~drop_step"
    assert dropped.metadata["mutation"] == {
        "kind": "drop_step",
        "of": "r1",
        "what": "dropped steps[2] lookup",
    }

    dup = mutate(RUN, "duplicate_call")
    assert dup is not None
    assert [(s.call_id, s.turn) for s in dup.steps] == [("a", 0), ("b", 1), ("c", 2), ("c~dup", 3)]

    reordered = mutate(RUN, "reorder")
    assert reordered is not None
    assert [(s.call_id, s.turn) for s in reordered.steps] == [("c", 0), ("b", 1), ("a", 2)]

    corrupted = mutate(RUN, "corrupt_argument")
    assert corrupted is not None
    assert corrupted.steps[0].arguments == {"query": ""}  # non-empty string → ""
    assert corrupted.steps[0].result == RUN.steps[0].result  # the recorded result is kept

    refused = mutate(RUN, "refusal_answer")
    assert refused is not None
    assert refused.final_answer == REFUSAL_TEXT

    broken = mutate(RUN, "inject_tool_error")
    assert broken is not None
    assert (broken.steps[-1].result, broken.steps[-1].is_error) == (INJECTED_ERROR, True)
    assert broken.steps[:2] == RUN.steps[:2]
    assert RUN.steps[-1].is_error is False  # the original is untouched


def test_mutations_that_do_not_apply() -> None:
    empty = RunRecord(run_id="e", task_id="t", final_answer="x")
    assert [k for k in MUTATION_KINDS if mutate(empty, k) is None] == [
        "drop_step",
        "duplicate_call",
        "reorder",
        "corrupt_argument",
        "inject_tool_error",
    ]
    one = RunRecord(
        run_id="o",
        task_id="t",
        steps=(Step(tool="s", arguments={"q": "x"}),),
        final_answer=REFUSAL_TEXT,
    )
    assert mutate(one, "reorder") is None  # reversing one call changes nothing
    assert mutate(one, "refusal_answer") is None  # already that refusal
    assert (
        mutate(RUN, "refusal_answer", task_kind="out_of_scope") is None
    )  # a refusal is right there
    no_args = RunRecord(run_id="n", task_id="t", steps=(Step(tool="s"),))
    assert mutate(no_args, "corrupt_argument") is None


@pytest.mark.parametrize(
    ("value", "corrupted"),
    [
        ("abc", ""),
        ("", "corrupted"),
        (3, "NaN"),
        (2.5, "NaN"),
        (True, False),
        ([1], []),
        ([], ["corrupted"]),
        ({"a": 1}, {}),
        (None, "corrupted"),
    ],
)
def test_argument_corruption_by_type(value: object, corrupted: object) -> None:
    run = RunRecord(
        run_id="x", task_id="t", steps=(Step(tool="s", arguments={"a": value, "b": "kept"}),)
    )  # type: ignore[dict-item]
    out = mutate(run, "corrupt_argument")
    assert out is not None
    assert out.steps[0].arguments == {"a": corrupted, "b": "kept"}


def test_mutation_table_on_scripted_runs() -> None:
    from pathjudge.agent.backends import ScriptedBackend
    from pathjudge.agent.docent import DocentPolicy, run_docent

    suite = parse_suite_text(SUITE)

    async def runs() -> list[RunRecord]:
        backend = ScriptedBackend(DocentPolicy())
        return [await run_docent(backend, task_id=t.id, question=t.input_text) for t in suite.tasks]

    report = mutation_report(asyncio.run(runs()), suite)
    # 3 one-search runs: reorder never applies; refusal applies to the 2 factual tasks only
    assert report.applied == {
        "drop_step": 3,
        "duplicate_call": 3,
        "reorder": 0,
        "corrupt_argument": 3,
        "refusal_answer": 2,
        "inject_tool_error": 3,
    }
    assert report.table["duplicate_call"]["steps.redundant"] == 3
    assert report.table["corrupt_argument"] == {"arguments.match": 3}
    assert report.table["refusal_answer"] == {"outcome.contains_all": 2}
    assert report.table["drop_step"]["tools.required"] == 3
    assert report.table["inject_tool_error"]["recovery.recovered"] == 3
    # surfacing is checked on the two factual tasks only
    assert report.table["inject_tool_error"]["grade.surfaced"] == 2
    assert report.gaps == ()
    assert report.uncaught_kinds == ()
    assert mutation_report([], suite).results == ()


def test_bundled_docent_runs_every_kind_caught_gaps_listed(repo_root: Path) -> None:
    suite = load_suite(repo_root / "examples/docent/suite.yaml")
    runs = list(read_runs(repo_root / "examples/docent/runs.jsonl"))
    report = mutation_report(runs, suite)
    assert all(report.applied[k] > 0 for k in MUTATION_KINDS)
    assert report.uncaught_kinds == ()  # every kind caught by at least one check
    assert all(report.caught[k] > 0 for k in MUTATION_KINDS)
    # gaps are listed one by one, and they are exactly the applied mutants nobody caught
    assert {(g.run_id, g.kind) for g in report.gaps} == {
        (r.run_id, r.kind) for r in report.results if r.applied and not r.caught_by
    }


def test_broken_retriever_collapses_success_on_the_bundled_suite(repo_root: Path) -> None:
    suite = load_suite(repo_root / "examples/docent/suite.yaml")
    first = asyncio.run(retriever_experiment(suite))
    assert first.collapsed
    assert first.keyword_rate is not None
    assert first.worst_match_rate is not None
    assert first.keyword_rate >= 0.8
    assert first.worst_match_rate <= 0.2
    by_task = {o.task_id: o for o in first.tasks}
    # the refusal probe survives the broken retriever (a refusal is its right answer)
    assert (by_task["oos-mongo"].keyword, by_task["oos-mongo"].worst_match) == ("pass", "pass")
    # every factual task that passed with the keyword retriever fails with the worst-match one
    assert all(
        o.worst_match == "fail"
        for o in first.tasks
        if o.keyword == "pass" and o.task_id != "oos-mongo"
    )
    assert asyncio.run(retriever_experiment(suite)) == first  # deterministic


def test_cli_mutate(repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = str(repo_root / "examples/docent/suite.yaml")
    runs = str(repo_root / "examples/docent/runs.jsonl")
    out = tmp_path / "m.json"
    assert (
        main(["mutate", runs, "--suite", suite, "--retriever-experiment", "--json", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "duplicate_call" in printed
    assert "collapsed, as it must" in printed
    data = json.loads(out.read_text())
    assert data["retriever_experiment"]["collapsed"] is True
    assert set(data["mutations"]["applied"]) == set(MUTATION_KINDS)
    assert main(["mutate", runs, "--suite", suite, "--kind", "reorder", "--strict"]) == 0
    capsys.readouterr()
    assert main(["mutate", runs, "--suite", suite, "--kind", "shuffle"]) == 2
    assert "unknown mutation 'shuffle'" in capsys.readouterr().err
    # --strict fails when a kind is applied but never caught: three searches before a refusal, reversed
    mini = tmp_path / "suite.yaml"
    mini.write_text(SUITE)
    searches = tuple(
        Step(turn=i, tool="search_docs", arguments={"query": q}, result=[])
        for i, q in enumerate(["a", "b", "c"])
    )
    write_jsonl(
        tmp_path / "r.jsonl",
        [RunRecord(run_id="o", task_id="oos-mongo", steps=searches, final_answer=REFUSAL_TEXT)],
    )
    assert (
        main(
            [
                "mutate",
                str(tmp_path / "r.jsonl"),
                "--suite",
                str(mini),
                "--kind",
                "reorder",
                "--strict",
            ]
        )
        == 1
    )
    assert "never caught: reorder" in capsys.readouterr().out
