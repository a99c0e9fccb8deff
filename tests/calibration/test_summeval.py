"""SummEval (real expert labels): the derived labels and the inter-annotator bounds the means allow."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

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


def test_label_judge_calibrate_goes_from_summeval_items_to_a_calibration_report(
    shared_data: Path,
    make_data: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The tutorial's three commands on the real SummEval items: label (two raters, as the page
    writes labels), judge (the real command, against the fake Anthropic server), calibrate."""
    import zlib

    import pathjudge.cli  # noqa: F401  (registers the commands)
    from pathjudge import __version__
    from pathjudge._cli.app import main
    from pathjudge.calibration.label_store import LabelEvent, append_label, item_content_hash
    from pathjudge.rubrics.criteria import get_criterion
    from tests.fakes.anthropic_server import FakeAnthropic, forced_tool_policy

    source = shared_data / "summeval" / "summeval.jsonl"
    assert make_data.main(["--data", str(source), "--out", str(tmp_path), "--subset", "40"]) == 0
    capsys.readouterr()
    items = tmp_path / "items-subset.jsonl"
    records = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
    truth = {i.item_id: i.label for i in load_labels(tmp_path / "labels-subset.jsonl")}
    assert [r["item_id"] for r in records] == list(truth)

    # 1. pathjudge label: ana labels every item, bo double-codes and differs on three
    crit = get_criterion("summary-faithful")
    log = tmp_path / "hand-labels.jsonl"
    for rater in ("ana", "bo"):
        for position, record in enumerate(records):
            label = truth[record["item_id"]]
            if rater == "bo" and position in (3, 7, 11):
                label = "fail" if label == "pass" else "pass"
            append_label(
                log,
                LabelEvent(
                    item_id=record["item_id"],
                    criterion=crit.id,
                    criterion_version=crit.version,
                    criterion_hash=crit.content_hash,
                    label=label,
                    rater=rater,
                    labelled_at=f"2026-12-06T20:{position:02d}:00Z",
                    item_hash=item_content_hash(record["inputs"]),
                    pathjudge_version=__version__,
                    order="random",
                    seed=0,
                    position=position,
                ),
            )

    # 2. pathjudge judge (a scripted judge: the fake server answers by a hash of the request)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")
    server = FakeAnthropic(
        forced_tool_policy(
            lambda request: {
                "reasoning": "Checked every claim.",
                "evidence": [],
                "verdict": "fail" if zlib.crc32(request.body) % 3 == 0 else "pass",
            }
        )
    ).start()
    try:
        verdicts = tmp_path / "verdicts.jsonl"
        judge = ["judge", str(items), "--criterion", "summary-faithful", "-o", str(verdicts)]
        judge += ["--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite")]
        assert main(judge) == 0
    finally:
        server.stop()

    # 3. pathjudge calibrate
    report = tmp_path / "report.json"
    calibrate = ["calibrate", "--labels", str(log), "--verdicts", str(verdicts)]
    calibrate += [
        "--json",
        str(report),
        "--html",
        str(tmp_path / "report.html"),
        "--bootstrap",
        "100",
    ]
    assert main(calibrate) in (0, 1)
    out = capsys.readouterr().out
    assert "rater-rater Cohen kappa (ceiling)" in out
    crit_report = json.loads(report.read_text())["criteria"][0]
    # the verdicts' input hashes are the labels' item hashes: nothing is stale
    assert crit_report["stale_labels"] == []
    assert crit_report["n_labelled"] == 37  # three even splits wait for adjudication
    assert "3 item(s) whose raters split evenly" in " ".join(crit_report["notes"])
    assert crit_report["rater_agreement"]["n_items"] == 40
    # 3 of 40 disagreements: po = 37/40
    assert crit_report["rater_agreement"]["percent_agreement"] == pytest.approx(37 / 40)
    assert (tmp_path / "report.html").is_file()
