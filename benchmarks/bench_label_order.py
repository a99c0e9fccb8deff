"""How many labels until the TPR gate passes: ``--order gates`` against ``--order random``.

A simulated pool: N items, a share ``prevalence`` truly ``pass``; a scripted judge with known TPR and
TNR that answers ``unsure`` on a share of the items (its three samples then split); raters answer
the truth. For each order, labels are drawn one at a time by
:func:`pathjudge.calibration.queue.next_items` (recomputed after every label) and the real gate code
(:func:`judge_agreement` + :func:`decide_trust`) is run after each label, until the TPR gate passes
(or the budget runs out). Gates-order labels are measured as ``calibrate`` measures them: design-
weighted by their strata (:func:`design_weighted_gates`, each label weighs N_h/n_h, stratified
Bayesian bootstrap interval); random-order labels as a simple random sample. Prints, per seed, both
counts and the TPR point estimate when the gate passed, beside the judge's true TPR (both should be
near it: neither order may pass on a biased sample), then the medians.

Usage::

    python benchmarks/bench_label_order.py [--items 500] [--seeds 5] [--tpr 0.9] [--tnr 0.85]
        [--prevalence 0.15] [--unsure 0.05] [--gate 0.7] [--budget 300]

Not a timed test: it counts labels, not seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
from dataclasses import dataclass

from pathjudge.calibration.agreement import (
    AgreementStats,
    Gates,
    decide_trust,
    design_weighted_gates,
    judge_agreement,
)
from pathjudge.calibration.queue import next_items, strata
from pathjudge.calibration.verdicts import ItemVotes


@dataclass(frozen=True)
class Pool:
    truth: dict[str, str]
    verdicts: dict[str, ItemVotes]
    true_tpr: float


def make_pool(
    n: int, *, prevalence: float, tpr: float, tnr: float, unsure: float, seed: int
) -> Pool:
    """A pool of ``n`` items with their truth and a scripted judge's three samples each."""
    rng = random.Random(seed)
    truth: dict[str, str] = {}
    verdicts: dict[str, ItemVotes] = {}
    hits = positives = 0
    for i in range(n):
        item_id = f"i{i:05d}"
        human = "pass" if rng.random() < prevalence else "fail"
        if rng.random() < unsure:
            samples: tuple[str, ...] = ("pass", "fail", "unsure")
        else:
            right = rng.random() < (tpr if human == "pass" else tnr)
            said = human if right else ("fail" if human == "pass" else "pass")
            samples = (said, said, said)
        truth[item_id] = human
        verdicts[item_id] = ItemVotes(item_id=item_id, criterion="c", verdicts=samples)  # type: ignore[arg-type]
        if human == "pass":
            positives += 1
            hits += verdicts[item_id].majority == "pass"
    return Pool(truth, verdicts, hits / positives if positives else float("nan"))


def measure(pool: Pool, labels: dict[str, str], order: str, n_bootstrap: int) -> AgreementStats:
    """The gates on ``labels`` as ``calibrate`` computes them for that order."""
    human = list(labels.values())
    judge = [pool.verdicts[i].majority for i in labels]
    stats = judge_agreement(human, judge, n_bootstrap=0)  # type: ignore[arg-type]
    if order != "gates":
        return stats
    design = strata([{"item_id": i} for i in pool.truth], pool.verdicts)
    return design_weighted_gates(
        stats,
        human,  # type: ignore[arg-type]
        judge,
        [design[i][0] for i in labels],
        [design[i][1] for i in labels],
        n_bootstrap=n_bootstrap,
    )


def labels_until_tpr_passes(
    pool: Pool, order: str, gates: Gates, *, seed: int, budget: int, n_bootstrap: int = 1000
) -> tuple[int | None, float | None]:
    """Labels drawn in ``order`` until the TPR gate passes: (count, TPR point then) or (None, None)."""
    items = [{"item_id": item_id} for item_id in pool.truth]
    labels: dict[str, str] = {}
    for count in range(1, budget + 1):
        queue = next_items(items, pool.verdicts, labels, gates, order, seed)  # type: ignore[arg-type]
        if not queue:
            return None, None
        item_id, _ = queue[0]
        labels[item_id] = pool.truth[item_id]
        stats = measure(pool, labels, order, n_bootstrap)
        trust = decide_trust(stats, gates)
        tpr_gate = next(g for g in trust.gates if g.name == "TPR")
        if tpr_gate.passed:
            return count, stats.tpr_unsure_as_wrong.value
    return None, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--tpr", type=float, default=0.9)
    parser.add_argument("--tnr", type=float, default=0.85)
    parser.add_argument("--prevalence", type=float, default=0.15)
    parser.add_argument("--unsure", type=float, default=0.05)
    parser.add_argument("--gate", type=float, default=0.7, help="the TPR gate (lower bound)")
    parser.add_argument("--budget", type=int, default=300, help="labels at most per run")
    args = parser.parse_args()
    gates = Gates(tpr=args.gate, tnr=0.0, kappa=-1.0, max_unsure=None)
    counts: dict[str, list[int]] = {"random": [], "gates": []}
    print(
        f"pool {args.items} items, prevalence {args.prevalence}, judge TPR {args.tpr} TNR "
        f"{args.tnr}, unsure {args.unsure}; TPR gate {args.gate} (lower bound)"
    )
    for seed in range(args.seeds):
        pool = make_pool(
            args.items,
            prevalence=args.prevalence,
            tpr=args.tpr,
            tnr=args.tnr,
            unsure=args.unsure,
            seed=seed,
        )
        row = [f"seed {seed}: judge's true TPR {pool.true_tpr:.3f}"]
        for order in ("random", "gates"):
            count, tpr = labels_until_tpr_passes(pool, order, gates, seed=seed, budget=args.budget)
            counts[order].append(count if count is not None else args.budget + 1)
            row.append(
                f"{order} {count} labels (TPR then {tpr:.3f})"
                if count is not None and tpr is not None
                else f"{order} > {args.budget} labels"
            )
        print("; ".join(row))
    med_random = statistics.median(counts["random"])
    med_gates = statistics.median(counts["gates"])
    print(
        f"median labels until the TPR gate passes: random {med_random}, gates {med_gates} "
        f"(gates needs {med_gates / med_random:.2f}x the labels of random)"
    )


if __name__ == "__main__":
    main()
