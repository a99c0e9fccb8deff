"""MCP tool calls in Anthropic (MCP connector) and OpenAI Responses transcripts become ordinary steps.

The fixtures follow the block and item shapes of the official SDKs (anthropic ``BetaMCPToolUseBlock``
/ ``BetaMCPToolResultBlock``, openai ``McpCall`` / ``McpListTools``); the counts are checked against the
files themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

from pathjudge.agent.importers import import_file
from pathjudge.agent.importers._common import guess_format

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
