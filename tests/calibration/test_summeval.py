"""SummEval (real expert labels): the derived labels and the inter-annotator bounds the means allow."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from pathjudge.calibration.agreement import fleiss_kappa, krippendorff_alpha
from pathjudge.calibration.labels import load_labels


def test_fives_options(make_data: ModuleType) -> None:
    # sum 15 -> 5,5,5; 14 -> 5,5,4; 13 -> 5,4,4 or 5,5,3; 7 -> 5,1,1 or none; 6 -> none
    assert make_data.fives_options(5.0) == [3]
    assert make_data.fives_options(4.6666666667) == [2]
    assert make_data.fives_options(4.3333333333) == [1, 2]
    assert make_data.fives_options(2.3333333333) == [0, 1]
    assert make_data.fives_options(2.0) == [0]


def test_derived_labels_match_an_independent_count(
    shared_data: Path, make_data: ModuleType, tmp_path: Path
) -> None:
    source = shared_data / "summeval" / "summeval.jsonl"
    assert make_data.main(["--data", str(source), "--out", str(tmp_path), "--subset", "40"]) == 0
    # Independent count straight from the file: consistency exactly 5 (all three experts gave 5).
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    expected_pass = sum(1 for r in rows if r["consistency"] == 5.0)
    assert (len(rows), expected_pass) == (1600, 1306)
    labels = load_labels(tmp_path / "labels.jsonl")
    got = [item.label for item in labels.items("summary-faithful")]
    assert len(got) == 1600
    assert got.count("pass") == expected_pass
    assert got.count("fail") == 1600 - expected_pass
    # Splits by article: no article in two splits; 20 / 20 / 60 articles.
    splits: dict[str, set[str]] = {}
    for item in labels:
        assert item.group is not None
        assert item.split is not None
        splits.setdefault(item.split, set()).add(item.group)
    assert {k: len(v) for k, v in splits.items()} == {"train": 20, "dev": 20, "test": 60}
    subset = load_labels(tmp_path / "labels-subset.jsonl")
    sub = list(subset)
    assert len(sub) == 40
    assert sum(1 for i in sub if i.label == "pass") == 20
    assert {i.split for i in sub} == {"test"}
    assert set(sub[0].inputs or {}) == {"source", "summary"}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["experts_fives_known_exactly"] == {"3": 1306, "2": 81, "0": 98}
    assert summary["experts_fives_ambiguous_items"] == 1600 - 1306 - 81 - 98


def test_agreement_bounds_contain_a_concrete_assignment(
    shared_data: Path, make_data: ModuleType
) -> None:
    rows = make_data.load_rows(shared_data / "summeval" / "summeval.jsonl")
    means = [float(r["consistency"]) for r in rows]
    bounds = make_data.agreement_bounds(means)
    assert bounds["fleiss_kappa_min"] < bounds["fleiss_kappa_max"]
    # Two concrete assignments (fewest / most fives per item), scored by the library functions.
    for pick in (min, max):
        units = []
        for mean in means:
            fives = pick(make_data.fives_options(mean))
            units.append(["five"] * fives + ["lower"] * (3 - fives))
        kappa = fleiss_kappa(units)
        alpha = krippendorff_alpha(units)
        assert kappa is not None
        assert alpha is not None
        assert bounds["fleiss_kappa_min"] - 1e-12 <= kappa <= bounds["fleiss_kappa_max"] + 1e-12
        assert (
            bounds["krippendorff_alpha_min"] - 1e-12
            <= alpha
            <= bounds["krippendorff_alpha_max"] + 1e-12
        )
