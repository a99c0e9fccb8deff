"""A workspace of example and hostile inputs, and a harness that runs many commands in one process."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("_harness.py")

# What an agent (or a judge quoting it) might write to attack a terminal, a CI summary or a parser:
# an image and a link, a window-title OSC, clear-screen, rich markup, a C1 CSI and a bidi override.
HOSTILE_TEXT = (
    "![x](http://evil.test/p.png) [click](http://evil.test/c) \x1b]0;pwned\x07 \x1b[2J "
    "[bold]not markup[/] \x9b31m \u202eevil | *stars* `code`"
)
EVIL_TASK = "evil-\x1b[31mtask"
# the rich markup written into the hostile data: shown as text, so a test can tell it from pathjudge's own
DATA_MARKUP = ("[bold]not markup[/]", "[red]plain[/]", "[bold]suite[/]", "[bold]x[/]")
EVIL_TOOL = "search\x1b[2J_docs"


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _run(
    run_id: str, task_id: str, epoch: int, answer: str, tool: str = EVIL_TOOL
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "task_id": task_id,
        "epoch": epoch,
        "input": "q",
        "steps": [
            {"tool": tool, "arguments": {"query": HOSTILE_TEXT}, "turn": 0, "result": HOSTILE_TEXT},
            {"tool": tool, "arguments": {"query": HOSTILE_TEXT}, "turn": 1, "result": "ok"},
        ],
        "final_answer": answer,
    }


def build_workspace(ws: Path) -> None:
    """Example inputs under ``docent/`` (plus a candidate that loses and gains a success) and hostile
    inputs under ``hostile/``; ``results.json`` is a score report of the docent runs."""
    docent = ws / "docent"
    docent.mkdir(parents=True, exist_ok=True)
    for name in ("runs.jsonl", "suite.yaml"):
        shutil.copy(REPO / "examples" / "docent" / name, docent / name)
    shutil.copy(
        REPO / "tests" / "fixtures" / "importers" / "openai_chat.json", ws / "openai_chat.json"
    )
    candidate = []
    for line in (docent / "runs.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["task_id"] == "pro-rpm":
            record["final_answer"] = "The Pro plan allows 60 requests per minute."
        if record["run_id"] == "free-storage-e1":
            record["final_answer"] += " Storage: 1 GB."
        candidate.append(record)
    _jsonl(docent / "candidate.jsonl", candidate)

    hostile = ws / "hostile"
    hostile.mkdir(exist_ok=True)
    suite = {
        "schema_version": 1,
        "name": "hostile\x1b[5m [bold]suite[/]",
        "tasks": [
            {
                "id": task,
                "input": "q",
                "success": {"kind": "contains_all", "values": ["600"]},
                "tools": {"required": [EVIL_TOOL]},
                "references": [{"mode": "strict", "steps": [{"tool": EVIL_TOOL}]}],
            }
            for task in (EVIL_TASK, "[red]plain[/]-task", "ok-task")
        ],
    }
    (hostile / "suite.yaml").write_text(json.dumps(suite, indent=2), encoding="utf-8")
    runs = [
        _run(f"run-\x1b[1m{i}", task, epoch, HOSTILE_TEXT + (" 600" if i % 2 else ""))
        for i, (task, epoch) in enumerate(
            (task, epoch)
            for task in (EVIL_TASK, "[red]plain[/]-task", "ok-task")
            for epoch in (0, 1)
        )
    ]
    _jsonl(hostile / "runs.jsonl", runs)
    _jsonl(hostile / "candidate.jsonl", [{**r, "final_answer": HOSTILE_TEXT} for r in runs])
    _jsonl(
        hostile / "items.jsonl",
        [
            {
                "item_id": f"item-\x1b[7m{i}",
                "inputs": {"question": HOSTILE_TEXT, "answer": HOSTILE_TEXT, "reference": "600"},
            }
            for i in range(3)
        ],
    )
    criterion = "crit-\x1b[2J [bold]x[/]"
    _jsonl(
        hostile / "labels.jsonl",
        [
            {
                "item_id": f"i\x1b[1m{i}",
                "label": "pass" if i < 6 else "fail",
                "criterion": criterion,
            }
            for i in range(10)
        ],
    )
    _jsonl(
        hostile / "verdicts.jsonl",
        [
            {
                "item_id": f"i\x1b[1m{i}",
                "verdict": "pass" if i % 3 else "fail",
                "reasoning": HOSTILE_TEXT,
                "criterion": criterion,
            }
            for i in range(10)
        ],
    )
    done = subprocess.run(
        [sys.executable, "-m", "pathjudge", "score", "docent/runs.jsonl", "--suite",
         "docent/suite.yaml", "--include-runs", "--json", "results.json", "-q"],
        cwd=ws, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _env(width: int, *, tty: bool) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PATHJUDGE_", "ANTHROPIC_", "OPENAI_"))
        and k not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "LINES", "CI", "GITHUB_ACTIONS")
    }
    env.update(
        COLUMNS=str(width),
        LINES="50",
        PYTHONUNBUFFERED="1",
        TERM="xterm-256color" if tty else "dumb",
    )
    return env


def _parse(output: str) -> dict[str, tuple[int, str]]:
    """Split the harness output at its ``@@@BEGIN name`` / ``@@@END name code`` markers."""
    text = output.replace("\r\n", "\n")
    results: dict[str, tuple[int, str]] = {}
    for chunk in text.split("@@@BEGIN ")[1:]:
        name, _, rest = chunk.partition("\n")
        body, _, tail = rest.rpartition("@@@END ")
        code = int(tail.split()[1])
        results[name.strip()] = (code, body.rstrip("\n") + "\n")
    return results


def run_harness(
    ws: Path,
    commands: list[Any],
    *,
    width: int,
    pty_mode: bool,
    timeout: float = 900,
) -> dict[str, tuple[int, str]]:
    """Run ``commands`` in one interpreter at ``width`` columns, piped or on a pseudo-terminal.

    Returns ``{name: (exit code, stdout and stderr as the user would see them)}``.
    """
    spec = ws / "commands.json"
    spec.write_text(json.dumps(commands), encoding="utf-8")
    argv = [sys.executable, "-u", str(HARNESS), str(spec)]
    if not pty_mode:
        done = subprocess.run(
            argv,
            cwd=ws,
            env=_env(width, tty=False),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )
        return _parse(done.stdout.decode("utf-8"))
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    proc = subprocess.Popen(
        argv, cwd=ws, env=_env(width, tty=True), stdin=slave, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        else:
            proc.kill()
            raise AssertionError(f"harness timed out at {width} columns (pty)")
        proc.wait(timeout=60)
    finally:
        os.close(master)
    return _parse(b"".join(chunks).decode("utf-8"))
