"""Judge-vs-human agreement, the human-human ceiling and the trust gates, by hand and vs references."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    precision_recall_fscore_support,
    recall_score,
)

from pathjudge.calibration.agreement import (
    AgreementStats,
    Gates,
    bootstrap_kappa,
    cohen_kappa,
    decide_trust,
    design_weighted_gates,
    fleiss_kappa,
    inter_annotator,
    judge_agreement,
    kappa_from_counts,
    krippendorff_alpha,
    parse_gates,
    percent_agreement,
)
from pathjudge.calibration.estimate import wilson_interval, z_value
from pathjudge.calibration.labels import LabelledItem
from pathjudge.errors import InputError

# Ten items. Human pass x6: judge P P P P F U. Human fail x4: judge P F F U.
HUMAN = ["pass"] * 6 + ["fail"] * 4
JUDGE = ["pass", "pass", "pass", "pass", "fail", "unsure", "pass", "fail", "fail", "unsure"]


def decided() -> tuple[list[str], list[str]]:
    pairs = [(h, j) for h, j in zip(HUMAN, JUDGE, strict=True) if j != "unsure"]
    return [h for h, _ in pairs], [j for _, j in pairs]


def test_hand_computed_statistics() -> None:
    stats = judge_agreement(HUMAN, JUDGE, n_bootstrap=200, seed=1)
    # Decided: 8 items; TP 4, FN 1, FP 1, TN 2; unsure: one human-pass, one human-fail.
    assert stats.confusion.matrix == ((4, 1), (1, 2))
    assert stats.confusion.unsure == {"pass": 1, "fail": 1}
    assert (stats.n_items, stats.n_decided, stats.n_unsure) == (10, 8, 2)
    # accuracy (4 + 2) / 8 = 0.75
    assert stats.accuracy.value == pytest.approx(0.75)
    # po = 0.75; pe = (5/8)(5/8) + (3/8)(3/8) = 34/64; kappa = (0.75 - 34/64) / (1 - 34/64) = 7/15
    assert stats.kappa.value == pytest.approx(7 / 15)
    assert stats.tpr.value == pytest.approx(4 / 5)  # 4 of 5 decided human-pass
    assert stats.tnr.value == pytest.approx(2 / 3)  # 2 of 3 decided human-fail
    # unsure counts as wrong: TPR 4 TP of 6 human-pass, TNR 2 TN of 4 human-fail
    assert stats.tpr_unsure_as_wrong.value == pytest.approx(4 / 6)
    assert stats.tnr_unsure_as_wrong.value == pytest.approx(2 / 4)
    # kappa with the two unsure answers wrong: TP 4, FN 2, FP 2, TN 2 over 10;
    # po = 6/10, pe = (6*6 + 4*4)/100 = 0.52, kappa = 0.08/0.48 = 1/6
    assert stats.kappa_unsure_as_wrong.value == pytest.approx(1 / 6)
    assert stats.prevalence.value == pytest.approx(6 / 10)
    assert stats.judge_pass_rate.value == pytest.approx(5 / 8)
    assert stats.unsure_rate.value == pytest.approx(2 / 10)
    by = {c.label: c for c in stats.per_class}
    # precision pass 4/(4+1), recall 4/5, F1 0.8; fail: 2/3 each, F1 2/3
    assert by["pass"].precision.value == pytest.approx(0.8)
    assert by["pass"].f1.value == pytest.approx(0.8)
    assert by["fail"].precision.value == pytest.approx(2 / 3)
    assert by["fail"].recall.value == pytest.approx(2 / 3)
    assert by["fail"].f1.value == pytest.approx(2 / 3)
    assert (by["pass"].support, by["fail"].support) == (5, 3)
    assert "4/5" in stats.tpr.reason


def test_matches_scikit_learn() -> None:
    h, j = decided()
    stats = judge_agreement(HUMAN, JUDGE, n_bootstrap=50)
    assert [list(r) for r in stats.confusion.matrix] == confusion_matrix(
        h, j, labels=["pass", "fail"]
    ).tolist()
    assert stats.accuracy.value == pytest.approx(accuracy_score(h, j))
    assert stats.kappa.value == pytest.approx(cohen_kappa_score(h, j))
    p, r, f, s = precision_recall_fscore_support(h, j, labels=["pass", "fail"])
    for index, scores in enumerate(stats.per_class):
        assert scores.precision.value == pytest.approx(p[index])
        assert scores.recall.value == pytest.approx(r[index])
        assert scores.f1.value == pytest.approx(f[index])
        assert scores.support == s[index]


def test_random_cross_check_with_scikit_learn() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(5, 60))
        human = list(rng.choice(["pass", "fail"], size=n))
        judge = list(rng.choice(["pass", "fail", "unsure"], size=n, p=[0.45, 0.45, 0.1]))
        stats = judge_agreement(human, judge, n_bootstrap=0)
        h = [a for a, b in zip(human, judge, strict=True) if b != "unsure"]
        j = [b for b in judge if b != "unsure"]
        if len(set(h) | set(j)) < 2:
            continue
        assert stats.kappa.value == pytest.approx(cohen_kappa_score(h, j))
        assert stats.accuracy.value == pytest.approx(accuracy_score(h, j))
        if "pass" in h:
            assert stats.tpr.value == pytest.approx(recall_score(h, j, pos_label="pass"))
        else:
            assert stats.tpr.value is None
        if "fail" in h:
            assert stats.tnr.value == pytest.approx(recall_score(h, j, pos_label="fail"))


def test_wilson_interval_by_hand_and_vs_statsmodels() -> None:
    from statsmodels.stats.proportion import proportion_confint

    # 4/5: z = 1.959964, z² = 3.841459; center = (4 + 1.920729) / 8.841459 = 0.669655;
    # half = 1.959964 / 8.841459 * sqrt(4 * 1 / 5 + 0.960365) = 0.221679 * 1.326788 = 0.294121
    lower, upper = wilson_interval(4, 5)
    assert lower == pytest.approx(0.669655 - 0.294121, abs=1e-5)
    assert upper == pytest.approx(0.669655 + 0.294121, abs=1e-5)
    for k, n in [(0, 10), (3, 7), (10, 10), (37, 120), (1, 1)]:
        ref = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert wilson_interval(k, n) == pytest.approx(ref)
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError, match="total > 0"):
        wilson_interval(0, 0)


def test_kappa_from_counts_and_bootstrap_match_a_slow_reference() -> None:
    # kappa from the cells of the hand example: tp 4, fn 1, fp 1, tn 2 -> 7/15
    assert float(kappa_from_counts(4, 1, 1, 2)) == pytest.approx(7 / 15)
    assert math.isnan(float(kappa_from_counts(5, 0, 0, 0)))  # one class on both sides
    rng = np.random.default_rng(3)
    human = rng.random(40) < 0.5
    judge = np.where(rng.random(40) < 0.8, human, ~human)
    lower, upper, dropped = bootstrap_kappa(human, judge, n_bootstrap=300, seed=11)
    # Same draws, kappa by scikit-learn on each resample.
    idx = np.random.default_rng(11).integers(0, 40, size=(300, 40))
    ref = [cohen_kappa_score(human[i], judge[i]) for i in idx]
    assert dropped == 0
    assert (lower, upper) == pytest.approx(tuple(np.quantile(ref, [0.025, 0.975])))
    assert lower < cohen_kappa_score(human, judge) < upper


def test_bootstrap_is_seeded() -> None:
    a = judge_agreement(HUMAN, JUDGE, n_bootstrap=100, seed=5).kappa
    b = judge_agreement(HUMAN, JUDGE, n_bootstrap=100, seed=5).kappa
    c = judge_agreement(HUMAN, JUDGE, n_bootstrap=100, seed=6).kappa
    assert (a.lower, a.upper) == (b.lower, b.upper)
    assert (a.lower, a.upper) != (c.lower, c.upper)
    assert "seed 5" in a.reason


def test_undefined_statistics_are_none_with_a_reason_never_zero() -> None:
    stats = judge_agreement(["pass"] * 4, ["pass"] * 4, n_bootstrap=10)
    assert stats.kappa.value is None
    assert "0/0" in stats.kappa.reason
    assert stats.tnr.value is None
    assert "negatives" in stats.tnr.reason
    assert stats.tpr.value == 1.0
    by = {c.label: c for c in stats.per_class}
    assert by["fail"].precision.value is None
    assert by["fail"].f1.value is None
    # Judge constant, humans mixed: kappa is DEFINED and 0 (po = pe = 0.5).
    mixed = judge_agreement(["pass", "fail"], ["pass", "pass"], n_bootstrap=10)
    assert mixed.kappa.value == pytest.approx(0.0)
    # All unsure: nothing decided.
    none = judge_agreement(["pass", "fail"], ["unsure", "unsure"])
    assert none.accuracy.value is None
    assert none.kappa.value is None
    assert none.unsure_rate.value == 1.0
    assert none.tpr_unsure_as_wrong.value == 0.0
    assert none.tnr_unsure_as_wrong.value == 0.0
    empty = judge_agreement([], [])
    assert empty.n_items == 0
    assert empty.prevalence.value is None
    assert empty.confusion.matrix == ((0, 0), (0, 0))
    with pytest.raises(ValueError, match="2 human labels but 1"):
        judge_agreement(["pass", "fail"], ["pass"])


def test_generic_cohen_kappa() -> None:
    # a = A A B tie, b = A B B tie: po = 3/4; pe = (2/4)(1/4) + (1/4)(2/4) + (1/4)(1/4) = 5/16;
    # kappa = (12/16 - 5/16) / (11/16) = 7/11
    a, b = ["A", "A", "B", "tie"], ["A", "B", "B", "tie"]
    assert cohen_kappa(a, b, ["A", "B", "tie"]) == pytest.approx(7 / 11)
    assert cohen_kappa(a, b, ["A", "B", "tie"]) == pytest.approx(cohen_kappa_score(a, b))
    assert cohen_kappa(["A"], ["A"], ["A", "B"]) is None
    assert cohen_kappa([], [], ["A"]) is None


UNITS = [["pass", "pass", "pass"], ["pass", "pass", "fail"], ["fail", "fail", "fail"]]


def test_fleiss_kappa_by_hand_and_vs_statsmodels() -> None:
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    # P_i = 1, (4 + 1 - 3)/6 = 1/3, 1 -> P = 7/9; p = 5/9, 4/9 -> Pe = 41/81;
    # kappa = (63/81 - 41/81) / (40/81) = 22/40 = 0.55
    assert fleiss_kappa(UNITS) == pytest.approx(0.55)
    rng = np.random.default_rng(2)
    for _ in range(10):
        data = rng.integers(0, 3, size=(12, 4))
        table, _ = aggregate_raters(data)
        assert fleiss_kappa(data.tolist()) == pytest.approx(sm_fleiss(table, method="fleiss"))
    assert fleiss_kappa([["a", "a"], ["a"]]) is None  # unequal ratings per item
    assert fleiss_kappa([["a", "a"], ["a", "a"]]) is None  # Pe = 1
    assert fleiss_kappa([]) is None


def test_krippendorff_alpha_by_hand_and_vs_package() -> None:
    import krippendorff

    # Nominal, same units: n = 9; D_o = (1/9)(0 + (9 - 5)/2 + 0) = 2/9;
    # D_e = (81 - 25 - 16) / (9 x 8) = 5/9; alpha = 1 - (2/9)/(5/9) = 0.6
    assert krippendorff_alpha(UNITS) == pytest.approx(0.6)
    # Interval: units [1,2], [3,3], [2,4]: D_o = (2 + 0 + 8)/6 = 10/6;
    # sum_{i!=j} (a-b)² = 2 x 6 x 43 - 2 x 15² = 66 -> D_e = 66 / 30 = 2.2; alpha = 1 - (10/6)/2.2
    assert krippendorff_alpha([[1, 2], [3, 3], [2, 4]], "interval") == pytest.approx(
        1 - (10 / 6) / 2.2
    )
    rng = np.random.default_rng(4)
    for _ in range(10):
        # raters x units with missing values
        data = rng.integers(1, 6, size=(4, 15)).astype(float)
        data[rng.random(data.shape) < 0.2] = np.nan
        units = [[v for v in data[:, u] if not np.isnan(v)] for u in range(data.shape[1])]
        for level in ("nominal", "interval"):
            ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            assert krippendorff_alpha(units, level) == pytest.approx(ref)
    assert krippendorff_alpha([["a"], ["b"]]) is None  # nothing pairable
    assert krippendorff_alpha([["a", "a"], ["a", "a"]]) is None  # no expected disagreement


def test_percent_agreement() -> None:
    # 1, 1/3, 1 -> 7/9; single-rating units are skipped
    assert percent_agreement([*UNITS, ["pass"]]) == pytest.approx(7 / 9)
    assert percent_agreement([["a"]]) is None


def _item(item_id: str, labels: list[str], scores: list[float] | None = None) -> LabelledItem:
    return LabelledItem(
        item_id=item_id,
        criterion=None,
        label="pass",
        line=1,
        annotator_labels=tuple((f"r{i}", v) for i, v in enumerate(labels)),  # type: ignore[misc]
        annotator_scores=tuple((f"r{i}", s) for i, s in enumerate(scores or [])),
    )


def test_inter_annotator_ceiling() -> None:
    items = [_item(str(i), u) for i, u in enumerate(UNITS)] + [_item("single", ["pass"])]
    stats = inter_annotator(items)
    assert stats is not None
    assert stats.n_items == 3
    assert stats.n_annotators == 3
    assert stats.ratings_per_item == (3, 3)
    assert stats.fleiss_kappa.value == pytest.approx(0.55)
    assert stats.krippendorff_alpha.value == pytest.approx(0.6)
    assert stats.krippendorff_alpha_interval is None
    uneven = inter_annotator([_item("a", ["pass", "fail"]), _item("b", ["pass", "pass", "pass"])])
    assert uneven is not None
    assert uneven.fleiss_kappa.value is None
    assert "different numbers of ratings" in uneven.fleiss_kappa.reason
    scored = inter_annotator(
        [
            _item("a", ["fail", "pass"], [1, 2]),
            _item("b", ["pass", "pass"], [3, 3]),
            _item("c", ["fail", "pass"], [2, 4]),
        ]
    )
    assert scored is not None
    assert scored.krippendorff_alpha_interval is not None
    assert scored.krippendorff_alpha_interval.value == pytest.approx(1 - (10 / 6) / 2.2)
    assert inter_annotator([_item("a", ["pass"])]) is None


def test_trust_on_lower_bounds() -> None:
    good = judge_agreement(
        ["pass"] * 60 + ["fail"] * 60,
        ["pass"] * 59 + ["fail"] + ["fail"] * 59 + ["pass"],
        n_bootstrap=300,
    )
    decision = decide_trust(good)
    assert decision.trusted, decision.reason
    assert [g.name for g in decision.gates] == ["TPR", "TNR", "kappa", "unsure"]
    assert all(g.bound is not None and g.bound < 1 for g in decision.gates)
    # The same point estimates on few items: the lower bounds miss the gates.
    small = judge_agreement(
        ["pass"] * 6 + ["fail"] * 6, ["pass"] * 6 + ["fail"] * 6, n_bootstrap=300
    )
    assert small.tpr.value == 1.0
    low = decide_trust(small)
    assert not low.trusted
    tpr_gate = low.gates[0]
    # Wilson lower bound for 6/6 is 0.6097 < 0.8
    assert tpr_gate.bound == pytest.approx(wilson_interval(6, 6)[0])
    assert not tpr_gate.passed
    assert "TPR lower bound 0.610 < 0.800" in low.reason
    # An undefined statistic fails its gate, with its reason.
    one = decide_trust(judge_agreement(["pass"] * 30, ["pass"] * 30, n_bootstrap=10))
    assert not one.trusted
    assert "TNR cannot be checked" in one.reason
    # The optional unsure gate uses the UPPER bound of the unsure rate.
    unsure = decide_trust(good, Gates(max_unsure=0.05))
    assert unsure.gates[-1].name == "unsure"
    assert unsure.gates[-1].passed
    assert unsure.gates[-1].bound == pytest.approx(wilson_interval(0, 120)[1])


def test_parse_gates() -> None:
    assert parse_gates("") == Gates()
    assert parse_gates("tpr=0.9, kappa=0.5") == Gates(tpr=0.9, tnr=0.8, kappa=0.5)
    assert parse_gates("max_unsure=0.1").max_unsure == 0.1
    with pytest.raises(InputError, match=r"unknown gate 'tp'"):
        parse_gates("tp=0.9")
    with pytest.raises(InputError, match="not a number"):
        parse_gates("tpr=high")
    with pytest.raises(InputError, match=r"gate 'tpr' is 1\.5, outside \[0, 1\]"):
        parse_gates("tpr=1.5")


# --------------------------------------------------------------------------------------------------
# Issue 14: gates that cannot be gamed by abstaining


def test_hand_made_twenty_items_stay_exact() -> None:
    # 12 human pass (judge: 10 pass, 2 fail), 8 human fail (judge: 6 fail, 2 pass); no unsure.
    human = ["pass"] * 12 + ["fail"] * 8
    judge = ["pass"] * 10 + ["fail"] * 2 + ["fail"] * 6 + ["pass"] * 2
    stats = judge_agreement(human, judge, n_bootstrap=500, seed=0)
    # po = 16/20 = 0.8; pe = (12*12 + 8*8)/400 = 0.52; kappa = 0.28/0.48 = 0.58333
    assert stats.kappa.value == pytest.approx(7 / 12, abs=1e-12)
    assert round(stats.kappa.value, 4) == 0.5833
    assert stats.tpr.value == pytest.approx(10 / 12)
    assert stats.tnr.value == pytest.approx(6 / 8)
    # Wilson 95%: 10/12 -> [0.5520, 0.9530]; 6/8 -> [0.4093, 0.9285] (z = 1.959964)
    assert (stats.tpr.lower, stats.tpr.upper) == pytest.approx(wilson_interval(10, 12))
    assert (stats.tnr.lower, stats.tnr.upper) == pytest.approx(wilson_interval(6, 8))
    assert round(stats.tpr.lower, 4) == 0.5520
    assert round(stats.tpr.upper, 4) == 0.9530
    assert round(stats.tnr.lower, 4) == 0.4093
    assert round(stats.tnr.upper, 4) == 0.9285
    # Without unsure verdicts the gated (unsure-as-wrong) forms are the same numbers.
    assert stats.tpr_unsure_as_wrong == stats.tpr.model_copy(
        update={"reason": stats.tpr_unsure_as_wrong.reason}
    )
    assert stats.kappa_unsure_as_wrong.value == stats.kappa.value
    assert stats.kappa_unsure_as_wrong.lower == stats.kappa.lower


def test_one_false_negative_turned_unsure_no_longer_raises_the_gated_tpr() -> None:
    # The case: a false negative becomes "unsure". Decided TPR rises (10/12 -> 10/11), the
    # gated TPR does not move (10/12) and the unsure gate notices.
    human = ["pass"] * 12 + ["fail"] * 8
    honest = ["pass"] * 10 + ["fail"] * 2 + ["fail"] * 6 + ["pass"] * 2
    gamed = ["pass"] * 10 + ["fail", "unsure"] + ["fail"] * 6 + ["pass"] * 2
    a = judge_agreement(human, honest, n_bootstrap=300)
    b = judge_agreement(human, gamed, n_bootstrap=300)
    assert b.tpr.value is not None
    assert a.tpr.value is not None
    assert b.tpr.value > a.tpr.value
    assert b.tpr_unsure_as_wrong.value == a.tpr_unsure_as_wrong.value == pytest.approx(10 / 12)
    gate = decide_trust(b, Gates(tpr=0.0, tnr=0.0, kappa=-1.0))
    assert [g.name for g in gate.gates][-1] == "unsure"


_VERDICT = st.sampled_from(["pass", "fail", "unsure"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.sampled_from(["pass", "fail"]), _VERDICT), min_size=2, max_size=40),
    st.data(),
)
def test_abstaining_never_raises_a_gated_number(
    pairs: list[tuple[str, str]], data: st.DataObject
) -> None:
    decided = [i for i, (_, j) in enumerate(pairs) if j != "unsure"]
    if not decided:
        return
    flip = data.draw(st.sampled_from(decided))
    human = [h for h, _ in pairs]
    before = [j for _, j in pairs]
    after = list(before)
    after[flip] = "unsure"
    gates = Gates(
        tpr=data.draw(st.floats(0, 1)),
        tnr=data.draw(st.floats(0, 1)),
        kappa=data.draw(st.floats(-1, 1)),
        max_unsure=data.draw(st.one_of(st.none(), st.floats(0, 1))),
    )
    a = judge_agreement(human, before, n_bootstrap=60, seed=3)
    b = judge_agreement(human, after, n_bootstrap=60, seed=3)
    for name in ("tpr_unsure_as_wrong", "tnr_unsure_as_wrong", "kappa_unsure_as_wrong"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x.value is None) == (y.value is None), name
        if x.value is not None:
            assert y.value <= x.value + 1e-12, name
        if x.lower is not None and y.lower is not None:
            assert y.lower <= x.lower + 1e-12, name
    assert b.unsure_rate.value is not None
    assert a.unsure_rate.value is not None
    assert b.unsure_rate.value >= a.unsure_rate.value
    da, db = decide_trust(a, gates), decide_trust(b, gates)
    for ga, gb in zip(da.gates, db.gates, strict=True):
        assert not (gb.passed and not ga.passed), (ga, gb)
    assert not (db.trusted and not da.trusted)


def test_max_unsure_is_on_by_default() -> None:
    assert Gates().max_unsure == 0.2
    assert parse_gates("").max_unsure == 0.2


# --- design-weighted gates (labels drawn at random within strata: pathjudge label --order gates)

_DESIGN = [
    # (human, judge, stratum, N_h)
    ("pass", "pass", "judge-pass", 10),
    ("fail", "pass", "judge-pass", 10),
    ("pass", "fail", "judge-fail", 30),
    ("fail", "fail", "judge-fail", 30),
    ("fail", "fail", "judge-fail", 30),
    ("pass", "unsure", "judge-unsure", 5),
]


def _design_weighted(rows: list[tuple[str, str, str, int]], **options: Any) -> AgreementStats:
    human, judge, strata, sizes = (list(column) for column in zip(*rows, strict=True))
    stats = judge_agreement(human, judge, n_bootstrap=0)  # type: ignore[arg-type]
    return design_weighted_gates(stats, human, judge, strata, sizes, **options)  # type: ignore[arg-type]


def test_design_weighted_gates_weigh_each_label_by_its_stratum_size_over_its_labels() -> None:
    # weights N_h / n_h: judge-pass 10/2 = 5, judge-fail 30/3 = 10, judge-unsure 5/1 = 5
    # weighted cells (human, judge): pass/pass 5, fail/pass 5, pass/fail 10, fail/fail 20,
    # pass/unsure 5, fail/unsure 0 (total 45 = 10 + 30 + 5 items)
    # TPR = 5 / (5 + 10 + 5) = 0.25; TNR = 20 / (5 + 20 + 0) = 0.8; unsure rate = 5 / 45
    # kappa, unsure as wrong: tp 5, fn 10 + 5 = 15, fp 5 + 0 = 5, tn 20; po = 25/45,
    # pe = (20·10 + 25·35) / 45² = 1075/2025, kappa = (1125 − 1075) / (2025 − 1075) = 50/950 = 1/19
    got = _design_weighted(_DESIGN, n_bootstrap=0)
    assert got.tpr_unsure_as_wrong.value == pytest.approx(0.25, abs=1e-12)
    assert got.tnr_unsure_as_wrong.value == pytest.approx(0.8, abs=1e-12)
    assert got.unsure_rate.value == pytest.approx(5 / 45, abs=1e-12)
    assert got.kappa_unsure_as_wrong.value == pytest.approx(1 / 19, abs=1e-12)
    # an independent computation: numpy weighted means and scikit-learn's weighted kappa
    human = np.array([h for h, _, _, _ in _DESIGN])
    judge = np.array([j for _, j, _, _ in _DESIGN])
    strata = [s for _, _, s, _ in _DESIGN]
    weight = np.array([n / strata.count(s) for _, _, s, n in _DESIGN])
    is_pass = human == "pass"
    assert got.tpr_unsure_as_wrong.value == pytest.approx(
        np.average(judge[is_pass] == "pass", weights=weight[is_pass]), abs=1e-9
    )
    assert got.tnr_unsure_as_wrong.value == pytest.approx(
        np.average(judge[~is_pass] == "fail", weights=weight[~is_pass]), abs=1e-9
    )
    assert got.unsure_rate.value == pytest.approx(
        np.average(judge == "unsure", weights=weight), abs=1e-9
    )
    wrong = np.where(judge == "unsure", np.where(is_pass, "fail", "pass"), judge)
    assert got.kappa_unsure_as_wrong.value == pytest.approx(
        cohen_kappa_score(human, wrong, sample_weight=weight), abs=1e-9
    )
    # the numbers no gate reads stay those of the labels as they are
    plain = judge_agreement(human.tolist(), judge.tolist(), n_bootstrap=0)
    assert (got.tpr, got.confusion, got.kappa) == (plain.tpr, plain.confusion, plain.kappa)


def test_design_weighted_intervals_are_seeded_and_hold_their_point() -> None:
    first = _design_weighted(_DESIGN, n_bootstrap=400, seed=3)
    assert first == _design_weighted(_DESIGN, n_bootstrap=400, seed=3)
    assert first != _design_weighted(_DESIGN, n_bootstrap=400, seed=4)
    for est in (first.tpr_unsure_as_wrong, first.tnr_unsure_as_wrong, first.unsure_rate):
        assert est.method == "bootstrap"
        assert est.lower is not None
        assert est.upper is not None
        assert est.value is not None
        assert est.lower <= est.value <= est.upper
        assert "design-weighted over 6 labels in 3 strata" in est.reason


def test_two_fail_labels_do_not_prove_a_large_stratum_holds_no_pass() -> None:
    # the judge passes 20 items (5 labelled, all truly pass) and fails 700 (2 labelled, both
    # truly fail): the TPR point is 1.0, but 700 unseen items may hide many passes the judge missed,
    # so the lower bound stays far below a 0.75 gate (resampling the labels would say [1, 1])
    rows = [("pass", "pass", "judge-pass", 20)] * 5 + [("fail", "fail", "judge-fail", 700)] * 2
    got = _design_weighted(rows, n_bootstrap=2000, seed=0)
    assert got.tpr_unsure_as_wrong.value == 1.0
    assert got.tpr_unsure_as_wrong.lower is not None
    assert got.tpr_unsure_as_wrong.lower < 0.5
    assert not decide_trust(got, Gates(tpr=0.75, tnr=0.0, kappa=-1.0)).trusted


def test_a_stratum_with_two_sizes_is_an_error() -> None:
    with pytest.raises(ValueError, match="two sizes"):
        _design_weighted([("pass", "pass", "a", 3), ("fail", "pass", "a", 4)])
