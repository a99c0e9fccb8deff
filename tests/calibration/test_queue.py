"""Which item next: the random order PPI++ needs, and the order that tightens the failing gates."""

from __future__ import annotations

import hashlib
import random
import statistics
from collections import Counter

import pytest

from pathjudge.calibration.agreement import (
    Gates,
    design_weighted_gates,
    judge_agreement,
)
from pathjudge.calibration.queue import next_items, strata
from pathjudge.calibration.verdicts import ItemVotes


def _votes(item_id: str, *samples: str) -> ItemVotes:
    return ItemVotes(item_id=item_id, criterion="c", verdicts=samples)  # type: ignore[arg-type]


def test_the_random_order_is_a_stable_seeded_shuffle_of_the_unlabelled_items() -> None:
    items = [{"item_id": f"i{k}"} for k in range(30)]
    first = next_items(items, None, {}, None, "random", 3)
    assert sorted(i for i, _ in first) == sorted(f"i{k}" for k in range(30))
    # the same shuffle as pathjudge label's: sha256 of "order", the seed and the id

    def unit(item_id: str) -> int:
        return int.from_bytes(
            hashlib.sha256(f"order\x1f3\x1f{item_id}".encode()).digest()[:8], "big"
        )

    assert [i for i, _ in first] == sorted((f"i{k}" for k in range(30)), key=unit)
    assert {reason for _, reason in first} == {"random order (seed 3)"}
    assert next_items(items, None, {}, None, "random", 4) != first
    # labelling an item takes it out and leaves the others' order as it was
    later = next_items(items, None, {first[0][0]: "pass"}, None, "random", 3)
    assert later == first[1:]


def test_the_file_order_keeps_the_items_order_and_everything_labelled_leaves_nothing() -> None:
    items = [{"item_id": "b"}, {"item_id": "a"}]
    assert [i for i, _ in next_items(items, None, {}, None, "file", 0)] == ["b", "a"]
    assert next_items(items, None, {"a": "pass", "b": "fail"}, None, "gates", 0) == []
    assert next_items([], None, {}, None, "gates", 0) == []
    with pytest.raises(ValueError, match="unknown order"):
        next_items(items, None, {}, None, "sideways", 0)  # type: ignore[arg-type]


def _pool(
    n: int, seed: int, *, prevalence: float, tpr: float, tnr: float, unsure: float
) -> tuple[dict[str, str], dict[str, ItemVotes]]:
    """A pool of ``n`` items: the truth, and a scripted judge's three samples (split when unsure)."""
    rng = random.Random(seed)
    truth: dict[str, str] = {}
    verdicts: dict[str, ItemVotes] = {}
    for k in range(n):
        item_id = f"i{k}"
        truth[item_id] = "pass" if rng.random() < prevalence else "fail"
        if rng.random() < unsure:
            verdicts[item_id] = _votes(item_id, "pass", "fail", "unsure")
            continue
        right = rng.random() < (tpr if truth[item_id] == "pass" else tnr)
        said = truth[item_id] if right else ({"pass": "fail", "fail": "pass"}[truth[item_id]])
        verdicts[item_id] = _votes(item_id, said, said, said)
    return truth, verdicts


def test_the_strata_are_what_the_judge_said_crossed_with_the_slice() -> None:
    items = [
        {"item_id": "a", "slice": {"domain": "news"}},
        {"item_id": "b", "slice": {"domain": "news"}},
        {"item_id": "c"},
        {"item_id": "d"},
        {"item_id": "e"},
    ]
    verdicts = {
        "a": _votes("a", "pass", "pass"),
        "b": _votes("b", "pass", "pass"),
        "c": _votes("c", "pass", "fail"),  # split samples
        "d": _votes("d", "fail", "fail"),
    }
    assert strata(items, verdicts) == {
        "a": ("judge-pass | domain=news", 2),
        "b": ("judge-pass | domain=news", 2),
        "c": ("judge-unsure", 1),
        "d": ("judge-fail", 1),
        "e": ("not-judged", 1),
    }


def test_the_gates_order_covers_every_stratum_then_draws_at_random_within_each() -> None:
    truth, verdicts = _pool(120, 1, prevalence=0.3, tpr=0.8, tnr=0.9, unsure=0.1)
    items = [{"item_id": i} for i in truth]
    design = strata(items, verdicts)
    order = next_items(items, verdicts, {}, Gates(), "gates", 5)
    ids = [i for i, _ in order]
    assert sorted(ids) == sorted(truth)
    # two labels in every stratum first
    assert Counter(design[i][0] for i in ids[:6]) == {
        "judge-pass": 2,
        "judge-fail": 2,
        "judge-unsure": 2,
    }
    assert all("so every stratum has 2 labels" in reason for _, reason in order[:6])
    assert order[6][1] in {f"stratum {k}, drawn to tighten TPR" for k, _ in design.values()}
    # within a stratum, the items come in the seeded random order (uniform, stable on restart)
    shuffled = [i for i, _ in next_items(items, None, {}, None, "random", 5)]
    for key in {k for k, _ in design.values()}:
        assert [i for i in ids if design[i][0] == key] == [
            i for i in shuffled if design[i][0] == key
        ]
    # labelling the first item leaves the rest of that stratum in the same order
    first = ids[0]
    later = [i for i, _ in next_items(items, verdicts, {first: truth[first]}, Gates(), "gates", 5)]
    key = design[first][0]
    assert [i for i in later if design[i][0] == key] == [i for i in ids[1:] if design[i][0] == key]


def test_with_every_gate_passing_the_gates_order_draws_in_proportion_to_the_strata() -> None:
    # 300 labelled items the judge passes (and got right) and 100 it fails: every pass/fail gate
    # passes. 30 + 10 more are pending, so the strata hold 330 and 110 items.
    labels = {f"l{k}": "pass" if k % 4 else "fail" for k in range(400)}
    verdicts: dict[str, str] = dict(labels)
    items = [{"item_id": i} for i in labels]
    for k in range(40):
        item_id = f"{'p' if k < 30 else 'f'}{k}"
        items.append({"item_id": item_id})
        verdicts[item_id] = "pass" if k < 30 else "fail"
    order = next_items(items, verdicts, labels, Gates(), "gates", 1)
    assert all("drawn in proportion" in reason for _, reason in order)
    # 330 judge-pass items for 110 judge-fail ones: three of one for each of the other
    assert Counter(i[0] for i, _ in order[:8]) == {"p": 6, "f": 2}
    assert Counter(i[0] for i, _ in order[:20]) == {"p": 15, "f": 5}


def _design_weighted_tpr(
    labels: dict[str, str], verdicts: dict[str, ItemVotes], design: dict[str, tuple[str, int]]
) -> float:
    human = list(labels.values())
    judge = [verdicts[i].majority for i in labels]
    stats = judge_agreement(human, judge, n_bootstrap=0)  # type: ignore[arg-type]
    weighted = design_weighted_gates(
        stats,
        human,  # type: ignore[arg-type]
        judge,
        [design[i][0] for i in labels],
        [design[i][1] for i in labels],
        n_bootstrap=0,
    )
    value = weighted.tpr_unsure_as_wrong.value
    assert value is not None
    return value


def test_the_design_weighted_tpr_of_gates_order_labels_is_unbiased() -> None:
    # one pool, 200 seeded gates orders: each labels 6 items (two per stratum), then 34 more in the
    # order the gates queue gives for those labels. The design-weighted TPR averages to the judge's
    # true TPR on the pool; the plain share of the labels does not (the TPR gate pulls the labels
    # towards the strata where missed passes hide).
    truth, verdicts = _pool(300, 5, prevalence=0.3, tpr=0.8, tnr=0.9, unsure=0.06)
    items = [{"item_id": i} for i in truth]
    design = strata(items, verdicts)
    passes = [i for i in truth if truth[i] == "pass"]
    true_tpr = sum(verdicts[i].majority == "pass" for i in passes) / len(passes)
    gates = Gates(tpr=0.9, tnr=0.0, kappa=-1.0, max_unsure=None)
    weighted: list[float] = []
    plain: list[float] = []
    for seed in range(200):
        labels: dict[str, str] = {}
        for item_id, _ in next_items(items, verdicts, labels, gates, "gates", seed)[:6]:
            labels[item_id] = truth[item_id]
        for item_id, _ in next_items(items, verdicts, labels, gates, "gates", seed)[:34]:
            labels[item_id] = truth[item_id]
        weighted.append(_design_weighted_tpr(labels, verdicts, design))
        hits = [verdicts[i].majority == "pass" for i in labels if labels[i] == "pass"]
        plain.append(sum(hits) / len(hits) if hits else 1.0)
    # a mean of 200 draws with a spread near 0.1 is good to about 0.007: 0.02 is three of those,
    # 0.04 more than five
    assert abs(statistics.mean(weighted) - true_tpr) < 0.02
    assert abs(statistics.mean(plain) - true_tpr) > 0.04
