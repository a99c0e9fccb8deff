"""MCP tool calls in Anthropic (MCP connector) and OpenAI Responses transcripts become ordinary steps.

The fixtures follow the block and item shapes of the official SDKs (anthropic ``BetaMCPToolUseBlock``
/ ``BetaMCPToolResultBlock``, openai ``McpCall`` / ``McpListTools``); the counts are checked against the
files themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers._common import guess_format
from pathjudge.errors import ImportFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def _blocks(path: Path, kind: str) -> list[dict[str, object]]:
    transcript = json.loads(path.read_text())
    return [
        b
        for m in transcript["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == kind
    ]


def test_anthropic_mcp_connector_blocks() -> None:
    path = FIXTURES / "anthropic_mcp.json"
    (run,) = import_file(path, "anthropic")
    uses, results = _blocks(path, "mcp_tool_use"), _blocks(path, "mcp_tool_result")
    mcp = [s for s in run.steps if "mcp_server" in s.state]
    assert len(mcp) == len(uses) == 2
    assert sum(1 for s in mcp if "result_missing" not in s.state) == len(results)
    assert sum(s.is_error for s in mcp) == sum(1 for r in results if r["is_error"]) == 1
    assert [(s.tool, s.state.get("mcp_server"), s.turn) for s in run.steps] == [
        ("ask_question", "deepwiki", 0),
        ("read_wiki_structure", "deepwiki", 0),
        ("save_note", None, 0),
    ]
    assert run.steps[0].result == "Repository not indexed"
    assert run.steps[1].result == "1. Overview\n2. Transports: stdio, Streamable HTTP"
    assert run.steps[1].arguments == {"repoName": "modelcontextprotocol/specification"}
    assert run.steps[2].result == "saved"
    assert run.final_answer == "It supports stdio and Streamable HTTP."
    assert "unmapped" not in run.metadata or not any(
        "mcp" in str(e)
        for e in run.metadata["unmapped"]  # type: ignore[union-attr]
    )
    assert guess_format(json.loads(path.read_text())) == "anthropic"


def test_openai_responses_mcp_items() -> None:
    path = FIXTURES / "openai_responses_mcp.json"
    (run,) = import_file(path, "openai-responses")
    items = json.loads(path.read_text())["output"]
    calls = [i for i in items if i["type"] == "mcp_call"]
    assert len(run.steps) == len(calls) == 2
    assert sum(s.is_error for s in run.steps) == sum(1 for c in calls if c["error"]) == 1
    failed, answered = run.steps
    assert (failed.tool, failed.state["mcp_server"], failed.call_id) == (
        "ask_question",
        "deepwiki",
        "mcp_01",
    )
    assert failed.state["error"] == {
        "type": "mcp_protocol_error",
        "code": -32602,
        "message": "Repository not indexed",
    }
    assert answered.result == "stdio and Streamable HTTP"
    assert answered.arguments["repoName"] == "modelcontextprotocol/specification"
    assert [s.turn for s in run.steps] == [0, 1]  # the API ran each call before the model went on
    assert run.final_answer == "It supports stdio and Streamable HTTP."
    # the tool listing is no call: kept whole
    kept = {e["at"] for e in run.metadata["unmapped"]}  # type: ignore[union-attr,index]
    assert "output[0]" in kept
    assert guess_format(json.loads(path.read_text())) == "openai-responses"


# --- hostile MCP blocks ---------------------------------------------------------------------------


def _anthropic_mcp(tmp_path: Path, *extra: dict[str, object], error: object = True) -> Path:
    """The fixture with the first result's ``is_error`` set to ``error`` and ``extra`` blocks added
    to the assistant turn."""
    transcript = json.loads((FIXTURES / "anthropic_mcp.json").read_text())
    blocks = transcript["messages"][1]["content"]
    blocks[2]["is_error"] = error
    blocks.extend(extra)
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(transcript))
    return path


def test_a_second_mcp_result_for_one_call_does_not_replace_the_first(tmp_path: Path) -> None:
    again = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": False,
             "content": [{"type": "text", "text": "all fine"}]}  # fmt: skip
    (run,) = import_file(_anthropic_mcp(tmp_path, again), "anthropic")
    assert (run.steps[0].result, run.steps[0].is_error) == ("Repository not indexed", True)
    assert any(e["value"] == again for e in run.metadata["unmapped"])  # type: ignore[union-attr,index]


def test_an_mcp_result_never_answers_a_client_tool_call(tmp_path: Path) -> None:
    stray = {"type": "mcp_tool_result", "tool_use_id": "toolu_03", "is_error": False,
             "content": "stray"}  # fmt: skip
    (run,) = import_file(_anthropic_mcp(tmp_path, stray), "anthropic")
    assert run.steps[2].result == "saved"  # the client's own tool_result


def test_an_mcp_result_whose_is_error_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError) as caught:
        list(import_file(_anthropic_mcp(tmp_path, error="true"), "anthropic"))
    assert caught.value.field == "messages[1].content[2].is_error"
    assert "true or false" in str(caught.value)


def test_an_mcp_call_the_api_has_not_finished_has_no_result(tmp_path: Path) -> None:
    transcript = json.loads((FIXTURES / "openai_responses_mcp.json").read_text())
    transcript["output"][2].update(status="in_progress", output=None)
    transcript["output"][1]["status"] = "incomplete"
    transcript["output"][1]["error"] = None
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(transcript))
    (run,) = import_file(path, "openai-responses")
    incomplete, running = run.steps
    assert incomplete.is_error is True
    assert running.state.get("result_missing") is True
    assert running.is_error is False
