"""``summarize_runs`` against hand-counted values, and ``pathjudge show`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge._io import write_jsonl
from pathjudge.agent.stats import summarize_runs
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.cli import main


def _runs() -> list[RunRecord]:
    return [
        RunRecord(
            run_id="a0",
            task_id="alpha",
            epoch=0,
            steps=(
                Step(tool="search", turn=0),
                Step(tool="search", turn=0, is_error=True),
                Step(tool="fetch", turn=1, raw_arguments="{", arguments_error="invalid JSON"),
            ),
            final_answer="x",
        ),
        RunRecord(run_id="a1", task_id="alpha", epoch=1, steps=(Step(tool="search"),)),
        RunRecord(run_id="a1b", task_id="alpha", epoch=1, final_answer="y"),
        RunRecord(
            run_id="b0",
            task_id="beta",
            steps=(Step(tool="fetch", is_error=True), Step(tool="fetch", turn=1, is_error=True)),
            final_answer="z",
        ),
    ]


def test_summary_counts_by_hand() -> None:
    summary = summarize_runs(_runs())
    assert summary.runs == 4
    assert summary.steps == 3 + 1 + 0 + 2
    assert summary.errors == 1 + 2
    # search: 2 (a0) + 1 (a1) = 3; fetch: 1 (a0) + 2 (b0) = 3 → tie broken by name
    assert summary.tools == {"fetch": 3, "search": 3}
    alpha, beta = summary.tasks
    assert (alpha.task_id, alpha.runs, alpha.epochs) == ("alpha", 3, 2)
    assert (alpha.steps, alpha.min_steps, alpha.max_steps) == (4, 0, 3)
    assert alpha.mean_steps == pytest.approx(4 / 3)
    assert (alpha.errors, alpha.runs_with_errors, alpha.malformed_arguments) == (1, 1, 1)
    assert alpha.no_answer == 1  # a1 has no final answer
    assert alpha.tools == {"search": 3, "fetch": 1}
    assert (beta.errors, beta.runs_with_errors, beta.no_answer) == (2, 1, 0)


def test_summary_of_nothing() -> None:
    summary = summarize_runs([])
    assert (summary.runs, summary.tasks, summary.steps, summary.tools) == (0, (), 0, {})


def test_show_cli_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, _runs())
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "4 runs · 6 tool calls · 3 errored results · 2 distinct tools" in out
    assert main(["show", "--json", "-", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 4
    assert [t["task_id"] for t in data["tasks"]] == ["alpha", "beta"]


def test_show_keep_going_reports_bad_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, _runs())
    with path.open("a") as handle:
        handle.write('{"run_id": "z", "task_id": "t", "oops": 1}\n')
    assert main(["show", "--keep-going", str(path)]) == 0
    captured = capsys.readouterr()
    assert f"{path}:5: field 'oops': unknown field" in captured.err
    assert "4 runs" in captured.out
    assert main(["show", str(path)]) == 2


def test_show_lists_at_most_max_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, _runs())
    assert main(["show", "--max-tasks", "1", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 more tasks not listed" in out
    assert "beta" not in out
    assert "4 runs · 6 tool calls" in out  # totals still cover every task


def test_show_prints_bracketed_text_verbatim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # text shaped like rich markup must reach the user verbatim: a field "[judge]" must not vanish as a
    # style tag, and a task id "[/odd]" must not crash the table as an unmatched closing tag
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, [*_runs(), RunRecord(run_id="m", task_id="[/odd]")])
    with path.open("a") as handle:
        handle.write('{"run_id": "z", "task_id": "t", "[judge]": 1}\n')
    assert main(["show", "--keep-going", str(path)]) == 0
    captured = capsys.readouterr()
    assert f"{path}:6: field '[judge]': unknown field" in captured.err
    assert "[/odd]" in captured.out
    assert main(["show", str(path)]) == 2
    assert f"{path}:6: field '[judge]': unknown field" in capsys.readouterr().err


def test_the_totals_line_counts_in_words_that_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One errored result, one tool: singular nouns (not "1 errored results")."""
    path = tmp_path / "runs.jsonl"
    record = {
        "run_id": "r1",
        "task_id": "t",
        "steps": [{"tool": "search", "arguments": {}, "result": "boom", "is_error": True}],
        "final_answer": "x",
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 run · 1 tool call · 1 errored result · 1 distinct tool" in out
