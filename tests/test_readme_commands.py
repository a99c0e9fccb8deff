"""The README's first command (read from the README itself) scores the bundled example with no key,
and ``.ci/run`` runs exactly its second (test) command."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from pathjudge.cli import main


def _readme_commands(repo_root: Path) -> list[str]:
    """The one-line commands of the README's ```bash blocks, in order."""
    text = (repo_root / "README.md").read_text(encoding="utf-8")
    return [block.split("```", 1)[0].strip() for block in text.split("```bash\n")[1:]]


def test_readme_first_command_scores_the_bundled_example_without_a_key(
    repo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _readme_commands(repo_root)[0]
    install, _, job = first.partition(" && ")
    assert install == "python -m pip install -e ."
    argv = shlex.split(job)
    assert argv[:2] == ["pathjudge", "score"]
    for name in list(os.environ):
        if name.startswith(("PATHJUDGE_", "ANTHROPIC_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(repo_root)
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    assert "task success rate" in out
    assert "not run" in out  # the judged criterion, without a key


def test_ci_runs_exactly_the_readme_test_command(repo_root: Path) -> None:
    second = _readme_commands(repo_root)[1]
    assert "pytest" in second
    ci_lines = (repo_root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert second in ci_lines
