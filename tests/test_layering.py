"""The layers of docs/ARCHITECTURE.md, and the seams between them.

The layering itself is import-linter's contract in pyproject.toml (every import, a function-local one
too), checked here and by ``lint-imports`` in CI; the tests below check what a contract cannot say.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "pathjudge"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in sorted((SRC / package).rglob("*.py")):
        for module in sorted(_imports(path)):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                out.append(f"{path.relative_to(SRC)} imports {module}")
    return out


def test_the_architecture_contract_holds(capsys: pytest.CaptureFixture[str]) -> None:
    """The layers, no import circles, plumbing from ``_io``: the import-linter contracts in
    pyproject.toml (``lint-imports`` in CI), run here too so plain ``pytest`` catches a bad import."""
    from importlinter import configuration
    from importlinter.application.use_cases import lint_imports

    configuration.configure()  # what the lint-imports command does first
    kept = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_logo=True, cache_dir=None)
    assert kept, capsys.readouterr().out


def test_the_checker_sees_lazy_imports(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from pathjudge.report.progress import progress\n")
    assert _imports(sample) == {"pathjudge.report.progress"}


def test_run_judge_reports_through_the_progress_callback() -> None:
    """The judge draws nothing itself; it opens the progress it is handed and advances it per sample."""
    import asyncio
    from contextlib import contextmanager

    from pathjudge.agent.trajectory import Usage
    from pathjudge.judge.backends.base import BackendReply, JudgeBackend, JudgePrompt
    from pathjudge.judge.runner import JudgeJob, run_judge
    from pathjudge.judge.verdict import Verdict
    from pathjudge.rubrics.criteria import get_criterion

    events: list[tuple[str, object]] = []

    class Handle:
        def advance(self, n: int = 1) -> None:
            events.append(("advance", n))

    @contextmanager
    def recording(description: str, total: int | None):  # type: ignore[no-untyped-def]
        events.append(("open", total))
        yield Handle()
        events.append(("close", None))

    class Fixed(JudgeBackend):
        name = "fixed"
        model = "m"

        async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
            verdict = Verdict(reasoning="ok", evidence=[], verdict="pass")
            return BackendReply(verdict=verdict, usage=Usage(), attempts=1, model="m")

    criterion = get_criterion("answer-correct")
    inputs = dict.fromkeys(criterion.inputs, "x")
    jobs = [JudgeJob(item_id=f"i{k}", criterion=criterion, inputs=inputs) for k in range(3)]
    asyncio.run(run_judge(jobs, backend=Fixed(), samples=2, progress=recording))
    assert events[0] == ("open", 6)
    assert events[-1] == ("close", None)
    assert sum(n for kind, n in events if kind == "advance") == 6  # type: ignore[misc]


@pytest.mark.parametrize("face", ["_cli/score.py", "pytest_plugin.py"])
def test_faces_grade_through_the_pipeline(face: str) -> None:
    """The CLI's score command and the pytest plugin call ``pathjudge.score``, never the grading core."""
    imported = _imports(SRC / face)
    assert "pathjudge.scoring.pipeline" in imported
    assert not imported & {"pathjudge.scoring.grade", "pathjudge.scoring.judged.run_judged"}
