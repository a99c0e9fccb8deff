"""Tool scopes, read-only tools and the errored-call policy (issue 12, items 1 and 2)."""

from __future__ import annotations

from typing import Any

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import SuiteError
from pathjudge.rubrics.path import PathAlignment
from pathjudge.rubrics.scope import (
    ScopeExclude,
    ScopeTools,
    matches_any,
    tool_in_scope,
    visible_calls,
)
from pathjudge.rubrics.suite import parse_suite
from pathjudge.scoring.grade import RunGrade, grade_run, plan_task

READ_ONLY = ["get_*", "search_*", "list_*", "calculate", "think"]


def step(tool: str, error: bool = False, turn: int | None = None, **args: Any) -> Step:
    return Step(tool=tool, arguments=args, is_error=error, turn=turn or 0)


def run_of(*steps: Step, answer: str | None = "done") -> RunRecord:
    numbered = tuple(s.model_copy(update={"turn": i}) for i, s in enumerate(steps))
    return RunRecord(run_id="r", task_id="t", steps=numbered, final_answer=answer)


def grade_with(
    task: dict[str, Any], run: RunRecord, defaults: dict[str, Any] | None = None
) -> RunGrade:
    suite = parse_suite(
        {
            "name": "s",
            "defaults": defaults if defaults is not None else {"tools": {"read_only": READ_ONLY}},
            "tasks": [{"id": "t", **task}],
        }
    )
    return grade_run(run, plan_task(suite.task("t")))


def path_of(grade: RunGrade) -> PathAlignment:
    assert grade.path is not None
    return grade.path


def check(grade: RunGrade, name: str) -> Any:
    return next(c for c in grade.checks if c.check == name)


CANCEL3 = {
    "references": [
        {
            "mode": "unordered",
            "scope": "state_changing",
            "steps": [
                {"tool": "cancel_reservation", "args": {"reservation_id": rid}}
                for rid in ("A", "B", "C")
            ],
        }
    ]
}


# --- the scope primitives ------------------------------------------------------------------------


def test_globs_match_whole_names_case_sensitively() -> None:
    assert matches_any("get_user_details", READ_ONLY)
    assert matches_any("think", READ_ONLY)
    assert not matches_any("thinker", READ_ONLY)
    assert not matches_any("Get_user", READ_ONLY)
    assert not matches_any("forget_user", READ_ONLY)  # a glob matches the whole name


@pytest.mark.parametrize(
    ("tool", "scope", "inside"),
    [
        ("get_user", "all", True),
        ("get_user", "state_changing", False),
        ("cancel_reservation", "state_changing", True),
        ("cancel_reservation", ScopeTools(tools=("cancel_*",)), True),
        ("book_reservation", ScopeTools(tools=("cancel_*",)), False),
        ("send_email", ScopeExclude(exclude=("send_*",)), False),
        ("get_user", ScopeExclude(exclude=("send_*",)), True),
    ],
)
def test_tool_in_scope(tool: str, scope: Any, inside: bool) -> None:
    assert tool_in_scope(tool, scope, READ_ONLY) is inside


def test_visible_calls_is_none_when_nothing_is_filtered() -> None:
    steps = [step("get_user"), step("cancel_reservation", error=True)]
    assert visible_calls(steps) is None
    assert visible_calls([]) is None
    assert visible_calls(steps, scope="state_changing", read_only=READ_ONLY) == (1,)
    assert visible_calls(steps, errored="ignore") == (0,)
    both = visible_calls(steps, scope="state_changing", read_only=READ_ONLY, errored="ignore")
    assert both == ()


# --- suite validation ----------------------------------------------------------------------------


def test_state_changing_needs_read_only_tools() -> None:
    with pytest.raises(SuiteError, match=r"read_only"):
        parse_suite({"name": "s", "tasks": [{"id": "t", **CANCEL3}]})


def test_state_changing_reference_may_not_list_a_read_only_step() -> None:
    task = {
        "id": "t",
        "references": [
            {"mode": "unordered", "scope": "state_changing", "steps": [{"tool": "get_user"}]}
        ],
    }
    with pytest.raises(SuiteError, match=r"read-only tool"):
        parse_suite({"name": "s", "defaults": {"tools": {"read_only": READ_ONLY}}, "tasks": [task]})


def test_a_tools_scope_must_cover_its_steps() -> None:
    task = {
        "id": "t",
        "references": [{"scope": {"tools": ["cancel_*"]}, "steps": [{"tool": "book"}]}],
    }
    with pytest.raises(SuiteError, match=r"outside the reference's scope"):
        parse_suite({"name": "s", "tasks": [task]})


@pytest.mark.parametrize(
    "bad", ["reads", {"tools": []}, {"tools": ["a"], "exclude": ["b"]}, {"only": ["x"]}]
)
def test_unknown_scopes_are_errors(bad: Any) -> None:
    task = {"id": "t", "references": [{"scope": bad, "steps": [{"tool": "a"}]}]}
    with pytest.raises(SuiteError):
        parse_suite({"name": "s", "tasks": [task]})


def test_errored_calls_is_a_closed_choice() -> None:
    with pytest.raises(SuiteError, match=r"errored_calls"):
        parse_suite({"name": "s", "tasks": [{"id": "t", "errored_calls": "skip"}]})


# --- exact multiset of the in-scope calls ----------------------------------------------------------


def cancels(*ids: str, error: frozenset[str] = frozenset()) -> list[Step]:
    return [step("cancel_reservation", error=i in error, reservation_id=i) for i in ids]


def test_reads_are_neither_extra_nor_wasted() -> None:
    run = run_of(
        step("get_user_details", user_id="u"),
        *cancels("B"),
        step("get_reservation_details", reservation_id="A"),
        step("get_reservation_details", reservation_id="A"),  # a repeated read
        step("think", thought="..."),
        *cancels("C", "A"),
    )
    graded = grade_with(CANCEL3, run)
    assert graded.path is not None
    assert graded.path.satisfied
    assert graded.path.score == 100
    assert graded.path.extra == ()
    assert sorted(p.call for p in graded.path.pairs) == [1, 5, 6]  # indices in the whole run


def test_a_fourth_cancel_when_three_are_expected_fails() -> None:
    graded = grade_with(CANCEL3, run_of(*cancels("A", "B", "C", "D")))
    assert graded.path is not None
    assert not graded.path.satisfied
    assert graded.path.extra == (3,)
    assert graded.path.wasted == (3,)


def test_repeats_count_a_repeated_write_fails() -> None:
    graded = grade_with(CANCEL3, run_of(*cancels("A", "B", "C", "C")))
    assert graded.path is not None
    assert not graded.path.satisfied
    assert graded.path.extra == (3,)


def test_a_missing_write_or_a_wrong_argument_fails() -> None:
    missing = grade_with(CANCEL3, run_of(*cancels("A", "B")))
    assert path_of(missing).missing == ("#3",)
    wrong = grade_with(CANCEL3, run_of(*cancels("A", "B", "Z")))
    assert not path_of(wrong).satisfied


def test_superset_lets_a_wrong_write_pass_but_a_scoped_unordered_does_not() -> None:
    run = run_of(*cancels("A", "B", "C"), step("book_reservation", user_id="u"))
    superset = {"references": [{**CANCEL3["references"][0], "mode": "superset", "scope": "all"}]}
    assert path_of(grade_with(superset, run)).satisfied
    assert not path_of(grade_with(CANCEL3, run)).satisfied


def test_empty_scoped_reference_means_change_nothing() -> None:
    task = {"references": [{"mode": "unordered", "scope": "state_changing", "steps": []}]}
    assert path_of(grade_with(task, run_of(step("get_user"), step("think")))).satisfied
    assert not path_of(
        grade_with(task, run_of(step("get_user"), step("cancel_reservation")))
    ).satisfied


def test_tools_and_exclude_scopes() -> None:
    only = {
        "references": [
            {
                "mode": "unordered",
                "scope": {"tools": ["cancel_*"]},
                "steps": [{"tool": "cancel_reservation", "args": {"reservation_id": "A"}}],
            }
        ]
    }
    run = run_of(step("book_reservation"), *cancels("A"))
    assert path_of(grade_with(only, run)).satisfied
    exclude = {"references": [{**only["references"][0], "scope": {"exclude": ["book_*"]}}]}  # type: ignore[dict-item]
    assert path_of(grade_with(exclude, run)).satisfied
    assert not path_of(grade_with(exclude, run_of(step("send_email"), *cancels("A")))).satisfied


def test_step_budget_still_counts_out_of_scope_calls() -> None:
    task = {**CANCEL3, "steps": {"budget": 3}}
    graded = grade_with(task, run_of(step("get_user"), *cancels("A", "B", "C")))
    assert graded.path is not None
    assert graded.path.over_budget
    assert graded.path.score == 80
    assert check(graded, "steps.budget").status == "fail"


# --- errored calls ---------------------------------------------------------------------------------


def test_errored_calls_count_by_default() -> None:
    run = run_of(*cancels("A", "B", "C", "C", error=frozenset()))
    errored = run.model_copy(
        update={"steps": (*run.steps[:3], run.steps[3].model_copy(update={"is_error": True}))}
    )
    counted = grade_with(CANCEL3, errored)
    assert not path_of(counted).satisfied


def test_ignored_errored_calls_are_invisible_to_the_path() -> None:
    steps = [
        step("cancel_reservation", error=True, reservation_id="A"),  # failed, changed nothing
        *cancels("A", "B", "C"),
        step("cancel_reservation", error=True, reservation_id="D"),
    ]
    graded = grade_with({**CANCEL3, "errored_calls": "ignore"}, run_of(*steps))
    assert graded.path is not None
    assert graded.path.satisfied
    assert sorted(p.call for p in graded.path.pairs) == [1, 2, 3]
    # error recovery still sees the errors
    assert any(c.check.startswith("recovery") and c.details for c in graded.checks)


def test_reference_level_errored_calls_overrides_the_task() -> None:
    steps = [*cancels("A", "B", "C"), step("cancel_reservation", error=True, reservation_id="D")]
    ref = {**CANCEL3["references"][0], "errored_calls": "ignore"}
    graded = grade_with({"references": [ref], "errored_calls": "count"}, run_of(*steps))
    assert path_of(graded).satisfied
    ref = {**CANCEL3["references"][0], "errored_calls": "count"}
    graded = grade_with({"references": [ref], "errored_calls": "ignore"}, run_of(*steps))
    assert not path_of(graded).satisfied


def test_errored_calls_from_defaults() -> None:
    steps = [*cancels("A", "B", "C"), step("cancel_reservation", error=True, reservation_id="D")]
    graded = grade_with(
        CANCEL3,
        run_of(*steps),
        defaults={"tools": {"read_only": READ_ONLY}, "errored_calls": "ignore"},
    )
    assert path_of(graded).satisfied


def test_forbidden_ignores_errored_calls_and_out_of_scope_calls() -> None:
    task = {"tools": {"forbidden": ["*"], "scope": "state_changing"}}
    reads = run_of(step("get_user"), step("search_flights"))
    assert check(grade_with(task, reads), "tools.forbidden").status == "pass"
    write = run_of(step("get_user"), step("cancel_reservation", error=True))
    assert check(grade_with(task, write), "tools.forbidden").status == "fail"
    ignored = grade_with({**task, "errored_calls": "ignore"}, write)
    assert check(ignored, "tools.forbidden").status == "pass"
    done = grade_with({**task, "errored_calls": "ignore"}, run_of(step("cancel_reservation")))
    result = check(done, "tools.forbidden")
    assert result.status == "fail"
    assert result.details == {"called": {"cancel_reservation": [0]}}


def test_tool_choice_checks_still_see_errored_calls() -> None:
    task = {"tools": {"required": ["search_docs"]}, "errored_calls": "ignore"}
    graded = grade_with(task, run_of(step("search_docs", error=True)))
    assert check(graded, "tools.required").status == "pass"


def test_argument_checks_ignore_errored_calls() -> None:
    task = {
        "arguments": [{"tool": "cancel_reservation", "args": {"reservation_id": "A"}}],
        "errored_calls": "ignore",
    }
    run = run_of(step("cancel_reservation", error=True, reservation_id="Z"), *cancels("A"))
    assert check(grade_with(task, run), "arguments.match").status == "pass"
    counted = grade_with({**task, "errored_calls": "count"}, run)
    assert check(counted, "arguments.match").status == "fail"


def test_redundancy_is_scoped_and_reports_run_indices() -> None:
    task = {"steps": {"scope": "state_changing"}}
    run = run_of(step("get_user", user_id="u"), step("get_user", user_id="u"), *cancels("A"))
    assert check(grade_with(task, run), "steps.redundant").status == "pass"
    repeated = run_of(*cancels("A"), step("get_user"), *cancels("A"))
    result = check(grade_with(task, repeated), "steps.redundant")
    assert result.status == "fail"
    assert result.details["pairs"] == [[0, 2]]
    assert "call #3 repeats call #1" in result.reason  # 1-based, like every reason


def test_loops_are_scoped_too() -> None:
    task = {"steps": {"scope": "state_changing"}}
    looped = run_of(*[step("search_x", q="a") for _ in range(4)], *cancels("A"))
    assert check(grade_with(task, looped), "steps.loop").status == "pass"
    writes = run_of(*cancels("A"), step("get_user"), *cancels("A"), step("get_user"), *cancels("A"))
    result = check(grade_with(task, writes), "steps.loop")
    assert result.status == "fail"
    assert result.details["loops"][0]["indices"] == [0, 2, 4]
