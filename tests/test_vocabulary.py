"""One backend vocabulary and one metric vocabulary, everywhere; old spellings work for one release.

Configuration file, environment, command-line flags and the library all take ``anthropic``,
``openai-compatible``, ``llama-cpp`` and the scorecard's metric names; ``openai``, ``llama`` and
``correctness`` are mapped with a ``DeprecationWarning`` naming the new spelling (from Python), or one
deprecation notice on stderr per process (inside the ``pathjudge`` command).
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathjudge import _vocab
from pathjudge.cli import main
from pathjudge.config import FailUnder, LevelWeights, resolve_config
from pathjudge.errors import ConfigError, InputError
from pathjudge.judge.session import JudgeSession, backend_name
from pathjudge.scoring.scorecard import GATE_METRICS, parse_thresholds, parse_weights


@pytest.fixture(autouse=True)
def fresh_notices() -> Iterator[None]:
    """Each test sees the once-per-process notices afresh."""
    _vocab._NOTICED.clear()
    yield
    _vocab._NOTICED.clear()


def _notice(err: str, old: str, new: str) -> bool:
    return "deprecated: " in err and f"{old!r} is now spelled {new!r}" in err and "0.3" in err


def _warned(caught: pytest.WarningsRecorder, old: str, new: str) -> bool:
    return any(
        issubclass(w.category, DeprecationWarning) and _notice(str(w.message), old, new)
        for w in caught
    )


# ---------------------------------------------------------------- backends


def test_canonical_backend_names_pass_without_a_notice(capsys: pytest.CaptureFixture[str]) -> None:
    for name in _vocab.BACKENDS:
        assert backend_name(name) == name
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("old", "new"), [("openai", "openai-compatible"), ("llama", "llama-cpp")])
def test_old_backend_spelling_maps_with_a_deprecation_warning(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        session = JudgeSession.resolve(backend=old)
    assert session.backend == new
    assert _warned(caught, old, new)
    assert caught[0].filename == __file__  # attributed to the caller's code, not pathjudge's


@pytest.mark.parametrize(("old", "new"), [("openai", "openai-compatible"), ("llama", "llama-cpp")])
def test_old_backend_spelling_in_the_command_is_one_notice_on_stderr(
    old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the command: a notice on stderr once per process, never a Python warning (which is an error
    here: filterwarnings=error), so a command keeps working under -W error."""
    docent = Path(__file__).resolve().parents[1] / "examples" / "docent"
    args = ["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml"), "--fast"]
    assert main([*args, "-q", "--judge-backend", old]) == 0
    assert main([*args, "-q", "--judge-backend", old]) == 0
    err = capsys.readouterr().err
    assert _notice(err, old, new)
    assert err.count("deprecated") == 1  # once per process, not once per use


def test_unknown_backend_lists_only_current_names() -> None:
    with pytest.raises(ConfigError) as info:
        backend_name("ollama", field="--backend")
    assert info.value.field == "--backend"
    assert info.value.hint == "use one of anthropic, openai-compatible, llama-cpp"


def test_old_backend_spelling_in_file_env_and_cli(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text('[judge]\nbackend = "openai"\n', encoding="utf-8")
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        from_file = resolve_config(cwd=tmp_path, env={})
    assert from_file.config.judge.backend == "openai-compatible"
    assert _warned(caught, "openai", "openai-compatible")
    env = {"PATHJUDGE_AGENT_BACKEND": "llama"}
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        from_env = resolve_config(cwd=tmp_path, env=env)
    assert from_env.config.agent.backend == "llama-cpp"
    assert _warned(caught, "llama", "llama-cpp")
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        cli = resolve_config({"judge.backend": "llama"}, cwd=tmp_path, env={})
    assert cli.config.judge.backend == "llama-cpp"
    assert _warned(caught, "llama", "llama-cpp")


def test_agent_backend_old_spelling() -> None:
    from pathjudge.agent.collect import LLAMA_CPP_BASE_URL, config_backend_name, resolve_run_options

    with pytest.warns(DeprecationWarning, match="deprecated"):
        name = config_backend_name("openai")
    assert name == "openai-compatible"
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        options = resolve_run_options(backend="llama", model="m")
    assert (options.backend, options.base_url) == ("openai", LLAMA_CPP_BASE_URL)
    assert _warned(caught, "llama", "llama-cpp")
    with pytest.raises(InputError, match="the openai-compatible backend needs a model name"):
        resolve_run_options(backend="openai-compatible")


def test_help_texts_speak_the_current_vocabulary(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("judge", "score", "calibrate", "run"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "openai-compatible" in text, command
        assert "openai (" not in text, command
        assert "llama (" not in text, command


# ---------------------------------------------------------------- metrics


def test_config_fail_under_takes_exactly_the_cli_metrics() -> None:
    assert tuple(FailUnder.model_fields) == GATE_METRICS
    assert tuple(LevelWeights.model_fields) == ("success", "tool_calls", "trajectory")


def test_same_range_rule_in_config_and_flag(tmp_path: Path) -> None:
    # path is on 0..100, everything else on 0..1, in both places
    assert parse_thresholds("path=80") == {"path": 80.0}
    env = {"PATHJUDGE_FAIL_UNDER_PATH": "80"}
    assert resolve_config(cwd=tmp_path, env=env).config.fail_under.path == 80.0
    with pytest.raises(InputError):
        parse_thresholds("tool_calls=2")
    with pytest.raises(ConfigError):
        resolve_config(cwd=tmp_path, env={"PATHJUDGE_FAIL_UNDER_TOOL_CALLS": "2"})


def test_old_metric_spelling_in_flags() -> None:
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        thresholds = parse_thresholds("correctness=0.5")
    assert thresholds == {"tool_calls": 0.5}
    assert _warned(caught, "correctness", "tool_calls")
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        weights = parse_weights("correctness=2")
    assert weights == {"tool_calls": 2.0}
    assert _warned(caught, "correctness", "tool_calls")


def test_old_metric_keys_in_file_env_and_cli(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text(
        "[fail_under]\ncorrectness = 0.7\n[weights.levels]\ncorrectness = 2.0\n", encoding="utf-8"
    )
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        resolved = resolve_config(cwd=tmp_path, env={})
    assert resolved.config.fail_under.tool_calls == 0.7
    assert resolved.config.weights.levels.tool_calls == 2.0
    assert resolved.source("fail_under.tool_calls").startswith("file:")
    assert _warned(caught, "fail_under.correctness", "fail_under.tool_calls")
    env = {"PATHJUDGE_FAIL_UNDER_CORRECTNESS": "0.4"}
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        from_env = resolve_config(cwd=tmp_path / "x", env=env)
    assert from_env.config.fail_under.tool_calls == 0.4
    assert any("PATHJUDGE_FAIL_UNDER_TOOL_CALLS" in str(w.message) for w in caught)
    with pytest.warns(DeprecationWarning, match="deprecated"):
        cli = resolve_config({"fail_under.correctness": 0.3}, cwd=tmp_path / "x", env={})
    assert cli.config.fail_under.tool_calls == 0.3


def test_bad_value_under_an_old_key_names_the_file_and_the_key_as_written(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text(
        "[fail_under]\n\ncorrectness = 1.5\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as info, pytest.warns(DeprecationWarning, match="deprecated"):
        resolve_config(cwd=tmp_path, env={})
    assert info.value.file == str(tmp_path / "pathjudge.toml")
    assert info.value.field == "fail_under.tool_calls"
    assert "written as 'fail_under.correctness'" in str(info.value)


def test_score_gate_from_the_config_uses_every_metric(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fail_under.<axis> in the configuration gates `pathjudge score` as --fail-under would."""
    docent = Path(__file__).resolve().parents[1] / "examples" / "docent"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pathjudge.toml").write_text("[fail_under]\ngoal_completion = 1.0\n")
    args = ["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml"), "--fast"]
    config_code = main(args)
    (tmp_path / "pathjudge.toml").unlink()
    flag_code = main([*args, "--fail-under", "goal_completion=1.0"])
    capsys.readouterr()
    assert config_code == flag_code == 1


def test_vocab_literal_matches_tuple() -> None:
    assert typing.get_args(_vocab.BackendName) == _vocab.BACKENDS
