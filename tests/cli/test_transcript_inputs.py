"""Every command that reads runs names the `pathjudge import` command when given a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.cli import main


@pytest.mark.parametrize(
    ("command", "then"),
    [
        (["show", "{t}"], "show"),
        (["variance", "{t}", "--suite", "{s}"], "variance"),
        (["mutate", "{t}", "--suite", "{s}"], "mutate"),
        (["diff", "{r}", "{t}", "--suite", "{s}"], "diff"),
        (["diff", "{t}", "{r}", "--suite", "{s}"], "diff"),
    ],
)
def test_a_transcript_given_as_runs_names_the_import_command(
    repo_root: Path, capsys: pytest.CaptureFixture[str], command: list[str], then: str
) -> None:
    """Not "expected a JSON object for a run" or "not valid JSON": the format and the command."""
    transcript = repo_root / "tests" / "fixtures" / "importers" / "anthropic_refund.json"
    docent = repo_root / "examples" / "docent"
    args = [
        part.format(t=transcript, s=docent / "suite.yaml", r=docent / "runs.jsonl")
        for part in command
    ]
    assert main(args) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is an anthropic transcript, not pathjudge runs" in err
    assert f"pathjudge import --from anthropic {transcript} -o anthropic_refund.runs.jsonl" in err
    assert f"then {then} anthropic_refund.runs.jsonl" in err


def test_a_runs_file_with_a_bad_record_keeps_its_own_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"task_id": "t"}\n', encoding="utf-8")
    assert main(["show", str(runs)]) == 2
    err = capsys.readouterr().err
    assert "run_id" in err
    assert "pathjudge import" not in err
