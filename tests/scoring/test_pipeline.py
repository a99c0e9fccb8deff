"""``pathjudge.score``: the one scoring pipeline behind ``pathjudge score`` and the pytest plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pathjudge
from pathjudge.cli import main
from pathjudge.config import default_config, resolve_config
from pathjudge.errors import InputError, SuiteError
from pathjudge.report.json_report import dumps_report
from pathjudge.rubrics.suite import load_suite
from pathjudge.scoring.pipeline import ScoreReport, score

DOCENT = Path(__file__).resolve().parents[2] / "examples" / "docent"
RUNS = DOCENT / "runs.jsonl"
SUITE = DOCENT / "suite.yaml"


def _count_runs(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_root_score_is_the_pipeline() -> None:
    assert pathjudge.score is score
    assert pathjudge.ScoreReport is ScoreReport


def test_library_report_is_what_the_cli_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no project configuration around
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    report = score(RUNS, SUITE, fast=True)
    assert capsys.readouterr() == ("", "")  # the library prints nothing
    out = tmp_path / "cli.json"
    assert main(["score", str(RUNS), "--suite", str(SUITE), "--fast", "--json", str(out)]) == 0
    capsys.readouterr()
    assert out.read_text(encoding="utf-8") == dumps_report(report)
    assert report.judge == "fast"
    assert report.judge_note == "judged criteria: not run (fast mode)"
    assert "judge_note" not in json.loads(dumps_report(report))


def test_loaded_suite_and_path_give_the_same_scorecard() -> None:
    by_path = score(RUNS, SUITE, fast=True, config=default_config())
    by_model = score(RUNS, load_suite(SUITE), fast=True, config=default_config())
    assert by_model.scorecard == by_path.scorecard
    assert by_path.suite_file == str(SUITE)
    assert by_model.suite_file is None


def test_grades_kept_and_streamed(tmp_path: Path) -> None:
    grades = tmp_path / "deep" / "grades.jsonl"
    grades.parent.mkdir()
    grades.write_text("stale\n", encoding="utf-8")
    report = score(
        RUNS, SUITE, fast=True, config=default_config(), keep_grades=True, grades_out=grades
    )
    assert report.runs is not None
    assert len(report.runs) == _count_runs(RUNS)
    streamed = [json.loads(line) for line in grades.read_text(encoding="utf-8").splitlines()]
    assert [g["run_id"] for g in streamed] == [g.run_id for g in report.runs]
    assert score(RUNS, SUITE, fast=True, config=default_config()).runs is None


def test_thresholds_overlay_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text(
        "[fail_under]\nsuccess = 1.0\ntrajectory = 0.0\n", encoding="utf-8"
    )
    config = resolve_config(cwd=tmp_path, env={})
    report = score(RUNS, SUITE, fast=True, config=config, thresholds={"success": 0.0})
    gates = {g.metric: g.threshold for g in report.gates}
    assert gates == {"success": 0.0, "trajectory": 0.0}
    assert report.passed
    strict = score(RUNS, SUITE, fast=True, config=config)
    assert not strict.passed  # the configuration's success = 1.0 is missed on the docent runs


def test_recorded_verdicts_without_a_judge(tmp_path: Path) -> None:
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text("", encoding="utf-8")
    report = score(RUNS, SUITE, verdicts=verdicts, judge=False, config=default_config())
    assert report.judge == "verdicts"
    assert report.judge_note == f"judged criteria: from {verdicts}"
    mapping = score(RUNS, SUITE, verdicts={}, judge=False, config=default_config())
    assert mapping.judge_note == "judged criteria: from the recorded verdicts"


def test_no_judge_available_is_a_note_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    report = score(RUNS, SUITE, config=default_config())
    assert report.judge == "none"
    assert report.judge_note is not None
    assert "ANTHROPIC_API_KEY" in report.judge_note


def test_bad_arguments_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="every weight is 0"):
        score(RUNS, SUITE, fast=True, config=default_config(), weights={"success": 0.0})
    with pytest.raises(InputError) as info:
        score(RUNS, SUITE, fast=True, config=default_config(), jobs=2, keep_grades=True)
    assert info.value.field == "jobs"
    with pytest.raises(InputError, match="unknown metric 'sucess' in thresholds"):
        score(RUNS, SUITE, fast=True, config=default_config(), thresholds={"sucess": 1.0})
    with pytest.raises(InputError, match=r"outside \[0, 100\]"):
        score(RUNS, SUITE, fast=True, config=default_config(), thresholds={"path": 101})
    with pytest.raises(InputError, match="unknown weight 'overall'"):
        score(RUNS, SUITE, fast=True, config=default_config(), weights={"overall": 1.0})
    with pytest.raises(InputError, match="jobs must be at least 1"):
        score(RUNS, SUITE, fast=True, config=default_config(), jobs=0)


def test_unknown_task_names_the_runs_line(tmp_path: Path) -> None:
    lines = RUNS.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[0])
    bad["task_id"] = "no-such-task"
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join([lines[0], "", json.dumps(bad), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        score(runs, SUITE, fast=True, config=default_config())
    assert info.value.line == 3
    assert Path(str(info.value.file)) == runs


def test_parallel_grading_gives_the_same_scorecard() -> None:
    one = score(RUNS, SUITE, fast=True, config=default_config())
    two = score(RUNS, SUITE, fast=True, config=default_config(), jobs=2)
    assert two.scorecard == one.scorecard


@pytest.mark.parametrize("jobs", [1, 2])
def test_local_grading_reports_its_progress_through_the_callback(jobs: int) -> None:
    """A long local score can show a bar: grading tells the progress it is handed every byte of the
    runs file (one process or several), and opens it once with the file's size as the total."""
    from contextlib import contextmanager

    events: list[tuple[str, object]] = []

    class Handle:
        def advance(self, n: int = 1) -> None:
            events.append(("advance", n))

    @contextmanager
    def recording(description: str, total: int | None):  # type: ignore[no-untyped-def]
        events.append(("open", total))
        yield Handle()
        events.append(("close", description))

    report = score(RUNS, SUITE, fast=True, jobs=jobs, progress=recording)
    size = RUNS.stat().st_size
    assert report.scorecard.runs == _count_runs(RUNS)
    assert events[0] == ("open", size)
    assert events[-1] == ("close", f"grading {RUNS.name}")
    assert sum(n for kind, n in events if kind == "advance") == size  # type: ignore[misc]


TYPO_SUITE = """\
name: typo
tasks:
  - id: a
    tools: {required: [get_wether], forbidden: [delete_acount, "drop_*", shutdown]}
  - id: b
    tools: {required: [get_wether]}
    references: [{mode: in_order, steps: [{tool: lookup}]}]
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tool_no_run_calls_is_warned_of_once_with_the_nearest_name(
    tmp_path: Path, jobs: int
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(TYPO_SUITE, encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    line = '{"run_id": "%s", "task_id": "%s", "steps": [{"tool": "get_weather", "arguments": {}}]}'
    rows = [line % (i, "ab"[i % 2]) for i in range(6)]
    runs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    seen: list[str] = []
    report = score(runs, suite, fast=True, jobs=jobs, warn=seen.append, config=default_config())
    assert report.scorecard.runs == 6
    # once per command, whatever the number of runs; a forbidden name is a typo only when a tool
    # close to it is called ('shutdown' is not warned of), a pattern names no tool
    assert (
        seen
        == list(report.warnings)
        == [
            "the suite names tool 'get_wether' (task 'a' tools.required and 1 more) but no run calls "
            "it and no reference uses it; did you mean 'get_weather'?",
        ]
    )
    runs.write_text(rows[0].replace("get_weather", "delete_account") + "\n", encoding="utf-8")
    seen.clear()
    score(runs, suite, fast=True, jobs=jobs, warn=seen.append, config=default_config())
    assert [w.split(" (")[0] for w in seen] == [
        "the suite names tool 'get_wether'",
        "the suite names tool 'delete_acount'",
    ]
    assert seen[1].endswith("did you mean 'delete_account'?")
