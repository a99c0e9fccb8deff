"""Anthropic Messages transcripts → runs, on real-shaped fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers.anthropic import from_anthropic
from pathjudge.errors import ImportFormatError, InputError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def test_parallel_calls_errors_decisions_usage() -> None:
    (run,) = import_file(FIXTURES / "anthropic_refund.json", "anthropic")
    assert (run.task_id, run.epoch, run.run_id) == ("refund-A17", 1, "anthropic_refund#0")
    assert run.agent.model == "claude-haiku-4-5"
    assert run.input == "Refund order A17 and tell me the new balance."
    assert run.tool_names == ("get_order", "get_account", "refund", "refund")
    # the two tool_use blocks of the first assistant message are parallel: same turn
    assert [s.turn for s in run.steps] == [0, 0, 1, 2]
    first, second, failed, retried = run.steps
    assert first.decision == (
        "I need the order and the account first.\n\nLet me look up the order and your account."
    )
    assert second.decision is None
    # results are matched by tool_use_id even when they come back in another order
    assert second.result == '{"balance": 12.5, "currency": "EUR"}'
    assert first.result == "order A17: 2 items, 40.00 EUR, delivered"
    assert second.arguments == {"user": "u-9", "fields": ["balance", "currency"]}
    assert failed.is_error
    assert not retried.is_error
    assert run.error_count == 1
    assert retried.decision == "The refundable amount is 38.00; retrying with that."
    assert run.final_answer is not None
    assert run.final_answer.startswith("Refunded 38.00 EUR")
    assert run.stop_reason == "end_turn"
    # 410 + 620 + 700 + 760 = 2490 input; 96 + 40 + 45 + 30 = 211 output; 4 x 1200 cache reads
    assert (run.usage.input_tokens, run.usage.output_tokens) == (2490, 211)
    assert run.usage.cache_read_input_tokens == 4800
    assert run.metadata["system"] == "You are a support agent for Acme. Use the tools."
    source = run.metadata["source"]
    assert source == {
        "format": "anthropic",
        "file": str(FIXTURES / "anthropic_refund.json"),
        "index": 0,
    }
    # message ids have no field: kept, not dropped
    assert {u["at"] for u in run.metadata["unmapped"]} == {  # type: ignore[union-attr,index]
        "messages[1].id",
        "messages[3].id",
        "messages[5].id",
        "messages[7].id",
    }


def test_jsonl_final_answer_only_empty_and_malformed_arguments() -> None:
    answer_only, empty, weird = import_file(FIXTURES / "anthropic_mixed.jsonl", "anthropic")
    assert answer_only.steps == ()
    assert answer_only.final_answer == "4"
    assert answer_only.input == "What is 2+2?"
    assert answer_only.metadata["source"]["line"] == 1  # type: ignore[index,call-overload]
    assert empty.task_id == "empty"
    assert empty.steps == ()
    assert empty.final_answer is None
    assert empty.input is None
    (step,) = weird.steps
    assert weird.input == "Cherche « café » à Zürich"
    assert step.arguments == {}
    assert step.raw_arguments == '{"q": "café'
    assert step.arguments_error is not None
    assert step.arguments_error.startswith("invalid JSON")
    assert step.state == {"result_missing": True}
    assert step.result is None
    assert weird.final_answer is None


def test_from_anthropic_is_pure_and_keeps_unknown_blocks() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "checking"},
                {"type": "tool_use", "id": "t1", "name": "look", "input": {"x": 1}},
                {"type": "text", "text": "trailing note"},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
                {"type": "tool_result", "tool_use_id": "nope", "content": "orphan"},
            ],
        },
    ]
    before = json.dumps(messages)
    run = from_anthropic(messages, task_id="t", run_id="r")
    assert json.dumps(messages) == before
    assert run.steps[0].decision == "checking"
    assert run.steps[0].result == "ok"
    assert run.final_answer is None  # the last assistant message called a tool
    unmapped = {u["at"] for u in run.metadata["unmapped"]}  # type: ignore[union-attr,index]
    assert unmapped == {"[1].content[2]", "[2].content[1]", "[2].content[2]"}


def test_task_id_override() -> None:
    runs = list(import_file(FIXTURES / "anthropic_mixed.jsonl", "anthropic", task_id="T"))
    assert {r.task_id for r in runs} == {"T"}


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ('{"messages": 3}', "messages"),
        ('[{"role": "user", "content": "x"}, {"content": "y"}]', "[1].role"),
        (
            '[{"role": "assistant", "content": [{"type": "tool_use", "id": "a"}]}]',
            "[0].content[0].name",
        ),
        (
            '[{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t"}]},'
            ' {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": "yes"}]}]',
            "[1].content[0].is_error",
        ),
    ],
)
def test_bad_transcripts_name_the_field(tmp_path: Path, content: str, field: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError) as info:
        list(import_file(path, "anthropic"))
    assert info.value.field == field
    assert info.value.file == str(path)


def test_keep_going_collects_per_record_errors(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '[{"role": "user", "content": "a"}]\n{"messages": "nope"}\n{not json\n'
        '[{"role": "user", "content": "b"}]\n'
    )
    errors: list[InputError] = []
    runs = list(import_file(path, "anthropic", errors=errors))
    assert [r.input for r in runs] == ["a", "b"]
    assert [(e.line, e.field) for e in errors] == [(2, "messages"), (3, None)]
