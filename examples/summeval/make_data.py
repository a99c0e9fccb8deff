"""Derive calibration labels (and judge items) from SummEval's expert consistency scores.

Source: ``../shared/data/summeval/summeval.jsonl`` (never copied into the repository): 1,600 summaries of
100 CNN/DailyMail articles, each with the MEAN of three experts' 1-5 consistency scores.

Label rule (binary): ``pass`` iff the mean consistency is 5, i.e. all three experts found no factual
error; anything lower is ``fail``. Each label record carries the score (``score`` + ``threshold: 5``),
the article and summary as the judge inputs of the built-in ``summary-faithful`` criterion (``source``,
``summary``), the article as ``group`` (the 16 summaries of one article are 16 systems' answers to one
task), and a split by article (train / dev / test), so few-shot examples never leak into evaluation.

Inter-annotator agreement: the file has only the means, so the individual expert scores, and with them
the exact Fleiss' kappa or Krippendorff's alpha of the experts, CANNOT be computed. What the means do
allow: for each item the number of experts who gave a 5 is pinned down to a small set (a mean of 5 means
three 5s; 4.667 exactly two; 4.333 one or two; 2.0 or lower none), so this script reports the exact
range of Fleiss' kappa and Krippendorff's alpha (nominal, on "gave a 5") over every assignment of expert
scores consistent with the means.

Usage::

    python examples/summeval/make_data.py [--data PATH] [--out examples/summeval/data]
        [--subset 40] [--seed 0]

Writes ``labels.jsonl`` (all 1,600 items), ``labels-subset.jsonl`` (a balanced random subset for a
quick live judge run: half pass, half fail, drawn from the test split), ``items.jsonl`` and
``items-subset.jsonl`` (the same items without labels: ``{item_id, inputs}``, what ``pathjudge label``
and ``pathjudge judge`` read) and ``summary.json`` (counts and the inter-annotator bounds), and prints
the summary.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent.parent / "shared" / "data" / "summeval" / "summeval.jsonl"
"""Where the project's shared data lives beside a checkout; ``--data`` or ``$SUMMEVAL_DATA`` override it."""
MISSING_DATA = """SummEval not found at {path}.
This example reads SummEval's expert annotations as one JSON object per line with the fields
article_id, summary_id, article, summary, coherence, consistency, fluency, relevance (the mean of the
three experts' 1-5 scores). Get them from the public SummEval release (Yale-LILY/SummEval, MIT licence;
a ready JSONL of these fields is data/summeval.jsonl in maiush/PPairS), then pass the file with
--data PATH or set SUMMEVAL_DATA=PATH. See examples/summeval/README.md."""


def default_data() -> Path:
    """``$SUMMEVAL_DATA`` when set, else the shared data folder beside the checkout."""
    import os

    env = os.environ.get("SUMMEVAL_DATA")
    return Path(env) if env else DEFAULT_DATA


CRITERION = "summary-faithful"
RATERS = 3


def load_rows(path: Path) -> list[dict[str, Any]]:
    """The SummEval records, one dict per line."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def score_sum(mean: float) -> int:
    """The integer sum of the three expert scores behind a mean (means are stored as k/3 floats)."""
    return round(mean * RATERS)


def fives_options(mean: float) -> list[int]:
    """How many of the three experts can have given a 5, given their mean score (scores are 1-5)."""
    total = score_sum(mean)
    options = []
    for fives in range(RATERS + 1):
        rest, others = total - 5 * fives, RATERS - fives
        if others * 1 <= rest <= others * 4:
            options.append(fives)
    return options


def split_of(article_index: int, order: Sequence[int]) -> str:
    """train for the first 20 shuffled articles, dev for the next 20, test for the rest."""
    rank = order.index(article_index)
    return "train" if rank < 20 else "dev" if rank < 40 else "test"


def derive_labels(rows: Sequence[dict[str, Any]], *, seed: int = 0) -> list[dict[str, Any]]:
    """One label record per summary (see the module docstring for the rule and fields)."""
    articles = sorted({r["article_id"] for r in rows}, key=lambda a: int(a.lstrip("A")))
    order = list(range(len(articles)))
    random.Random(seed).shuffle(order)
    index_of = {article: i for i, article in enumerate(articles)}
    labels = []
    for row in rows:
        mean = float(row["consistency"])
        labels.append(
            {
                "item_id": f"{row['article_id']}-{row['summary_id']}",
                "criterion": CRITERION,
                "score": round(score_sum(mean) / RATERS, 6),
                "threshold": 5.0,
                "split": split_of(index_of[row["article_id"]], order),
                "group": row["article_id"],
                "inputs": {"source": row["article"], "summary": row["summary"]},
                "metadata": {
                    "consistency_mean_of_3_experts": mean,
                    "experts_fives": fives_options(mean),
                },
            }
        )
    return labels


def agreement_bounds(means: Iterable[float]) -> dict[str, Any]:
    """Exact min/max of Fleiss' kappa and Krippendorff's alpha over expert scores fitting the means.

    The binary rating is "this expert gave a 5". With three raters per item and K fives in total over N
    items, of which S items are split (not unanimous): P_i is 1 for a unanimous item and 1/3 for a
    split one, p = K / 3N, Pe = p² + (1-p)², kappa = (mean P_i - Pe) / (1 - Pe); and alpha (nominal,
    no missing data) = 1 - D_o / D_e with D_o = 2S / 3N and D_e = 2K(3N - K) / (3N (3N - 1)).
    Reachable (S, K) pairs are enumerated item by item.
    """
    states = {(0, 0)}
    n = 0
    for mean in means:
        n += 1
        step = {(int(f not in (0, RATERS)), f) for f in fives_options(mean)}
        states = {(s + ds, k + dk) for s, k in states for ds, dk in step}
    ratings = RATERS * n
    kappas, alphas = [], []
    for split, fives in states:
        p = fives / ratings
        pe = p * p + (1 - p) * (1 - p)
        p_bar = (n - split + split / 3) / n
        if pe < 1:
            kappas.append((p_bar - pe) / (1 - pe))
        d_e = 2 * fives * (ratings - fives) / (ratings * (ratings - 1))
        if d_e > 0:
            alphas.append(1 - (2 * split / ratings) / d_e)
    return {
        "items": n,
        "assignments_considered": len(states),
        "fleiss_kappa_min": min(kappas),
        "fleiss_kappa_max": max(kappas),
        "krippendorff_alpha_min": min(alphas),
        "krippendorff_alpha_max": max(alphas),
    }


def balanced_subset(
    labels: Sequence[dict[str, Any]], size: int, *, seed: int = 0
) -> list[dict[str, Any]]:
    """``size`` test-split labels, half pass and half fail, drawn at random (seeded), in file order."""
    rng = random.Random(seed)
    test = [r for r in labels if r["split"] == "test"]
    passes = [r for r in test if r["score"] >= r["threshold"]]
    fails = [r for r in test if r["score"] < r["threshold"]]
    chosen = {
        r["item_id"] for r in rng.sample(passes, size // 2) + rng.sample(fails, size - size // 2)
    }
    return [r for r in labels if r["item_id"] in chosen]


def summarise(labels: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts per label and split, and what inter-annotator agreement the means allow."""
    passes = sum(1 for r in labels if r["score"] >= r["threshold"])
    by_split: dict[str, dict[str, int]] = {}
    for r in labels:
        bucket = by_split.setdefault(r["split"], {"pass": 0, "fail": 0})
        bucket["pass" if r["score"] >= r["threshold"] else "fail"] += 1
    exact = {3: 0, 2: 0, 0: 0}
    ambiguous = 0
    for row in rows:
        options = fives_options(float(row["consistency"]))
        if len(options) == 1:
            exact[options[0]] = exact.get(options[0], 0) + 1
        else:
            ambiguous += 1
    return {
        "items": len(labels),
        "pass": passes,
        "fail": len(labels) - passes,
        "by_split": by_split,
        "experts_fives_known_exactly": {str(k): v for k, v in exact.items()},
        "experts_fives_ambiguous_items": ambiguous,
        "inter_annotator_bounds": agreement_bounds(float(r["consistency"]) for r in rows),
        "note": (
            "Only means of 3 experts are published here: exact expert-expert agreement cannot be "
            "computed; the bounds range over every assignment of 1-5 scores consistent with the means."
        ),
    }


def as_item(label: dict[str, Any]) -> dict[str, Any]:
    """The item of a label record: its id and the judge inputs, nothing that gives the label away."""
    return {"item_id": label["item_id"], "inputs": label["inputs"]}


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="SummEval JSONL (default: $SUMMEVAL_DATA, else ../shared/data/summeval/summeval.jsonl)",
    )
    parser.add_argument("--out", type=Path, default=HERE / "data")
    parser.add_argument("--subset", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.data is None:
        args.data = default_data()
    if not args.data.is_file():
        print(MISSING_DATA.format(path=args.data), file=sys.stderr)
        return 2
    rows = load_rows(args.data)
    labels = derive_labels(rows, seed=args.seed)
    write_jsonl(args.out / "labels.jsonl", labels)
    subset = balanced_subset(labels, args.subset, seed=args.seed)
    write_jsonl(args.out / "labels-subset.jsonl", subset)
    # the same items without their labels: what `pathjudge label` and `pathjudge judge` read
    write_jsonl(args.out / "items.jsonl", (as_item(r) for r in labels))
    write_jsonl(args.out / "items-subset.jsonl", (as_item(r) for r in subset))
    summary = summarise(labels, rows)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
