"""pathjudge audit: a suite graded against null agents built from it and its own references replayed."""

from __future__ import annotations

from pathjudge.rubrics.assertions.outcome import is_refusal
from pathjudge.rubrics.checks import SuitePlan
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.audit import audit_suite
from pathjudge.scoring.grade import grade_run
from pathjudge.scoring.null_agents import (
    NULL_AGENTS,
    REFUSAL_REPLY,
    null_run,
    reference_replays,
    tool_types,
)

SUITE = """
schema_version: 1
name: synthetic
tasks:
  - id: sound
    input: What is the rate limit?
    success: {kind: contains_all, values: ["429"]}
    references: [{mode: strict, steps: [{tool: search, args: {query: {$regex: "rate"}}}]}]
  - id: do-nothing-passes
    input: Cancel nothing.
    references: [{name: no writes, mode: unordered, steps: []}]
  - id: other
    input: Refund order A17.
    success: {kind: contains_any, values: ["refunded"]}
    tools: {required: [refund]}
    references: [{mode: in_order, steps: [{tool: refund, args: {order: A17}}]}]
"""


def test_a_task_the_do_nothing_agent_passes_is_flagged_exactly() -> None:
    report = audit_suite(parse_suite_text(SUITE))
    assert report.unsound == ("do-nothing-passes",)
    (flagged,) = [t for t in report.tasks if t.status == "unsound"]
    assert any("do_nothing agent" in reason for reason in flagged.reasons)
    assert {t.task_id: t.status for t in report.tasks} == {
        "sound": "sound",
        "do-nothing-passes": "unsound",
        "other": "sound",
    }
    assert not report.sound


def test_a_task_whose_own_reference_fails_it_is_flagged() -> None:
    # the reference never calls lookup, which the task requires: the reference replayed fails
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - id: t
    input: Look it up.
    success: {kind: contains_all, values: ["found"]}
    tools: {required: [lookup]}
    references: [{name: answer only, mode: strict, steps: [{tool: search}]}]
"""
    )
    report = audit_suite(suite)
    assert report.unsound == ("t",)
    (reason,) = report.tasks[0].reasons
    assert reason.startswith("its own reference 'answer only', replayed, fails")
    assert "lookup" in reason
    replay = next(r for r in report.tasks[0].runs if r.run == "reference: answer only")
    assert replay.outcome == "fail"


def test_an_empty_one_of_is_a_reference_that_can_never_be_met() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
defaults: {types: bfcl}
tasks:
  - id: t
    references: [{steps: [{tool: f, args: {x: {$one_of: [], $declared: string}}}]}]
"""
    )
    report = audit_suite(suite)
    assert report.unsound == ("t",)
    assert "accepts no value for step #1 argument x" in report.tasks[0].reasons[0]


def test_a_task_decided_only_by_a_judge_is_not_auditable_never_passed() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - id: judged
    input: Summarise.
    judged: [{criterion: summary-covers-points, inputs: {summary: final_answer, points: reference},
              reference: "- a point"}]
"""
    )
    report = audit_suite(suite)
    (task,) = report.tasks
    assert task.status == "not_auditable"
    assert task.reasons == ("not auditable without a judge: a judged criterion decides it",)
    assert all(r.outcome in ("undecided", "n/a") for r in task.runs)
    assert report.sound  # not auditable is not unsound


def test_the_refusal_is_recognised_and_not_tried_where_a_refusal_is_right() -> None:
    assert is_refusal(REFUSAL_REPLY)
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - {id: oos, input: Anything about MongoDB?, kind: out_of_scope}
  - {id: factual, input: The limit?, kind: factual, success: {kind: regex, pattern: "\\\\d"}}
"""
    )
    report = audit_suite(suite)
    refuse = {t.task_id: next(r for r in t.runs if r.run == "refuse") for t in report.tasks}
    assert refuse["oos"].outcome == "n/a"
    assert refuse["factual"].outcome == "fail"
    assert report.unsound == ()


def test_an_echoed_question_that_holds_the_answer_is_caught() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - id: leaky
    input: Is the Pro plan limit 600 requests per minute?
    success: {kind: contains_all, values: ["600"]}
"""
    )
    report = audit_suite(suite)
    assert report.unsound == ("leaky",)
    assert report.tasks[0].reasons == ("the echo agent (no call, the question echoed) passes it",)


def test_random_tools_use_declared_schema_types_and_are_seeded() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - id: t
    input: go
    arguments:
      - tool: book
        args: {seats: {$type: integer}}
        extra_args: allow
        json_schema: {type: object, properties: {seats: {type: integer}, when: {type: string}}}
    references: [{steps: [{tool: lookup, args: {flag: true}}]}]
    tools: {required: [book]}
"""
    )
    types = tool_types(suite)
    assert types == {
        "book": {"seats": ("integer",), "when": ("string",)},
        "lookup": {"flag": ("boolean",)},
    }
    task = suite.tasks[0]
    first = null_run(task, "random_tools", types, seed=7)
    assert first is not None
    assert first == null_run(task, "random_tools", types, seed=7)
    for step in first.steps:
        for name, value in step.arguments.items():
            kinds = types[step.tool][name]
            assert (
                type(value).__name__
                == {"integer": "int", "string": "str", "boolean": "bool"}[kinds[0]]
            )
    assert any(
        null_run(task, "random_tools", types, seed=s) != first for s in range(8)
    )  # the seed matters


def test_reference_replays_meet_the_task_argument_expectations_and_pass() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
defaults:
  arguments: [{tool: search, args: {query: {$regex: "\\\\S"}}}]
tasks:
  - id: t
    input: Which regions?
    success: {kind: contains_all, values: ["us-east", "eu-west"]}
    surface: [regions]
    references:
      - mode: partial_order
        steps:
          - {id: b, tool: search, after: [a], result_contains: [regions]}
          - {id: a, tool: search}
"""
    )
    plans = SuitePlan(suite)
    plan = plans.plan("t")
    (replay,) = reference_replays(plan.task, plan.arguments)
    assert replay.unmade == ()
    queries = [s.arguments["query"] for s in replay.run.steps]
    assert queries == ["S 1", "S 2"]  # the regex's text, numbered so the calls are not repeats
    # a before b (b is listed first but comes after a); b's result holds what it must
    assert [s.result for s in replay.run.steps] == ["ok", "regions regions"]
    graded = grade_run(replay.run, plan, fast=True)
    assert graded.verdict == "pass", graded.reason


def test_a_regex_no_guess_meets_leaves_the_task_not_auditable() -> None:
    suite = parse_suite_text(
        """
schema_version: 1
name: s
tasks:
  - id: t
    input: The code?
    success: {kind: regex, pattern: "^[A-Z]{3}-\\\\d{4}$"}
    references: [{steps: [{tool: search}]}]
"""
    )
    (task,) = audit_suite(suite).tasks
    assert task.status == "not_auditable"
    assert "not every value could be made: answer" in task.reasons[0]


def test_the_audit_is_deterministic_and_mutates_the_passing_replays() -> None:
    suite = parse_suite_text(SUITE)
    first, second = audit_suite(suite, seed=3), audit_suite(suite, seed=3)
    assert first.model_dump_json() == second.model_dump_json()
    assert first.mutated == "references"
    assert first.mutations.runs == 3  # the three replays that pass (one per reference)
    assert first.detection_rate is not None
    assert set(NULL_AGENTS) == {"do_nothing", "refuse", "echo", "random_tools"}
