"""A generator of hostile inputs for every pathjudge command, by class (issue 13).

Each :class:`Case` is one command line run against files written by :func:`build`, with what must
hold afterwards:

- ``data_loss``: a failed or refused command leaves every existing file byte for byte as it was;
- ``code``: a suite is data; nothing it names is imported or run unless the user allows it;
- ``hang``: everything is bounded (the case has a wall-clock limit);
- ``one_line``: bad input is one ``error:`` line and exit 2, never a traceback;
- ``secrets``: a key never reaches the terminal.

Every case also requires: no traceback, no ``RecursionError``/``UnicodeDecodeError`` text, and exit
code in ``expect``. Write the corpus to a folder (with a ``manifest.json``) to try it by hand::

    python -m tests.hostile.corpus /tmp/hostile
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "build"]

BOMB = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]"
            for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)
"""A YAML alias bomb of about 340 bytes that expands to 9**9 (387 million) strings."""

DEEP = 10_000
KEY = "sk-ant-api03-hostilecorpus0123456789abcdefABCDEF"


@dataclass
class Case:
    """One hostile command line and what must hold after it."""

    name: str
    klass: str
    argv: list[str]
    expect: frozenset[int] = frozenset({2})
    stderr_has: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 90.0
    no_output_has: tuple[str, ...] = ()


def _run(task_id: str = "t1", answer: str = "ok", **extra: object) -> dict[str, object]:
    record: dict[str, object] = {
        "run_id": f"{task_id}-r",
        "task_id": task_id,
        "epoch": 0,
        "agent": {"name": "x"},
        "input": "hi",
        "steps": [{"tool": "search", "arguments": {"q": "a"}, "result": "ok", "latency_ms": 1}],
        "final_answer": answer,
    }
    record.update(extra)
    return record


def _line(record: dict[str, object]) -> str:
    return json.dumps(record) + "\n"


def _write(root: Path, name: str, text: str | bytes) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return name


SUITE = """name: hostile
tasks:
  - id: t1
    input: hi
    success: {kind: contains_any, values: ["ok"]}
"""


def build(root: Path) -> list[Case]:
    """Write the corpus files under ``root`` and return the cases (paths relative to ``root``)."""
    root.mkdir(parents=True, exist_ok=True)
    suite = _write(root, "suite.yaml", SUITE)
    runs = _write(root, "runs.jsonl", _line(_run()))
    deep = "[" * DEEP + "]" * DEEP
    cases: list[Case] = []

    # -- code: a suite never runs code unless allowed ------------------------------------------
    pwn = (root / "PWNED").as_posix()
    for name, success in {
        "callable_pipepager": f'{{kind: callable, function: "pydoc:pipepager", params: {{cmd: "touch {pwn}"}}}}',
        "callable_in_all_of": "{kind: all_of, parts: [{name: p, criterion: "
        f'{{kind: callable, function: "pydoc:pipepager", params: {{cmd: "touch {pwn}"}}}}}}]}}',
        "callable_os_system_module": '{kind: callable, function: "os:system"}',
    }.items():
        text = f"name: evil\ntasks:\n  - id: t1\n    input: hi\n    success: {success}\n"
        evil = _write(root, f"{name}.yaml", text)
        cases.append(
            Case(
                name,
                "code",
                ["score", runs, "--suite", evil, "--fast"],
                expect=frozenset({0, 1}),
                stderr_has=("--allow-callables",),
                absent=("PWNED",),
            )
        )
    defaults = _write(
        root,
        "callable_defaults.yaml",
        "name: evil\ndefaults:\n  success: {kind: callable, function: "
        f'"pydoc:pipepager", params: {{cmd: "touch {pwn}"}}}}\ntasks:\n  - id: t1\n',
    )
    for command in (
        ["variance", runs, "--suite", defaults],
        ["diff", runs, runs, "--suite", defaults],
    ):
        cases.append(
            Case(
                f"callable_defaults_{command[0]}",
                "code",
                command,
                expect=frozenset({0, 1}),
                absent=("PWNED",),
            )
        )

    # -- hang: bounded ---------------------------------------------------------------------------
    bomb = _write(root, "bomb.yaml", BOMB + "\n")
    cases.append(Case("alias_bomb_score", "hang", ["score", runs, "--suite", bomb], timeout=60))
    cases.append(Case("alias_bomb_run", "hang", ["run", bomb, "-o", "bomb-out.jsonl"], timeout=60))
    nested_bomb = _write(
        root,
        "bomb_in_task.yaml",
        "name: b\n"
        + BOMB.replace("\n", "\n  ").join(["x:\n  ", "\n"])
        + "tasks:\n  - id: t1\n    metadata: {x: *i}\n",
    )
    cases.append(
        Case("alias_bomb_in_task", "hang", ["score", runs, "--suite", nested_bomb], timeout=60)
    )
    recursive = _write(root, "recursive.yaml", "name: r\ntasks: &t [*t]\n")
    cases.append(Case("recursive_alias", "hang", ["score", runs, "--suite", recursive]))
    slow = _write(
        root,
        "slow_regex.yaml",
        "name: r\ntasks:\n  - id: t1\n    success: {kind: regex, pattern: '(x+x+)+y'}\n"
        "    arguments:\n      - tool: search\n        args: {q: {$regex: '(a|aa)+$'}}\n",
    )
    slow_runs = _write(
        root,
        "slow_runs.jsonl",
        _line(
            _run(
                answer="x" * 5000,
                steps=[{"tool": "search", "arguments": {"q": "a" * 60 + "b"}, "result": "ok"}],
            )
        ),
    )
    cases.append(
        Case(
            "catastrophic_regex",
            "hang",
            ["score", slow_runs, "--suite", slow, "--fast"],
            expect=frozenset({0, 1, 2}),
            timeout=60,
        )
    )

    # -- one line, exit 2 --------------------------------------------------------------------------
    _write(root, "deep_suite.yaml", f"name: d\ntasks:\n  - id: t1\n    metadata: {{x: {deep}}}\n")
    cases.append(Case("deep_suite", "one_line", ["score", runs, "--suite", "deep_suite.yaml"]))
    block = "".join(" " * i + f"k{i}:\n" for i in range(400)) + " " * 400 + "v\n"
    _write(
        root,
        "deep_block_suite.yaml",
        "name: d\ntasks:\n  - id: t1\n    metadata:\n"
        + "".join("      " + line for line in block.splitlines(True)),
    )
    cases.append(
        Case("deep_block_suite", "one_line", ["score", runs, "--suite", "deep_block_suite.yaml"])
    )
    deep_run = _run()
    _write(root, "deep_runs.jsonl", _line(deep_run).replace('"q": "a"', f'"q": {deep}'))
    cases.append(Case("deep_runs", "one_line", ["score", "deep_runs.jsonl", "--suite", suite]))
    cases.append(Case("deep_runs_show", "one_line", ["show", "deep_runs.jsonl"]))
    _write(root, "deep.json", '{"messages": ' + deep + "}")
    _write(root, "deep.jsonl", '{"messages": ' + deep + "}\n")
    _write(
        root,
        "deep_args.json",
        json.dumps(
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"a": ' + deep + "}"},
                            }
                        ],
                    }
                ]
            }
        ),
    )
    for fmt in ("anthropic", "openai-chat", "openai-responses", "otel", "managed-agents"):
        for source in ("deep.json", "deep.jsonl"):
            cases.append(
                Case(
                    f"deep_import_{fmt}_{source.replace('.', '_')}",
                    "one_line",
                    ["import", "--from", fmt, source, "-o", f"out-{fmt}.jsonl"],
                )
            )
    cases.append(
        Case(
            "deep_tool_arguments_import",
            "one_line",
            ["import", "--from", "openai-chat", "deep_args.json", "-o", "out-args.jsonl"],
            expect=frozenset({0, 2}),
        )
    )
    _write(root, "deep_report.json", '{"kind": "pathjudge.score", "x": ' + deep + "}")
    cases.append(
        Case("deep_report_input", "one_line", ["report", "deep_report.json", "-o", "r.html"])
    )
    latin = (json.dumps(_run(answer="caf\u00e9"), ensure_ascii=False) + "\n").encode("latin-1")
    _write(root, "latin1_runs.jsonl", latin)
    cases.append(
        Case("non_utf8_runs", "one_line", ["score", "latin1_runs.jsonl", "--suite", suite])
    )
    _write(root, "latin1_suite.yaml", SUITE.replace("hi", "caf\u00e9").encode("latin-1"))
    cases.append(
        Case("non_utf8_suite", "one_line", ["score", runs, "--suite", "latin1_suite.yaml"])
    )
    _write(root, "latin1_report.json", '{"x": "caf\u00e9"}'.encode("latin-1"))
    cases.append(
        Case("non_utf8_report", "one_line", ["report", "latin1_report.json", "-o", "r2.html"])
    )
    _write(root, "latin1.json", b'{"messages": [{"role": "user", "content": "caf\xe9"}]}')
    cases.append(
        Case(
            "non_utf8_import",
            "one_line",
            ["import", "--from", "openai-chat", "latin1.json", "-o", "o-latin.jsonl"],
        )
    )
    # non-finite numbers
    inf_latency = _line(_run()).replace('"latency_ms": 1', '"latency_ms": 1e400')
    _write(root, "inf_latency.jsonl", inf_latency)
    _write(root, "nan_latency.jsonl", inf_latency.replace("1e400", "NaN"))
    _write(root, "inf_args.jsonl", _line(_run()).replace('"q": "a"', '"q": -1e400'))
    _write(
        root,
        "inf_usage.jsonl",
        _line(_run(usage={"cost_usd": 1})).replace('"cost_usd": 1', '"cost_usd": Infinity'),
    )
    for name in ("inf_latency", "nan_latency", "inf_args", "inf_usage"):
        cases.append(
            Case(
                f"non_finite_{name}",
                "one_line",
                ["score", f"{name}.jsonl", "--suite", suite, "--html", f"{name}.html"],
                stderr_has=(f"{name}.jsonl:1",),
            )
        )
    _write(root, "inf.json", '{"messages": [{"role": "user", "content": "hi"}], "n": 1e400}')
    cases.append(
        Case(
            "non_finite_import",
            "one_line",
            ["import", "--from", "openai-chat", "inf.json", "-o", "o-inf.jsonl"],
        )
    )
    _write(root, "inf_report.json", '{"kind": "pathjudge.score", "n": Infinity}')
    cases.append(
        Case("non_finite_report", "one_line", ["report", "inf_report.json", "-o", "r3.html"])
    )
    _write(root, "nan_weights.yaml", SUITE + "weights: {success: .nan}\n")
    cases.append(
        Case("nan_suite_weight", "one_line", ["score", runs, "--suite", "nan_weights.yaml"])
    )
    _write(root, "inf_gate.yaml", SUITE + "gate: {max_token_increase: .inf}\n")
    cases.append(
        Case("inf_suite_gate", "one_line", ["diff", runs, runs, "--suite", "inf_gate.yaml"])
    )
    for name, extra in {
        "nan_weights_flag": ["--weights", "success=nan"],
        "inf_fail_under_flag": ["--fail-under", "success=inf"],
        "inf_budget_flag": ["--budget-usd", "inf"],
    }.items():
        cases.append(Case(name, "one_line", ["score", runs, "--suite", suite, *extra]))
    cases.append(
        Case("nan_alpha_flag", "one_line", ["diff", runs, runs, "--suite", suite, "--alpha", "nan"])
    )
    cases.append(
        Case(
            "nan_config_env",
            "one_line",
            ["score", runs, "--suite", suite],
            env={"PATHJUDGE_FAIL_UNDER_SUCCESS": "nan"},
        )
    )
    # compressed inputs
    plain = "".join(_line(_run(answer=f"ok {i} " + "x" * 200)) for i in range(200)).encode()
    whole = gzip.compress(plain)
    _write(root, "truncated.jsonl.gz", whole[: len(whole) // 2])
    _write(root, "not_gzip.jsonl.gz", plain)
    for name in ("truncated", "not_gzip"):
        cases.append(
            Case(
                f"{name}_gz_score",
                "one_line",
                ["score", f"{name}.jsonl.gz", "--suite", suite],
                stderr_has=(f"{name}.jsonl.gz",),
            )
        )
        cases.append(Case(f"{name}_gz_show", "one_line", ["show", f"{name}.jsonl.gz"]))
        cases.append(
            Case(
                f"{name}_gz_import",
                "one_line",
                ["import", "--from", "openai-chat", f"{name}.jsonl.gz", "-o", f"o-{name}.jsonl"],
                stderr_has=(f"{name}.jsonl.gz",),
            )
        )
    # an unrelated SQLite file as the verdict cache is refused and left alone
    other = root / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE users (id INTEGER)")
    _write(
        root,
        "items.jsonl",
        json.dumps({"item_id": "a", "inputs": {"answer": "x", "question": "y", "reference": "z"}})
        + "\n",
    )
    cases.append(
        Case(
            "foreign_sqlite_cache",
            "one_line",
            [
                "judge",
                "items.jsonl",
                "--criterion",
                "answer-correct",
                "-o",
                "v.jsonl",
                "--backend",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--cache",
                "other.sqlite",
            ],
            stderr_has=("not a pathjudge",),
            unchanged=("other.sqlite",),
        )
    )

    # -- secrets -------------------------------------------------------------------------------------
    cases.append(
        Case(
            "config_masks_url_userinfo",
            "secrets",
            ["config"],
            expect=frozenset({0}),
            env={"PATHJUDGE_JUDGE_BASE_URL": f"http://user:{KEY}@proxy.example:8080/v1"},
            no_output_has=(KEY,),
        )
    )
    cases.append(
        Case(
            "config_json_masks_url_userinfo",
            "secrets",
            ["config", "--json", "-"],
            expect=frozenset({0}),
            env={"PATHJUDGE_AGENT_BASE_URL": f"https://{KEY}@proxy.example/v1"},
            no_output_has=(KEY,),
        )
    )
    return cases


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.hostile.corpus OUTDIR", file=sys.stderr)
        return 2
    root = Path(argv[0])
    cases = build(root)
    manifest = [case.__dict__ | {"expect": sorted(case.expect)} for case in cases]
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases written to {root} (see manifest.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
