"""Project configuration: precedence per key kind, file discovery, errors naming file and key, twin warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from pathjudge.config import (
    DEFAULT_AGENT_MODEL,
    DEFAULT_JUDGE_MODEL,
    ENV_VARS,
    config_keys,
    find_config_file,
    normalize_model,
    resolve_config,
    twin_warning,
)
from pathjudge.errors import ConfigError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No PATHJUDGE_* configuration variable set; cwd is an empty temporary directory."""
    for name in [*ENV_VARS.values(), "PATHJUDGE_CONFIG"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults_follow_the_seeds(tmp_path: Path) -> None:
    resolved = resolve_config(cwd=tmp_path, env={})
    assert resolved.file is None
    assert resolved.value("agent.model") == DEFAULT_AGENT_MODEL == "claude-haiku-4-5"
    assert resolved.value("judge.model") == DEFAULT_JUDGE_MODEL == "claude-opus-4-8"
    assert resolved.value("concurrency") == 8
    assert resolved.value("calibration.tpr") == 0.8
    assert resolved.value("calibration.kappa") == 0.6
    assert resolved.value("budget_usd") is None
    assert resolved.value("fail_under.overall") is None
    assert resolved.value("cache") == tmp_path / ".pathjudge" / "cache.sqlite"
    assert {resolved.source(key) for key in config_keys()} == {"default"}
    assert resolved.twin_warning() is None


def test_every_key_has_an_env_var_named_after_it() -> None:
    assert ENV_VARS["judge.model"] == "PATHJUDGE_JUDGE_MODEL"
    assert ENV_VARS["fail_under.overall"] == "PATHJUDGE_FAIL_UNDER_OVERALL"
    assert ENV_VARS["weights.axes.tool_selection"] == "PATHJUDGE_WEIGHTS_AXES_TOOL_SELECTION"
    assert set(ENV_VARS) == set(config_keys())
    assert len(set(ENV_VARS.values())) == len(ENV_VARS)
    # 3 judge + 3 agent + 3 top level + 4 calibration gates + 5 + 3 weights + 12 fail_under metrics
    # + allow_callables (issue 13)
    assert len(config_keys()) == 34


# (key, TOML literal in the file, env string, cli value, expected file / env / cli values)
CASES = [
    (
        "judge.model",
        '"claude-sonnet-4-5"',
        "claude-opus-4-1",
        "claude-opus-4-8",
        "claude-sonnet-4-5",
        "claude-opus-4-1",
        "claude-opus-4-8",
    ),
    (
        "agent.backend",
        '"openai-compatible"',
        "llama-cpp",
        "anthropic",
        "openai-compatible",
        "llama-cpp",
        "anthropic",
    ),
    (
        "agent.base_url",
        '"http://file:1"',
        "http://env:2",
        "http://cli:3",
        "http://file:1",
        "http://env:2",
        "http://cli:3",
    ),
    ("concurrency", "2", "3", 4, 2, 3, 4),
    ("budget_usd", "5", "2.5", "0.75", 5.0, 2.5, 0.75),
    ("calibration.kappa", "0.5", "-0.1", 0.7, 0.5, -0.1, 0.7),
    ("weights.axes.error_recovery", "2", "3.5", 0.0, 2.0, 3.5, 0.0),
    ("weights.levels.success", "0.5", "0.25", "2", 0.5, 0.25, 2.0),
    ("fail_under.trajectory", "0.7", "0.75", 0.9, 0.7, 0.75, 0.9),
]


@pytest.mark.parametrize("form", ["pathjudge.toml", "pyproject.toml"])
@pytest.mark.parametrize(
    ("key", "toml", "env", "cli", "from_file", "from_env", "from_cli"),
    CASES,
    ids=[case[0] for case in CASES],
)
def test_precedence_cli_over_env_over_file_over_default(
    tmp_path: Path,
    form: str,
    key: str,
    toml: str,
    env: str,
    cli: object,
    from_file: object,
    from_env: object,
    from_cli: object,
) -> None:
    head = "[tool.pathjudge]\n" if form == "pyproject.toml" else ""
    config = tmp_path / form
    config.write_text(f"{head}{key} = {toml}\n", encoding="utf-8")
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)

    only_file = resolve_config(cwd=work, env={})
    assert (only_file.value(key), only_file.source(key)) == (from_file, f"file:{config}")
    with_env = resolve_config(cwd=work, env={ENV_VARS[key]: env})
    assert (with_env.value(key), with_env.source(key)) == (from_env, "env")
    with_cli = resolve_config({key: cli}, cwd=work, env={ENV_VARS[key]: env})
    assert (with_cli.value(key), with_cli.source(key)) == (from_cli, "cli")
    # a key nobody set keeps its default, whatever happened to the others
    assert with_cli.source("judge.backend") == "default"


def test_path_key_is_relative_to_the_file_or_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text('cache = "state/verdicts.sqlite"\n', encoding="utf-8")
    work = tmp_path / "sub"
    work.mkdir()
    from_file = resolve_config(cwd=work, env={})
    assert from_file.value("cache") == tmp_path / "state" / "verdicts.sqlite"
    assert from_file.source("cache") == f"file:{tmp_path / 'pathjudge.toml'}"
    from_env = resolve_config(cwd=work, env={"PATHJUDGE_CACHE": "env.sqlite"})
    assert (from_env.value("cache"), from_env.source("cache")) == (work / "env.sqlite", "env")
    from_cli = resolve_config({"cache": "/abs/cli.sqlite"}, cwd=work, env={})
    assert (from_cli.value("cache"), from_cli.source("cache")) == (Path("/abs/cli.sqlite"), "cli")


def test_nested_tables_merge_per_key_across_sources(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n"
        "[tool.pathjudge.weights.axes]\ntool_selection = 2\nstep_efficiency = 0.5\n\n"
        "[tool.pathjudge.fail_under]\nsuccess = 0.9\noverall = 0.8\n",
        encoding="utf-8",
    )
    resolved = resolve_config(
        {"weights": {"axes": {"step_efficiency": 3}}, "fail_under.overall": None},
        cwd=tmp_path,
        env={"PATHJUDGE_WEIGHTS_AXES_GOAL_COMPLETION": "4", "PATHJUDGE_FAIL_UNDER_SUCCESS": "none"},
    )
    assert resolved.value("weights.axes") == {
        "tool_selection": 2.0,
        "argument_correctness": 1.0,
        "step_efficiency": 3.0,
        "error_recovery": 1.0,
        "goal_completion": 4.0,
    }
    assert resolved.source("weights.axes.tool_selection").startswith("file:")
    assert resolved.source("weights.axes.step_efficiency") == "cli"
    assert resolved.source("weights.axes.goal_completion") == "env"
    assert resolved.source("weights.axes.argument_correctness") == "default"
    # "none" in the environment unsets an optional threshold; a None on the command line means "not given"
    assert (resolved.value("fail_under.success"), resolved.source("fail_under.success")) == (
        None,
        "env",
    )
    assert resolved.value("fail_under.overall") == 0.8
    assert resolved.source("fail_under.overall").startswith("file:")


def test_empty_env_value_is_not_set_for_required_keys(tmp_path: Path) -> None:
    resolved = resolve_config(
        cwd=tmp_path, env={"PATHJUDGE_JUDGE_MODEL": "", "PATHJUDGE_RUN_MODEL": "1"}
    )
    assert (resolved.value("judge.model"), resolved.source("judge.model")) == (
        DEFAULT_JUDGE_MODEL,
        "default",
    )


def test_file_discovery(tmp_path: Path) -> None:
    (tmp_path / "pathjudge.toml").write_text("concurrency = 3\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.pathjudge]\nconcurrency = 5\n", encoding="utf-8"
    )
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'inner'\n", encoding="utf-8")
    # pathjudge.toml wins in its directory; a pyproject without [tool.pathjudge] is passed over
    assert find_config_file(inner) == tmp_path / "pathjudge.toml"
    assert resolve_config(cwd=inner, env={}).value("concurrency") == 3
    explicit = resolve_config(cwd=inner, env={"PATHJUDGE_CONFIG": str(tmp_path / "pyproject.toml")})
    assert explicit.value("concurrency") == 5
    assert explicit.file == tmp_path / "pyproject.toml"
    assert (
        resolve_config(cwd=inner, env={}, config_file=tmp_path / "pyproject.toml").value(
            "concurrency"
        )
        == 5
    )
    with pytest.raises(ConfigError, match="configuration file not found"):
        resolve_config(cwd=inner, env={}, config_file="missing.toml")


def _error(tmp_path: Path, name: str, text: str) -> ConfigError:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        resolve_config(cwd=tmp_path, env={})
    return caught.value


def test_unknown_key_names_file_and_key_with_a_suggestion(tmp_path: Path) -> None:
    error = _error(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.pathjudge]\nconcurrency = 2\n\n'
        '[tool.pathjudge.judge]\nbackend = "anthropic"\nmodle = "claude-opus-4-8"\n',
    )
    assert error.file == str(tmp_path / "pyproject.toml")
    assert error.field == "judge.modle"
    assert str(error).startswith(f"{tmp_path / 'pyproject.toml'}: field 'judge.modle':")
    assert "(under [tool.pathjudge])" in str(error)
    assert "did you mean 'judge.model'" in str(error)
    assert error.exit_code == 2


def test_unknown_table_dotted_key_and_inline_table_keys(tmp_path: Path) -> None:
    table = _error(
        tmp_path, "pathjudge.toml", "concurrency = 2\n\n# weights\n[wieghts.axes]\nx = 1\n"
    )
    assert (table.file, table.field) == (str(tmp_path / "pathjudge.toml"), "wieghts")
    assert "did you mean 'weights'" in str(table)
    dotted = _error(tmp_path, "pathjudge.toml", 'judge.model = "a"\ncalibration.tpr_min = 0.9\n')
    assert dotted.field == "calibration.tpr_min"
    inline = _error(
        tmp_path, "pathjudge.toml", "concurrency = 2\nweights = { axes = { tool_selction = 2 } }\n"
    )
    assert inline.field == "weights.axes.tool_selction"
    after_string = _error(
        tmp_path,
        "pathjudge.toml",
        'judge.model = """\nbudget_usd = 1\n"""\nbudgt_usd = 2\n',
    )
    assert after_string.field == "budgt_usd"  # not the look-alike line inside the string


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),  # a line only for a TOML syntax error
    [
        ('concurrency = "four"\n', None, "concurrency", "whole number"),
        ("[judge]\nmodel = 4\n", None, "judge.model", "string"),
        ("\nconcurrency = true\n", None, "concurrency", "whole number"),
        ("concurrency = 0\n", None, "concurrency", "greater than or equal to 1"),
        ("[fail_under]\noverall = 1.5\n", None, "fail_under.overall", "less than or equal to 1"),
        ('[agent]\nbackend = "vllm"\n', None, "agent.backend", "anthropic, openai-compatible"),
        ("judge = 3\n", None, "judge", "must be a table"),
        ("concurrency = [1,\n", 1, None, "not valid TOML"),
    ],
)
def test_bad_values_in_the_file_name_file_and_key(
    tmp_path: Path, text: str, line: int | None, field: str | None, words: str
) -> None:
    error = _error(tmp_path, "pathjudge.toml", text)
    assert error.file == str(tmp_path / "pathjudge.toml")
    assert error.line == line
    assert error.field == field
    assert words in str(error)
    if field is not None:  # the key, and how to fix it
        assert f"field '{field}':" in str(error)
        assert " — " in str(error)


def test_bad_env_and_cli_values_name_their_origin(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PATHJUDGE_CONCURRENCY: must be a whole number"):
        resolve_config(cwd=tmp_path, env={"PATHJUDGE_CONCURRENCY": "many"})
    with pytest.raises(ConfigError, match=r"PATHJUDGE_BUDGET_USD: .*greater than or equal to 0"):
        resolve_config(cwd=tmp_path, env={"PATHJUDGE_BUDGET_USD": "-1"})
    with pytest.raises(ConfigError, match=r"command-line value for 'calibration\.tnr'"):
        resolve_config({"calibration.tnr": "high"}, cwd=tmp_path, env={})
    with pytest.raises(ConfigError, match=r"unknown configuration key 'judge\.temperature'"):
        resolve_config({"judge.temperature": 0}, cwd=tmp_path, env={})
    with pytest.raises(ConfigError, match="'weights' is a table"):
        resolve_config({"weights": 2}, cwd=tmp_path, env={})
    with pytest.raises(ConfigError, match="must be one of"):
        resolve_config({"judge.backend": "vllm"}, cwd=tmp_path, env={})


def test_resolved_config_accessors(tmp_path: Path) -> None:
    resolved = resolve_config(cwd=tmp_path, env={})
    assert resolved.value("calibration") == {
        "tpr": 0.8,
        "tnr": 0.8,
        "kappa": 0.6,
        "max_unsure": 0.2,
    }
    with pytest.raises(ConfigError, match="is a table"):
        resolved.source("calibration")
    with pytest.raises(ConfigError, match="did you mean 'concurrency'"):
        resolved.value("concurency")
    with pytest.raises(ValidationError):
        resolved.config.judge.model = "x"  # type: ignore[misc]
    dumped = resolved.to_json()
    assert dumped["values"]["cache"]["value"] == str(tmp_path / ".pathjudge" / "cache.sqlite")
    assert dumped["warnings"] == []
    assert [row[0] for row in resolved.rows()] == list(config_keys())


@pytest.mark.parametrize(
    ("name", "normal"),
    [
        ("claude-haiku-4-5", "claude-haiku-4-5"),
        ("Claude-Haiku-4-5-20251001", "claude-haiku-4-5"),
        ("anthropic/claude-haiku-4-5", "claude-haiku-4-5"),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("claude-haiku-4-5@20251001", "claude-haiku-4-5"),
        ("claude-opus-4-8-latest", "claude-opus-4-8"),
        ("openrouter/anthropic/claude-opus-4-8", "claude-opus-4-8"),
        ("claude-haiku-4", "claude-haiku-4"),
    ],
)
def test_normalize_model(name: str, normal: str) -> None:
    assert normalize_model(name) == normal


@pytest.mark.parametrize(
    ("judge", "agent", "twin"),
    [
        ("claude-opus-4-8", "claude-haiku-4-5", False),
        ("claude-haiku-4-5", "claude-haiku-4-5", True),
        ("claude-haiku-4-5-20251001", "CLAUDE-HAIKU-4-5", True),
        ("anthropic/claude-opus-4-8", "claude-opus-4-8", True),
        ("claude-haiku-4-5", "claude-haiku-4-6", False),
        ("claude-haiku-4", "claude-haiku-4-5", False),
        ("claude-sonnet-4-5", "claude-haiku-4-5", False),
    ],
)
def test_twin_warning_exactly_when_the_models_match(judge: str, agent: str, twin: bool) -> None:
    message = twin_warning(judge, agent)
    assert (message is not None) == twin
    if message is not None:
        assert "grading its own twin" in message
        assert "different framing" in message
        assert "sample" in message
        # suggests the default judge, or another family when the twin already is the default judge
        other = "another model family" if "opus-4-8" in judge else DEFAULT_JUDGE_MODEL
        assert other in message


def test_twin_warning_from_resolved_configuration(tmp_path: Path) -> None:
    env = {"PATHJUDGE_AGENT_MODEL": "claude-opus-4-8-20260101"}
    assert resolve_config(cwd=tmp_path, env=env).twin_warning() is not None
    assert (
        resolve_config({"judge.model": "claude-sonnet-4-5"}, cwd=tmp_path, env=env).twin_warning()
        is None
    )
    dumped = resolve_config(cwd=tmp_path, env=env).to_json()
    assert len(dumped["warnings"]) == 1


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    import pathjudge.cli  # noqa: F401  (registers the commands)
    from pathjudge._cli.app import main

    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_config_table_json_and_sources(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (clean_env / "pathjudge.toml").write_text("concurrency = 2\n[judge]\nbase_url = 'http://j'\n")
    monkeypatch.setenv("PATHJUDGE_BUDGET_USD", "12.5")
    code, out, err = _cli(["config", "--json", "-", "--set", "fail_under.overall=0.6"], capsys)
    assert code == 0
    assert err == ""
    data = json.loads(out)
    assert data["file"] == str(clean_env / "pathjudge.toml")
    assert data["values"]["concurrency"] == {
        "value": 2,
        "source": f"file:{clean_env / 'pathjudge.toml'}",
    }
    assert data["values"]["budget_usd"] == {"value": 12.5, "source": "env"}
    assert data["values"]["fail_under.overall"] == {"value": 0.6, "source": "cli"}
    assert data["values"]["agent.model"] == {"value": "claude-haiku-4-5", "source": "default"}
    code, out, err = _cli(["config"], capsys)
    assert code == 0
    for text in ("judge.base_url", "http://j", "budget_usd", "12.5", "env", "default"):
        assert text in out


def test_cli_twin_warning_on_stderr_only_when_twin(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["config", "--json", "-"], capsys)
    assert (code, err) == (0, "")
    code, out, err = _cli(
        ["config", "--json", "-", "--judge-model", "claude-haiku-4-5-20251001"], capsys
    )
    assert code == 0
    assert "grading its own twin" in err
    assert json.loads(out)["warnings"]


def test_cli_config_errors_exit_2(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (clean_env / "pathjudge.toml").write_text("[judge]\nmodel = 'x'\nmdel = 'y'\n")
    code, _, err = _cli(["config"], capsys)
    assert code == 2
    assert f"{clean_env / 'pathjudge.toml'}: field 'judge.mdel':" in err
    assert "Traceback" not in err
    code, _, err = _cli(["config", "--set", "concurrency"], capsys)
    assert code == 2
    assert "--set expects KEY=VALUE" in err


def test_an_unknown_key_of_a_known_table_lists_what_the_table_takes(tmp_path: Path) -> None:
    metric = _error(tmp_path, "pathjudge.toml", "[fail_under]\nbogus = 0.5\n")
    assert (metric.file, metric.field) == (str(tmp_path / "pathjudge.toml"), "fail_under.bogus")
    assert "did you mean 'fail_under'" not in str(metric)  # not the table it is already in
    assert "'fail_under' takes:" in str(metric)
    assert "tool_calls" in str(metric)
    assert "success" in str(metric)
    judge = _error(tmp_path, "pathjudge.toml", "[judge]\nbogus = 1\n")
    assert "'judge' takes: backend, base_url, model" in str(judge)
    near = _error(tmp_path, "pathjudge.toml", "[fail_under]\nsucess = 0.5\n")
    assert "did you mean 'fail_under.success'" in str(near)
