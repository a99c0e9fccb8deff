"""The words of an alignment: the reason that reproduces the path score, and the diff lines.

Every reason names a call as ``call #N`` (1-based, :func:`call_name`) and a reference step as
``ref step LABEL`` (:func:`ref_name`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pathjudge.rubrics.path.records import PairedStep
from pathjudge.rubrics.path.spec import FaultCosts, Mode

__all__ = ["call_name", "ref_name"]


def call_name(index: int) -> str:
    """How every reason names a call of the run: 1-based, ``call #3`` for ``steps[2]``."""
    return f"call #{index + 1}"


def ref_name(label: str) -> str:
    """How every reason names a reference step: ``ref step #2`` (unnamed) or ``ref step lookup``."""
    return f"ref step {label}"


def _diff_lines(
    pairs: Sequence[PairedStep],
    missing: Sequence[str],
    extra: Sequence[int],
    wasted: Sequence[int],
) -> list[str]:
    lines: list[str] = []
    for pair in pairs:
        named = f"{ref_name(pair.ref)} ↔ {call_name(pair.call)} {pair.tool}"
        if pair.in_order:
            text = f"  {'=' if pair.ok else '~'} {named}"
        else:
            text = f"  ↕ {named} (out of order)"
        for diff in pair.diffs:
            text += f"; {diff.path}: {diff.reason}"
        lines.append(text)
    if missing:
        lines += [f"  - missing {ref_name(ref)}" for ref in missing]
    if extra:
        lines += [
            f"  + extra {call_name(index)}{' (wasted)' if index in wasted else ''}"
            for index in extra
        ]
    return lines


def _reason(
    name: str,
    mode: Mode,
    n_refs: int,
    pairs: Sequence[PairedStep],
    missing: Sequence[str],
    extra: Sequence[int],
    wasted: Sequence[int],
    out_of_order: Sequence[str],
    over: bool,
    order_fault: bool,
    n_calls: int,
    budget: int | None,
    faults: Mapping[str, int],
    costs: FaultCosts,
    score: int,
) -> str:
    ok = 0
    diffs: list[PairedStep] = []
    for p in pairs:
        if p.ok:
            if p.in_order:
                ok += 1
            if p.diffs:
                diffs.append(p)
        else:
            diffs.append(p)
    parts = [f"{name} ({mode}): {ok} of {n_refs} reference steps matched"]
    if missing:
        parts.append("missing: " + ", ".join([ref_name(ref) for ref in missing]))
    if diffs:
        parts.append(
            "argument diffs: "
            + "; ".join(
                [
                    f"{ref_name(p.ref)} ({call_name(p.call)}): "
                    + (", ".join([f"{d.path} {d.reason}" for d in p.diffs]) or "no match")
                    for p in diffs
                ]
            )
        )
    if out_of_order:
        parts.append("out of order: " + ", ".join([ref_name(ref) for ref in out_of_order]))
    if extra:
        parts.append(
            "extra: "
            + ", ".join([f"{call_name(i)}{' (wasted)' if i in wasted else ''}" for i in extra])
        )
        stray = [i for i in wasted if i not in extra]
        if stray:
            parts.append("wasted: " + ", ".join([call_name(i) for i in stray]))
    elif wasted:
        parts.append("wasted: " + ", ".join([call_name(i) for i in wasted]))
    if over:
        parts.append(f"{n_calls} calls, over the budget of {budget}")
    text = f"path score {score} = 100"
    count = faults["missing"]
    if count:
        text += " - " + _charge(costs.missing, count, "missing ref step")
    count = faults["wasted"]
    if count:
        text += " - " + _charge(costs.wasted, count, "wasted call")
    if over:
        text += f" - {costs.over_budget} (over budget)"
    if order_fault:
        text += f" - {costs.wrong_order} (wrong order)"
    parts.append(text)
    return "; ".join(parts)


def _charge(cost: int, count: int, what: str) -> str:
    """``20 (2 wasted calls × 10)``: a fault cost as the total it takes off and how it adds up."""
    return f"{cost * count} ({count} {what}{'' if count == 1 else 's'} × {cost})"
