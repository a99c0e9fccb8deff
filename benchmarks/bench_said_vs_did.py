"""Said vs did on real runs: how often it flags clean runs, and which injected mistakes it catches.

Corpora (real runs, graded as recorded):

- ``tau``: the tau-bench airline runs in ``../shared/data/tau_bench_sample`` (gpt-4o);
- ``tooltalk``: the ToolTalk ground-truth conversations in ``../shared/data/tooltalk`` (human-written
  assistant replies with the API responses), made into runs by ``examples/tooltalk/make_suite.py``;
- ``docent``: the example runs in ``examples/docent/*runs.jsonl``.

Each run is checked as it is (a flag there is a false alarm or a real mistake of the agent: the
flags are printed to be read), then mutated, one mistake at a time, and checked again:

- ``amount``: an amount the agent states, backed on the clean run, is changed to one no tool had;
- ``id``: an id or code it states is changed in one character to one no tool had;
- ``date``: a date it states is moved by three days;
- ``drop_call``: the successful calls that back an action it claims ("has been cancelled") are
  removed (a run with no action claim: the calls that back an id it states).

A mutant counts as flagged when the check fails and names the mutated claim. Recall per class is the
share of mutants flagged; the clean false-alarm rate the share of clean runs flagged; precision is
flagged mutants over flagged mutants plus flagged clean runs (every clean flag counted as false).

    python benchmarks/bench_said_vs_did.py [--data ../shared/data] [--show-flags]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path

from pathjudge.agent.importers.openai_chat import from_openai_chat
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import Reply, RunRecord
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.assertions.claims import Claim, extract_claims
from pathjudge.rubrics.assertions.said_vs_did import (
    BACKED_BY,
    CompiledSaidVsDid,
    SaidVsDidSpec,
    check_said_vs_did,
    compile_said_vs_did,
)

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("amount", "id", "date", "drop_call")


def tau_runs(data: Path) -> list[RunRecord]:
    records = json.loads((data / "tau_bench_sample" / "gpt-4o-airline.sample3.json").read_text())
    return [
        from_openai_chat(record, task_id=str(record["task_id"]), run_id=f"tau#{i}")
        for i, record in enumerate(records)
    ]


def tooltalk_runs(data: Path) -> list[RunRecord]:
    spec = importlib.util.spec_from_file_location(
        "tooltalk_make_suite", ROOT / "examples" / "tooltalk" / "make_suite.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [
        from_openai_chat(
            module.golden_transcript(task_id, conversation), task_id=task_id, run_id=task_id
        )
        for task_id, conversation in module.conversations(data / "tooltalk")
    ]


def docent_runs() -> list[RunRecord]:
    return [
        run
        for path in sorted((ROOT / "examples" / "docent").glob("*runs.jsonl"))
        for run in read_runs(path)
    ]


# --------------------------------------------------------------------------------------------------
# Mutations


def _messages(run: RunRecord) -> Iterator[tuple[int, str]]:
    """``(reply index | -1 for a final answer that is no reply, text)``, last first."""
    if run.final_answer and (not run.replies or run.replies[-1].text != run.final_answer):
        yield -1, run.final_answer
    for index in range(len(run.replies) - 1, -1, -1):
        yield index, run.replies[index].text


def _rewrite(run: RunRecord, index: int, text: str) -> RunRecord:
    old = run.final_answer if index == -1 else run.replies[index].text
    replies = list(run.replies)
    if index >= 0:
        replies[index] = replies[index].model_copy(update={"text": text})
    final = text if run.final_answer == old else run.final_answer
    return run.model_copy(update={"replies": tuple(replies), "final_answer": final})


def _backed(run: RunRecord, plan: CompiledSaidVsDid, claim: Claim) -> bool:
    found = check_said_vs_did(run, plan)
    return not any(
        item["claim"] == claim.text and item["sentence"] == claim.sentence
        for item in found.details.get("unbacked", [])
    )


def _claim(run: RunRecord, plan: CompiledSaidVsDid, kind: str) -> tuple[int, str, Claim] | None:
    """The last backed claim of ``kind`` in the run's messages."""
    for index, text in _messages(run):
        for claim in reversed(extract_claims(text)):
            if claim.kind == kind and _backed(run, plan, claim):
                return index, text, claim
    return None


def _edit_value(
    run: RunRecord, plan: CompiledSaidVsDid, kind: str, change: Callable[[str, int], str]
) -> RunRecord | None:
    found = _claim(run, plan, kind)
    if found is None:
        return None
    index, text, claim = found
    for attempt in range(1, 40):
        new = change(claim.text, attempt)
        mutant = _rewrite(
            run, index, text[: claim.start] + new + text[claim.start + len(claim.text) :]
        )
        if check_said_vs_did(mutant, plan).status == "fail":
            return mutant.model_copy(update={"metadata": {**run.metadata, "mutated": new}})
    return None


def _new_amount(text: str, attempt: int) -> str:
    def bump(match: re.Match[str]) -> str:
        value = float(match.group(0).replace(",", ""))
        return f"{value * 1.3 + 7 * attempt:,.0f}"

    return re.sub(r"\d[\d,]*(?:\.\d+)?", bump, text, count=1)


def _new_id(text: str, attempt: int) -> str:
    position = len(text) - 1 - (attempt - 1) // 9 % len(text)
    char = text[position]
    if char.isdigit():
        new = str((int(char) + attempt) % 10)
    elif char.isalpha():
        base = "A" if char.isupper() else "a"
        new = chr((ord(char) - ord(base) + attempt) % 26 + ord(base))
    else:
        return text
    return text[:position] + new + text[position + 1 :]


def _new_date(text: str, attempt: int) -> str:
    found = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    if found:
        moved = date(*map(int, found.groups())) + timedelta(days=2 + attempt)
        return text[: found.start()] + moved.isoformat() + text[found.end() :]
    return re.sub(
        r"\b(\d{1,2})\b", lambda m: str((int(m.group(1)) + 2 + attempt - 1) % 28 + 1), text, count=1
    )


def _drop_backing(run: RunRecord, plan: CompiledSaidVsDid) -> RunRecord | None:
    found = _claim(run, plan, "action")
    if found is not None:
        backers = BACKED_BY[str(found[2].value)]
        drop = {
            i
            for i, step in enumerate(run.steps)
            if not step.is_error and not backers.isdisjoint(plan.actions(step.tool))
        }
        if found[2].value == "update":  # a replacement backs an update too
            drop |= {
                i for i, s in enumerate(run.steps) if {"create", "delete"} & plan.actions(s.tool)
            }
    else:
        found = _claim(run, plan, "id")
        if found is None:
            return None
        token = str(found[2].value)
        drop = {
            i
            for i, step in enumerate(run.steps)
            if token in json.dumps([step.arguments, step.result]).casefold()
        }
    if not drop:
        return None
    steps = tuple(step for i, step in enumerate(run.steps) if i not in drop)
    replies = tuple(
        Reply(text=r.text, after_steps=r.after_steps - sum(1 for i in drop if i < r.after_steps))
        for r in run.replies
    )
    mutant = run.model_copy(update={"steps": steps, "replies": replies})
    return mutant.model_copy(update={"metadata": {**run.metadata, "mutated": found[2].text}})


def mutate(run: RunRecord, plan: CompiledSaidVsDid, kind: str) -> RunRecord | None:
    """One mutant of ``run`` of class ``kind`` (see the module docstring), or None when it has no
    claim of that kind to mutate."""
    if kind == "amount":
        return _edit_value(run, plan, "amount", _new_amount)
    if kind == "id":
        return _edit_value(run, plan, "id", _new_id)
    if kind == "date":
        return _edit_value(run, plan, "date", _new_date)
    return _drop_backing(run, plan)


def flags_mutation(result: CheckResult, mutant: RunRecord) -> bool:
    """Whether the check failed the mutant naming the mutated claim."""
    mutated = str(mutant.metadata.get("mutated", ""))
    return result.status == "fail" and any(
        mutated in str(item["claim"]) or str(item["claim"]) in mutated
        for item in result.details.get("unbacked", [])
    )


def measure(runs: list[RunRecord], plan: CompiledSaidVsDid) -> dict[str, object]:
    clean = [(run, check_said_vs_did(run, plan)) for run in runs]
    flagged_clean = [(run, result) for run, result in clean if result.status == "fail"]
    per_class: dict[str, tuple[int, int]] = {}
    for kind in CLASSES:
        mutants = [m for m in (mutate(run, plan, kind) for run in runs) if m is not None]
        caught = sum(flags_mutation(check_said_vs_did(m, plan), m) for m in mutants)
        per_class[kind] = (caught, len(mutants))
    return {"runs": len(runs), "flagged_clean": flagged_clean, "per_class": per_class}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--show-flags", action="store_true", help="print every clean-run flag")
    args = parser.parse_args(argv)
    plan = compile_said_vs_did(SaidVsDidSpec())
    corpora = {"docent": docent_runs()}
    if args.data.is_dir():
        corpora = {"tau": tau_runs(args.data), "tooltalk": tooltalk_runs(args.data), **corpora}
    else:
        print(f"no real data at {args.data}: docent examples only", file=sys.stderr)
    print(
        f"{'corpus':<10}{'runs':>6}{'clean flagged':>15}  "
        + "  ".join(f"{k:>12}" for k in CLASSES)
        + "  precision"
    )
    for name, runs in corpora.items():
        found = measure(runs, plan)
        flagged = found["flagged_clean"]
        per_class = found["per_class"]
        assert isinstance(flagged, list)
        assert isinstance(per_class, dict)
        caught = sum(c for c, _ in per_class.values())
        precision = caught / (caught + len(flagged)) if caught + len(flagged) else float("nan")
        cells = "  ".join(
            f"{c:>4}/{n:<3}{(c / n if n else float('nan')):>5.0%}" for c, n in per_class.values()
        )
        print(
            f"{name:<10}{len(runs):>6}{len(flagged):>6} ({len(flagged) / len(runs):>5.1%})  {cells}  {precision:.3f}"
        )
        if args.show_flags:
            for run, result in flagged:
                print(f"    {run.run_id}: {result.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
