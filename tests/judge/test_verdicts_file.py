"""The one reader of verdicts files (:mod:`pathjudge.judge.verdicts_file`) and the code that reads through it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pathjudge.calibration.verdicts import load_verdicts, read_verdict_lines
from pathjudge.errors import LabelsError
from pathjudge.judge.verdict import JudgeFailure, SampleVerdict, VerdictRecord, aggregate_samples
from pathjudge.judge.verdicts_file import RecordedVerdict, is_verdicts_file, read_verdicts_file
from pathjudge.report.verdicts import verdict_rows
from pathjudge.scoring.judged import read_verdict_set


def _sample(index: int, verdict: str) -> SampleVerdict:
    return SampleVerdict(
        item_id="r1:c",
        sample_index=index,
        criterion_id="c",
        criterion_version="1",
        criterion_hash="sha256:abc",
        input_hash="sha256:def",
        backend="openai",
        model="m",
        verdict=verdict,  # type: ignore[arg-type]
        reasoning=f"reason {index}",
    )


def _mixed(path: Path) -> Path:
    """A judge record (two samples), a blank line, a failure, and a generic line: lines 1, 3, 4."""
    record = aggregate_samples("r1:c", [_sample(0, "pass"), _sample(1, "pass")])
    failure = JudgeFailure(
        item_id="r2:c",
        reasoning="no verdict: timeout",
        error_type="timeout",
        message="no answer",
        criterion_id="c",
        criterion_hash="sha256:abc",
        backend="openai",
        model="m",
    )
    generic = {"item_id": "r3:c", "verdict": "fail", "reasoning": "wrong", "criterion": "c"}
    path.write_text(
        f"{record.model_dump_json()}\n\n{failure.model_dump_json()}\n{json.dumps(generic)}\n",
        encoding="utf-8",
    )
    return path


def test_the_reader_gives_each_line_in_the_shape_it_was_written_in(tmp_path: Path) -> None:
    lines = list(read_verdicts_file(_mixed(tmp_path / "v.jsonl")))
    assert [line for line, _ in lines] == [1, 3, 4]
    assert [type(record) for _, record in lines] == [VerdictRecord, JudgeFailure, RecordedVerdict]


def test_calibration_grading_and_the_renderers_see_the_same_lines(tmp_path: Path) -> None:
    path = _mixed(tmp_path / "v.jsonl")
    # calibration: one sample per judge sample (2 + 1 failure + 1 generic), on the reader's lines
    assert [line for line, _ in read_verdict_lines(path)] == [1, 1, 3, 4]
    assert {i: v.verdict for i, v in read_verdict_set(path).by_item().items()} == {
        "r1:c": "pass",
        "r2:c": "error",
        "r3:c": "fail",
    }
    # the renderers: one row per line, built from the records the reader gives
    rows = verdict_rows(read_verdicts_file(path))
    assert [(row.line, row.item_id, row.verdict) for row in rows] == [
        (1, "r1:c", "pass"),
        (3, "r2:c", "error"),
        (4, "r3:c", "fail"),
    ]


def test_a_bad_line_is_one_error_naming_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text('{"item_id": "a", "verdict": "pass"}\n{"item_id": "b", "verdict": "maybe"}\n')
    with pytest.raises(LabelsError) as caught:
        list(read_verdicts_file(path))
    assert (caught.value.line, caught.value.field) == (2, "verdict")
    assert str(path) in str(caught.value)


def test_an_empty_verdicts_file_is_an_error_unless_allowed(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n\n")
    with pytest.raises(LabelsError, match="empty"):
        load_verdicts(path)
    assert list(read_verdicts_file(path, allow_empty=True)) == []
    assert len(read_verdict_set(path)) == 0  # grading: no recorded verdicts


def test_a_verdicts_file_is_told_from_a_runs_file_by_its_first_record(tmp_path: Path) -> None:
    assert is_verdicts_file(_mixed(tmp_path / "v.jsonl"))
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"run_id": "r", "task_id": "t", "steps": []}\n', encoding="utf-8")
    assert not is_verdicts_file(runs)
