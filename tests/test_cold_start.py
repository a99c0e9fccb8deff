"""A cold ``pathjudge score --fast`` imports only what the suite and the chosen outputs need.

Each case runs the CLI in a fresh interpreter and lists which of the optional heavy modules ended up in
``sys.modules``: jsonschema only for a suite with a ``json_schema`` expectation, the report renderers only
for the outputs asked for, and the judge runner (asyncio, sqlite, the backends) never under ``--fast``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCENT = REPO / "examples" / "docent"
OPTIONAL = (
    "jsonschema",
    "pathjudge.report.html",
    "pathjudge.report.markdown",
    "pathjudge.report.junit",
    "pathjudge.report.plots",
    "pathjudge.judge.runner",
    "pathjudge.judge.backends.base",
    "pathjudge.judge.cache",
    "asyncio",
    "sqlite3",
    "matplotlib",
    "anthropic",
    "instructor",
    "sklearn",
    "numpy",
)


def _imported(args: list[str], cwd: Path) -> tuple[int, set[str]]:
    code = (
        "import atexit, json, sys\n"
        f"optional = {OPTIONAL!r}\n"
        "atexit.register(lambda: sys.__stdout__.write('\\nMODULES=' + json.dumps("
        "[m for m in optional if m in sys.modules]) + '\\n'))\n"
        "from pathjudge._cli.app import main\n"
        "import pathjudge.cli\n"
        f"sys.exit(main({args!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=cwd,
    )
    marker = [line for line in done.stdout.splitlines() if line.startswith("MODULES=")]
    assert marker, done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, set(json.loads(marker[-1].removeprefix("MODULES=")))


def _support_runs(tmp_path: Path) -> Path:
    """The support example's runs, one epoch each (the lesson records four runs of one task)."""
    out = tmp_path / "support-runs.jsonl"
    lines = (DOCENT / "support-runs.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    for epoch, row in enumerate(rows):
        row["epoch"] = epoch
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out


def test_score_fast_without_schemas_or_reports_stays_lean(tmp_path: Path) -> None:
    suite = DOCENT / "support-suite.yaml"
    assert "json_schema" not in suite.read_text(encoding="utf-8")
    code, modules = _imported(
        ["score", str(_support_runs(tmp_path)), "--suite", str(suite), "--fast", "-q"],
        tmp_path,
    )
    assert code in (0, 1), code
    assert modules == set(), f"a cold score --fast pulled in {sorted(modules)}"


@pytest.mark.parametrize(
    ("extra", "needed"),
    [
        (["--junit", "out.xml"], {"pathjudge.report.junit"}),
        (["--markdown", "out.md"], {"pathjudge.report.markdown"}),
        (["--json", "out.json"], set()),
    ],
)
def test_score_fast_imports_a_renderer_only_when_asked(
    tmp_path: Path, extra: list[str], needed: set[str]
) -> None:
    suite = DOCENT / "support-suite.yaml"
    code, modules = _imported(
        [
            "score",
            str(_support_runs(tmp_path)),
            "--suite",
            str(suite),
            "--fast",
            "-q",
            *extra,
        ],
        tmp_path,
    )
    assert code in (0, 1), code
    assert needed <= modules
    assert modules - needed == set(), f"{extra} pulled in {sorted(modules - needed)}"
    assert (tmp_path / extra[1]).stat().st_size > 0


def test_a_schema_in_the_suite_brings_jsonschema(tmp_path: Path) -> None:
    suite = DOCENT / "suite.yaml"
    assert "json_schema" in suite.read_text(encoding="utf-8")
    code, modules = _imported(
        ["score", str(DOCENT / "runs.jsonl"), "--suite", str(suite), "--fast", "-q"], tmp_path
    )
    assert code in (0, 1), code
    assert "jsonschema" in modules
    assert modules - {"jsonschema"} == set(), f"pulled in {sorted(modules - {'jsonschema'})}"


def _after_cli(args: list[str], cwd: Path, probe: str) -> object:
    """The JSON value of the expression ``probe`` once the CLI ran ``args`` in a fresh interpreter
    (``probe`` sees ``sys``)."""
    code = (
        "import atexit, json, sys\n"
        f"atexit.register(lambda: sys.__stdout__.write('\\nPROBE=' + json.dumps({probe}) + '\\n'))\n"
        "from pathjudge.cli import run_cli\n"
        f"sys.argv = ['pathjudge', *{args!r}]\n"
        "run_cli()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=cwd
    )
    marker = [line for line in done.stdout.splitlines() if line.startswith("PROBE=")]
    assert marker, done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stderr
    return json.loads(marker[-1].removeprefix("PROBE="))


def _loaded(args: list[str], cwd: Path, names: tuple[str, ...]) -> set[str]:
    """Which of ``names`` are in ``sys.modules`` once the CLI ran ``args`` in a fresh interpreter."""
    found = _after_cli(args, cwd, f"[m for m in {names!r} if m in sys.modules]")
    assert isinstance(found, list)
    return set(found)


def test_score_fast_start_up_skips_what_this_score_does_not_use(tmp_path: Path) -> None:
    """The fixed start-up cost of every ``score --fast``: none of these is imported unless needed.

    The verdicts-file models (calibration) only with --verdicts, the judge session only when judging,
    the process pool only for --jobs above 1, the ``regex`` engine only for a suite with a pattern,
    rich's tables only for the full scorecard, and never the standalone click (typer >= 0.20 ships
    its own copy).
    """
    import importlib.util

    suite = DOCENT / "support-suite.yaml"
    assert "regex" not in suite.read_text(encoding="utf-8")
    lazy = (
        "pathjudge.calibration.verdicts",
        "pathjudge.judge.session",
        "regex",
        "rich.table",
        "concurrent.futures.process",
        "multiprocessing",
        *(("click",) if importlib.util.find_spec("typer._click") is not None else ()),
    )
    runs = str(_support_runs(tmp_path))
    quiet = ["score", runs, "--suite", str(suite), "--fast", "-q", "--jobs", "1"]
    assert _loaded(quiet, tmp_path, lazy) == set()
    # each one does load when it is needed: the lazy imports are real imports, not dropped features
    full = _loaded(["score", runs, "--suite", str(suite), "--fast"], tmp_path, ("rich.table",))
    assert full == {"rich.table"}
    patterns = _loaded(
        [
            "score",
            str(DOCENT / "runs.jsonl"),
            "--suite",
            str(DOCENT / "suite.yaml"),
            "--fast",
            "-q",
        ],
        tmp_path,
        ("regex",),
    )
    assert patterns == {"regex"}


def test_a_command_is_built_alone_and_the_rest_of_the_cli_is_unchanged() -> None:
    """typer converts only the invoked command's signature; ``--help`` and unknown names get them all."""
    import pathjudge.cli  # noqa: F401  (registers every command)
    from pathjudge._cli.app import _click_command

    whole = _click_command([])
    assert {"score", "report", "import", "criteria"} <= set(whole.commands)
    alone = _click_command(["score", "runs.jsonl"])
    assert list(alone.commands) == ["score"]
    assert [p.name for p in alone.commands["score"].params] == [
        p.name for p in whole.commands["score"].params
    ]
    assert [p.name for p in alone.params] == [p.name for p in whole.params]  # --version stays
    for args in (["--help"], ["criteria", "list"], ["scor"], ["--version"]):
        assert set(_click_command(args).commands) == set(whole.commands), args


def _claim_patterns_compiled(args: list[str], cwd: Path) -> int:
    """How many of the large said-vs-did claim patterns a fresh interpreter compiled running ``args``."""
    claims = "sys.modules['pathjudge.rubrics.assertions.claims']"
    compiled = "sys.modules['pathjudge.rubrics.assertions._regex']._BUILTIN"
    patterns = ", ".join(f"{claims}.{name}" for name in ("_DATE", "_AMOUNT", "_COUNT", "_ACTION"))
    count = _after_cli(args, cwd, f"sum(p in {compiled} for p in ({patterns}))")
    assert isinstance(count, int)
    return count


def test_claim_patterns_compile_only_for_a_suite_that_checks_said_vs_did(tmp_path: Path) -> None:
    """The claim patterns (dates, amounts, counts, actions) compile when a message is first read."""
    suite = DOCENT / "support-suite.yaml"
    text = suite.read_text(encoding="utf-8")
    assert "said_vs_did" not in text
    runs = str(_support_runs(tmp_path))
    plain = ["score", runs, "--suite", str(suite), "--fast", "-q", "--jobs", "1"]
    assert _claim_patterns_compiled(plain, tmp_path) == 0
    checked = tmp_path / "said-vs-did-suite.yaml"
    checked.write_text(text.replace("tasks:\n", "defaults: {said_vs_did: {}}\ntasks:\n", 1))
    args = ["score", runs, "--suite", str(checked), "--fast", "-q", "--jobs", "1"]
    assert _claim_patterns_compiled(args, tmp_path) == 4
