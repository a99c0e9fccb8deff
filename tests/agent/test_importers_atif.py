"""Harbor ATIF trajectories → runs, on the specification's own example and a v1.8 trajectory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file, import_hint
from pathjudge.agent.importers.atif import from_atif
from pathjudge.errors import ImportFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers" / "atif"
RFC = FIXTURES / "rfc0001-example.trajectory.json"
SUPPORT = FIXTURES / "support-v1.8.trajectory.json"


def _source_counts(path: Path) -> tuple[int, int, int]:
    """(tool calls, results answering a call, results starting 'Error:') counted in the file itself."""
    trajectory = json.loads(path.read_text())
    calls = results = errors = 0
    for step in trajectory["steps"]:
        ids = {c["tool_call_id"] for c in step.get("tool_calls") or []}
        calls += len(ids)
        for result in (step.get("observation") or {}).get("results", []):
            if result.get("source_call_id") in ids:
                results += 1
                content = result.get("content")
                errors += isinstance(content, str) and content.startswith("Error:")
    return calls, results, errors


@pytest.mark.parametrize("path", [RFC, SUPPORT])
def test_nothing_is_dropped(path: Path) -> None:
    (run,) = import_file(path, "atif")
    calls, results, errors = _source_counts(path)
    assert len(run.steps) == calls
    assert sum(1 for s in run.steps if "result_missing" not in s.state) == results
    assert run.error_count == errors


def test_the_specification_example() -> None:
    (run,) = import_file(RFC, "atif")
    assert run.run_id == "025B810F-B3A2-4C67-93C0-FE7A142A947A"
    assert (run.agent.name, run.agent.version, run.agent.model) == (
        "harbor-agent",
        "1.0.0",
        "gemini-2.5-flash",
    )
    assert run.input == "What is the current trading price of Alphabet (GOOGL)?"
    assert [(s.tool, s.turn, s.call_id) for s in run.steps] == [
        ("financial_search", 0, "call_price_1"),
        ("financial_search", 0, "call_volume_2"),
    ]
    assert run.steps[1].arguments == {"ticker": "GOOGL", "metric": "volume"}
    assert run.steps[0].result == "GOOGL is currently trading at $185.35 (Close: 10/11/2025)"
    assert run.steps[0].decision is not None
    assert run.steps[0].decision.endswith("trading price and volume for GOOGL.")
    assert run.final_answer is not None
    assert run.final_answer.startswith("As of October 11, 2025")
    # prompt tokens include cached ones: (520 - 200) + 600 = 920 uncached, 200 cached, 80 + 44 out
    assert (run.usage.input_tokens, run.usage.cache_read_input_tokens) == (920, 200)
    assert run.usage.output_tokens == 124
    assert run.usage.cost_usd == pytest.approx(0.00078)  # 0.00045 + 0.00033
    assert run.timing.duration_ms == 5000.0  # 10:30:00 → 10:30:05
    atif = run.metadata["atif"]
    assert isinstance(atif, dict)
    assert atif["schema_version"] == "ATIF-v1.5"
    assert atif["tool_definitions"][0]["function"]["name"] == "financial_search"  # type: ignore[index]
    kept = {u["at"] for u in run.metadata["unmapped"]}  # type: ignore[union-attr,index]
    assert {"steps[2].metrics.logprobs", "steps[1].reasoning_effort", "final_metrics"} <= kept


def test_a_v1_8_trajectory() -> None:
    (run,) = import_file(SUPPORT, "atif")
    assert run.run_id == "support-main"  # trajectory_id wins over the run-scoped session_id
    assert run.metadata["system"] == "You are a support agent. Use the tools."
    assert [s.turn for s in run.steps] == [0, 0, 1, 2]
    get_order, get_account, failed, retried = run.steps
    # results are matched by source_call_id, whatever their order; multimodal content kept whole
    assert get_account.result == '{"balance": 12.5}'
    assert isinstance(get_order.result, list)
    assert get_order.result[1]["type"] == "image"
    assert get_account.state["extra"] == {"timeout_s": 5}
    assert failed.is_error
    assert not retried.is_error
    assert failed.decision == "Refund the full amount."
    assert retried.state["extra"] == {"retrieval_score": 0.9}
    assert run.final_answer == "Refunded 38.00 EUR; your balance is now 50.50 EUR."
    # step metrics win over final_metrics: (400-100) + 500 + (600-500) uncached, 600 cached
    assert (run.usage.input_tokens, run.usage.cache_read_input_tokens) == (900, 600)
    kept = {u["at"] for u in run.metadata["unmapped"]}  # type: ignore[union-attr,index]
    assert {"steps[4].observation.results[1]", "steps[4].llm_call_count"} <= kept


def test_error_prefixes_are_configurable() -> None:
    (run,) = import_file(SUPPORT, "atif", error_prefixes=("refunded",))
    assert [s.is_error for s in run.steps] == [False, False, False, True]


def test_not_atif_and_missing_ids(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="not an ATIF version"):
        from_atif({"schema_version": "1.4", "agent": {}, "steps": []}, task_id="t")
    with pytest.raises(ImportFormatError, match="no trajectory_id or session_id"):
        from_atif({"schema_version": "ATIF-v1.7", "agent": {}, "steps": []}, task_id="t")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema_version": "ATIF-v1.7", "agent": {}, "steps": [{"x": 1}]}))
    with pytest.raises(ImportFormatError) as info:
        list(import_file(bad, "atif"))
    assert info.value.field == "steps[0].source"
    anonymous = tmp_path / "anon.json"
    anonymous.write_text(json.dumps({"schema_version": "ATIF-v1.7", "agent": {}, "steps": []}))
    (run,) = import_file(anonymous, "atif")  # a file names the run after itself
    assert (run.run_id, run.steps) == ("anon#0", ())


def test_a_trajectory_given_as_runs_gets_the_import_command() -> None:
    hint = import_hint(RFC)
    assert hint is not None
    assert hint.fmt == "atif"
    assert hint.command.startswith("pathjudge import --from atif")


# --- hostile trajectories -------------------------------------------------------------------------


def _trajectory(*steps: dict[str, object], **root: object) -> dict[str, object]:
    return {"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {}, "steps": list(steps),
            **root}  # fmt: skip


def _agent(*calls: tuple[object, str], results: list[tuple[object, str]]) -> dict[str, object]:
    return {
        "source": "agent",
        "tool_calls": [{"tool_call_id": i, "function_name": f, "arguments": {}} for i, f in calls],
        "observation": {"results": [{"source_call_id": i, "content": c} for i, c in results]},
    }


def test_calls_that_repeat_an_id_are_answered_in_order() -> None:
    step = _agent(("c1", "refund"), ("c1", "cancel"),
                  results=[("c1", "Error: refund refused"), ("c1", "cancelled")])  # fmt: skip
    run = from_atif(_trajectory(step), task_id="t")
    assert [(s.tool, s.result, s.is_error) for s in run.steps] == [
        ("refund", "Error: refund refused", True),
        ("cancel", "cancelled", False),
    ]


def test_ids_that_are_numbers_pair_calls_with_their_results() -> None:
    step = _agent((7, "search"), (8, "book"), results=[(8, "booked"), (7, "found")])
    run = from_atif(_trajectory(step), task_id="t")
    assert [(s.call_id, s.result) for s in run.steps] == [("7", "found"), ("8", "booked")]
    assert not any("result_missing" in s.state for s in run.steps)


@pytest.mark.parametrize("cost", [-5, "1.5", True])
def test_a_cost_that_is_not_a_non_negative_number_is_an_error(cost: object) -> None:
    step = {"source": "agent", "message": "hi", "metrics": {"cost_usd": cost}}
    with pytest.raises(ImportFormatError) as info:
        from_atif(_trajectory(step), task_id="t")
    assert info.value.field == "steps[0].metrics.cost_usd"


def test_a_broken_atif_file_is_not_taken_for_another_format(tmp_path: Path) -> None:
    trajectory = json.loads(RFC.read_text())
    for step in trajectory["steps"]:
        if step.get("observation"):
            step["observation"]["results"] = None
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(trajectory))
    with pytest.raises(ImportFormatError) as info:
        list(import_file(path, "atif"))
    assert info.value.field is not None
    assert info.value.field.endswith("observation.results")
    assert "--from" not in str(info.value)  # it is ATIF: no other format is suggested
