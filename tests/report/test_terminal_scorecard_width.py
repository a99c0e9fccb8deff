"""The terminal scorecard fits 80 columns with nothing cut to an ellipsis."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from pathjudge.agent.io import read_runs


@pytest.fixture
def docent(repo_root: Path) -> Path:
    return repo_root / "examples" / "docent"


def test_scorecard_tables_fit_80_columns_without_ellipsis(docent: Path) -> None:
    from pathjudge.report.terminal import print_scorecard
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.scorecard import build_scorecard

    suite = load_suite(docent / "suite.yaml")
    card = build_scorecard(grade(read_runs(docent / "runs.jsonl"), suite), suite)
    console = Console(width=80, record=True)
    print_scorecard(console, card)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for header in ("success", "trajectory", "calls", "steps", "weak", "criterion", "unsure"):
        assert header in text
    longest = max(card.task_rows, key=lambda row: len(row.task_id)).task_id
    assert longest.replace("-", "")[:8] in text.replace("-", "").replace("│", "")
