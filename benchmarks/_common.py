"""Shared pieces of the benchmarks: medians, peak RSS of a fresh process, the realistic suite, and the
plain-Python floors (in process and end to end) that pathjudge is measured against in the same run.

Honesty rules every benchmark here follows:

- the baseline does the same work as pathjudge, with the same shortcuts (tuple keys for repeated calls,
  never a ``json.dumps`` per call where pathjudge avoids one);
- workloads are varied: unique final answers, many call shapes, every alignment mode;
- every figure is the median of at least five timed repetitions, the contenders taking turns;
- peak RSS comes from ``/usr/bin/time -f %M`` (or, where it is missing, a fresh launcher process that
  reads ``RUSAGE_CHILDREN``), never from ``wait4`` on a child spawned by this large process (a spawned
  child can inherit its parent's high-water mark);
- pathjudge's bytecode is compiled before anything is timed, as an install does
  (:func:`compile_package`), and the floors' scripts are too small for that to matter.
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = ("strict", "in_order", "unordered", "subset", "superset", "partial_order")
MIN_REPEAT = int(os.environ.get("PJ_BENCH_MIN_REPEAT", "5"))  # lower only to smoke-test a script


def median_cpu(fns: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """Median CPU seconds of each of ``fns`` over ``repeat`` (≥5) rounds, after one warm-up each; the
    functions take turns within a round, so a burst of outside load hits all of them alike."""
    repeat = max(MIN_REPEAT, repeat)
    for fn in fns:
        fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.process_time()
            fn()
            samples[i].append(time.process_time() - start)
    return [statistics.median(s) for s in samples]


def measure(cmd: Sequence[str], *, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run ``cmd`` once in a fresh process: (wall seconds, peak RSS in MB, stdout)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        if Path("/usr/bin/time").exists():
            full = ["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd]
        else:  # a small, fresh launcher: its children's peak is the command's alone
            launcher = (
                "import resource,subprocess,sys;"
                "p=subprocess.run(sys.argv[2:]);"
                "open(sys.argv[1],'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss));"
                "sys.exit(p.returncode)"
            )
            full = [sys.executable, "-c", launcher, rss.name, *cmd]
        start = time.perf_counter()
        done = subprocess.run(full, capture_output=True, text=True, env=env, check=False)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):  # 1: gates missed, still a measurement
            raise SystemExit(
                f"command failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}"
            )
        text = Path(rss.name).read_text().strip().splitlines()
        peak_kb = float(text[-1]) if text else float("nan")
    return wall, peak_kb / 1024, done.stdout


def median_commands(
    cmds: dict[str, Sequence[str]], repeat: int, *, env: dict[str, str] | None = None
) -> dict[str, tuple[float, float]]:
    """Median wall seconds and largest peak RSS (MB) of each command, taking turns, ≥5 rounds."""
    repeat = max(MIN_REPEAT, repeat)
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    peaks: dict[str, float] = dict.fromkeys(cmds, 0.0)
    for _ in range(repeat):
        for name, cmd in cmds.items():
            wall, peak, _ = measure(cmd, env=env)
            walls[name].append(wall)
            peaks[name] = max(peaks[name], peak)
    return {name: (statistics.median(walls[name]), peaks[name]) for name in cmds}


def pathjudge_cmd(*args: str) -> list[str]:
    """``python -m pathjudge ARGS`` with this interpreter (the tree on PYTHONPATH, or the install).

    The package's bytecode is compiled first (:func:`compile_package`), as ``pip install`` does.
    """
    compile_package()
    return [sys.executable, "-m", "pathjudge", *args]


_BYTECODE_WRITTEN: list[bool] = []


def compile_package() -> None:
    """Write the ``.pyc`` files of the pathjudge being measured, once per benchmark run.

    ``pip install`` compiles a package's modules when it installs them, and an editable install
    writes them at the first import, so a user's ``pathjudge`` never compiles its sources. Where
    ``PYTHONDONTWRITEBYTECODE`` is set (as on some CI machines), nothing is ever written and every
    timed process would compile all of pathjudge again (about 0.2 s a process here), a cost no
    install has. ``compileall`` writes them regardless; a read-only install is left as it is.
    """
    if _BYTECODE_WRITTEN:
        return
    _BYTECODE_WRITTEN.append(True)
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("pathjudge")
    if spec is None or not spec.submodule_search_locations:
        return
    for folder in spec.submodule_search_locations:
        compileall.compile_dir(folder, quiet=2, workers=1)


def verdict(ratio: float, target: float, *, at_least: bool = False) -> str:
    ok = ratio >= target if at_least else ratio <= target
    sign = ">=" if at_least else "<="
    return f"{ratio:6.2f}x (target {sign} {target:g}x: {'met' if ok else 'NOT met'})"


# -- the realistic suite (make_runs.py's tools, every alignment mode) --------------------------------


def realistic_suite(tasks: int = 200, seed: int = 11) -> tuple[str, dict[str, dict[str, Any]]]:
    """A suite over ``make_runs.py``'s task ids ``task-0000``.. with every alignment mode, a step budget,
    an argument expectation, a success criterion over the answer, and a tools requirement. Returns the
    YAML text and, per task, the plain data the floors check (first reference's tool names and
    literal arguments, and the budget)."""
    sys.path.insert(0, str(HERE))
    from make_runs import TOOLS, WORDS

    rng = random.Random(seed)
    lines = [
        "schema_version: 1",
        "name: realistic",
        "defaults:",
        "  arguments:",
        "    - tool: search_docs",
        '      args: {query: {$regex: "\\\\S"}}',
        "tasks:",
    ]
    plain: dict[str, dict[str, Any]] = {}
    for t in range(tasks):
        task_id = f"task-{t:04d}"
        mode = MODES[t % len(MODES)]
        ref = [rng.choice(TOOLS) for _ in range(rng.randint(1, 4))]
        budget = len(ref) + rng.randint(1, 4)
        word = rng.choice(WORDS)
        lines += [
            f"  - id: {task_id}",
            f"    input: question {t}",
            f"    success: {{kind: contains_any, values: [{json.dumps(word)}]}}",
            f"    steps: {{budget: {budget}}}",
            f"    tools: {{required: [{ref[0]}]}}",
            "    references:",
            f"      - mode: {mode}",
            "        steps: " + json.dumps([{"tool": name} for name in ref]),
        ]
        if t % 3 == 0:  # a second, alternative reference: best-of alignment
            alt = [rng.choice(TOOLS) for _ in range(rng.randint(1, 3))]
            lines += [
                f"      - mode: {MODES[(t + 1) % len(MODES)]}",
                "        steps: " + json.dumps([{"tool": name} for name in alt]),
            ]
        plain[task_id] = {"tools": ref, "args": [None] * len(ref), "budget": budget}
    return "\n".join(lines) + "\n", plain


def full_grading(records: Sequence[Any], suite: Any) -> Any:
    """Full five-axis grading with the path score of ``records`` into the scorecard (fast mode), through
    whichever pipeline this version of pathjudge has: ``grade_records_chunk`` + ``finish`` (the one check
    pipeline), else ``grade_lean`` into a ``ScorecardBuilder``."""
    try:
        from pathjudge.scoring.chunk import grade_records_chunk
    except ImportError:
        from pathjudge.scoring import grade as grading
        from pathjudge.scoring.scorecard import ScorecardBuilder

        builder = ScorecardBuilder(suite)
        lean = getattr(grading, "grade_lean", None) or grading.grade
        for graded in lean(records, suite, fast=True):
            builder.add(graded)
        return builder.build()
    partial = grade_records_chunk(
        (("", number, record) for number, record in enumerate(records, 1)), suite, fast=True
    )
    return partial.finish(suite)


def task_plans(suite: Any) -> dict[str, Any]:
    """The compiled ``TaskPlan`` of every task (``rubrics.checks.plan_task``, or the older
    ``scoring.grade.plan_task``)."""
    try:
        from pathjudge.rubrics.checks import plan_task
    except ImportError:
        from pathjudge.scoring.grade import plan_task  # type: ignore[attr-defined,no-redef]
    return {task.id: plan_task(task) for task in suite.tasks}


def four_checks(run: Any, plan: Any) -> tuple[bool, bool, int, bool]:
    """pathjudge's four basic checks from a compiled task plan: tool names in the first reference's
    order, every call matching its step (the compiled matchers), the redundant-call count
    (``redundant_calls``: retries after an error excluded), within the step budget."""
    quick = getattr(plan, "quick", None)
    if quick is not None:  # the older tuple fast path
        return quick(run)  # type: ignore[no-any-return]
    redundant_calls = _redundant_calls()
    steps = run.steps
    refs = plan.references[0].refs
    # list comprehensions, as the plain floor writes them
    in_order = [step.tool for step in steps] == [ref.tool for ref in refs]
    exact = in_order and all(ref.matcher(step).ok for ref, step in zip(refs, steps, strict=True))
    within = plan.budget is None or len(steps) <= plan.budget
    return in_order, exact, len(redundant_calls(run)), within


@functools.cache
def _redundant_calls() -> Any:
    # imported once, on first use (not on every call, which the floor does not pay either)
    from pathjudge.rubrics.assertions.steps import redundant_calls

    return redundant_calls


# -- the plain-Python floors -------------------------------------------------------------------------


def freeze(value: Any) -> Any:
    """A hashable key equal exactly when two JSON values are equal (the shortcut pathjudge uses)."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", *map(freeze, value))
    if isinstance(value, bool):
        return ("b", value)
    return value


def plain_checks(run: dict[str, Any], task: dict[str, Any]) -> tuple[bool, bool, int, bool]:
    """The four basic checks over dicts: tool names in order, exact arguments (where the reference
    gives them), the number of redundant calls (tuple keys, none at all when every tool differs, and a
    retry after an errored call not counted — pathjudge's rule), and the step budget."""
    steps = run.get("steps") or ()
    tools = [s["tool"] for s in steps]
    in_order = tools == task["tools"]
    exact = in_order and all(
        want is None or s.get("arguments") == want
        for s, want in zip(steps, task["args"], strict=True)
    )
    redundant = 0
    if len(set(tools)) != len(tools):
        # a repeat of a call whose latest previous occurrence errored is a retry, not a redundancy
        last_errored: dict[Any, bool] = {}
        for s in steps:
            key = (s["tool"], freeze(s.get("arguments")))
            if key in last_errored and not last_errored[key]:
                redundant += 1
            last_errored[key] = bool(s.get("is_error"))
    budget = task["budget"]
    return in_order, exact, redundant, budget is None or len(steps) <= budget


FLOOR_SCRIPT = '''\
"""The plain-Python end-to-end floor: interpreter start, json.loads per line, four checks, totals."""
import json, sys

def freeze(value):
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", *map(freeze, value))
    if isinstance(value, bool):
        return ("b", value)
    return value

tasks = json.load(open(sys.argv[2], encoding="utf-8"))
totals = [0, 0, 0, 0, 0]
with open(sys.argv[1], encoding="utf-8") as lines:
    for line in lines:
        if not line.strip():
            continue
        run = json.loads(line)
        task = tasks[run["task_id"]]
        steps = run.get("steps") or ()
        tools = [s["tool"] for s in steps]
        in_order = tools == task["tools"]
        exact = in_order and all(
            want is None or s.get("arguments") == want for s, want in zip(steps, task["args"])
        )
        redundant = 0
        if len(set(tools)) != len(tools):
            last_errored = {}
            for s in steps:
                key = (s["tool"], freeze(s.get("arguments")))
                if key in last_errored and not last_errored[key]:
                    redundant += 1
                last_errored[key] = bool(s.get("is_error"))
        budget = task["budget"]
        totals[0] += 1
        totals[1] += in_order
        totals[2] += exact
        totals[3] += redundant
        totals[4] += budget is None or len(steps) <= budget
print(json.dumps(totals))
'''


def write_floor(directory: Path, plain: dict[str, dict[str, Any]]) -> tuple[Path, Path]:
    """Write the floor script and its task table under ``directory``."""
    script = directory / "floor.py"
    script.write_text(FLOOR_SCRIPT)
    table = directory / "tasks.json"
    table.write_text(json.dumps(plain))
    return script, table


def floor_cmd(script: Path, runs: Path, table: Path) -> list[str]:
    return [sys.executable, str(script), str(runs), str(table)]


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def disk_free(path: Path) -> int:
    return shutil.disk_usage(path).free
