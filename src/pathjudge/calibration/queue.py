"""Which item to label next: a random order (what PPI++ needs) or the order that tightens the gates.

:func:`next_items` orders the items not labelled yet, each with the reason it comes there (the
labelling page shows it):

* ``random``: a stable shuffle by ``seed`` (sha256 of ``order``, the seed and the item id, the same
  shuffle ``pathjudge label --order random`` uses): the same order on every restart, independent of
  the judge, so its labels are a random sample. The default, and the only order whose labels PPI++
  uses (``calibrate`` keeps each label's order and says how many it left out).
* ``gates``: stratified sampling that tightens the failing trust gates fastest, and stays honest.
  The items fall into strata by what the judge said (``judge-pass``, ``judge-fail``,
  ``judge-unsure`` where its samples split, it answered unsure or errored, ``not-judged``), crossed
  with the item's slice when it has one (:func:`strata`). Within a stratum the next item is
  uniformly random: the stratum's items in the random order of ``seed``, stable on restart. Which
  stratum comes next is chosen for the failing gate furthest below its threshold (the gates are
  computed design-weighted on the labels so far, as ``calibrate`` does): first every non-empty
  stratum gets two labels (so no stratum's share is unknown), then the stratum whose next label
  shrinks the gate's variance most (a sequential Neyman allocation: ``N_h² S_h² / (n_h (n_h + 1))``
  with ``S_h`` the spread of the gate's linearised statistic in the stratum, from add-one smoothed
  estimates). With no failing pass/fail gate, the strata are drawn in proportion to their size.
* ``file``: the items' own order.

``gates`` labels are a stratified sample, not a simple random one: the label log records each
label's stratum and its size ``N_h`` (:func:`strata`), and ``calibrate`` weighs each label by
``N_h / n_h`` (:func:`~pathjudge.calibration.agreement.design_weighted_gates`), so the gates stay
unbiased. PPI++ still uses the random-order labels only.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pathjudge.calibration.agreement import (
    GateResult,
    Gates,
    decide_trust,
    design_weighted_gates,
    judge_agreement,
)

__all__ = ["QueueOrder", "next_items", "stable_unit", "strata", "stratum_of"]

QueueOrder = Literal["random", "gates", "file"]

_MIN_PER_STRATUM = 2
"""Labels every non-empty stratum gets before the allocation favours any (a stratum with one label
has no spread in the bootstrap; one with none has an unknown share)."""


def stable_unit(*parts: object) -> float:
    """A stable number in [0, 1) from ``parts`` (the labelling page's random order uses the same)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _field(record: Any, name: str) -> Any:
    if isinstance(record, Mapping):
        return record.get(name)
    return getattr(record, name, None)


def _item_id(record: Any) -> str:
    value = _field(record, "item_id")
    if value is None:
        raise ValueError(f"an item has no item_id: {type(record).__name__}")
    return str(value)


def _label_of(value: Any) -> str | None:
    """``pass``/``fail``/``unsure`` from a label string, a LabelEvent or a LabelledItem."""
    label = value if isinstance(value, str) else _field(value, "label")
    return label if label in ("pass", "fail", "unsure") else None


def _judge_view(votes: Any) -> tuple[str, bool]:
    """(the judge's majority verdict, whether its samples split or it was unsure)."""
    if votes is None:
        return "none", False
    if isinstance(votes, str):
        verdict = votes if votes in ("pass", "fail", "unsure") else "unsure"
        return verdict, verdict == "unsure"
    majority = str(getattr(votes, "majority", "unsure"))
    if getattr(votes, "errored", False):
        return "unsure", True
    split = getattr(votes, "n_pass", 0) > 0 and getattr(votes, "n_fail", 0) > 0
    unsure = getattr(votes, "n_unsure", 0) > 0 or majority == "unsure"
    return majority, split or unsure


def next_items(
    items: Sequence[Any],
    verdicts: Mapping[str, Any] | None,
    labels_so_far: Mapping[str, Any],
    gates: Gates | None,
    order: QueueOrder,
    seed: int,
) -> list[tuple[str, str]]:
    """The items not labelled yet, in the order to label them, each as ``(item_id, reason)``.

    ``items``: the items-file records (anything with an ``item_id``, as an attribute or a key, and
    optionally a ``slice`` mapping). ``verdicts``: the judge's recorded verdicts by item id
    (:class:`~pathjudge.calibration.verdicts.ItemVotes`, or a plain ``pass``/``fail``/``unsure``
    string); ``None`` or an item without one is "not judged". ``labels_so_far``: the human labels by
    item id (``pass``/``fail``/``unsure`` strings, or records with a ``label``); those items are
    left out of the result. ``gates``: the trust gates (default :class:`Gates`). ``order`` and
    ``seed``: see the module docstring. Every unlabelled item is returned exactly once; empty input
    (or every item labelled) gives an empty list. An unknown ``order`` is a :class:`ValueError`.
    """
    pending = [record for record in items if _item_id(record) not in labels_so_far]
    if order == "file":
        return [
            (_item_id(r), f"file order (item {i + 1} of {len(items)})")
            for i, r in enumerate(pending)
        ]
    if order == "random":
        return _random(pending, seed)
    if order != "gates":
        raise ValueError(f"unknown order {order!r}: use random, gates or file")
    verdicts = verdicts or {}
    design = strata(items, verdicts)
    gate, why = _target(labels_so_far, verdicts, gates or Gates(), design)
    return _stratified(pending, design, labels_so_far, verdicts, gate, why, seed)


def stratum_of(votes: Any, slice_: Any = None) -> str:
    """The gates order's stratum of an item: what the judge said, crossed with the item's slice.

    ``votes``: an :class:`~pathjudge.calibration.verdicts.ItemVotes`, a verdict string or None.
    ``judge-pass`` / ``judge-fail`` (every sample agreed), ``judge-unsure`` (the samples split, one
    was unsure, or every sample errored), ``not-judged``; a slice adds ``" | key=value, ..."``.
    """
    said, unsure = _judge_view(votes)
    if said == "none":
        name = "not-judged"
    elif unsure or said not in ("pass", "fail"):
        name = "judge-unsure"
    else:
        name = f"judge-{said}"
    if isinstance(slice_, Mapping) and slice_:
        name += " | " + ", ".join(f"{k}={v}" for k, v in sorted(slice_.items()))
    return name


def strata(items: Sequence[Any], verdicts: Mapping[str, Any] | None) -> dict[str, tuple[str, int]]:
    """Every item's ``(stratum, N_h)``: its :func:`stratum_of` and how many ``items`` share it."""
    verdicts = verdicts or {}
    keys = {_item_id(r): stratum_of(verdicts.get(_item_id(r)), _field(r, "slice")) for r in items}
    sizes = Counter(keys.values())
    return {item_id: (key, sizes[key]) for item_id, key in keys.items()}


def _random(pending: Sequence[Any], seed: int) -> list[tuple[str, str]]:
    ids = sorted(
        (_item_id(r) for r in pending), key=lambda item_id: stable_unit("order", seed, item_id)
    )
    return [(item_id, f"random order (seed {seed})") for item_id in ids]


def _target(
    labels_so_far: Mapping[str, Any],
    verdicts: Mapping[str, Any],
    gates: Gates,
    design: Mapping[str, tuple[str, int]],
) -> tuple[str | None, str]:
    """The failing pass/fail gate furthest below its threshold (None: every such gate passes), and
    why."""
    human: list[Any] = []
    judge: list[Any] = []
    keys: list[str] = []
    sizes: list[int] = []
    for item_id, value in labels_so_far.items():
        label = _label_of(value)
        if label in ("pass", "fail") and item_id in design:
            human.append(label)
            judge.append(_judge_view(verdicts.get(item_id))[0].replace("none", "unsure"))
            keys.append(design[item_id][0])
            sizes.append(design[item_id][1])
    if not human:
        return "TPR", "no label yet"
    stats = judge_agreement(human, judge, n_bootstrap=200, seed=0)
    stats = design_weighted_gates(stats, human, judge, keys, sizes, n_bootstrap=200, seed=0)
    trust = decide_trust(stats, gates)
    failing = [g for g in trust.gates if not g.passed and g.name in ("TPR", "TNR", "kappa")]
    if not failing:
        return None, "every pass/fail gate passes on the labels so far"

    def gap(gate: GateResult) -> float:
        return gate.threshold - gate.bound if gate.bound is not None else 2.0 + gate.threshold

    worst = max(failing, key=gap)
    return worst.name, f"{worst.name} fails"


def _spread(gate: str | None, key: str, p_pass: float, tpr: float, tnr: float) -> float:
    """S_h² of the gate's linearised statistic in stratum ``key`` (the Neyman allocation's weight).

    TPR ≈ Σ N_h·P(pass & judge pass)_h / Σ N_h·P(pass)_h: its influence in a judge-pass stratum is
    ``[human pass]·(1 − TPR)``, elsewhere ``−[human pass]·TPR``, so ``S_h² = p(1 − p)·c²``; TNR
    likewise for the fail class; kappa sums both. No failing gate: 1 (proportional allocation).
    """
    if gate is None:
        return 1.0
    judge_pass = key.startswith("judge-pass")
    judge_fail = key.startswith("judge-fail")
    var = p_pass * (1.0 - p_pass)
    s_tpr = var * ((1.0 - tpr) if judge_pass else tpr) ** 2
    s_tnr = var * ((1.0 - tnr) if judge_fail else tnr) ** 2
    return {"TPR": s_tpr, "TNR": s_tnr}.get(gate, s_tpr + s_tnr)


def _stratified(
    pending: Sequence[Any],
    design: Mapping[str, tuple[str, int]],
    labels_so_far: Mapping[str, Any],
    verdicts: Mapping[str, Any],
    gate: str | None,
    why: str,
    seed: int,
) -> list[tuple[str, str]]:
    queues: dict[str, list[str]] = {}
    for item_id in sorted(
        (_item_id(r) for r in pending), key=lambda i: stable_unit("order", seed, i), reverse=True
    ):
        queues.setdefault(design[item_id][0], []).append(item_id)  # popped from the end
    size = dict(design.values())
    labelled: Counter[str] = Counter()
    passes: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    for item_id, value in labels_so_far.items():
        if item_id not in design:
            continue
        key = design[item_id][0]
        labelled[key] += 1
        label = _label_of(value)
        if label in ("pass", "fail"):
            decided[key] += 1
            passes[key] += label == "pass"
    # add-one smoothed shares of human pass per stratum, and the TPR and TNR they imply (smoothed,
    # so a stratum is never written off after a few labels)
    share = {key: (passes[key] + 1) / (decided[key] + 2) for key in size}
    if not size:
        return []
    hits = sum(size[k] * share[k] for k in size if k.startswith("judge-pass"))
    tpr = hits / sum(size[k] * share[k] for k in size)
    rejects = sum(size[k] * (1 - share[k]) for k in size if k.startswith("judge-fail"))
    tnr = rejects / sum(size[k] * (1 - share[k]) for k in size)
    spread = {key: _spread(gate, key, share[key], tpr, tnr) for key in queues}
    aim = f"drawn to tighten {gate}" if gate is not None else f"drawn in proportion ({why})"
    out: list[tuple[str, str]] = []
    while queues:
        short = [k for k in queues if labelled[k] < _MIN_PER_STRATUM]
        if short:
            key = min(short, key=lambda k: (labelled[k], -size[k], k))
            reason = f"stratum {key}, drawn so every stratum has {_MIN_PER_STRATUM} labels"
        else:
            key = max(
                queues,
                key=lambda k: (size[k] ** 2 * spread[k] / (labelled[k] * (labelled[k] + 1)), k),
            )
            reason = f"stratum {key}, {aim}"
        out.append((queues[key].pop(), reason))
        labelled[key] += 1
        if not queues[key]:
            del queues[key]
    return out
