"""Issue 13 items 6–14: suites are data, everything is bounded, bad input is one line and exit 2."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401
from pathjudge._cli.app import main
from pathjudge._cli.calibrate import _slug
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import JudgeError, SuiteError
from pathjudge.judge.cache import VerdictCache
from pathjudge.rubrics.assertions._regex import PatternTimeout, search
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import grade
from tests.hostile.corpus import BOMB

REPO = Path(__file__).resolve().parents[2]
RUN = {"run_id": "r", "task_id": "t1", "epoch": 0, "final_answer": "ok"}


def _cli(
    argv: list[str], cwd: Path, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a bounded subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "pathjudge", *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO / "src"), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _suite(success: str) -> str:
    return f"name: s\ntasks:\n  - id: t1\n    input: q\n    success: {success}\n"


# -- 6: callables are opt-in -------------------------------------------------------------------


def test_a_suite_callable_never_runs_unless_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = _suite(
        f'{{kind: callable, function: "tests.hostile._callables:touch", params: {{path: "{marker}"}}}}'
    )
    suite = parse_suite_text(text)
    (result,) = [
        c
        for g in grade([RunRecord(**RUN)], suite)
        for c in g.checks
        if c.check == "outcome.callable"
    ]
    assert result.status == "error"
    assert "--allow-callables" in result.reason
    assert not marker.exists()
    assert suite.blocked_callables() == [("t1", "tests.hostile._callables:touch")]
    # allowed by the flag's library form, and by a module allow-list
    for policy in (True, ("tests.hostile",), ("tests.hostile._callables",)):
        allowed = parse_suite_text(text, allow_callables=policy)
        list(grade([RunRecord(**RUN)], allowed))
        assert marker.exists()
        marker.unlink()
    # a look-alike module name is not covered by the allow-list
    list(grade([RunRecord(**RUN)], parse_suite_text(text, allow_callables=("tests.host",))))
    assert not marker.exists()


def test_cli_allow_callables_flag_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    suite = tmp_path / "s.yaml"
    suite.write_text(
        _suite(
            f'{{kind: callable, function: "tests.hostile._callables:touch", params: {{path: "{marker}"}}}}'
        ),
        encoding="utf-8",
    )
    runs = tmp_path / "r.jsonl"
    runs.write_text(json.dumps(RUN) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(["score", str(runs), "--suite", str(suite), "--fast"])
    assert not marker.exists()
    assert "--allow-callables" in capsys.readouterr().err
    assert main(["score", str(runs), "--suite", str(suite), "--fast", "--allow-callables"]) == 0
    assert marker.exists()
    marker.unlink()
    (tmp_path / "pathjudge.toml").write_text(
        'allow_callables = ["tests.hostile"]\n', encoding="utf-8"
    )
    assert main(["score", str(runs), "--suite", str(suite), "--fast"]) == 0
    assert marker.exists()


@pytest.mark.parametrize("function", ["exits", "interrupts"])
def test_a_callable_that_exits_or_interrupts_is_that_checks_error(function: str) -> None:
    suite = parse_suite_text(
        _suite(f'{{kind: callable, function: "tests.hostile._callables:{function}"}}'),
        allow_callables=True,
    )
    grades = list(grade([RunRecord(**RUN), RunRecord(**{**RUN, "epoch": 1})], suite))
    assert len(grades) == 2  # grading went on
    for graded in grades:
        (check,) = [c for c in graded.checks if c.check == "outcome.callable"]
        assert check.status == "error"
        assert ("SystemExit" if function == "exits" else "KeyboardInterrupt") in check.reason


def test_the_pydoc_pipepager_suite_runs_no_shell(tmp_path: Path) -> None:
    pwned = tmp_path / "PWNED"
    suite = tmp_path / "evil.yaml"
    suite.write_text(
        _suite(f'{{kind: callable, function: "pydoc:pipepager", params: {{cmd: "id > {pwned}"}}}}'),
        encoding="utf-8",
    )
    runs = tmp_path / "r.jsonl"
    runs.write_text(json.dumps(RUN) + "\n", encoding="utf-8")
    done = _cli(["score", str(runs), "--suite", str(suite), "--fast"], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert not pwned.exists()


# -- 7: the alias bomb exits 2 quickly -----------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "run"])
def test_the_alias_bomb_is_refused_quickly(tmp_path: Path, command: str) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMB + "\n", encoding="utf-8")
    assert len(bomb.read_bytes()) < 400
    runs = tmp_path / "r.jsonl"
    runs.write_text(json.dumps(RUN) + "\n", encoding="utf-8")
    argv = (
        ["score", str(runs), "--suite", str(bomb)]
        if command == "score"
        else ["run", str(bomb), "-o", str(tmp_path / "o.jsonl")]
    )
    done = _cli(argv, tmp_path, timeout=60)
    assert done.returncode == 2
    assert "alias" in done.stderr
    assert "Traceback" not in done.stderr


def test_yaml_still_names_lines_and_duplicate_keys() -> None:
    with pytest.raises(SuiteError, match=r"<s>:5: .*'input' appears twice"):
        parse_suite_text("name: s\ntasks:\n  - id: t1\n    input: a\n    input: b\n", file="<s>")


def test_aliases_within_limits_still_work() -> None:
    suite = parse_suite_text(
        "name: s\ntasks:\n  - id: a\n    success: &ok {kind: contains_any, values: [ok]}\n"
        "  - id: b\n    success: *ok\n"
    )
    assert [t.id for t in suite.tasks] == ["a", "b"]


# -- 8: catastrophic regexes are bounded ----------------------------------------------------------


def test_a_catastrophic_regex_is_an_error_result_not_a_hang() -> None:
    with pytest.raises(PatternTimeout):
        search("(x+x+)+y", "x" * 5000)
    assert search("(a+)+$", "a" * 40 + "b") is None  # the example: answered at once
    assert search(r"(?<!\d)60(?!\d)", "a limit of 60 per minute") == "60"  # re syntax kept
    suite = parse_suite_text(_suite("{kind: regex, pattern: '(x+x+)+y'}"))
    started = time.monotonic()
    (graded,) = grade([RunRecord(**{**RUN, "final_answer": "x" * 5000})], suite)
    assert time.monotonic() - started < 60
    (check,) = [c for c in graded.checks if c.check == "outcome.regex"]
    assert check.status == "error"
    assert "did not finish" in check.reason


def test_a_catastrophic_argument_regex_is_an_error_result() -> None:
    suite = parse_suite_text(
        "name: s\ntasks:\n  - id: t1\n    arguments:\n      - tool: f\n        args: {q: {$regex: '(a|aa)+$'}}\n"
    )
    run = RunRecord(**{**RUN, "steps": [{"tool": "f", "arguments": {"q": "a" * 60 + "b"}}]})
    (graded,) = grade([run], suite)
    (check,) = [c for c in graded.checks if c.check == "arguments.match"]
    assert check.status == "error"


# -- 12: output paths -------------------------------------------------------------------------------


def _runs_and_suite(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "s.yaml"
    suite.write_text(_suite("{kind: contains_any, values: [ok]}"), encoding="utf-8")
    runs = tmp_path / "r.jsonl"
    runs.write_text(json.dumps(RUN) + "\n", encoding="utf-8")
    return runs, suite


def test_output_under_a_file_or_a_folder_is_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, suite = _runs_and_suite(tmp_path)
    for target in (tmp_path, suite / "x.json", runs / "deeper" / "x.json"):
        assert main(["score", str(runs), "--suite", str(suite), "--json", str(target)]) == 2
        assert str(target) in capsys.readouterr().err
    for argv in (
        ["variance", str(runs), "--suite", str(suite), "--json", str(tmp_path)],
        ["diff", str(runs), str(runs), "--suite", str(suite), "--json", str(tmp_path)],
        ["import", "--from", "openai-chat", str(runs), "-o", str(tmp_path)],
    ):
        assert main(argv) == 2
        assert "folder" in capsys.readouterr().err


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("capsh") is None,
    reason="needs root and capsh to drop CAP_DAC_OVERRIDE (root ignores folder modes otherwise)",
)
def test_a_read_only_folder_is_exit_2_naming_the_path(tmp_path: Path) -> None:
    runs, suite = _runs_and_suite(tmp_path)
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o555)
    command = " ".join(
        [
            sys.executable,
            "-m",
            "pathjudge",
            "score",
            str(runs),
            "--suite",
            str(suite),
            "--json",
            str(locked / "x.json"),
        ]
    )
    done = subprocess.run(
        ["capsh", "--drop=cap_dac_override", "--", "-c", command],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert str(locked / "x.json") in done.stderr
    assert "not writable" in done.stderr


# -- 13: compressed inputs -----------------------------------------------------------------------


def test_truncated_and_fake_gzip_are_exit_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, suite = _runs_and_suite(tmp_path)
    body = "".join(
        json.dumps({**RUN, "epoch": i, "final_answer": "ok " + "x" * 300}) + "\n"
        for i in range(100)
    ).encode()
    whole = gzip.compress(body)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(body)
    assert main(["score", str(cut), "--suite", str(suite)]) == 2
    assert f"{cut}:" in capsys.readouterr().err  # file:line
    assert main(["score", str(fake), "--suite", str(suite)]) == 2
    assert "not a gzip file" in capsys.readouterr().err


# -- 14: other crashes -------------------------------------------------------------------------------


def test_plot_file_names_are_bounded_and_distinct() -> None:
    long = "c" * 600
    assert len(_slug(long)) <= 70
    assert _slug("a/b") != _slug("a:b")
    assert _slug("answer-correct") == "answer-correct"
    assert "/" not in _slug("../../etc/passwd")


def test_an_unrelated_sqlite_file_is_not_a_cache_and_is_left_alone(tmp_path: Path) -> None:
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE users (id INTEGER)")
    before = other.read_bytes()
    with pytest.raises(JudgeError, match="not a pathjudge verdict cache"):
        VerdictCache(other)
    assert other.read_bytes() == before
    text = tmp_path / "notes.txt"
    text.write_text("hello\n" * 100, encoding="utf-8")
    with pytest.raises(JudgeError, match="not a pathjudge verdict cache"):
        VerdictCache(text)
    assert text.read_text(encoding="utf-8") == "hello\n" * 100
    VerdictCache(tmp_path / "fresh.sqlite")  # a new or a real cache opens as before
    VerdictCache(tmp_path / "fresh.sqlite")


def test_duplicate_item_ids_and_duplicate_diff_runs_name_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    line = json.dumps(
        {"item_id": "a", "inputs": {"question": "q", "answer": "a", "reference": "r"}}
    )
    items.write_text(line + "\n\n" + line + "\n", encoding="utf-8")
    argv = ["judge", str(items), "--criterion", "answer-correct", "-o", str(tmp_path / "v.jsonl")]
    argv += ["--backend", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    assert main(argv) == 2
    assert f"{items}:3" in capsys.readouterr().err
    runs, suite = _runs_and_suite(tmp_path)
    dup = tmp_path / "dup.jsonl"
    dup.write_text(runs.read_text(encoding="utf-8") * 2, encoding="utf-8")
    assert main(["diff", str(runs), str(dup), "--suite", str(suite)]) == 2
    assert f"{dup}:2" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra",
    [
        ["--weights", "success=nan"],
        ["--fail-under", "success=inf"],
        ["--budget-usd", "inf"],
    ],
)
def test_non_finite_flags_are_refused(tmp_path: Path, extra: list[str]) -> None:
    runs, suite = _runs_and_suite(tmp_path)
    assert main(["score", str(runs), "--suite", str(suite), *extra]) == 2


def test_non_finite_gates_and_weights_in_a_suite_are_refused() -> None:
    for extra in (
        "weights: {success: .nan}",
        "gate: {max_token_increase: .inf}",
        "weights: {success: 1e400}",
    ):
        with pytest.raises(SuiteError, match="finite"):
            parse_suite_text(_suite("{kind: contains_any, values: [ok]}") + extra + "\n")


def test_criterion_yaml_is_bounded_like_suites(tmp_path: Path) -> None:
    from pathjudge.errors import CriterionError
    from pathjudge.rubrics.criteria import load_criterion, parse_criterion

    deep = "[" * 10_000 + "]" * 10_000
    with pytest.raises(CriterionError, match="nested"):
        parse_criterion(f"id: x\nversion: '1'\ncriterion: {deep}\n")
    with pytest.raises(CriterionError, match="alias"):
        parse_criterion(BOMB + "\n")
    latin = tmp_path / "c.yaml"
    latin.write_bytes("id: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(CriterionError, match="UTF-8"):
        load_criterion(latin)
