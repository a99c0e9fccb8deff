"""Realistic end-to-end benchmark: ``pathjudge score --fast`` against a plain-Python floor, same run.

    python benchmarks/bench_realistic.py [--runs 30000] [--big 300000] [--million] [--repeat 5]

Two workloads, each written to a temporary JSONL once:

- **realistic**: ``make_runs.py`` runs (2-8 calls, parallel turns, errored and malformed calls, unicode,
  unique answers) over a 200-task suite that uses every alignment mode (strict, in_order, unordered,
  subset, superset, partial_order), alternative references, step budgets, argument expectations and a
  success criterion over the answer;
- **tau-shaped**: runs shaped like tau-bench retail trajectories, about 18 KB each, most of it a long
  system prompt (the policy) and JSON tool results, 4-14 calls over retail tools with nested arguments.

For each it prints the median wall time (≥5 rounds, taking turns) of the plain floor — one process:
interpreter start, ``json.loads`` per line, the four basic checks — and of
``pathjudge score --fast -q --jobs 1``, the same work in one process, and their ratio (targets: ≤5x
realistic, ≤5x tau-shaped). It also prints ``score --fast`` with the default ``--jobs`` (the core count
for a file this large) and its ratio to the same one-process floor, for information: that figure
divides the work over every core while the floor uses one, so it is not the target's ratio. Then peak RSS (``/usr/bin/time -f %M``) of
``score --fast`` at ``--runs`` and ``--big`` runs (and 1M with ``--million``; target: flat, ≤1.25x
and ≤120 MB), and the ``--jobs 2`` speedup over ``--jobs 1`` on the ``--big`` file (target ≥1.7x on
two cores). Nothing asserts; it prints the figures and whether each target is met.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    cpu_count,
    floor_cmd,
    measure,
    median_commands,
    pathjudge_cmd,
    realistic_suite,
    verdict,
    write_floor,
)
from make_runs import write as write_runs

# -- the tau-shaped workload --------------------------------------------------------------------------

TAU_TOOLS = [
    "find_user_id_by_email",
    "find_user_id_by_name_zip",
    "get_user_details",
    "get_order_details",
    "get_product_details",
    "list_all_product_types",
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "return_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "transfer_to_human_agents",
]
_POLICY_RULES = [
    "Before taking any action that updates the database, list the action details and obtain explicit "
    "user confirmation (yes) to proceed.",
    "You should not make up any information or knowledge or procedures not provided by the user or "
    "the tools, or give subjective recommendations or comments.",
    "You should at most make one tool call at a time, and if you take a tool call, you should not "
    "respond to the user at the same time.",
    "An order can only be exchanged or returned if its status is 'delivered', and you should check "
    "its status before taking the action.",
    "The refund must either go to the original payment method, or an existing gift card.",
    "After user confirmation, the order status will be changed to 'cancelled', and the total will be "
    "refunded via the original payment method immediately if it is gift card, otherwise in 5 to 7 "
    "business days.",
    "You should authenticate the user identity by locating their user id via email, or via name + zip "
    "code, even when the user already provides the user id.",
]


def _policy(rng: random.Random) -> str:
    """A long, slightly varied system prompt (the retail policy wiki), ~12-14 KB."""
    parts = ["# Retail agent policy\n"]
    section = 0
    while sum(len(p) for p in parts) < 11500 + rng.randint(0, 2000):
        section += 1
        parts.append(f"\n## Section {section}\n")
        parts.extend(f"- {rule}\n" for rule in rng.sample(_POLICY_RULES, 4))
    return "".join(parts)


def _tau_args(rng: random.Random, tool: str, user: str) -> dict[str, Any]:
    order = f"#W{rng.randint(1_000_000, 9_999_999)}"
    if tool == "find_user_id_by_email":
        return {"email": f"{user}@example.com"}
    if tool == "find_user_id_by_name_zip":
        return {"first_name": user.split("_")[0], "last_name": user.split("_")[1], "zip": "10001"}
    if tool in ("get_user_details", "modify_user_address"):
        return {"user_id": user}
    if tool in ("exchange_delivered_order_items", "modify_pending_order_items"):
        return {
            "order_id": order,
            "item_ids": [str(rng.randint(10**9, 10**10)) for _ in range(rng.randint(1, 3))],
            "new_item_ids": [str(rng.randint(10**9, 10**10)) for _ in range(rng.randint(1, 3))],
            "payment_method_id": f"credit_card_{rng.randint(1000, 9999)}",
        }
    if tool == "get_product_details":
        return {"product_id": str(rng.randint(10**9, 10**10))}
    if tool == "list_all_product_types":
        return {}
    if tool == "transfer_to_human_agents":
        return {"summary": f"user {user} wants help with order {order}"}
    return {"order_id": order, "reason": rng.choice(["no longer needed", "ordered by mistake"])}


def _tau_result(rng: random.Random) -> str:
    items = [
        {
            "name": rng.choice(
                ["T-Shirt", "Water Bottle", "Desk Lamp", "Backpack", "Hiking Boots"]
            ),
            "product_id": str(rng.randint(10**9, 10**10)),
            "item_id": str(rng.randint(10**9, 10**10)),
            "price": round(rng.uniform(5, 400), 2),
            "options": {"color": rng.choice(["red", "blue", "black"]), "size": rng.choice("SML")},
        }
        for _ in range(rng.randint(1, 4))
    ]
    return json.dumps({"status": rng.choice(["delivered", "pending", "processed"]), "items": items})


def tau_runs(n: int, seed: int, tasks: int = 115) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    policies = [_policy(rng) for _ in range(8)]
    for index in range(n):
        user = f"{rng.choice(['yusuf', 'mei', 'ava', 'omar'])}_{rng.choice(['rossi', 'lee', 'garcia'])}_{rng.randint(1000, 9999)}"
        steps = []
        for k in range(rng.randint(4, 14)):
            tool = TAU_TOOLS[0] if k == 0 else rng.choice(TAU_TOOLS)
            steps.append(
                {
                    "turn": k,
                    "call_id": f"tc_{index}_{k}",
                    "tool": tool,
                    "arguments": _tau_args(rng, tool, user),
                    "result": _tau_result(rng),
                    "is_error": rng.random() < 0.05,
                }
            )
        yield {
            "schema_version": 1,
            "run_id": f"tau-{index:07d}",
            "task_id": f"retail-{rng.randrange(tasks):03d}",
            "agent": {"name": "tau-agent", "model": "claude-sonnet-4-5"},
            "input": {
                "system": rng.choice(policies),
                "user": f"Hi, I'm {user}. I want to exchange the items of my last order {index}.",
            },
            "steps": steps,
            "final_answer": f"Your exchange for run {index} is done; the difference "
            f"${rng.uniform(1, 99):.2f} goes back to your card.",
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": rng.randint(4000, 30000),
                "output_tokens": rng.randint(100, 900),
            },
        }


def tau_suite(tasks: int = 115, seed: int = 5) -> tuple[str, dict[str, dict[str, Any]]]:
    from _common import MODES

    rng = random.Random(seed)
    lines = ["schema_version: 1", "name: tau-retail", "tasks:"]
    plain: dict[str, dict[str, Any]] = {}
    for t in range(tasks):
        task_id = f"retail-{t:03d}"
        ref = [TAU_TOOLS[0], *(rng.choice(TAU_TOOLS[2:]) for _ in range(rng.randint(1, 4)))]
        budget = len(ref) + 6
        lines += [
            f"  - id: {task_id}",
            f"    input: retail task {t}",
            "    success: {kind: contains_any, values: [exchange, refund, cancelled]}",
            f"    steps: {{budget: {budget}}}",
            "    references:",
            f"      - mode: {MODES[t % len(MODES)]}",
            "        steps: " + json.dumps([{"tool": name} for name in ref]),
        ]
        plain[task_id] = {"tools": ref, "args": [None] * len(ref), "budget": budget}
    return "\n".join(lines) + "\n", plain


def write_tau(path: Path, n: int, seed: int) -> int:
    size = 0
    with path.open("w", encoding="utf-8") as out:
        for run in tau_runs(n, seed):
            line = json.dumps(run, ensure_ascii=False, separators=(",", ":")) + "\n"
            out.write(line)
            size += len(line.encode())
    return size


# -- the measurements -----------------------------------------------------------------------------------


def e2e(
    label: str,
    runs: Path,
    suite_text: str,
    plain: dict[str, dict[str, Any]],
    tmp: Path,
    n: int,
    repeat: int,
    target: float,
) -> None:
    suite = tmp / f"{label}-suite.yaml"
    suite.write_text(suite_text)
    script, table = write_floor(tmp, plain)
    score = ("score", str(runs), "--suite", str(suite), "--fast", "-q")
    cmds = {
        "floor": floor_cmd(script, runs, table),
        # the same work as the one-process floor: one process
        "pathjudge": pathjudge_cmd(*score, "--jobs", "1"),
        # the command as users run it: --jobs defaults to the core count on a file this large
        "default": pathjudge_cmd(*score),
    }
    for cmd in cmds.values():  # warm the page cache and catch a broken command before timing
        measure(cmd)
    got = median_commands(cmds, repeat)
    (floor, _), (mine, peak), (default, _) = got["floor"], got["pathjudge"], got["default"]
    print(f"[{label}] {n} runs, {runs.stat().st_size / n / 1024:.1f} KB/run")
    print(f"  plain floor end to end (1 process) : {floor:7.2f} s  {n / floor:9.0f} runs/s")
    print(
        f"  pathjudge score --fast --jobs 1    : {mine:7.2f} s  {n / mine:9.0f} runs/s  "
        f"peak {peak:.0f} MB"
    )
    print(f"  ratio to the floor, same work      : {verdict(mine / floor, target)}")
    print(
        f"  with the default --jobs ({cpu_count()} cores)   : {default:7.2f} s  "
        f"{n / default:9.0f} runs/s  ratio {default / floor:.2f}x (uses every core; the floor one)"
    )


def rss_curve(sizes: list[int], seed: int, suite: Path, tmp: Path) -> None:
    peaks = []
    for n in sizes:
        path = tmp / f"rss-{n}.jsonl"
        write_runs(path, n, seed)
        wall, peak, _ = measure(
            pathjudge_cmd("score", str(path), "--suite", str(suite), "--fast", "-q")
        )
        peaks.append(peak)
        print(f"  peak RSS at {n:>9,} runs: {peak:7.1f} MB  ({n / wall:8.0f} runs/s)")
        path.unlink()
    growth = peaks[-1] / peaks[0]
    ok = growth <= 1.25 and max(peaks) <= 120
    print(
        f"  growth {sizes[0]:,} -> {sizes[-1]:,}: {growth:.2f}x, largest {max(peaks):.0f} MB "
        f"(target <= 1.25x and <= 120 MB: {'met' if ok else 'NOT met'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=30_000, help="runs per workload (default 30000)"
    )
    parser.add_argument(
        "--tau-runs", type=int, default=5_000, help="tau-shaped runs (default 5000)"
    )
    parser.add_argument("--big", type=int, default=300_000, help="the large RSS/--jobs file")
    parser.add_argument("--million", action="store_true", help="also measure RSS at 1,000,000 runs")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds, median kept (min 5)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pj-bench-") as name:
        tmp = Path(name)
        suite_text, plain = realistic_suite()
        realistic = tmp / "realistic.jsonl"
        write_runs(realistic, args.runs, args.seed)
        e2e("realistic", realistic, suite_text, plain, tmp, args.runs, args.repeat, 5.0)
        tau = tmp / "tau.jsonl"
        write_tau(tau, args.tau_runs, args.seed)
        tau_text, tau_plain = tau_suite()
        e2e("tau-shaped", tau, tau_text, tau_plain, tmp, args.tau_runs, args.repeat, 5.0)
        tau.unlink()

        suite = tmp / "realistic-suite.yaml"
        print("[memory] pathjudge score --fast, /usr/bin/time -f %M")
        sizes = [args.runs, args.big] + ([1_000_000] if args.million else [])
        rss_curve(sizes, args.seed, suite, tmp)

        big = tmp / "big.jsonl"
        write_runs(big, args.big, args.seed)
        cmds = {
            f"jobs{j}": pathjudge_cmd(
                "score", str(big), "--suite", str(suite), "--fast", "-q", "--jobs", str(j)
            )
            for j in (1, 2)
        }
        got = median_commands(cmds, args.repeat)
        one, two = got["jobs1"][0], got["jobs2"][0]
        print(f"[--jobs] {args.big:,} runs on {cpu_count()} cores")
        print(f"  --jobs 1: {one:7.2f} s   --jobs 2: {two:7.2f} s")
        print(f"  speedup : {verdict(one / two, 1.7, at_least=True)}")


if __name__ == "__main__":
    main()
