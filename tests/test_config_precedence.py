"""Configuration precedence for EVERY key, and the twin warning exactly when a
judge grades its own model's work.

Precedence: command line > environment > file > built-in default, checked for each of the 25 keys in
both file forms (the unit test covers one or two keys of each kind).

The unit tests check ``twin_warning()`` and ``pathjudge config``; these drive the commands that really
judge (``judge``, ``score``) and one that does not (``calibrate`` on recorded verdicts), through
``main()`` against the local fake Anthropic server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pathjudge.cli import main
from pathjudge.config import ENV_VARS, config_keys, resolve_config
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, forced_tool_policy

TWIN = "grading its own twin"
# a model name the SDK does not list as deprecated (a deprecation warning is an error under pytest)
MODEL = "claude-test-judge-1"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No PATHJUDGE_* variables, a dummy key, and a working folder without a config file."""
    for name in list(os.environ):
        if name.startswith(("PATHJUDGE_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
    monkeypatch.chdir(tmp_path)


def _verdict(_request: RecordedRequest) -> dict[str, Any]:
    return {"reasoning": "covers both points", "evidence": ["429"], "verdict": "pass"}


@pytest.fixture
def server() -> Any:
    with FakeAnthropic(forced_tool_policy(_verdict)) as fake:
        yield fake


def _stderr(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


def _items(path: Path) -> Path:
    path.write_text(
        json.dumps({"item_id": "i0", "inputs": {"question": "q", "answer": "a", "reference": "r"}})
        + "\n"
    )
    return path


def test_judge_command_warns_only_when_the_judge_model_is_the_agent_model(
    server: FakeAnthropic, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path / "items.jsonl")
    common = ["judge", str(items), "--criterion", "answer-correct", "--base-url", server.url]
    # the default agent under test is claude-haiku-4-5 (seeds): judging with it is the twin case
    twin = [*common, "--model", "claude-haiku-4-5", "-o", str(tmp_path / "a.jsonl")]
    assert main([*twin, "--cache", str(tmp_path / "a.sqlite")]) == 0
    assert TWIN in _stderr(capsys)
    other = [*common, "--model", "claude-opus-4-8", "-o", str(tmp_path / "b.jsonl")]
    assert main([*other, "--cache", str(tmp_path / "b.sqlite")]) == 0
    assert TWIN not in _stderr(capsys)
    assert server.count("POST", "/v1/messages") == 2  # both really judged


def _score(docent: Path, runs: Path, out: Path, *extra: str) -> int:
    suite = docent / "suite.yaml"
    return main(["score", str(runs), "--suite", str(suite), "--json", str(out), "-q", *extra])


def test_score_warns_when_the_live_judge_is_the_configured_agent_model(
    server: FakeAnthropic,
    repo_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    docent = repo_root / "examples" / "docent"
    monkeypatch.setenv("PATHJUDGE_AGENT_MODEL", "claude-opus-4-8")  # = the default judge
    judge = ["--judge-base-url", server.url, "--cache", str(tmp_path / "c.sqlite")]
    assert _score(docent, docent / "runs.jsonl", tmp_path / "a.json", *judge) == 0
    assert TWIN in _stderr(capsys)
    assert server.count("POST", "/v1/messages") == 1  # the suite's one judged run
    # --fast: no judge runs, so no warning
    assert _score(docent, docent / "runs.jsonl", tmp_path / "b.json", *judge, "--fast") == 0
    assert TWIN not in _stderr(capsys)


def test_score_warns_when_the_runs_were_made_by_the_judge_model(
    server: FakeAnthropic, repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docent = repo_root / "examples" / "docent"
    runs = tmp_path / "runs.jsonl"
    lines = (docent / "runs.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line]
    for record in records:
        record["agent"] = {**(record.get("agent") or {}), "model": MODEL}
    runs.write_text("".join(json.dumps(r) + "\n" for r in records))
    judge = ["--judge-base-url", server.url, "--cache", str(tmp_path / "c.sqlite")]
    code = _score(docent, runs, tmp_path / "a.json", *judge, "--judge-model", MODEL)
    assert code == 0
    assert server.count("POST", "/v1/messages") == 1
    assert TWIN in _stderr(capsys)


def test_calibrate_on_recorded_verdicts_does_not_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, verdicts = tmp_path / "l.jsonl", tmp_path / "v.jsonl"
    truth = ["pass", "pass", "fail", "fail", "pass", "fail"]
    labels.write_text(
        "".join(json.dumps({"item_id": f"i{i}", "label": v}) + "\n" for i, v in enumerate(truth))
    )
    verdicts.write_text(
        "".join(json.dumps({"item_id": f"i{i}", "verdict": v}) + "\n" for i, v in enumerate(truth))
    )
    monkeypatch.setenv("PATHJUDGE_AGENT_MODEL", "claude-opus-4-8")  # = the default judge
    code = main(["calibrate", "--labels", str(labels), "--verdicts", str(verdicts)])
    assert code in (0, 1)  # trusted or not: six items are few
    assert TWIN not in _stderr(capsys)


def _values(key: str) -> tuple[str, str, object, object, object, object]:
    """(TOML literal, env string, cli value, expected file / env / cli value) for ``key``."""
    leaf = key.rsplit(".", 1)[-1]
    if leaf == "backend":
        return '"openai-compatible"', "llama-cpp", "anthropic", *(
            "openai-compatible", "llama-cpp", "anthropic",
        )  # fmt: skip
    if leaf == "model":
        return '"model-file"', "model-env", "model-cli", "model-file", "model-env", "model-cli"
    if leaf == "base_url":
        return '"http://file:1"', "http://env:2", "http://cli:3", *(
            "http://file:1", "http://env:2", "http://cli:3",
        )  # fmt: skip
    if key == "concurrency":
        return "2", "3", 4, 2, 3, 4
    if key == "cache":
        return '"/abs/file.sqlite"', "/abs/env.sqlite", "/abs/cli.sqlite", *(
            Path("/abs/file.sqlite"), Path("/abs/env.sqlite"), Path("/abs/cli.sqlite"),
        )  # fmt: skip
    if key == "allow_callables":  # issue 13: true/false or a list of modules
        return '["mod.file"]', "mod.env,other", "mod.cli", *(
            ("mod.file",), ("mod.env", "other"), ("mod.cli",),
        )  # fmt: skip
    # every other key is a number in [0, 1] (gates, thresholds, the unsure cap) or a weight
    return "0.25", "0.5", 0.75, 0.25, 0.5, 0.75


@pytest.mark.parametrize("form", ["pathjudge.toml", "pyproject.toml"])
def test_precedence_holds_for_every_key(tmp_path: Path, form: str) -> None:
    keys = config_keys()
    assert len(keys) == 34  # 25 + every fail_under.<metric> (issues 11, 12) + allow_callables (13)
    for key in keys:
        toml, env, cli, from_file, from_env, from_cli = _values(key)
        folder = tmp_path / form / key
        folder.mkdir(parents=True)
        table, _, leaf = key.rpartition(".")
        head = "tool.pathjudge" if form == "pyproject.toml" else ""
        section = ".".join(p for p in (head, table) if p)
        (folder / form).write_text(
            (f"[{section}]\n" if section else "") + f"{leaf} = {toml}\n", encoding="utf-8"
        )
        got = []
        for overrides, environ in (
            ({}, {}),
            ({}, {ENV_VARS[key]: env}),
            ({key: cli}, {ENV_VARS[key]: env}),
        ):
            resolved = resolve_config(overrides, cwd=folder, env=environ)
            got.append((resolved.value(key), resolved.source(key)))
        assert got == [
            (from_file, f"file:{folder / form}"),
            (from_env, "env"),
            (from_cli, "cli"),
        ], key
        default = resolve_config(cwd=tmp_path, env={})
        assert default.source(key) == "default"
        assert default.value(key) != from_file, key  # the file really changed something


def test_twin_warning_does_not_suggest_temperature() -> None:
    from pathjudge.config import twin_warning

    message = twin_warning("claude-haiku-4-5", "claude-haiku-4-5")
    assert message is not None
    assert "temperature" not in message
    assert "different model" in message
    assert "rubric" in message
