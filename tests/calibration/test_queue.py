"""Which item next: the random order PPI++ needs, and the order that tightens the failing gates."""

from __future__ import annotations

import hashlib
import random

import pytest

from pathjudge.calibration.agreement import Gates, decide_trust, judge_agreement
from pathjudge.calibration.queue import next_items
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


def test_a_failing_tpr_gate_puts_the_items_the_judge_passes_first_and_every_fourth_uncertain() -> (
    None
):
    items = [{"item_id": f"p{k}"} for k in range(6)] + [{"item_id": f"f{k}"} for k in range(6)]
    items += [{"item_id": f"u{k}"} for k in range(3)]
    verdicts = {f"p{k}": _votes(f"p{k}", "pass", "pass") for k in range(6)}
    verdicts |= {f"f{k}": _votes(f"f{k}", "fail", "fail") for k in range(6)}
    verdicts |= {f"u{k}": _votes(f"u{k}", "pass", "fail") for k in range(3)}
    # labels so far: plenty of fails the judge got right, one pass it missed -> TPR furthest below
    labels = {f"x{k}": "fail" for k in range(20)}
    labels["y"] = "pass"
    verdicts |= {f"x{k}": _votes(f"x{k}", "fail") for k in range(20)}
    verdicts["y"] = _votes("y", "fail")
    order = next_items(items, verdicts, labels, Gates(), "gates", 0)
    ids = [i for i, _ in order]
    assert sorted(ids) == sorted(d["item_id"] for d in items)
    assert [i[0] for i in ids[:8]] == ["p", "p", "p", "u", "p", "p", "p", "u"]
    assert ids[-1].startswith("f")
    assert "the TPR gate is furthest below its threshold" in order[0][1]
    assert "it needs human-pass items" in order[0][1]
    assert "samples split or it was unsure" in order[3][1]


def test_slices_take_turns_among_equally_likely_items() -> None:
    items = [{"item_id": f"n{k}", "slice": {"domain": "news"}} for k in range(4)]
    items += [{"item_id": f"s{k}", "slice": {"domain": "sport"}} for k in range(2)]
    verdicts = {d["item_id"]: _votes(str(d["item_id"]), "pass") for d in items}
    ids = [i for i, _ in next_items(items, verdicts, {}, Gates(), "gates", 0)]
    assert {ids[0][0], ids[1][0]} == {"n", "s"}
    assert {ids[2][0], ids[4][0]} == {"n", "s"}


def test_with_every_gate_passing_the_gates_order_falls_back_to_random() -> None:
    items = [{"item_id": f"i{k}"} for k in range(5)]
    labels = {f"l{k}": "pass" if k % 2 else "fail" for k in range(400)}
    verdicts = {f"l{k}": ("pass" if k % 2 else "fail") for k in range(400)}
    order = next_items(items, verdicts, labels, Gates(), "gates", 1)
    assert [i for i, _ in order] == [i for i, _ in next_items(items, None, {}, None, "random", 1)]
    assert order[0][1].startswith("every pass/fail gate passes on the labels so far")


def _labels_until_tpr_passes(order: str) -> int:
    rng = random.Random(11)
    truth: dict[str, str] = {}
    verdicts: dict[str, ItemVotes] = {}
    for k in range(400):
        item_id = f"i{k}"
        truth[item_id] = "pass" if rng.random() < 0.15 else "fail"
        right = rng.random() < (0.9 if truth[item_id] == "pass" else 0.85)
        said = truth[item_id] if right else ({"pass": "fail", "fail": "pass"}[truth[item_id]])
        verdicts[item_id] = _votes(item_id, said, said, said)
    gates = Gates(tpr=0.7, tnr=0.0, kappa=-1.0, max_unsure=None)
    items = [{"item_id": i} for i in truth]
    labels: dict[str, str] = {}
    while len(labels) < len(items):
        item_id = next_items(items, verdicts, labels, gates, order, 0)[0][0]  # type: ignore[arg-type]
        labels[item_id] = truth[item_id]
        stats = judge_agreement(
            list(labels.values()),  # type: ignore[arg-type]
            [verdicts[i].majority for i in labels],
            n_bootstrap=0,
        )
        if next(g for g in decide_trust(stats, gates).gates if g.name == "TPR").passed:
            return len(labels)
    return len(labels) + 1


def test_the_gates_order_reaches_a_passing_tpr_gate_with_fewer_labels_than_random() -> None:
    # 400 items, 15% pass, a judge with TPR 0.9 and TNR 0.85, TPR gate 0.7 on the lower bound:
    # random order meets a pass item one label in seven; the gates order one in two or better
    by_gates = _labels_until_tpr_passes("gates")
    by_random = _labels_until_tpr_passes("random")
    assert by_gates < by_random
