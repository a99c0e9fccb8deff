"""Regressions found by walking through the README as a new user (in process, a few seconds in all).

Each test names the command a user typed and what went wrong before: multi-line usage errors, raw
12-digit gate values, an all-zero --weights accepted, a variance note printed when nothing was n/a,
diff findings repeated once per epoch, calibrate writing 0600 files, tables cutting cells to "…".
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from pathjudge.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RUNS = EXAMPLES / "docent" / "runs.jsonl"
SUITE = EXAMPLES / "docent" / "suite.yaml"


def _call(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _flat(text: str) -> str:
    """Table text with box characters and whitespace removed, so wrapped cells read as one string."""
    return re.sub(r"[\s│┃║|]", "", text)


@pytest.mark.parametrize(
    ("args", "fragment", "command"),
    [
        (["score", str(RUNS), "--suit", str(SUITE)], "No such option: --suit", "pathjudge score"),
        (["score", str(RUNS)], "Missing option '--suite'", "pathjudge score"),
        (["nosuch"], "No such command 'nosuch'", "pathjudge"),
        (["score", str(RUNS), "--suite", str(SUITE), "--jobs", "0"], "'--jobs'", "pathjudge score"),
        (["show", "--max-tools", "x", str(RUNS)], "'--max-tools'", "pathjudge show"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str, command: str
) -> None:
    code, out, err = _call(capsys, *args)
    assert code == 2
    assert out == ""
    message = err.strip()
    assert "\n" not in message, message  # was: "Usage: ...", "Try ...", "", "Error: ..."
    assert message.startswith("error: ")
    assert fragment in message
    assert message.endswith(f"see '{command} --help'.")


def test_bare_pathjudge_still_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _call(capsys)
    assert code == 2
    assert "Commands:" in out + err
    assert "score" in out + err


def test_quiet_gate_lines_print_three_decimals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _call(
        capsys,
        "score",
        RUNS,
        "--suite",
        SUITE,
        "--fast",
        "-q",
        "--fail-under",
        "success=1.0,overall=0",
    )
    assert code == 1
    # 15 of the 16 bundled runs succeed: 15/16 = 0.9375, printed to 3 decimals as 0.938 (half-even on
    # the exact binary value 0.9375); it used to print the raw float to 12 digits
    assert "gate success >= 1: 0.938 MISSED" in out
    assert not re.search(r"\d\.\d{4,}", out), out
    assert "thresholds missed: success 0.938 < 1" in err


def test_all_zero_weights_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _call(
        capsys,
        "score",
        RUNS,
        "--suite",
        SUITE,
        "--fast",
        "-q",
        "--weights",
        "success=0,tool_calls=0,trajectory=0",
    )
    assert code == 2  # was: exit 0 and an overall score of "—" (a gate on it then said "None < x")
    message = err.strip()
    assert "\n" not in message
    assert "field '--weights'" in message
    assert "every weight" in message
    assert "above 0" in message


def test_variance_note_only_when_some_value_is_undefined(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _call(capsys, "variance", RUNS, "--suite", SUITE, "--k", "1")
    assert code == 0
    suite_line = next(line for line in out.splitlines() if line.startswith("suite:"))
    assert "n/a" not in suite_line  # every task has >= 1 epoch: pass@1 is defined everywhere
    assert "…" not in out  # cells fold in a narrow terminal instead of being cut to "pass…"

    code, out, _ = _call(capsys, "variance", RUNS, "--suite", SUITE, "--k", "1,2")
    assert code == 0
    suite_line = next(line for line in out.splitlines() if line.startswith("suite:"))
    # 14 of 15 tasks ran one epoch, so pass@2 and pass^2 are undefined for the suite
    assert "pass@2 n/a" in suite_line
    assert suite_line.endswith("(n/a: some task has fewer epochs than k)")


def test_show_never_cuts_a_task_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _call(capsys, "show", RUNS)
    assert code == 0
    assert "…" not in out  # was "summar…" in an 80-column terminal or CI log
    # piped, show is one line per task: the task id is the first field of its line
    first_cells = " ".join(line.split()[0] for line in out.splitlines() if line.strip())
    for task in ("summary-rate-limiting", "trap-flaky-search", "rate-429"):
        assert task in first_cells, first_cells


@pytest.fixture(scope="module")
def two_agents(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Three epochs of one task by the offline Docent: the keyword retriever, then the broken one."""
    folder = tmp_path_factory.mktemp("walk")
    baseline, candidate = folder / "baseline.jsonl", folder / "candidate.jsonl"
    for retriever, out in (("keyword", baseline), ("worst_match", candidate)):
        code = main(
            [
                "run",
                str(SUITE),
                "--agent",
                "docent",
                "--backend",
                "scripted",
                "--epochs",
                "3",
                "--task",
                "rate-429",
                "--retriever",
                retriever,
                "-o",
                str(out),
            ]
        )
        assert code == 0
    return baseline, candidate


def test_diff_lists_each_finding_once_with_its_epochs(
    capsys: pytest.CaptureFixture[str], two_agents: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline, candidate = two_agents
    capsys.readouterr()
    out_json = tmp_path / "diff.json"
    code, out, _ = _call(capsys, "diff", baseline, candidate, "--suite", SUITE, "--json", out_json)
    assert code == 1  # the worst-match retriever loses the task: BLOCK
    assert "verdict: BLOCK" in out
    table = out.split("task(s) changed")[0]
    flat = _flat(table)
    # one line per finding naming the three epochs; it used to repeat each finding three times
    assert flat.count("successflippedpass→fail") == 1, table
    assert "successflippedpass→fail(epochs0,1,2)" in flat, table
    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert report["verdict"] == "block"


def test_diff_keeps_a_task_level_finding_without_epochs(
    capsys: pytest.CaptureFixture[str], two_agents: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline, candidate = two_agents
    short = tmp_path / "candidate-2-epochs.jsonl"
    lines = candidate.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["epoch"] != 2]
    assert len(kept) == 2
    short.write_text("".join(kept), encoding="utf-8")
    capsys.readouterr()
    code, out, _ = _call(capsys, "diff", baseline, short, "--suite", SUITE)
    assert code == 1
    flat = _flat(out.split("task(s) changed")[0])
    assert "successflippedpass→fail(epochs0,1)" in flat
    assert "nocandidaterunforepoch(s)2" in flat


def test_calibrate_json_gets_the_usual_file_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_json = tmp_path / "calibration.json"
    # a small self-contained labels/verdicts pair (the SummEval data files are generated, not committed)
    truth = ["pass", "fail"] * 6
    said = ["pass", "fail", "pass", "pass"] * 3
    labels, verdicts = tmp_path / "labels.jsonl", tmp_path / "verdicts.jsonl"
    labels.write_text(
        "".join(json.dumps({"item_id": f"i{i}", "label": v}) + "\n" for i, v in enumerate(truth))
    )
    verdicts.write_text(
        "".join(json.dumps({"item_id": f"i{i}", "verdict": v}) + "\n" for i, v in enumerate(said))
    )
    old = os.umask(0o022)
    try:
        code, _, _ = _call(
            capsys,
            "calibrate",
            "--labels",
            labels,
            "--verdicts",
            verdicts,
            "--bootstrap",
            "0",
            "--report-only",
            "--json",
            out_json,
        )
    finally:
        os.umask(old)
    assert code == 0
    json.loads(out_json.read_text(encoding="utf-8"))
    # 0o666 & ~0o022 = 0o644 (it was 0o600: mkstemp's mode, unreadable to a CI artefact uploader)
    assert stat.S_IMODE(out_json.stat().st_mode) == 0o644
