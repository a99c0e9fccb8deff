"""What compiling the grading core with Cython buys, measured against the pure modules in one run.

    python benchmarks/bench_compiled.py [--runs 30000] [--repeat 5] [--keep DIR]

Needs Cython and setuptools (``pip install cython setuptools``, neither a pathjudge dependency),
hatchling (the ``dev`` extra has it) and a C compiler; without Cython, setuptools or a compiler it
says what is missing and stops. It answers one question of
``docs/PERFORMANCE.md``: would a compiled grading core meet the speed targets the pure one misses?

1. Copies the pathjudge being measured (this checkout's ``src/pathjudge`` on ``PYTHONPATH``, or an
   install) into a temporary folder and puts beside it the compiled core a wheel installs
   (``_pathjudge_core``: the modules of :data:`HOT`, ``pathjudge._compiled.MODULES``, and their
   manifest), built as the wheel builds them (``hatch_build.cached_build``: Cython, the modules
   unchanged; a build of the same sources in the checkout's ``build/pathjudge-core`` is reused).
   The pure runs set ``PATHJUDGE_PURE=1``, so an installed compiled core stays out of them.
2. Grades the realistic workload (``make_runs.py`` runs over the every-mode suite of
   ``bench_realistic.py``) with each, hashing every grade and the scorecard: the two must agree.
3. In process: parsing and grading the runs (``grade_chunk`` over lines already read), CPU time,
   one fresh process per measurement, the two taking turns; medians of ``--repeat`` (at least 5).
4. End to end: ``score --fast -q --jobs 1`` of each and the plain floor, wall time, taking turns;
   medians. The bytecode of both copies' pure modules is written first, as an install writes it, so
   no timed process compiles sources. Each ratio to the floor is the one ``bench_realistic.py``
   holds to its target (<= 4x).

Nothing asserts; it prints the figures. The compiled copy is deleted unless ``--keep`` names a
folder (a later run with the same ``--keep`` reuses the copy it finds there).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    MIN_REPEAT,
    compile_package,
    floor_cmd,
    measure,
    realistic_suite,
    write_floor,
)
from make_runs import write as write_runs

from pathjudge._compiled import MODULES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's hatch_build.py
from hatch_build import CACHE, cached_build

REPO = Path(__file__).resolve().parents[1]

HOT = MODULES
"""The modules the wheel compiles (``pathjudge._compiled.MODULES``): those a graded run spends its
time in, relative to the package."""


_GRADE = """
import hashlib, json, sys, time
from pathlib import Path
from pathjudge._compiled import COMPILED as compiled
from pathjudge.rubrics.checks import SuitePlan
from pathjudge.rubrics.suite import load_suite
from pathjudge.scoring.chunk import grade_chunk, iter_lines

runs, suite_path, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
suite = load_suite(suite_path)
if mode == "hash":
    digest = hashlib.sha256()

    def seen(grade, position):
        digest.update(json.dumps(grade.to_dict(), sort_keys=True, default=str).encode())

    partial = grade_chunk(iter_lines(runs), suite, fast=True, on_grade=seen)
    card = partial.finish(suite).model_dump(mode="json")
    digest.update(json.dumps(card, sort_keys=True, default=str).encode())
    print(compiled, digest.hexdigest())
else:
    plans = SuitePlan(suite)
    lines = list(iter_lines(runs))
    grade_chunk(lines[:500], plans, fast=True)  # warm: the task plans are built on first use
    start = time.process_time()
    grade_chunk(lines, plans, fast=True)
    print(compiled, (time.process_time() - start) / len(lines))
"""


def _missing() -> str | None:
    """What this benchmark needs and does not have, or None."""
    for module in ("Cython", "setuptools"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install cython setuptools)"
    if not any(shutil.which(cc) for cc in (os.environ.get("CC", "cc"), "cc", "gcc", "clang")):
        return "no C compiler found (cc, gcc or clang)"
    return None


def _package() -> Path:
    spec = importlib.util.find_spec("pathjudge")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pathjudge is not importable: run from the checkout with PYTHONPATH=src")
    return Path(next(iter(spec.submodule_search_locations)))


def build(scratch: Path) -> tuple[str, float]:
    """The compiled copy's ``PYTHONPATH`` under ``scratch`` (built there, or reused from an earlier
    ``--keep`` run), and the seconds the build took (0 when reused). The copy is the package and,
    beside it, the compiled core a wheel installs (``hatch_build.cached_build``, the wheel's own
    build)."""
    source = scratch / "src"
    seconds = 0.0
    if source.exists():
        if not (source / "_pathjudge_core" / "MANIFEST").is_file():
            raise SystemExit(f"{source} exists but holds no complete build: name a new folder")
    else:
        package = _package()
        shutil.copytree(package, source / "pathjudge", ignore=shutil.ignore_patterns("__pycache__"))
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="pj-build-") as work:
            try:
                made = cached_build(package, REPO / CACHE, Path(work))
            except RuntimeError as exc:
                raise SystemExit(f"the Cython build failed:\n{exc}") from None
            for built_file, in_wheel in made.items():
                (source / in_wheel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(built_file, source / in_wheel)
        seconds = time.perf_counter() - start
    # the bytecode of the modules left pure, as an install writes it (see _common.compile_package)
    compileall.compile_dir(source / "pathjudge", quiet=2, workers=1)
    return str(source), seconds


def _env(path: str, *, pure: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = path
    env.pop("PATHJUDGE_PURE", None)
    if pure:  # an installed compiled core would otherwise load for these sources too
        env["PATHJUDGE_PURE"] = "1"
    return env


def _child(path: str, *args: str, pure: bool) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "-c", _GRADE, *args],
        env=_env(path, pure=pure),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"grading failed:\n{done.stderr[-3000:]}")
    compiled, value = done.stdout.split()
    return compiled == "True", value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30_000, help="realistic runs (default 30000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds, median kept (min 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--keep", type=Path, help="build the compiled copy here and keep it (or reuse it)"
    )
    args = parser.parse_args()
    repeat = max(MIN_REPEAT, args.repeat)
    missing = _missing()
    if missing is not None:
        print(f"skipped: {missing}")
        return
    pure = str(_package().parent)  # the pathjudge this process imports
    compile_package()  # its bytecode, as an install writes it
    with tempfile.TemporaryDirectory(prefix="pj-compiled-") as name:
        tmp = Path(name)
        scratch = args.keep or tmp / "compiled"
        scratch.mkdir(parents=True, exist_ok=True)
        compiled, seconds = build(scratch)
        if seconds:
            print(f"compiled {len(HOT)} modules with Cython in {seconds:.0f} s ({scratch})")
        else:
            print(f"reusing the compiled copy in {scratch} (built from the sources of then)")

        suite_text, plain = realistic_suite()
        suite = tmp / "suite.yaml"
        suite.write_text(suite_text)
        runs = tmp / "realistic.jsonl"
        write_runs(runs, args.runs, args.seed)

        hashes = {}
        for label, path in (("pure", pure), ("compiled", compiled)):
            is_compiled, hashes[label] = _child(
                path, str(runs), str(suite), "hash", pure=label == "pure"
            )
            if is_compiled != (label == "compiled"):
                raise SystemExit(f"the {label} run imported the wrong pathjudge ({path})")
        same = hashes["pure"] == hashes["compiled"]
        print(f"grades of {args.runs} runs: {'identical' if same else 'DIFFERENT'}")

        cpu: dict[str, list[float]] = {"pure": [], "compiled": []}
        for _ in range(repeat):
            for label, path in (("pure", pure), ("compiled", compiled)):
                found = _child(path, str(runs), str(suite), "time", pure=label == "pure")
                cpu[label].append(float(found[1]))
        mine, theirs = statistics.median(cpu["pure"]), statistics.median(cpu["compiled"])
        print(
            f"in process, parse + grade : pure {mine * 1e6:7.1f} us/run  compiled "
            f"{theirs * 1e6:7.1f} us/run  compiled/pure {theirs / mine:.3f}"
        )

        script, table = write_floor(tmp, plain)
        score = [sys.executable, "-m", "pathjudge", "score", str(runs), "--suite", str(suite)]
        score += ["--fast", "-q", "--jobs", "1"]
        cmds = {
            "floor": (floor_cmd(script, runs, table), None),
            "pure": (score, _env(pure, pure=True)),
            "compiled": (score, _env(compiled, pure=False)),
        }
        for cmd, env in cmds.values():  # warm the page cache and catch a broken command
            measure(cmd, env=env)
        walls: dict[str, list[float]] = {label: [] for label in cmds}
        for _ in range(repeat):
            for label, (cmd, env) in cmds.items():
                walls[label].append(measure(cmd, env=env)[0])
        floor, pure_s, comp_s = (statistics.median(walls[k]) for k in ("floor", "pure", "compiled"))
        print(
            f"end to end, score --fast --jobs 1 : floor {floor:.2f} s  pure {pure_s:.2f} s "
            f"({pure_s / floor:.2f}x)  compiled {comp_s:.2f} s ({comp_s / floor:.2f}x)  "
            f"compiled/pure {comp_s / pure_s:.3f}"
        )


if __name__ == "__main__":
    main()
