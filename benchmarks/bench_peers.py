"""Peer comparison: pathjudge's four basic checks against agentevals, deepeval, ragas and pydantic-evals.

    pip install '.[peers]'   # or whichever peers install on your machine
    python benchmarks/bench_peers.py [--runs 10000] [--repeat 5] [--seed 7]

One workload for everyone: ``--runs`` seeded tool-using trajectories over a 200-task suite with literal
reference arguments (``bench_fast.py``'s generator: repeats, swaps, drops, substitutions, unique
answers). Every peer gets the same runs converted once, before timing, into its own structures, and runs
the deterministic tool-call check it ships:

- agentevals: ``create_trajectory_match_evaluator(trajectory_match_mode="strict",
  tool_args_match_mode="exact")`` over OpenAI-style messages;
- deepeval: ``ToolCorrectnessMetric(should_exact_match=True, should_consider_ordering=True,
  evaluation_params=[INPUT_PARAMETERS])``, ``measure`` (telemetry off, no LLM);
- ragas: ``ToolCallAccuracy`` ``multi_turn_ascore`` on a ``MultiTurnSample`` (exact argument match);
- pydantic-evals: the four checks as four ``Evaluator`` s (it ships none for tool calls), each called
  through ``evaluate`` with an ``EvaluatorContext`` (the framework's own per-case path, without the
  dataset runner's tracing); its verdict is names-in-order and arguments-exact.

pathjudge runs the four basic checks (tool names in order, exact arguments, redundant calls, step budget),
which is more work than any peer does. Verdicts are cross-checked: each peer's pass/fail is compared with
pathjudge's "tool names in order and arguments exact" on every run, and disagreements are counted and
shown. Timings are medians of ``--repeat`` (≥5) rounds, CPU time, contenders taking turns. A peer that is
not installed is reported as such (with the pip command), never silently left out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from _common import MIN_REPEAT, four_checks, median_cpu, plain_checks, task_plans
from bench_fast import make_run, make_suite

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.suite import parse_suite_text

Runner = Callable[[], list[bool]]


def _calls(run: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(s["tool"], s["arguments"]) for s in run["steps"]]


def agentevals_runner(
    runs: list[dict[str, Any]], refs: list[list[Any]], budgets: list[int]
) -> Runner:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="strict", tool_args_match_mode="exact"
    )

    def messages(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "user", "content": "help"}]
        for name, args in calls:
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"function": {"name": name, "arguments": json.dumps(args)}}],
                }
            )
            out.append({"role": "tool", "content": "ok"})
        out.append({"role": "assistant", "content": "done"})
        return out

    pairs = [(messages(_calls(r)), messages(ref)) for r, ref in zip(runs, refs, strict=True)]

    def run() -> list[bool]:
        return [bool(evaluator(outputs=o, reference_outputs=e)["score"]) for o, e in pairs]

    return run


def deepeval_runner(
    runs: list[dict[str, Any]], refs: list[list[Any]], budgets: list[int]
) -> Runner:
    # ToolCorrectnessMetric builds a default LLM client even though the exact-match path never calls
    # it: a placeholder key lets it be built (no network is reachable or used here)
    os.environ.setdefault("OPENAI_API_KEY", "placeholder-not-used")
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    metric = ToolCorrectnessMetric(
        evaluation_params=[ToolCallParams.INPUT_PARAMETERS],
        should_exact_match=True,
        should_consider_ordering=True,
        include_reason=False,
        async_mode=False,
        verbose_mode=False,
    )
    cases = [
        LLMTestCase(
            input="help",
            actual_output="done",
            tools_called=[ToolCall(name=n, input_parameters=a) for n, a in _calls(r)],
            expected_tools=[ToolCall(name=n, input_parameters=a) for n, a in ref],
        )
        for r, ref in zip(runs, refs, strict=True)
    ]

    def run() -> list[bool]:
        return [metric.measure(case, _show_indicator=False) >= 1.0 for case in cases]

    return run


def ragas_runner(runs: list[dict[str, Any]], refs: list[list[Any]], budgets: list[int]) -> Runner:
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
    from ragas.metrics import ToolCallAccuracy

    metric = ToolCallAccuracy()
    samples = []
    for r, ref in zip(runs, refs, strict=True):
        turns: list[Any] = [HumanMessage(content="help")]
        for name, args in _calls(r):
            turns.append(AIMessage(content="", tool_calls=[ToolCall(name=name, args=args)]))
            turns.append(ToolMessage(content="ok"))
        turns.append(AIMessage(content="done"))
        samples.append(
            MultiTurnSample(
                user_input=turns,
                reference_tool_calls=[ToolCall(name=n, args=a) for n, a in ref],
            )
        )

    async def all_scores() -> list[bool]:
        return [await metric.multi_turn_ascore(s) >= 1.0 for s in samples]

    def run() -> list[bool]:
        return asyncio.run(all_scores())

    return run


def pydantic_evals_runner(
    runs: list[dict[str, Any]], refs: list[list[Any]], budgets: list[int]
) -> Runner:
    import dataclasses
    import inspect

    from pydantic_evals.evaluators import Evaluator, EvaluatorContext

    # the four basic checks as four pydantic-evals evaluators, each called through ``evaluate``
    @dataclasses.dataclass
    class ToolNamesInOrder(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            return [c[0] for c in ctx.output] == [c[0] for c in ctx.expected_output]

    @dataclasses.dataclass
    class ArgumentsExact(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            return bool(ctx.output == ctx.expected_output)

    @dataclasses.dataclass
    class RedundantCalls(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> int:
            seen: dict[str, bool] = {}
            count = 0
            for name, args, errored in ctx.metadata["calls"]:
                key = name + json.dumps(args, sort_keys=True)
                if key in seen and not seen[key]:
                    count += 1
                seen[key] = errored
            return count

    @dataclasses.dataclass
    class WithinBudget(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            return len(ctx.output) <= ctx.metadata["budget"]

    evaluators = (ToolNamesInOrder(), ArgumentsExact(), RedundantCalls(), WithinBudget())
    fields = inspect.signature(EvaluatorContext).parameters
    contexts = []
    for r, ref, budget in zip(runs, refs, budgets, strict=True):
        given: dict[str, Any] = {
            "name": r["run_id"],
            "inputs": "help",
            "metadata": {
                "budget": budget,
                "calls": [
                    (s["tool"], s["arguments"], s.get("is_error", False)) for s in r["steps"]
                ],
            },
            "expected_output": [[n, a] for n, a in ref],
            "output": [[n, a] for n, a in _calls(r)],
            "duration": 0.0,
            "attributes": {},
            "metrics": {},
        }
        if "_span_tree" in fields:
            from pydantic_evals.otel._errors import SpanTreeRecordingError

            given["_span_tree"] = SpanTreeRecordingError("not recorded")
        contexts.append(EvaluatorContext(**{k: v for k, v in given.items() if k in fields}))
    names, exact, redundant, budget_ok = evaluators

    def run() -> list[bool]:
        out = []
        for ctx in contexts:
            in_order = names.evaluate(ctx)
            args_ok = exact.evaluate(ctx)
            redundant.evaluate(ctx)
            budget_ok.evaluate(ctx)
            out.append(bool(in_order and args_ok))
        return out

    return run


PEERS: dict[str, tuple[Callable[..., Runner], str]] = {
    "agentevals": (agentevals_runner, "agentevals"),
    "deepeval": (deepeval_runner, "deepeval"),
    "ragas": (ragas_runner, "ragas"),
    "pydantic-evals": (pydantic_evals_runner, "pydantic-evals"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds, median kept (min 5)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    suite_text, plain = make_suite(rng, 200, modes=("strict",))
    suite = parse_suite_text(suite_text)
    runs = [make_run(rng, i, plain) for i in range(args.runs)]
    records = [RunRecord.model_validate(r) for r in runs]
    refs = [[(c["tool"], c["args"]) for c in plain[r["task_id"]]["ref"]] for r in runs]
    budgets = [plain[r["task_id"]]["budget"] for r in runs]
    plans = task_plans(suite)
    n = args.runs

    def pathjudge_run() -> list[bool]:
        out = []
        for r in records:
            in_order, exact, _redundant, _within = four_checks(r, plans[r.task_id])
            out.append(in_order and exact)
        return out

    contenders: dict[str, Runner] = {
        "plain floor": lambda: [all(plain_checks(r, plain[r["task_id"]])[:2]) for r in runs],
        "pathjudge": pathjudge_run,
    }
    missing: dict[str, str] = {}
    for name, (factory, package) in PEERS.items():
        try:
            contenders[name] = factory(runs, refs, budgets)
            contenders[name]()  # a broken adapter shows here, not in the timing
        except ImportError as exc:
            missing[name] = f"not installed ({exc.name}); pip install {package}"
        except Exception as exc:  # a peer whose API changed: reported, not hidden
            missing[name] = f"could not run ({type(exc).__name__}: {str(exc)[:120]})"
    names = list(contenders)
    times = dict(zip(names, median_cpu([contenders[k] for k in names], args.repeat), strict=True))
    verdicts = {k: contenders[k]() for k in names}
    ours = verdicts["pathjudge"]
    floor = times["plain floor"]
    print(
        f"{n} trajectories (seed {args.seed}); medians of {max(MIN_REPEAT, args.repeat)}; CPU time"
    )
    print(f"{'contender':16} {'us/run':>9} {'x floor':>8}  agrees with pathjudge")
    for name in names:
        agree = sum(a == b for a, b in zip(verdicts[name], ours, strict=True))
        print(
            f"{name:16} {times[name] / n * 1e6:9.2f} {times[name] / floor:8.2f}  "
            f"{agree}/{n}{'' if agree == n else '  <- disagreements'}"
        )
    for name, why in missing.items():
        print(f"{name:16} {why}")
    peers = [k for k in names if k in PEERS]
    if peers:
        fastest = min(peers, key=lambda k: times[k])
        ok = times["pathjudge"] < times[fastest]
        print(
            f"pathjudge vs the fastest peer ({fastest}): {times['pathjudge'] / times[fastest]:.2f}x "
            f"(target < 1x: {'met' if ok else 'NOT met'})"
        )
    else:
        print("no peer could run here: the comparison needs at least one (pip install '.[peers]')")


if __name__ == "__main__":
    main()
