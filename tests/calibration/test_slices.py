"""Per-slice gates (calibrate --slice-by): by hand, against statsmodels / scikit-learn / ppi_py,
a judge trusted overall that fails one slice, and slices too small to decide."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from pathjudge.calibration.agreement import Gates, decide_trust, judge_agreement
from pathjudge.calibration.calibrate import Slicing, calibrate
from pathjudge.calibration.labels import item_slices, load_labels
from pathjudge.calibration.ppi import ppi_mean
from pathjudge.calibration.verdicts import load_verdicts
from pathjudge.cli import main

from .conftest import Writer

EXACT = {"rel": 0, "abs": 1e-9}


def _rows() -> list[tuple[str, str, str, str]]:
    """(item id, category, human label, judge verdict).

    billing: 150 items, the judge always right. refunds: 20 items, 10 human-pass (judge: 9 pass,
    1 fail) and 10 human-fail (judge: all fail). misc: 4 items, the judge always right.
    """
    rows = []
    for i in range(150):
        truth = "pass" if i % 2 else "fail"
        rows.append((f"b{i}", "billing", truth, truth))
    for i in range(10):
        rows.append((f"r{i}", "refunds", "pass", "fail" if i == 0 else "pass"))
    for i in range(10, 20):
        rows.append((f"r{i}", "refunds", "fail", "fail"))
    for i in range(4):
        truth = "pass" if i % 2 else "fail"
        rows.append((f"m{i}", "misc", truth, truth))
    return rows


def _files(write: Writer, rows: list[tuple[str, str, str, str]]) -> tuple[Path, Path]:
    labels = write(
        "labels.jsonl",
        [{"item_id": i, "label": h, "slice": {"category": c}} for i, c, h, _ in rows],
    )
    verdicts = write("verdicts.jsonl", [{"item_id": i, "verdict": j} for i, _, _, j in rows])
    return labels, verdicts


def test_one_slice_fails_while_the_whole_passes_and_it_says_how_many_labels_it_needs(
    write: Writer,
) -> None:
    labels, verdicts = _files(write, _rows())
    report = calibrate(
        load_labels(labels),
        load_verdicts(verdicts),
        n_bootstrap=500,
        slicing=Slicing(("category",)),
    )
    crit = report.criteria[0]
    assert crit.trust.trusted  # 174 items: TPR 86/87, TNR 87/87
    assert report.trusted  # the whole decides `trusted`; the failing slices are listed apart
    assert [(c, s.name) for c, s in report.failed_slices] == [(None, "category=refunds")]
    by = {s.value: s for s in crit.slices}
    assert list(by) == ["billing", "misc", "refunds"]
    assert (by["billing"].status, by["billing"].n_labelled) == ("trusted", 150)
    assert by["billing"].labels_needed == 0
    refunds = by["refunds"]
    assert (refunds.status, refunds.n_labelled) == ("not trusted", 20)
    failed = {g.name for g in refunds.trust.gates if not g.passed}
    assert {"TPR", "TNR"} <= failed
    # TPR 9/10: Wilson, z = 1.959964, z² = 3.841459: center = (9 + 1.920729) / 13.841459 = 0.788987,
    # half = 1.959964 / 13.841459 * sqrt(9 * 1 / 10 + 0.960365) = 0.193137, lower 0.595850
    assert refunds.agreement.tpr_unsure_as_wrong.lower == pytest.approx(0.5958499732, abs=1e-9)
    # TNR 10/10: the Wilson lower bound is m / (m + z²) = 10 / 13.841459 = 0.722467
    assert refunds.agreement.tnr_unsure_as_wrong.lower == pytest.approx(
        10 / (10 + 1.959963984540054**2), **EXACT
    )
    # labels still needed for TNR at the observed 1.0: the smallest m with m / (m + z²) >= 0.8 is
    # 16 (16 / 19.841 = 0.806; 15 / 18.841 = 0.796) human-fail items; half the slice is human-fail,
    # so 32 labelled items in all, 12 more
    assert any("TNR: about 16 human-fail items" in s and "12 more" in s for s in refunds.next_steps)
    more = [int(n) for s in refunds.next_steps for n in re.findall(r"(\d+) more\)", s)]
    assert refunds.labels_needed == max(more) >= 12
    # too small: 4 labelled items, under the default 10
    assert by["misc"].status == "too small"
    assert "4 labelled item(s), under 10" in by["misc"].why
    assert by["misc"].labels_needed is not None
    assert by["misc"].labels_needed >= 6


def test_the_slice_gates_are_the_gate_function_on_the_slice_and_match_independent_code(
    write: Writer,
) -> None:
    rng = np.random.default_rng(5)
    rows = []
    for i in range(240):
        cat = str(rng.choice(["a", "b", "c"]))
        human = str(rng.choice(["pass", "fail"]))
        right = rng.random() < (0.9 if cat != "c" else 0.7)
        judge = (
            human
            if right
            else ("unsure" if rng.random() < 0.3 else {"pass": "fail", "fail": "pass"}[human])
        )
        rows.append((f"i{i}", cat, human, judge))
    labels, verdicts = _files(write, rows)
    gates = Gates(tpr=0.7, tnr=0.7, kappa=0.5)
    report = calibrate(
        load_labels(labels),
        load_verdicts(verdicts),
        gates=gates,
        n_bootstrap=200,
        seed=3,
        slicing=Slicing(("category",)),
    )
    for one in report.criteria[0].slices:
        mine = [r for r in rows if r[1] == one.value]
        human = [r[2] for r in mine]
        judge = [r[3] for r in mine]
        # the same gate function, on the slice's items
        stats = judge_agreement(human, judge, n_bootstrap=200, seed=3)  # type: ignore[arg-type]
        assert one.agreement == stats
        assert one.trust == decide_trust(stats, gates)
        # against statsmodels (Wilson) and scikit-learn (kappa, unsure counted as wrong)
        as_wrong = [
            j if j != "unsure" else {"pass": "fail", "fail": "pass"}[h]
            for h, j in zip(human, judge, strict=True)
        ]
        for cls, est in (
            ("pass", one.agreement.tpr_unsure_as_wrong),
            ("fail", one.agreement.tnr_unsure_as_wrong),
        ):
            k = sum(1 for h, j in zip(human, judge, strict=True) if h == cls and j == cls)
            n = human.count(cls)
            lower, upper = proportion_confint(k, n, alpha=0.05, method="wilson")
            assert (est.value, est.lower, est.upper) == pytest.approx(
                (k / n, lower, upper), **EXACT
            )
        kappa = one.agreement.kappa_unsure_as_wrong.value
        assert kappa == pytest.approx(cohen_kappa_score(human, as_wrong), **EXACT)
        unsure = judge.count("unsure")
        if unsure:
            upper = proportion_confint(unsure, len(judge), alpha=0.05, method="wilson")[1]
            assert one.agreement.unsure_rate.upper == pytest.approx(upper, **EXACT)


def test_per_slice_ppi_uses_the_slice_judge_only_items_and_matches_ppi_py(write: Writer) -> None:
    from ppi_py import ppi_mean_pointestimate

    rows = _rows()
    labels, _ = _files(write, rows)
    judge_only = [
        (f"u{i}", "refunds" if i % 3 else "billing", "pass" if i % 4 else "fail") for i in range(30)
    ]
    verdicts = write(
        "verdicts.jsonl",
        [{"item_id": i, "verdict": j} for i, _, _, j in rows]
        + [{"item_id": i, "verdict": v} for i, _, v in judge_only],
    )
    items = write(
        "items.jsonl",
        [{"item_id": i, "metadata": {"slice": {"category": c}}} for i, c, _ in judge_only],
    )
    report = calibrate(
        load_labels(labels),
        load_verdicts(verdicts),
        n_bootstrap=0,
        slicing=Slicing(("category",), item_slices(items)),
    )
    by = {s.value: s for s in report.criteria[0].slices}
    refunds = by["refunds"]
    pool = [v for _, c, v in judge_only if c == "refunds"]
    assert refunds.n_judge_only == len(pool) == 20
    y = [1.0 if h == "pass" else 0.0 for _, c, h, _ in rows if c == "refunds"]
    yhat = [1.0 if j == "pass" else 0.0 for _, c, _, j in rows if c == "refunds"]
    yu = [1.0 if v == "pass" else 0.0 for v in pool]
    assert refunds.ppi is not None
    assert refunds.ppi.estimate.value is not None
    ref = float(np.ravel(ppi_mean_pointestimate(np.array(y), np.array(yhat), np.array(yu)))[0])
    assert refunds.ppi.estimate.value == pytest.approx(ref, **EXACT)
    assert refunds.ppi == ppi_mean(y, yhat, yu)
    assert by["misc"].ppi is None  # no judge-only item in the slice


def test_slice_values_from_the_items_file_and_items_without_one_fall_in_none(write: Writer) -> None:
    rows = _rows()
    labels = write("labels.jsonl", [{"item_id": i, "label": h} for i, _, h, _ in rows])
    verdicts = write("verdicts.jsonl", [{"item_id": i, "verdict": j} for i, _, _, j in rows])
    items = write(
        "items.jsonl",
        [{"item_id": i, "slice": {"category": c}} for i, c, _, _ in rows if c != "misc"],
    )
    report = calibrate(
        load_labels(labels),
        load_verdicts(verdicts),
        n_bootstrap=0,
        slicing=Slicing(("category", "language"), item_slices(items), min_labels=5),
    )
    names = [(s.name, s.n_labelled) for s in report.criteria[0].slices]
    assert names == [
        ("category=billing", 150),
        ("category=refunds", 20),
        ("category=(none)", 4),
        ("language=(none)", 174),
    ]


def test_a_one_class_slice_is_too_small_to_decide_not_failed(write: Writer) -> None:
    rows = [
        (f"b{i}", "billing", "pass" if i % 2 else "fail", "pass" if i % 2 else "fail")
        for i in range(40)
    ]
    rows += [(f"p{i}", "promo", "pass", "pass") for i in range(12)]
    labels, verdicts = _files(write, rows)
    report = calibrate(
        load_labels(labels), load_verdicts(verdicts), n_bootstrap=0, slicing=Slicing(("category",))
    )
    promo = {s.value: s for s in report.criteria[0].slices}["promo"]
    assert promo.status == "too small"
    assert "TNR undefined" in promo.why
    assert promo.labels_needed is None
    assert any("label human-fail items" in s for s in promo.next_steps)


def test_label_logs_carry_their_slice(write: Writer) -> None:
    from .test_labels import label_event

    events = [{**label_event(f"i{i}", "pass", "ana"), "slice": {"lang": "de"}} for i in range(3)]
    labels = load_labels(write("log.jsonl", events))
    assert [dict(item.slice) for item in labels] == [{"lang": "de"}] * 3


def _cli(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "calibrate",
        "--labels",
        str(tmp_path / "labels.jsonl"),
        "--verdicts",
        str(tmp_path / "verdicts.jsonl"),
        "--bootstrap",
        "200",
        *extra,
    ]


def test_cli_names_the_failing_slice_and_its_labels_and_a_failing_slice_fails_the_run(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(write, _rows())
    out = tmp_path / "report.json"
    code = main(_cli(tmp_path, "--slice-by", "category", "--json", str(out)))
    assert code == 1  # the whole criterion passes, but refunds fails its gates
    text = capsys.readouterr().out
    assert "SLICE NOT TRUSTED: category=refunds fails its gates" in text
    assert "too small to decide, not failing the run: category=misc" in text
    assert "slices: 3, 1 not trusted (category=refunds), 1 too small to decide" in text
    assert re.search(
        r"category=refunds: 20 labelled, NOT TRUSTED .*about \d+ more labels", text, re.S
    )
    assert "category=misc: 4 labelled, TOO SMALL" in text
    data: dict[str, Any] = json.loads(out.read_text())
    slices = data["criteria"][0]["slices"]
    assert [s["value"] for s in slices] == ["billing", "misc", "refunds"]
    assert slices[2]["status"] == "not trusted"
    assert slices[2]["labels_needed"] >= 12


def test_without_slice_by_the_json_has_no_slices(write: Writer, tmp_path: Path) -> None:
    _files(write, _rows())
    out = tmp_path / "report.json"
    assert main(_cli(tmp_path, "--json", str(out), "--quiet")) == 0
    assert "slices" not in json.loads(out.read_text())["criteria"][0]


def test_min_labels_option(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(write, _rows())
    assert main(_cli(tmp_path, "--slice-by", "category", "--slice-min", "3")) == 1
    text = capsys.readouterr().out
    # with 3 labels enough, misc (2 pass, 2 fail) is decided: 2/2 has a Wilson lower bound of
    # 2 / (2 + z²) = 0.342, under the 0.8 gate
    assert "category=misc: 4 labelled, NOT TRUSTED" in text


def test_a_slice_too_small_to_decide_does_not_fail_the_run_and_says_why(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(write, [row for row in _rows() if row[1] != "refunds"])
    assert main(_cli(tmp_path, "--slice-by", "category")) == 0
    text = capsys.readouterr().out
    assert "SLICE NOT TRUSTED" not in text
    assert "too small to decide, not failing the run: category=misc" in text
    assert "--slice-min" in text


def test_report_only_exits_0_on_a_failing_slice(write: Writer, tmp_path: Path) -> None:
    _files(write, _rows())
    assert main(_cli(tmp_path, "--slice-by", "category", "--report-only", "--quiet")) == 0


def test_a_failing_slice_fails_a_quiet_run_too(write: Writer, tmp_path: Path) -> None:
    _files(write, _rows())
    assert main(_cli(tmp_path, "--slice-by", "category", "--quiet")) == 1
