"""OpenAI chat-completions message lists → runs, on fixtures and the real tau-bench sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers.openai_chat import from_openai_chat
from pathjudge.errors import ImportFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def test_real_tau_bench_sample(shared_data: Path) -> None:
    path = shared_data / "tau_bench_sample" / "gpt-4o-airline.sample3.json"
    raw = json.loads(path.read_text())
    runs = list(import_file(path, "openai-chat"))
    assert len(runs) == len(raw) == 3
    for index, (record, run) in enumerate(zip(raw, runs, strict=True)):
        # counted independently from the raw file
        calls = [
            c for m in record["traj"] if m["role"] == "assistant" for c in m.get("tool_calls") or []
        ]
        results = {m["tool_call_id"]: m["content"] for m in record["traj"] if m["role"] == "tool"}
        assert len(run.steps) == len(calls)
        assert [s.tool for s in run.steps] == [c["function"]["name"] for c in calls]
        assert [s.call_id for s in run.steps] == [c["id"] for c in calls]
        assert [s.arguments for s in run.steps] == [
            json.loads(c["function"]["arguments"]) for c in calls
        ]
        assert [s.is_error for s in run.steps] == [
            results[c["id"]].startswith("Error:") for c in calls
        ]
        assert [s.result for s in run.steps] == [results[c["id"]] for c in calls]
        assert run.task_id == str(record["task_id"])
        assert run.epoch == record["trial"]
        assert run.metadata["reward"] == record["reward"]
        assert run.metadata["info"] == record["info"]
        assert run.metadata["source"] == {
            "format": "openai-chat",
            "file": str(path),
            "index": index,
        }
        last_text = [m for m in record["traj"] if m["role"] == "assistant"][-1]
        assert run.final_answer == last_text["content"]
    # the sample: 6, 0 and 7 tool calls; one run answers without any tool call
    assert [len(r.steps) for r in runs] == [6, 0, 7]
    assert [r.metadata["reward"] for r in runs] == [1.0, 0.0, 0.0]


def test_parallel_error_prefix_malformed_arguments() -> None:
    weather, chitchat, nothing = import_file(FIXTURES / "openai_chat.json", "openai-chat")
    assert weather.tool_names == ("get_weather", "get_time", "get_forecast")
    assert [s.turn for s in weather.steps] == [0, 0, 1]
    assert weather.steps[0].decision == "I'll check both at once."
    assert weather.steps[1].decision is None
    assert weather.steps[1].result == "14:05"  # matched by tool_call_id, not by position
    forecast = weather.steps[2]
    assert forecast.is_error
    assert forecast.result == "Error: invalid arguments"
    assert forecast.raw_arguments == '{"city": "Paris", "days": '
    assert forecast.arguments == {}
    assert forecast.arguments_error is not None
    assert weather.error_count == 1
    assert weather.final_answer == "It is 18°C and cloudy in Paris; local time 14:05."
    assert weather.metadata["system"] == "You are a helpful assistant."
    assert weather.metadata["unmapped"] == [
        {"at": "traj[8]", "value": {"role": "user", "content": "thanks ###STOP###"}}
    ]
    assert chitchat.steps == ()
    assert chitchat.final_answer == "Hi! How can I help?"
    assert chitchat.epoch == 2
    assert chitchat.metadata["reward"] == 0.0
    assert nothing.steps == ()
    assert nothing.final_answer is None
    assert nothing.input is None


def test_custom_error_prefixes_and_usage() -> None:
    transcript = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}
                ],
            },
            {"role": "tool", "tool_call_id": "a", "content": "FAILED: boom"},
        ],
        "model": "gpt-4o",
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 7,
            "total_tokens": 107,
            "prompt_tokens_details": {"cached_tokens": 40},
        },
    }
    run = from_openai_chat(transcript, task_id="t", run_id="r", error_prefixes=("FAILED:",))
    assert run.steps[0].is_error
    assert run.steps[0].arguments == {}
    assert run.steps[0].arguments_error is None  # empty arguments = a call without arguments
    # OpenAI counts cached tokens inside prompt_tokens: 100 - 40 = 60 uncached
    assert (run.usage.input_tokens, run.usage.cache_read_input_tokens) == (60, 40)
    assert run.usage.output_tokens == 7
    assert run.agent.model == "gpt-4o"
    default = from_openai_chat(transcript, task_id="t", run_id="r")
    assert not default.steps[0].is_error


def test_non_object_arguments_are_flagged() -> None:
    messages = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "[1, 2]"}}],
        }
    ]
    (step,) = from_openai_chat(messages, task_id="t", run_id="r").steps
    assert step.raw_arguments == "[1, 2]"
    assert step.arguments_error == "arguments are an array, not a JSON object"
    assert step.state == {"result_missing": True}


def test_bad_chat_transcript(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('[{"traj": [{"role": "assistant", "tool_calls": [{"id": "a"}]}]}]')
    with pytest.raises(ImportFormatError) as info:
        list(import_file(path, "openai-chat"))
    assert info.value.field == "[0].traj[0].tool_calls[0].function"
    assert str(info.value).startswith(f"{path}: field '[0].traj[0].tool_calls[0].function'")


def test_null_keys_are_not_noise_but_values_are_kept() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello", "refusal": None, "audio": {"id": "au_1"}},
    ]
    run = from_openai_chat(messages, task_id="t", run_id="r")
    assert run.final_answer == "hello"
    assert run.metadata["unmapped"] == [{"at": "[1].audio", "value": {"id": "au_1"}}]
