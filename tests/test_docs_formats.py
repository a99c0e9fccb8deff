"""The documented items, labels, verdicts and pairwise examples are real: each parses with the model
that reads it (issue 14, point 9), and the SummEval scripts say what to do without the data."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _json_lines(section: str) -> list[dict[str, object]]:
    blocks = re.findall(r"```json\n(.*?)```", section, flags=re.S)
    return [json.loads(line) for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_format_examples_parse() -> None:
    from pathjudge.calibration.labels import LabelRecord
    from pathjudge.calibration.pairwise_io import PairwisePreference, PairwiseVerdict
    from pathjudge.calibration.verdicts import RecordedVerdict
    from pathjudge.judge.items import JudgeItem

    text = (REPO / "docs" / "reference" / "formats.md").read_text(encoding="utf-8")
    section = text.split("## Judge and calibration files", 1)[1].split("\n## ", 1)[0]
    records = _json_lines(section)
    kinds = {"item": 0, "label": 0, "verdict": 0, "pairwise": 0}
    for record in records:
        if "inputs" in record and "label" not in record:
            JudgeItem.model_validate(record)
            kinds["item"] += 1
        elif "order" in record:
            PairwiseVerdict.model_validate(record)
            kinds["pairwise"] += 1
        elif "verdict" in record:
            RecordedVerdict.model_validate(record)
            kinds["verdict"] += 1
        else:
            LabelRecord.model_validate(record)
            kinds["label"] += 1
    assert all(kinds.values()), kinds
    PairwisePreference.model_validate({"item_id": "p1", "preference": "A"})
    judge_page = (REPO / "docs" / "reference" / "judge.md").read_text(encoding="utf-8")
    assert "## Exit codes of `judge`" in judge_page


def test_summeval_scripts_explain_missing_data(tmp_path: Path) -> None:
    env = {"PATH": "", "SUMMEVAL_DATA": str(tmp_path / "nope.jsonl")}
    script = REPO / "examples" / "summeval" / "make_data.py"
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert "SummEval not found at" in done.stderr
    assert "--data PATH or set SUMMEVAL_DATA" in done.stderr
    assert "Traceback" not in done.stderr
    assert (REPO / "examples" / "summeval" / "README.md").is_file()


def test_the_readme_is_short_and_every_link_in_it_resolves() -> None:
    readme = REPO / "README.md"
    assert readme.stat().st_size <= 10 * 1024  # the map; the manual lives in docs/
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme.read_text(encoding="utf-8"))
    assert links
    missing = [link for link in links if "://" not in link and not (REPO / link).exists()]
    assert missing == []
