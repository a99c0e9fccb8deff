"""OpenAI Responses API items → runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers.openai_responses import from_openai_responses
from pathjudge.errors import ImportFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def test_parallel_reasoning_errors_final_answer() -> None:
    lookup, hello, empty = import_file(FIXTURES / "openai_responses.json", "openai-responses")
    assert lookup.task_id == "lookup"
    assert lookup.agent.model == "gpt-4.1-mini"
    assert lookup.input == "Who wrote Dune, and when?"
    assert lookup.metadata["system"] == "Answer with sources."
    assert lookup.tool_names == ("search", "search", "fetch_page")
    assert [s.turn for s in lookup.steps] == [0, 0, 1]
    assert lookup.steps[0].decision == "Search author and year in parallel."
    assert [s.result for s in lookup.steps[:2]] == ["Frank Herbert", "1965"]
    fetch = lookup.steps[2]
    assert fetch.is_error
    assert fetch.raw_arguments == "{url: nope}"
    assert fetch.arguments == {}
    assert lookup.final_answer == "Dune was written by Frank Herbert and published in 1965."
    # 900 input of which 300 cached → 600 uncached + 300 cache reads
    assert (lookup.usage.input_tokens, lookup.usage.cache_read_input_tokens) == (600, 300)
    assert lookup.usage.output_tokens == 120
    assert lookup.metadata["unmapped"] == [
        {"at": "usage.output_tokens_details", "value": {"reasoning_tokens": 64}}
    ]
    assert hello.steps == ()
    assert hello.final_answer == "hi"
    assert hello.input == "Say hi"
    assert empty.steps == ()
    assert empty.final_answer is None
    assert empty.task_id == "none"


def test_text_between_turns_and_unmatched_output_are_kept() -> None:
    items = [
        {"role": "user", "content": "q"},
        {"type": "function_call", "call_id": "c1", "name": "a", "arguments": "{}"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "after"}],
        },
        {"type": "function_call_output", "call_id": "c1", "output": "1"},
        {"type": "function_call_output", "call_id": "zz", "output": "orphan"},
        {
            "type": "function_call",
            "call_id": "c2",
            "name": "b",
            "arguments": '{"k": [1, {"n": null}]}',
        },
    ]
    run = from_openai_responses(items, task_id="t", run_id="r")
    assert [s.turn for s in run.steps] == [0, 1]
    assert run.steps[1].arguments == {"k": [1, {"n": None}]}
    assert run.steps[1].state == {"result_missing": True}
    assert run.final_answer is None
    assert [u["at"] for u in run.metadata["unmapped"]] == ["[4]", "[2]"]  # type: ignore[union-attr,index]


def test_item_without_type_or_role(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('[{"role": "user", "content": "x"}]\n[{"call_id": "c"}]\n')
    with pytest.raises(ImportFormatError) as info:
        list(import_file(path, "openai-responses"))
    assert (info.value.line, info.value.field) == (2, "[0]")
    assert "needs a 'type'" in str(info.value)
