"""The calibrate and criteria CLI output: quiet JSON, top-level trusted, next steps, few-shot and split
errors, the [-] tag, subset labelling, integer ids, hints about the file in hand, criteria export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.rubrics.criteria import builtin_criteria, load_criterion

from .conftest import Writer
from .test_calibrate import _labels, _verdicts


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_quiet_json_file_and_top_level_trusted(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", _labels())
    verdicts = write("v.jsonl", _verdicts())
    target = tmp_path / "c.json"
    code, out, err = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--json", str(target),
         "-q", "--bootstrap", "30"],
        capsys,
    )  # fmt: skip
    assert code == 1
    assert out == ""
    assert err == ""
    data = json.loads(target.read_text())
    assert data["trusted"] is False
    # the JSON reads back (the derived field is recomputed, not refused)
    from pathjudge.calibration.calibrate import CalibrationReport

    assert CalibrationReport.model_validate(data).trusted is False


def test_next_steps_after_not_trusted(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    # 30 items, judge right on 27: TPR 14/15, TNR 13/15: lower bounds under 0.8, so more labels help.
    labels = write(
        "l.jsonl", [{"item_id": i, "label": "pass" if i < 15 else "fail"} for i in range(30)]
    )
    judge = ["pass"] * 14 + ["fail"] + ["fail"] * 13 + ["pass"] * 2
    verdicts = write("v.jsonl", [{"item_id": i, "verdict": v} for i, v in enumerate(judge)])
    code, out, _ = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "200"],
        capsys,
    )
    assert code == 1
    assert "NOT TRUSTED" in out
    assert "next steps:" in out
    assert "TPR: about" in out
    assert "human-pass items" in out
    assert "few-shot: mark some labelled items" in out
    # The estimate is what it says: at the observed TPR 14/15 with that many items the bound passes.
    from pathjudge.calibration.estimate import wilson_interval

    line = next(part for part in out.splitlines() if "TPR: about" in part)
    m = int(line.split("TPR: about ")[1].split()[0])
    assert wilson_interval(round(m * 14 / 15), m)[0] >= 0.8 - 0.01
    assert wilson_interval(round((m - 5) * 14 / 15), m - 5)[0] < 0.8


def test_few_shot_without_train_split_is_a_clear_error(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", [{**r, "split": "test"} for r in _labels()])
    verdicts = write("v.jsonl", _verdicts())
    code, _out, err = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--few-shot",
         str(tmp_path / "few.yaml")],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert "no labelled item is in the train split" in err
    assert "l.jsonl" in err
    assert not (tmp_path / "few.yaml").exists()


def test_split_test_lists_only_test_items_and_explains_the_tag(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", _labels())
    # i3 (test, human pass) judged fail: a test-split disagreement; i4/i6 are train ones
    rows = [{**r, "verdict": "fail"} if r["item_id"] == "i3" else r for r in _verdicts()]
    verdicts = write("v.jsonl", rows)
    few = tmp_path / "few.yaml"
    code, out, err = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--split", "test",
         "--few-shot", str(few), "--bootstrap", "30", "--report-only"],
        capsys,
    )  # fmt: skip
    assert code == 0
    listed = [line for line in out.splitlines() if line.startswith("  i")]
    assert listed, out
    assert all("[test]" in line for line in listed), listed
    assert any(line.startswith("  i3 [test]") for line in listed)
    assert "[-] = none" in out
    # ... while the few-shot file still gets the train-split disagreements
    assert "example(s) from train-split disagreements" in err
    assert "verdict:" in few.read_text()


def test_subset_labels_in_the_cli(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write("l.jsonl", _labels()[:8])
    extra = [{"item_id": f"u{i}", "verdict": "pass"} for i in range(6)]
    verdicts = write("v.jsonl", [*_verdicts(), *extra])
    code, out, _ = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "30",
         "--report-only"],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert "8 verdict(s) have no label and are used as judge-only items" in out
    assert "success rate: PPI++" in out


def test_integer_ids_are_read_as_text(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write(
        "l.jsonl", [{"item_id": i, "label": "pass" if i % 2 else "fail"} for i in range(8)]
    )
    verdicts = write(
        "v.jsonl", [{"item_id": str(i), "verdict": "pass" if i % 2 else "fail"} for i in range(8)]
    )
    code, out, _ = _run(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--json", "-",
         "--report-only"],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert json.loads(out)["criteria"][0]["n_labelled"] == 8
    # a float or a boolean id stays an error
    bad = write("b.jsonl", [{"item_id": 1.5, "label": "pass"}])
    code, _, err = _run(["calibrate", "--labels", str(bad), "--verdicts", str(verdicts)], capsys)
    assert code == 2
    assert "b.jsonl:1" in err


def test_error_hints_speak_of_the_file_in_hand(
    write: Writer, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", [{"item_id": "a", "label": "pass", "colour": "red"}])
    verdicts = write("v.jsonl", [{"item_id": "a", "verdict": "pass", "colour": "red"}])
    code, _, err = _run(["calibrate", "--labels", str(labels), "--verdicts", str(verdicts)], capsys)
    assert code == 2
    assert "l.jsonl:1" in err
    assert "runs" not in err
    assert "steps" not in err
    good = write("g.jsonl", [{"item_id": "a", "label": "pass"}, {"item_id": "b", "label": "fail"}])
    code, _, err = _run(["calibrate", "--labels", str(good), "--verdicts", str(verdicts)], capsys)
    assert code == 2
    assert "v.jsonl:1" in err
    assert "runs" not in err
    assert "verdicts format" in err


def test_criteria_list_show_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["criteria", "list", "--json"], capsys)
    assert code == 0
    ids = [row["id"] for row in json.loads(out)]
    assert ids == list(builtin_criteria())
    code, out, _ = _run(["criteria", "show", "summary-faithful"], capsys)
    assert code == 0
    assert "id: summary-faithful" in out
    target = tmp_path / "mine.yaml"
    code, _, err = _run(["criteria", "export", "summary-faithful", "-o", str(target)], capsys)
    assert code == 0
    assert "--criterion" in err
    copy = load_criterion(target)
    assert copy.content_hash == builtin_criteria()["summary-faithful"].content_hash
    before = target.read_text()
    code, _, err = _run(["criteria", "export", "answer-correct", "-o", str(target)], capsys)
    assert code == 2
    assert "already exists" in err
    assert target.read_text() == before
    code, _, err = _run(["criteria", "show", "nope"], capsys)
    assert code == 2
    assert "summary-faithful" in err


def test_calibrate_pairwise_cli(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathjudge.calibration.pairwise import PairwiseItem, pairwise_agreement

    prefs = [("p1", "A"), ("p2", "A"), ("p3", "B"), ("p4", "B"), ("p5", "tie"), ("p6", "A")]
    # positional answers: (ab, ba); p6's ab is unparsed (error)
    answers = {
        "p1": ("first", "second"),
        "p2": ("first", "first"),
        "p3": ("first", "first"),
        "p4": ("second", "first"),
        "p5": ("tie", "second"),
        "p6": ("error", "second"),
    }
    labels = write("prefs.jsonl", [{"item_id": i, "preference": p} for i, p in prefs])
    rows = []
    for item_id, (ab, ba) in answers.items():
        rows.append({"item_id": item_id, "order": "ab", "verdict": ab})
        rows.append({"item_id": item_id, "order": "ba", "verdict": ba})
    rows.append({"item_id": "zz", "order": "ab", "verdict": "A"})
    verdicts = write("pv.jsonl", rows)
    code, out, _ = _run(
        ["calibrate", "--pairwise", "--labels", str(labels), "--verdicts", str(verdicts),
         "--json", "-", "--bootstrap", "100"],
        capsys,
    )  # fmt: skip
    assert code == 1  # six pairs cannot pass the kappa gate: not trusted, exit 1 as calibrate
    data = json.loads(out)
    stats = data["stats"]
    assert stats["unsure_as"] == "wrong"
    # the same items through the library give the same numbers
    items = [
        PairwiseItem(item_id="p1", human="A", ab="A", ba="A"),
        PairwiseItem(item_id="p2", human="A", ab="A", ba="B"),
        PairwiseItem(item_id="p3", human="B", ab="A", ba="B"),
        PairwiseItem(item_id="p4", human="B", ab="B", ba="B"),
        PairwiseItem(item_id="p5", human="tie", ab="tie", ba="A"),
        PairwiseItem(item_id="p6", human="A", ab="unsure", ba="A"),
    ]
    ref = pairwise_agreement(items, n_bootstrap=100)
    for name in ("accuracy_ab", "accuracy_ba", "both_correct", "kappa_ab", "kappa_mean"):
        assert stats[name]["value"] == pytest.approx(getattr(ref, name).value, abs=1e-12)
    assert stats["kappa_mean"]["lower"] is not None
    assert any("'zz'" in note for note in data["notes"])
    # the table, with the unsure policy and the bias direction
    code, out, _ = _run(
        ["calibrate", "--pairwise", "--labels", str(labels), "--verdicts", str(verdicts),
         "--unsure-as", "drop", "--bootstrap", "50", "--report-only"],
        capsys,
    )  # fmt: skip
    assert code == 0  # --report-only: the report, whatever the trust decision
    assert "with an unsure answer (left out)" in out
    assert "position bias:" in out
    assert "kappa, mean of both orders" in out
    code, _, err = _run(
        ["calibrate", "--pairwise", "--labels", str(labels), "--verdicts", str(verdicts),
         "--unsure-as", "maybe"],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert "wrong, tie or drop" in err
