"""Diff reasons state each finding once with its epochs, and a candidate run of an unknown task names
the runs file and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge._io import write_jsonl
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import SuiteError


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


def test_diff_reason_states_each_finding_once_with_its_epochs(docent: Path) -> None:
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.diff import diff_runs

    suite = load_suite(docent / "capstone-suite.yaml")
    base = list(read_runs(docent / "capstone-runs.jsonl"))
    task = base[0].task_id
    # three epochs of the first task; the candidate's runs all lose their steps
    base_epochs = [base[0].model_copy(update={"epoch": e, "run_id": f"b{e}"}) for e in range(3)]
    cand_epochs = [r.model_copy(update={"steps": (), "run_id": f"c{r.epoch}"}) for r in base_epochs]
    report = diff_runs(base_epochs, cand_epochs, suite)
    (line,) = [r for r in report.reasons if r.startswith(f"[trajectory] {task}:")]
    findings = line.removeprefix(f"[trajectory] {task}: ").split("; ")
    assert len(findings) == len(set(findings))  # nothing repeated
    assert all(f.endswith("(epochs 0, 1, 2)") for f in findings)


def test_diff_unknown_task_names_the_runs_file_and_line(tmp_path: Path, docent: Path) -> None:
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.diff import diff_runs

    suite = load_suite(docent / "capstone-suite.yaml")
    base = list(read_runs(docent / "capstone-runs.jsonl"))
    cand = [*base, RunRecord(run_id="x", task_id="not-a-task")]
    cand_file = tmp_path / "cand.jsonl"
    write_jsonl(cand_file, cand)
    with pytest.raises(SuiteError) as caught:
        diff_runs(base, read_runs(cand_file), suite, candidate_file=cand_file)
    assert caught.value.file == str(cand_file)
    assert caught.value.line == len(cand)
