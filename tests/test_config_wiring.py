"""Project configuration reaches `pathjudge run`, `judge` and `calibrate`, end to end through the CLI.

Each command is run with ``pathjudge.cli.main`` in a temporary working directory holding a
``pathjudge.toml`` (or a ``pyproject.toml`` with ``[tool.pathjudge]``): a value in the file is used, a
``PATHJUDGE_*`` variable beats the file, and a command-line flag beats the variable. Offline backends
only: the scripted Docent for ``run``, the fake Anthropic server for ``judge`` and live ``calibrate``,
recorded verdicts for the calibration gates. The judge-grades-its-twin warning is printed exactly when
the resolved judge model equals the resolved agent model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.cli import main
from pathjudge.config import CONFIG_FILE_ENV, ENV_VARS
from tests.fakes.anthropic_server import FakeAnthropic, fake_anthropic, forced_tool_policy

__all__ = ["fake_anthropic"]

TWIN = "grading its own twin"
MESSAGES = "/v1/messages"

SUITE = """\
schema_version: 1
name: mini
tasks:
  - id: rate-429
    input: What HTTP status code does Meridian return when you exceed the rate limit?
    success: {kind: contains_all, values: ["429"]}
  - id: pro-cost
    input: How much does the Pro plan cost per month?
    success: {kind: contains_all, values: ["25"]}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean working directory: no PATHJUDGE_* variables, no configuration file above it."""
    for name in [*ENV_VARS.values(), CONFIG_FILE_ENV]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _err(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """(stdout, stderr) with rich's line wrapping undone."""
    captured = capsys.readouterr()
    return " ".join(captured.out.split()), " ".join(captured.err.split())


def _models(path: Path) -> set[str]:
    return {json.loads(line)["agent"]["model"] for line in path.read_text().splitlines()}


# --------------------------------------------------------------------------------------------------
# pathjudge run


def test_run_takes_backend_and_model_from_file_env_and_cli(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "suite.yaml").write_text(SUITE)
    # The file picks the offline backend and names the agent model after the default judge model.
    (project / "pathjudge.toml").write_text(
        'concurrency = 2\n[agent]\nbackend = "scripted"\nmodel = "claude-opus-4-8"\n'
    )
    assert main(["run", "suite.yaml", "-o", "file.jsonl"]) == 0
    out, err = _err(capsys)
    assert "scripted:claude-opus-4-8" in out
    assert _models(project / "file.jsonl") == {"claude-opus-4-8"}
    assert err.count(TWIN) == 1  # agent == default judge: warned, once

    monkeypatch.setenv("PATHJUDGE_AGENT_MODEL", "docent-env")
    assert main(["run", "suite.yaml", "-o", "env.jsonl"]) == 0
    out, err = _err(capsys)
    assert _models(project / "env.jsonl") == {"docent-env"}  # env beats the file
    assert TWIN not in err  # the models differ now

    # The command line beats the environment; an env judge model equal to it brings the warning back.
    monkeypatch.setenv("PATHJUDGE_AGENT_BACKEND", "openai-compatible")
    monkeypatch.setenv("PATHJUDGE_JUDGE_MODEL", "docent-cli")
    code = main(
        ["run", "suite.yaml", "-o", "cli.jsonl", "--backend", "scripted", "--model", "docent-cli"]
    )
    assert code == 0
    out, err = _err(capsys)
    assert _models(project / "cli.jsonl") == {"docent-cli"}
    assert "scripted:docent-cli" in out
    assert TWIN in err


def test_run_backend_spellings_and_bad_values(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "suite.yaml").write_text(SUITE)
    assert main(["run", "suite.yaml", "-o", "x.jsonl", "--backend", "vllm"]) == 2
    _, err = _err(capsys)
    assert "unknown backend 'vllm'" in err
    assert "openai-compatible" in err  # the hint lists both spellings
    # openai-compatible from the file and no model anywhere: the agent needs a model name
    (project / "pathjudge.toml").write_text('[agent]\nbackend = "openai-compatible"\n')
    assert main(["run", "suite.yaml", "-o", "x.jsonl"]) == 2
    assert "needs a model name" in _err(capsys)[1]
    # a bad value in the environment names the variable
    monkeypatch.setenv("PATHJUDGE_CONCURRENCY", "many")
    assert main(["run", "suite.yaml", "-o", "x.jsonl", "--backend", "scripted"]) == 2
    assert "PATHJUDGE_CONCURRENCY" in _err(capsys)[1]
    assert not (project / "x.jsonl").exists()


# --------------------------------------------------------------------------------------------------
# pathjudge judge


def _items(path: Path, n: int = 3) -> Path:
    rows = [
        {
            "item_id": f"q{i}",
            "inputs": {
                "question": "Pro plan rate limit?",
                "answer": f"600 requests per minute ({i})",
                "reference": "The Pro plan allows 600 requests per minute.",
            },
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _verdict(_request: Any) -> dict[str, Any]:
    return {"reasoning": "Matches the reference.", "evidence": ["600"], "verdict": "pass"}


@pytest.fixture
def server(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropic:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-for-tests")
    fake_anthropic.policy = forced_tool_policy(_verdict)
    return fake_anthropic


def _models_sent(server: FakeAnthropic) -> list[str]:
    return [r.json["model"] for r in server.requests if r.path == MESSAGES]


def test_judge_takes_model_url_and_cache_from_file_env_and_cli(
    project: Path,
    server: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _items(project / "items.jsonl")
    (project / "pathjudge.toml").write_text(
        'cache = "verdicts.sqlite"\n'
        f'[judge]\nmodel = "claude-file"\nbase_url = "{server.url}"\n'
        '[agent]\nmodel = "claude-file"\n'
    )
    args = ["judge", "items.jsonl", "--criterion", "answer-correct", "--no-progress"]
    assert main([*args, "-o", "file.jsonl"]) == 0
    _, err = _err(capsys)
    assert _models_sent(server) == ["claude-file"] * 3  # model and base URL from the file
    assert (project / "verdicts.sqlite").is_file()  # the cache key, relative to the file
    assert err.count(TWIN) == 1

    monkeypatch.setenv("PATHJUDGE_JUDGE_MODEL", "claude-env")
    assert main([*args, "-o", "env.jsonl"]) == 0
    _, err = _err(capsys)
    assert _models_sent(server)[3:] == ["claude-env"] * 3
    assert TWIN not in err

    assert main([*args, "-o", "cli.jsonl", "--model", "claude-cli", "--backend", "anthropic"]) == 0
    assert _models_sent(server)[6:] == ["claude-cli"] * 3  # the flag beats the variable
    verdicts = [json.loads(line) for line in (project / "cli.jsonl").read_text().splitlines()]
    assert [v["verdict"] for v in verdicts] == ["pass"] * 3

    # budget_usd from the environment reaches the judge: no price is known for this model
    monkeypatch.setenv("PATHJUDGE_BUDGET_USD", "1")
    assert main([*args, "-o", "budget.jsonl"]) == 2
    assert "cannot be enforced" in _err(capsys)[1]
    assert len(_models_sent(server)) == 9


def test_judge_config_backend_spelling(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _items(project / "items.jsonl")
    args = ["judge", "items.jsonl", "--criterion", "answer-correct", "-o", "o.jsonl"]
    # openai-compatible in the environment: needs a base URL
    monkeypatch.setenv("PATHJUDGE_JUDGE_BACKEND", "openai-compatible")
    assert main(args) == 2
    assert "the openai-compatible backend needs --base-url" in _err(capsys)[1]
    assert main([*args, "--backend", "llama-cpp"]) == 2
    assert "the llama-cpp backend needs --model PATH" in _err(capsys)[1]
    assert main([*args, "--backend", "ollama"]) == 2
    assert "unknown backend 'ollama'" in _err(capsys)[1]


# --------------------------------------------------------------------------------------------------
# pathjudge calibrate


def _perfect_judge(project: Path) -> tuple[Path, Path]:
    """120 items, 60 pass / 60 fail, the judge agrees on all: TPR 60/60, Wilson 95% lower bound ~0.94."""
    labels = project / "labels.jsonl"
    verdicts = project / "verdicts.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"item_id": str(i), "label": "pass" if i < 60 else "fail"}) + "\n"
            for i in range(120)
        )
    )
    verdicts.write_text(
        "".join(
            json.dumps({"item_id": str(i), "verdict": "pass" if i < 60 else "fail"}) + "\n"
            for i in range(120)
        )
    )
    return labels, verdicts


def _tpr_gate(report: dict[str, Any]) -> float:
    gates = report["criteria"][0]["trust"]["gates"]
    return float(next(g["threshold"] for g in gates if g["name"] == "TPR"))


def test_calibrate_gates_from_file_env_and_cli(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, verdicts = _perfect_judge(project)
    args = ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "50"]
    assert main([*args, "--json", "-"]) == 0  # defaults (TPR >= 0.8): trusted
    assert _tpr_gate(json.loads(capsys.readouterr().out)) == 0.8

    # Wilson lower bound of 60/60 at 95%: n / (n + z^2) = 60 / (60 + 3.8415) = 0.9398 < 0.97
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.pathjudge.calibration]\ntpr = 0.97\n'
    )
    assert main([*args, "--json", "-"]) == 1  # the file's gate: not trusted
    report = json.loads(capsys.readouterr().out)
    assert _tpr_gate(report) == 0.97
    assert report["criteria"][0]["trust"]["trusted"] is False

    monkeypatch.setenv("PATHJUDGE_CALIBRATION_TPR", "0.9")
    assert main([*args, "--json", "-"]) == 0  # env beats the file: 0.940 >= 0.9
    assert _tpr_gate(json.loads(capsys.readouterr().out)) == 0.9

    assert main([*args, "--gates", "tpr=0.95"]) == 1  # the flag beats the variable
    out, err = _err(capsys)
    assert "NOT TRUSTED" in out
    assert TWIN not in err
    # a gate the flag does not name keeps its configured value (tpr from the env)
    assert main([*args, "--gates", "kappa=0.5", "--json", "-"]) == 0
    assert _tpr_gate(json.loads(capsys.readouterr().out)) == 0.9

    # recorded verdicts: no judge runs here, so a judge/agent twin is nothing to warn about
    monkeypatch.setenv("PATHJUDGE_AGENT_MODEL", "claude-opus-4-8")  # = the default judge model
    assert main(args) == 0
    assert TWIN not in _err(capsys)[1]


def test_calibrate_html_page(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels, verdicts = _perfect_judge(project)
    (project / "pathjudge.toml").write_text("[calibration]\ntpr = 0.97\n")
    page = project / "out" / "calibration.html"
    code = main(
        [
            *("calibrate", "--labels", str(labels), "--verdicts", str(verdicts)),
            *("--bootstrap", "50", "--html", str(page)),
        ]
    )
    assert code == 1
    assert f"wrote {page}" in _err(capsys)[1]
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    assert "Judge calibration" in html
    assert "not trusted" in html  # the trust decision under the file's gate
    assert "0.97" in html  # the gate threshold shown
    assert html.count("data:image/png;base64,") >= 2  # confusion matrix and reliability plots


def test_calibrate_live_judge_from_config(
    project: Path,
    server: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    labels = project / "labels.jsonl"
    rows = [
        {
            "item_id": f"i{i}",
            "label": "pass" if i < 4 else "fail",
            "inputs": {"question": "q", "answer": f"a{i}", "reference": "r"},
        }
        for i in range(6)
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (project / "pathjudge.toml").write_text(
        f'cache = "cal.sqlite"\n[judge]\nmodel = "claude-cal"\nbase_url = "{server.url}"\n'
    )
    args = ["calibrate", "--labels", str(labels), "--criterion", "answer-correct"]
    assert main([*args, "--bootstrap", "20", "--report-only"]) == 0
    assert _models_sent(server) == ["claude-cal"] * 6
    assert (project / "cal.sqlite").is_file()
    out = _err(capsys)[0]
    assert "6 labelled items, 6 decided" in out
    assert "i4 [-] human fail, judge pass" in out  # the fake judge passes everything
    # recorded verdicts with a live-judging flag is a contradiction
    assert (
        main(["calibrate", "--labels", str(labels), "--verdicts", "v.jsonl", "--model", "m"]) == 2
    )
    assert "--model is for live judging" in _err(capsys)[1]
