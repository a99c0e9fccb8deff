"""Grading with a task plan reused across runs (its caches warm) equals grading each run afresh.

A :class:`~pathjudge.rubrics.checks.TaskPlan` precomputes the recovery checks of an error-free run and
owns one alignment cache per reference; the step checks share immutable results for the common
outcomes. None of it may change a grade.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import grade_run, plan_task
from tests.scoring._search_fetch import STEPS, SUITE_HEAD

SUITE = (
    "name: memo\n"
    + SUITE_HEAD
    + """\
  - id: parts
    success:
      kind: all_of
      parts:
        - {name: a, criterion: {kind: contains_any, values: ["429", "limit"]}}
        - {name: b, criterion: {kind: regex, pattern: "\\\\b60\\\\b"}}
        - {name: c, criterion: {kind: number, value: 600, rel: 0.01}}
    references: [{mode: in_order, steps: [{tool: search}]}]
  - id: oos
    kind: out_of_scope
  - id: end-state
    success: {kind: callable, function: "tests.rubrics.assertions._helpers:used_tools"}
  - id: mixed
    success:
      kind: all_of
      parts:
        - {name: answer, criterion: {kind: contains_any, values: ["429"]}}
        - {name: state, criterion: {kind: callable, function: "tests.rubrics.assertions._helpers:used_tools"}}
"""
)

ANSWERS = [
    None,
    "",
    "   ",
    "429",
    "It returns HTTP 429.",
    "It returns http 429 — the rate LIMIT; 60 per minute, 600 on Pro",
    "I couldn't find that in the docs.",
    "I don't have information about that in the documentation search.",
    "limit 60",
    "x" * 2500 + " 429",  # longer than the memo keeps
]

_step = STEPS


@st.composite
def _runs(draw: st.DrawFn) -> RunRecord:
    steps = draw(st.lists(_step, max_size=5))
    turn = 0
    placed: list[Step] = []
    for index, step in enumerate(steps):
        if index and draw(st.integers(0, 3)) > 0:
            turn += 1
        placed.append(step.model_copy(update={"turn": turn}))
    return RunRecord(
        run_id=f"r{draw(st.integers(0, 999))}",
        task_id=draw(st.sampled_from(["fact", "parts", "oos", "end-state", "mixed"])),
        steps=tuple(placed),
        final_answer=draw(st.sampled_from(ANSWERS)),
    )


SUITE_MODEL = parse_suite_text(SUITE)


@settings(max_examples=150, deadline=None)
@given(st.lists(_runs(), min_size=1, max_size=12))
def test_reused_plan_grades_equal_fresh_plan_grades(batch: list[RunRecord]) -> None:
    shared = {task.id: plan_task(task) for task in SUITE_MODEL.tasks}
    # each run also without its calls: same answer, other end state (the callable reads the steps)
    every = [variant for run in batch for variant in (run, run.model_copy(update={"steps": ()}))]
    for _ in range(2):  # the second round finds everything memoised
        for run in every:
            task = SUITE_MODEL.task(run.task_id)
            warm = grade_run(run, shared[run.task_id], fast=True)
            fresh = grade_run(run, plan_task(task), fast=True)
            assert warm.model_dump_json() == fresh.model_dump_json()
            assert warm == fresh


def test_plan_caches_are_bounded() -> None:
    plan = plan_task(SUITE_MODEL.task("fact"), cache_limit=2)
    for k in range(20):
        steps = tuple(
            Step(tool="search", turn=t, arguments={"q": "rate" if t % 2 else "x"})
            for t in range(k % 5 + 2)
        )
        grade_run(RunRecord(run_id=f"r{k}", task_id="fact", steps=steps), plan)
    assert all(len(ref.cache) <= 4 for ref in plan.references)
