"""The pytest plugin: one item per task, failures with reason and alignment diff; the assert helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

# PyYAML's C loader (a C extension, never unloaded) builds nodes of the yaml module it was first
# imported with; pytester's in-process runs drop modules imported inside them, so yaml must be loaded
# before the first run or a later run sees two yaml modules (this file alone then failed)
import pathjudge._yaml  # noqa: F401
from pathjudge.agent.trajectory import RunRecord, Step
from tests.support import suite_that_fails_a_gating_check

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


@pytest.mark.slow
def test_collection_counts_and_collect_only_agree(pytester: pytest.Pytester, docent: Path) -> None:
    """'collected 15 items' before running them, and --collect-only lists and counts the same 15."""
    args = (
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    result = pytester.runpytest_inprocess(*args)
    result.stdout.fnmatch_lines(["collected 15 items"])
    result.assert_outcomes(passed=14, failed=1)
    listed = pytester.runpytest_inprocess(*args, "--collect-only", "-q")
    ids = [line for line in listed.stdout.lines if "suite.yaml::" in line]
    assert len(ids) == 15
    listed.stdout.fnmatch_lines(["15 tests collected*"])
    assert "no tests collected" not in listed.stdout.str()


@pytest.mark.slow
def test_node_ids_rerun_one_task(pytester: pytest.Pytester, docent: Path) -> None:
    """The node id printed for a failure selects that task alone when passed back to pytest."""
    first = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-rf",
        str(docent / "suite.yaml"), "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    failed = [line for line in first.stdout.lines if line.startswith("FAILED ")]
    assert len(failed) == 1
    node_id = failed[0].split()[1]
    assert node_id.endswith("suite.yaml::free-storage")
    rerun = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", node_id, "--pathjudge-runs", str(docent / "runs.jsonl")
    )
    rerun.assert_outcomes(failed=1)
    rerun.stdout.fnmatch_lines(["collected 1 item"])


@pytest.mark.slow
def test_suite_path_collects_only_the_suite_items(pytester: pytest.Pytester, docent: Path) -> None:
    """Given the suite file as the path, the project's own tests next to it are not collected."""
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider",
        str(docent / "suite.yaml"), "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    result.assert_outcomes(passed=14, failed=1)
    # without a path, pytest collects its usual tests and the suite's items as well
    both = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    both.assert_outcomes(passed=15, failed=1)
    both.stdout.fnmatch_lines(["collected 16 items"])


@pytest.mark.slow
def test_pathjudge_task_selects_tasks_by_id(pytester: pytest.Pytester, docent: Path) -> None:
    args = (
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    result = pytester.runpytest_inprocess(
        *args, "--pathjudge-task", "region", "--pathjudge-task", "free-storage"
    )
    result.assert_outcomes(passed=1, failed=1, deselected=13)
    unknown = pytester.runpytest_inprocess(*args, "--pathjudge-task", "no-such-task")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*no task 'no-such-task' in the suite*"])


@pytest.mark.slow
def test_junit_classname_is_the_suite_name(pytester: pytest.Pytester, docent: Path) -> None:
    import xml.etree.ElementTree as ET

    report = pytester.path / "junit.xml"
    pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", f"--junitxml={report}",
        str(docent / "suite.yaml"), "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    cases = ET.parse(report).getroot().iter("testcase")
    names = {(case.get("classname"), case.get("name")) for case in cases}
    assert len(names) == 15
    assert {classname for classname, _ in names} == {"docent"}
    assert ("docent", "free-storage") in names


def test_a_task_whose_check_broke_is_skipped_naming_the_check(pytester: pytest.Pytester) -> None:
    """A success callable that raises: the task's item is skipped (undecided, never failed) and the
    skip reason lists the check that broke."""
    here = pytester.path
    (here / "broken_checks_mod.py").write_text(
        "def explode(run):\n    raise ValueError('kaboom')\n", encoding="utf-8"
    )
    (here / "suite.yaml").write_text(
        "name: broken\ntasks:\n  - id: t\n"
        "    success: {kind: callable, function: 'broken_checks_mod:explode'}\n",
        encoding="utf-8",
    )
    run = RunRecord(run_id="r1", task_id="t", steps=(Step(tool="s", turn=0),), final_answer="a")
    (here / "runs.jsonl").write_text(run.model_dump_json() + "\n", encoding="utf-8")
    (here / "pathjudge.toml").write_text("allow_callables = true\n", encoding="utf-8")
    pytester.syspathinsert(here)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-rs",
        "--pathjudge-suite", str(here / "suite.yaml"),
        "--pathjudge-runs", str(here / "runs.jsonl"),
    )  # fmt: skip
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*checks that broke: outcome.callable x1*kaboom*"])


def test_a_named_test_folder_does_not_drop_the_suite(
    pytester: pytest.Pytester, docent: Path
) -> None:
    """`pytest t --pathjudge-suite ...`: the suite's items are collected beside the folder's tests
    (pytest walks the folder holding the suite and drops the suite's collector; that is not
    "collected")."""
    pytester.mkpydir("t").joinpath("test_own.py").write_text("def test_own():\n    pass\n")
    suite = pytester.path / "suite.yaml"  # beside the named folder, in the folder pytest walks
    suite.write_text((docent / "suite.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "t",
        "--pathjudge-suite", str(suite), "--pathjudge-runs", str(docent / "runs.jsonl"),
    )  # fmt: skip
    result.assert_outcomes(passed=15, failed=1)


def test_a_failing_task_counts_its_runs_and_names_the_blockers_as_junit_does(
    pytester: pytest.Pytester,
) -> None:
    """Both runs succeeded but failed a gating check: the item counts 2 of 2 runs that did not
    pass (not "0 of 2 runs failed") and shows the lines of the task's JUnit failure, blockers too."""
    import xml.etree.ElementTree as ET

    from pathjudge import score
    from pathjudge.config import default_config
    from pathjudge.report.junit import junit_xml

    suite, runs = suite_that_fails_a_gating_check(pytester.path)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", str(suite), "--pathjudge-runs", str(runs)
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    report = score(runs, suite, fast=True, judge=False, config=default_config())
    failure = ET.fromstring(junit_xml(report.scorecard, ["refund"])).find(".//failure")
    assert failure is not None
    assert failure.text is not None
    assert "did not pass: tools.required" in failure.text.splitlines()
    result.stdout.fnmatch_lines(
        ["task 'refund': 2 of 2 runs did not pass", *failure.text.splitlines()], consecutive=True
    )


def test_a_session_that_grades_no_task_of_the_suite_is_not_green(
    pytester: pytest.Pytester, docent: Path
) -> None:
    """Every selected task skipped (its runs are not in the runs file), or every task deselected:
    the session exits 5 and says nothing was graded, never 0."""
    args = (
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"),
        "--pathjudge-runs", str(docent / "capstone-runs.jsonl"),
    )  # fmt: skip
    skipped = pytester.runpytest_inprocess(*args, "--pathjudge-task", "error-401")
    skipped.assert_outcomes(skipped=1, deselected=14)
    assert skipped.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    skipped.stdout.fnmatch_lines(["*none of the suite's 1 selected task(s) was graded*"])
    deselected = pytester.runpytest_inprocess(*args, "-k", "no-such-name")
    assert deselected.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    deselected.stdout.fnmatch_lines(["*none of the suite's tasks was selected*"])
    graded = pytester.runpytest_inprocess(*args, "--pathjudge-task", "region")
    graded.assert_outcomes(passed=1, deselected=14)
    assert graded.ret == pytest.ExitCode.OK


def test_an_ini_suite_deselected_to_run_other_tests_stays_green(
    pytester: pytest.Pytester, docent: Path
) -> None:
    """The suite configured in the ini file and left out with -k to run one's own tests: that is
    a choice, not a suite that graded nothing."""
    pytester.makeini(
        f"""
        [pytest]
        pathjudge_suite = {docent / "suite.yaml"}
        pathjudge_runs = {docent / "runs.jsonl"}
        """
    )
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "test_own")
    result.assert_outcomes(passed=1, deselected=15)
    assert result.ret == pytest.ExitCode.OK


def test_a_suite_named_without_runs_says_that_pathjudge_runs_is_needed(
    pytester: pytest.Pytester, docent: Path
) -> None:
    suite = pytester.path / "travel.yaml"
    suite.write_text((docent / "suite.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "travel.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*travel.yaml is a pathjudge suite*pytest travel.yaml --pathjudge-runs RUNS.jsonl*"]
    )
    # a YAML file that is not a suite is left to pytest (and to other plugins)
    (pytester.path / "other.yaml").write_text("steps: [a, b]\n", encoding="utf-8")
    other = pytester.runpytest_inprocess("-p", "no:cacheprovider", "other.yaml")
    assert "is a pathjudge suite" not in other.stderr.str()
    other.stderr.fnmatch_lines(["ERROR: not found: *other.yaml"])


def test_runs_that_do_not_fit_the_suite_fail_each_item_with_the_one_error(
    pytester: pytest.Pytester, docent: Path
) -> None:
    """Bad input is one line naming the file and line, no traceback."""
    _, runs = suite_that_fails_a_gating_check(pytester.path)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider",
        "--pathjudge-suite", str(docent / "suite.yaml"), "--pathjudge-runs", str(runs),
    )  # fmt: skip
    result.assert_outcomes(failed=15)
    result.stdout.fnmatch_lines(["*refund-runs.jsonl:1: task 'refund'*"])
    assert "Traceback" not in result.stdout.str()
    assert "runner.py" not in result.stdout.str()


@pytest.mark.parametrize("readme", ["README.md", "examples/docent/README.md"])
def test_the_readme_pytest_line_grades_only_the_suite(
    pytester: pytest.Pytester, repo_root: Path, readme: str
) -> None:
    """Run from a project root whose testpaths hold other tests, the README's pytest command
    collects the suite's tasks and nothing else."""
    lines = (repo_root / readme).read_text(encoding="utf-8").splitlines()
    command = next(line for line in lines if line.startswith("pytest ") and "pathjudge" in line)
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.mkpydir("tests").joinpath("test_own.py").write_text("def test_own():\n    pass\n")
    (pytester.path / "examples").symlink_to(repo_root / "examples")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *command.split()[1:])
    result.assert_outcomes(passed=14, failed=1)
