"""Statistics that are undefined (e.g. kappa with one class) are reported as undefined, not 0, end
to end through ``pathjudge calibrate --json``.

The unit tests cover kappa when BOTH raters are constant (0/0). When only the human labels are one
class, Cohen's formula gives po = pe, so kappa is 0 for ANY judge: a number that says "chance-level"
where the data cannot say anything (scikit-learn also returns 0.0 there).
"""

from __future__ import annotations

import json
from pathlib import Path

from pathjudge.cli import main


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _calibrate(tmp_path: Path, labels: list[str], verdicts: list[str]) -> dict[str, object]:
    lab = _write(
        tmp_path / "l.jsonl", [{"item_id": f"i{i}", "label": v} for i, v in enumerate(labels)]
    )
    ver = _write(
        tmp_path / "v.jsonl", [{"item_id": f"i{i}", "verdict": v} for i, v in enumerate(verdicts)]
    )
    out = tmp_path / "out.json"
    args = ["calibrate", "--labels", str(lab), "--verdicts", str(ver), "--json", str(out)]
    code = main([*args, "--allow-single-class", "--bootstrap", "50"])
    assert code in (0, 1)
    agreement: dict[str, object] = json.loads(out.read_text())["criteria"][0]["agreement"]
    return agreement


def test_both_raters_one_class_kappa_is_undefined(tmp_path: Path) -> None:
    agreement = _calibrate(tmp_path, ["pass"] * 10, ["pass"] * 10)
    kappa = agreement["kappa"]
    assert isinstance(kappa, dict)
    assert kappa["value"] is None
    assert agreement["tnr"]["value"] is None  # type: ignore[index]


# One-class human labels: po = pe for any judge, so kappa is 0 whatever the judge does; undefined.
def test_one_class_human_labels_kappa_is_undefined_not_zero(tmp_path: Path) -> None:
    agreement = _calibrate(tmp_path, ["pass"] * 10, ["pass"] * 8 + ["fail"] * 2)
    assert agreement["tnr"]["value"] is None  # type: ignore[index]
    assert agreement["kappa"]["value"] is None  # type: ignore[index]
