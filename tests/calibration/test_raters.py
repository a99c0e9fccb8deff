"""Rater-rater agreement (the human ceiling): by hand and against independent implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pathjudge.calibration.labels import Label, LabelledItem
from pathjudge.calibration.raters import rater_agreement


def _item(item_id: str, ratings: dict[str, Label]) -> LabelledItem:
    return LabelledItem(
        item_id=item_id,
        criterion="c",
        label="pass",
        line=1,
        annotator_labels=tuple(ratings.items()),
    )


TWO_A = ["P", "P", "P", "P", "P", "P", "F", "F", "F", "F"]
TWO_B = ["P", "P", "P", "P", "F", "F", "F", "F", "F", "P"]


def _two() -> list[LabelledItem]:
    word: dict[str, Label] = {"P": "pass", "F": "fail"}
    return [
        _item(f"i{k}", {"ana": word[a], "bo": word[b]})
        for k, (a, b) in enumerate(zip(TWO_A, TWO_B, strict=True))
    ]


def test_two_raters_get_cohens_kappa_by_hand_and_as_sklearn() -> None:
    # agreements: 4 pass-pass + 3 fail-fail of 10 -> po = 0.7
    # ana passes 6/10, bo 5/10 -> pe = 0.6*0.5 + 0.4*0.5 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    from sklearn.metrics import cohen_kappa_score

    stats = rater_agreement(_two(), n_bootstrap=500, seed=1)
    assert stats is not None
    assert stats.statistic == "cohen_kappa"
    assert stats.raters == ("ana", "bo")
    assert stats.n_items == 10
    assert stats.value.value == pytest.approx(0.4, abs=1e-9)
    assert stats.value.value == pytest.approx(cohen_kappa_score(TWO_A, TWO_B), abs=1e-9)
    assert stats.percent_agreement == pytest.approx(0.7, abs=1e-9)
    lower, upper = stats.value.lower, stats.value.upper
    assert lower is not None
    assert upper is not None
    assert lower < 0.4 < upper
    assert "Cohen's kappa of ana and bo = 0.400" in stats.value.reason


def test_the_interval_is_a_percentile_bootstrap_over_items() -> None:
    from sklearn.metrics import cohen_kappa_score

    stats = rater_agreement(_two(), n_bootstrap=300, seed=7, confidence=0.9)
    assert stats is not None
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 10, size=(300, 10))
    values = []
    for row in idx:
        a = [TWO_A[i] for i in row]
        b = [TWO_B[i] for i in row]
        if len(set(a) | set(b)) > 1:
            values.append(cohen_kappa_score(a, b))
    values = [v for v in values if not math.isnan(v)]
    lower, upper = np.quantile(values, [0.05, 0.95])
    assert stats.value.lower == pytest.approx(lower, abs=1e-9)
    assert stats.value.upper == pytest.approx(upper, abs=1e-9)


def test_three_raters_get_krippendorffs_alpha_by_hand_and_as_the_krippendorff_package() -> None:
    # units: (P P P) (P P F) (F F F) (P F -): n = 11 pairable values, 6 P and 5 F
    # D_o = [0 + (9-5)/2 + 0 + (4-2)/1] / 11 = 4/11
    # D_e = (121 - 36 - 25) / (11*10) = 60/110 = 6/11
    # alpha = 1 - (4/11)/(6/11) = 1/3
    import krippendorff

    units: list[dict[str, Label]] = [
        {"a": "pass", "b": "pass", "c": "pass"},
        {"a": "pass", "b": "pass", "c": "fail"},
        {"a": "fail", "b": "fail", "c": "fail"},
        {"a": "pass", "b": "fail"},
    ]
    stats = rater_agreement([_item(f"u{i}", u) for i, u in enumerate(units)], n_bootstrap=200)
    assert stats is not None
    assert stats.statistic == "krippendorff_alpha"
    assert stats.n_ratings == 11
    assert stats.value.value == pytest.approx(1 / 3, abs=1e-9)
    matrix = np.array(
        [[1.0 if u.get(r) == "pass" else 0.0 if r in u else np.nan for u in units] for r in "abc"]
    )
    reference = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert stats.value.value == pytest.approx(reference, abs=1e-9)


def test_one_rater_per_item_has_no_ceiling_and_one_label_everywhere_is_undefined() -> None:
    assert rater_agreement([_item("a", {"ana": "pass"}), _item("b", {"bo": "fail"})]) is None
    same = rater_agreement([_item(f"i{k}", {"ana": "pass", "bo": "pass"}) for k in range(4)])
    assert same is not None
    assert same.value.value is None
    assert "chance agreement is 1" in same.value.reason
