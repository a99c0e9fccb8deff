"""The pytest plugin: one item per task, failures with reason and alignment diff; the assert helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.agent.trajectory import RunRecord, Step

pytest_plugins = ["pytester"]


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


def test_items_per_task_and_failure_shows_reason_and_diff(
    pytester: pytest.Pytester, docent: Path
) -> None:
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    result.assert_outcomes(passed=14, failed=1)
    result.stdout.fnmatch_lines(
        ["*pathjudge task free-storage*", "*unmet: storage*", "*alignment diff:*"]
    )


def test_strict_fails_weak_paths_and_ini_options(pytester: pytest.Pytester, docent: Path) -> None:
    pytester.makeini(
        f"""
        [pytest]
        pathjudge_suite = {docent / "capstone-suite.yaml"}
        pathjudge_runs = {docent / "capstone-runs.jsonl"}
        pathjudge_strict = true
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, failed=2)
    result.stdout.fnmatch_lines(["*poor path*"])


def test_missing_runs_option_is_a_usage_error(pytester: pytest.Pytester, docent: Path) -> None:
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--pathjudge-suite", str(docent / "suite.yaml")
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_task_without_runs_is_skipped(pytester: pytest.Pytester, docent: Path) -> None:
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "capstone-runs.jsonl"),
    )  # fmt: skip
    result.assert_outcomes(passed=8, skipped=7)


def test_assert_helpers() -> None:
    from pathjudge.pytest_plugin import assert_path, assert_steps, assert_success, assert_tools

    run = RunRecord(
        run_id="r",
        task_id="t",
        steps=(
            Step(tool="lookup_order", arguments={"order_id": "A17"}, turn=0),
            Step(tool="refund", arguments={"order_id": "A17"}, turn=1),
        ),
        final_answer="Refunded.",
    )
    found = assert_path(
        run, [{"tool": "lookup_order"}, {"tool": "refund", "args": {"order_id": "A17"}}]
    )
    assert found.score == 100
    with pytest.raises(AssertionError, match="out of order"):
        assert_path(run, [{"tool": "refund"}, {"tool": "lookup_order"}], mode="strict")
    assert_path(run, [{"tool": "refund"}, {"tool": "lookup_order"}], mode="unordered")
    assert_success(run, {"kind": "contains_all", "values": ["refunded"]})
    with pytest.raises(AssertionError, match=r"outcome\.contains_all fail"):
        assert_success(run, {"kind": "contains_all", "values": ["declined"]})
    assert_tools(run, required=["refund"], forbidden=["delete"])
    with pytest.raises(AssertionError, match=r"tools\.required"):
        assert_tools(run, required=["send_message"])
    with pytest.raises(AssertionError, match="budget"):
        assert_steps(run, budget=1)
