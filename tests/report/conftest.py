"""Report fixtures: a view with hostile agent text, the real Docent scoring and a calibration report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.report._view import ReportView
from tests.report.support import XSS_SCRIPT, Scored, hostile_docent_runs, make_view, score


@pytest.fixture
def view() -> ReportView:
    return make_view()


@pytest.fixture(scope="session")
def hostile_scored(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Scored:
    folder = tmp_path_factory.mktemp("hostile")
    return score(
        repo_root, hostile_docent_runs(repo_root, folder), folder, "--fail-under", "success=1.0"
    )


@pytest.fixture(scope="session")
def calibration_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pathjudge calibrate --json` on 40 constructed items (judge reasoning carries markup)."""
    from pathjudge.cli import main

    folder = tmp_path_factory.mktemp("calibration")
    labels, verdicts = [], []
    for i in range(40):
        human = "pass" if i % 3 else "fail"
        labels.append({"item_id": f"item-{i:02d}", "criterion": "faithful", "label": human})
        for k in range(3):
            # items 0, 8, 16, ... get two of three samples flipped (a majority disagreement); items 1, 6,
            # 11, ... one (noise the majority outvotes)
            flip = (i % 8 == 0 and k < 2) or (i % 5 == 1 and k == 2)
            verdict = ("fail" if human == "pass" else "pass") if flip else human
            verdicts.append(
                {
                    "item_id": f"item-{i:02d}",
                    "criterion": "faithful",
                    "verdict": verdict,
                    "sample": k,
                    "reasoning": f"judged {verdict} {XSS_SCRIPT}",
                }
            )
    (folder / "labels.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8"
    )
    (folder / "verdicts.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in verdicts), encoding="utf-8"
    )
    out = folder / "calibration.json"
    code = main(
        [
            "calibrate",
            "--labels",
            str(folder / "labels.jsonl"),
            "--verdicts",
            str(folder / "verdicts.jsonl"),
            "--json",
            str(out),
            "--report-only",
        ]
    )
    assert code == 0
    return out
