"""Which item to label next: a random order (what PPI++ needs) or the order that tightens the gates.

:func:`next_items` orders the items not labelled yet, each with the reason it comes there (the
labelling page shows it):

* ``random``: a stable shuffle by ``seed`` (sha256 of ``order``, the seed and the item id, the same
  shuffle ``pathjudge label --order random`` uses): the same order on every restart, independent of
  the judge, so its labels are a random sample. The default, and the only order whose labels PPI++
  uses (``calibrate`` keeps each label's order and says how many it left out).
* ``gates``: the items that tighten the failing trust gates fastest. The gates are computed with the
  real gate code on the labels so far; the failing gate furthest below its threshold names the class
  it needs more of (TPR: human ``pass`` items, TNR: ``fail`` items, kappa: the rarer class). Items
  are then ranked by how likely they are to be of that class, judging by the judge's verdict
  (estimated from the labels so far, with add-one smoothing), and every fourth place goes to an
  item where the judge's samples split or it answered unsure (where it is most likely wrong). Ties
  are balanced over slices and broken by the random order. With no failing gate (or only the unsure
  cap), the random order is used.
* ``file``: the items' own order.

``gates`` labels are NOT a random sample: they over-represent the items the judge put in the class
the gate needs, so a gate estimated from them leans towards the judge. Use them to find out quickly
whether a judge is hopeless; confirm a passing gate with random-order labels.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pathjudge.calibration.agreement import GateResult, Gates, decide_trust, judge_agreement

__all__ = ["QueueOrder", "next_items"]

QueueOrder = Literal["random", "gates", "file"]

_UNCERTAIN_EVERY = 4
"""Every this-many-th place of the gates order goes to an item where the judge is unsure."""


def _unit(*parts: object) -> float:
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
    target, why = _target(labels_so_far, verdicts, gates or Gates())
    if target is None:
        return [
            (item_id, f"{why}; random order (seed {seed})") for item_id, _ in _random(pending, seed)
        ]
    return _gates_order(pending, verdicts, labels_so_far, target, why, seed)


def _random(pending: Sequence[Any], seed: int) -> list[tuple[str, str]]:
    ids = sorted((_item_id(r) for r in pending), key=lambda item_id: _unit("order", seed, item_id))
    return [(item_id, f"random order (seed {seed})") for item_id in ids]


def _target(
    labels_so_far: Mapping[str, Any], verdicts: Mapping[str, Any], gates: Gates
) -> tuple[str | None, str]:
    """The class the failing gate furthest below its threshold needs, and why (None: no target)."""
    human: list[Any] = []
    judge: list[Any] = []
    for item_id, value in labels_so_far.items():
        label = _label_of(value)
        if label in ("pass", "fail"):
            human.append(label)
            judge.append(_judge_view(verdicts.get(item_id))[0].replace("none", "unsure"))
    n_pass = human.count("pass")
    n_fail = len(human) - n_pass
    if not human:
        return "rarer", "no label yet: the class the judge says least often first"
    stats = judge_agreement(human, judge, n_bootstrap=200, seed=0)
    trust = decide_trust(stats, gates)
    failing = [g for g in trust.gates if not g.passed and g.name in ("TPR", "TNR", "kappa")]
    if not failing:
        return None, "every pass/fail gate passes on the labels so far"

    def gap(gate: GateResult) -> float:
        return gate.threshold - gate.bound if gate.bound is not None else 2.0 + gate.threshold

    worst = max(failing, key=gap)
    bound = f"lower bound {worst.bound:.3f}" if worst.bound is not None else "undefined"
    why = f"the {worst.name} gate is furthest below its threshold ({bound} < {worst.threshold:.2f})"
    if worst.name == "TPR":
        return "pass", why + ": it needs human-pass items"
    if worst.name == "TNR":
        return "fail", why + ": it needs human-fail items"
    rarer = "pass" if n_pass <= n_fail else "fail"
    return rarer, why + f": it needs more of the rarer class ({rarer})"


def _gates_order(
    pending: Sequence[Any],
    verdicts: Mapping[str, Any],
    labels_so_far: Mapping[str, Any],
    target: str,
    why: str,
    seed: int,
) -> list[tuple[str, str]]:
    views = {_item_id(r): _judge_view(verdicts.get(_item_id(r))) for r in pending}
    if target == "rarer":
        said = [v for v, _ in views.values()]
        target = "pass" if said.count("pass") <= said.count("fail") else "fail"
    # P(human == target | judge said v), add-one smoothed over the labels so far
    hits: dict[str, int] = defaultdict(int)
    seen: dict[str, int] = defaultdict(int)
    for item_id, value in labels_so_far.items():
        label = _label_of(value)
        if label in ("pass", "fail"):
            said_v = _judge_view(verdicts.get(item_id))[0]
            seen[said_v] += 1
            hits[said_v] += label == target
    prior = {target: 0.75, "unsure": 0.5, "none": 0.5}

    def chance(said_v: str) -> float:
        return (hits[said_v] + 2 * prior.get(said_v, 0.25)) / (seen[said_v] + 2)

    def slice_key(record: Any) -> str:
        found = _field(record, "slice")
        return repr(sorted(found.items())) if isinstance(found, Mapping) else ""

    main: list[tuple[tuple[float, int, float], str, str]] = []
    uncertain: list[tuple[tuple[float, int, float], str, str]] = []
    turn: dict[tuple[bool, float, str], int] = defaultdict(int)
    for record in pending:
        item_id = _item_id(record)
        said_v, unsure = views[item_id]
        p = round(chance(said_v), 9)
        # within one tier of P(target), the slices take turns (balanced over slices)
        place = turn[(unsure, p, slice_key(record))]
        turn[(unsure, p, slice_key(record))] += 1
        key = (-p, place, _unit("order", seed, item_id))
        if unsure:
            reason = (
                f"{why}; the judge's samples split or it was unsure here "
                f"(P({target}) ~ {p:.2f} from the labels so far)"
            )
            uncertain.append((key, item_id, reason))
        else:
            reason = (
                f"{why}; the judge says {said_v} here, P({target}) ~ {p:.2f} from the labels so far"
            )
            main.append((key, item_id, reason))
    main_q = deque((item_id, reason) for _, item_id, reason in sorted(main))
    uncertain_q = deque((item_id, reason) for _, item_id, reason in sorted(uncertain))
    out: list[tuple[str, str]] = []
    while main_q or uncertain_q:
        take_uncertain = (len(out) + 1) % _UNCERTAIN_EVERY == 0
        source = uncertain_q if (take_uncertain and uncertain_q) or not main_q else main_q
        out.append(source.popleft())
    return out
