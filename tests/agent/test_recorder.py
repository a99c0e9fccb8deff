"""The recorder captures the same RunRecord from any agent by wrapping its tools."""

from __future__ import annotations

import asyncio

import pytest

from pathjudge._io import write_jsonl
from pathjudge.agent.docent import CORPUS, keyword_retriever
from pathjudge.agent.io import read_runs
from pathjudge.agent.recorder import Recorder
from pathjudge.agent.trajectory import AgentInfo, Usage


def search_docs(query: str, k: int = 2) -> list[str]:
    """Return the ids of the k best pages."""
    return [doc.id for doc in keyword_retriever(query, CORPUS, k)]


def test_sync_tools_decorator_and_wrap(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Recorder(task_id="t", input="q?", agent=AgentInfo(name="mine", model="m")) as rec:

        @rec.tool(name="lookup")
        def lookup(key: str) -> dict[str, str]:
            return {"key": key}

        search = rec.wrap(search_docs)
        rec.decision("I will search.")
        assert search("rate limit http", k=1) == ["ratelimits"]
        assert lookup("a") == {"key": "a"}
        search("rate limit http", 1)  # positional: bound to the same names → a retry of the first
        rec.add_usage(Usage(input_tokens=10, output_tokens=2))
        rec.add_usage(Usage(input_tokens=5, output_tokens=1))
        rec.final_answer = "429"
    run = rec.run
    assert [(s.turn, s.decision, s.tool, s.arguments, s.result, s.state) for s in run.steps] == [
        (
            0,
            "I will search.",
            "search_docs",
            {"query": "rate limit http", "k": 1},
            ["ratelimits"],
            {"retries": 0},
        ),
        (1, None, "lookup", {"key": "a"}, {"key": "a"}, {"retries": 0}),
        (
            2,
            None,
            "search_docs",
            {"query": "rate limit http", "k": 1},
            ["ratelimits"],
            {"retries": 1},
        ),
    ]
    assert (run.final_answer, run.stop_reason, run.usage.input_tokens, run.usage.output_tokens) == (
        "429",
        "end_turn",
        15,
        3,
    )
    assert run.agent.name == "mine"
    assert run.metadata["source"] == "pathjudge.agent.recorder"
    assert run.timing.duration_ms is not None
    assert run.timing.started_at is not None
    assert search.__name__ == "search_docs"
    assert search.__doc__ == search_docs.__doc__
    # the record round-trips through JSONL unchanged
    write_jsonl(tmp_path / "r.jsonl", [run])
    assert list(read_runs(tmp_path / "r.jsonl")) == [run]


def test_exceptions_are_recorded_then_reraised() -> None:
    rec = Recorder(task_id="t")
    calls = 0

    @rec.tool
    def flaky(query: str) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise TimeoutError("backend timed out")
        return "ok"

    with rec:
        with pytest.raises(TimeoutError, match="backend timed out"):
            flaky("x")
        assert flaky("x") == "ok"
        rec.final_answer = "done"
    assert [(s.result, s.is_error, s.state["retries"]) for s in rec.run.steps] == [
        ("TimeoutError: backend timed out", True, 0),
        ("ok", False, 1),
    ]
    assert rec.run.error_count == 1


def test_an_agent_crash_marks_the_run() -> None:
    rec = Recorder(task_id="t")

    def agent() -> None:
        with rec:
            rec.wrap(search_docs)("backups")
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        agent()
    assert rec.run.stop_reason == "error"
    assert rec.run.metadata["error"] == "ValueError: boom"
    assert len(rec.run.steps) == 1


def test_async_tools_overlapping_calls_share_a_turn() -> None:
    async def agent() -> Recorder:
        async with Recorder(task_id="t") as rec:

            @rec.tool
            async def fetch(doc_id: str) -> str:
                await asyncio.sleep(0.01)
                if doc_id == "missing":
                    raise KeyError(doc_id)
                return doc_id.upper()

            first = await fetch("auth")
            results = await asyncio.gather(fetch("plans"), fetch("missing"), return_exceptions=True)
            rec.final_answer = f"{first} {results[0]}"
        return rec

    rec = asyncio.run(agent())
    run = rec.run
    assert [(s.turn, s.arguments["doc_id"], s.is_error) for s in run.steps] == [
        (0, "auth", False),
        (1, "plans", False),
        (1, "missing", True),
    ]
    assert run.steps[2].result == "KeyError: 'missing'"
    assert run.final_answer == "AUTH PLANS"


def test_explicit_turns() -> None:
    with Recorder(task_id="t") as rec:
        tool = rec.wrap(search_docs)
        assert rec.new_turn() == 0
        tool("a")
        tool("b")
        assert rec.new_turn() == 1
        tool("c")
    assert [s.turn for s in rec.run.steps] == [0, 0, 1]
    assert len(list(rec.run.turns())) == 2


def test_empty_recording() -> None:
    with Recorder(task_id="t", epoch=3) as rec:
        pass
    assert (rec.run.steps, rec.run.final_answer, rec.run.run_id, rec.run.epoch) == (
        (),
        None,
        "t@3",
        3,
    )
