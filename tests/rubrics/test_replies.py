"""Every reply (schema 2, ``over:``), declared text normalisation, truncated runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from pathjudge.agent.importers.openai_chat import from_openai_chat
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import Reply, RunRecord, Step
from pathjudge.rubrics.assertions._normalize import TextNormalization
from pathjudge.rubrics.assertions.outcome import check_outcome
from pathjudge.rubrics.suite import parse_suite
from pathjudge.scoring.grade import grade


def _criterion(spec: dict[str, object]) -> object:
    suite = parse_suite({"name": "s", "tasks": [{"id": "t", "success": spec}]})
    return suite.tasks[0].success


def test_version_1_records_migrate_and_version_2_is_written(tmp_path: Path) -> None:
    v1 = {
        "schema_version": 1,
        "run_id": "r",
        "task_id": "t",
        "steps": [{"tool": "a"}],
        "final_answer": "done",
    }
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(v1) + "\n", encoding="utf-8")
    (run,) = read_runs(path)
    assert run.schema_version == 2
    assert run.replies == (Reply(text="done", after_steps=1),)
    assert json.loads(run.model_dump_json())["schema_version"] == 2
    assert RunRecord.model_validate_json(run.model_dump_json()) == run
    no_answer = RunRecord.model_validate({"schema_version": 1, "run_id": "r", "task_id": "t"})
    assert no_answer.replies == ()


def test_reply_positions_are_checked() -> None:
    with pytest.raises(ValidationError, match=r"replies\[0\].after_steps is 2"):
        RunRecord(
            run_id="r",
            task_id="t",
            steps=(Step(tool="a"),),
            replies=(Reply(text="x", after_steps=2),),
        )
    with pytest.raises(ValidationError, match=r"replies\[1\].after_steps is 0"):
        RunRecord(
            run_id="r",
            task_id="t",
            steps=(Step(tool="a"),),
            replies=(Reply(text="x", after_steps=1), Reply(text="y", after_steps=0)),
        )


def _tau_like() -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "cancel my trip"},
        {"role": "assistant", "content": "Your refund will be $23,553."},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "cancel", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Cancelled. Anything else?"},
        {"role": "user", "content": "###STOP###"},
    ]  # fmt: skip


def test_openai_chat_keeps_every_reply_with_its_position() -> None:
    run = from_openai_chat(_tau_like(), task_id="t", run_id="r")
    assert [(r.text, r.after_steps) for r in run.replies] == [
        ("Your refund will be $23,553.", 0),
        ("Cancelled. Anything else?", 1),
    ]
    assert run.final_answer == "Cancelled. Anything else?"
    unmapped = run.metadata.get("unmapped")
    assert isinstance(unmapped, list)
    assert all(entry["value"]["role"] == "user" for entry in unmapped)  # type: ignore[index]
    # a run that ends on a tool call has no final answer, but keeps its earlier replies
    cut = from_openai_chat(_tau_like()[:6], task_id="t", run_id="r")
    assert cut.final_answer is None
    assert [r.text for r in cut.replies] == ["Your refund will be $23,553."]


def test_over_final_answer_any_reply_all_replies() -> None:
    run = from_openai_chat(_tau_like(), task_id="t", run_id="r")
    norm = {"casefold": True, "remove": ",$"}
    final = _criterion({"kind": "contains_any", "values": ["23553"], "normalize": norm})
    anyr = _criterion(
        {"kind": "contains_any", "values": ["23553"], "normalize": norm, "over": "any_reply"}
    )
    both = _criterion({"kind": "contains_all", "values": ["23553", "cancelled"], "normalize": norm})
    joined = _criterion(
        {
            "kind": "contains_all",
            "values": ["23553", "cancelled"],
            "normalize": norm,
            "over": "all_replies",
        }
    )
    any_both = _criterion(
        {
            "kind": "contains_all",
            "values": ["23553", "cancelled"],
            "normalize": norm,
            "over": "any_reply",
        }
    )
    assert check_outcome(run, final).status == "fail"  # type: ignore[arg-type]
    result = check_outcome(run, anyr)  # type: ignore[arg-type]
    assert result.status == "pass"
    assert result.reason.startswith("reply 1 of 2")
    assert check_outcome(run, both).status == "fail"  # type: ignore[arg-type]
    assert check_outcome(run, joined).status == "pass"  # type: ignore[arg-type]
    assert check_outcome(run, any_both).status == "fail"  # type: ignore[arg-type]
    silent = RunRecord(run_id="r", task_id="t")
    assert check_outcome(silent, anyr).reason == "no reply to the user"  # type: ignore[arg-type]
    assert "no reply to the user" in check_outcome(silent, joined).reason  # type: ignore[arg-type]


def test_declared_normalisation_composes_and_presets_stay() -> None:
    money = TextNormalization(casefold=True, remove=",$")
    assert money.apply("Total: $23,553.50 USD") == "total: 23553.50 usd"  # dots and spaces kept
    assert TextNormalization(strip_accents=True).apply("Café Zürich") == "Cafe Zurich"
    assert TextNormalization(punctuation="drop").apply("a.b, c!¿") == "ab c"
    assert TextNormalization(collapse_whitespace=True).apply("  a \n\t b ") == "a b"
    assert TextNormalization().apply("A,b") == "A,b"
    run = RunRecord(run_id="r", task_id="t", final_answer="The total is $23,553.")
    hit = _criterion(
        {
            "kind": "contains_any",
            "values": ["23553"],
            "normalize": {"casefold": True, "remove": ",$"},
        }
    )
    assert check_outcome(run, hit).status == "pass"  # type: ignore[arg-type]
    assert "(casefold, remove" in check_outcome(run, hit).reason  # type: ignore[arg-type]
    preset = _criterion({"kind": "contains_any", "values": ["23553"]})  # casefold keeps the comma
    assert check_outcome(run, preset).status == "fail"  # type: ignore[arg-type]
    bfcl = _criterion({"kind": "contains_any", "values": ["23553.0"], "normalize": "bfcl"})
    assert check_outcome(run, bfcl).status == "fail"  # type: ignore[arg-type]  # bfcl drops dots too
    with pytest.raises(Exception, match="punctuation"):
        _criterion({"kind": "contains_any", "values": ["x"], "normalize": {"punctuation": "strip"}})
    with pytest.raises(Exception, match="casefld"):
        _criterion({"kind": "contains_any", "values": ["x"], "normalize": {"casefld": True}})


def test_truncated_runs_are_never_graded_complete() -> None:
    def suite(policy: str | None) -> object:
        task: dict[str, object] = {
            "id": "t",
            "success": {"kind": "contains_any", "values": ["done"]},
        }
        if policy is not None:
            task["truncated"] = policy
        return parse_suite({"name": "s", "tasks": [task]})

    cut = RunRecord(run_id="r", task_id="t", final_answer="done", stop_reason="max_steps")
    whole = cut.model_copy(update={"stop_reason": "end_turn"})
    assert cut.truncated
    assert not whole.truncated
    (graded,) = grade([cut], suite(None))  # type: ignore[arg-type]
    assert graded.success == "undecided"
    check = next(c for c in graded.checks if c.check == "outcome.truncated")
    assert "max_steps" in check.reason
    informative = next(c for c in graded.checks if c.check == "outcome.contains_any")
    assert informative.status == "pass"
    assert informative.gating is False
    (graded,) = grade([cut], suite("fail"))  # type: ignore[arg-type]
    assert graded.success == "fail"
    (graded,) = grade([whole], suite("fail"))  # type: ignore[arg-type]
    assert graded.success == "pass"
    with pytest.raises(Exception, match="truncated"):
        suite("maybe")


def test_tau_record_without_reward_is_truncated() -> None:
    record = {"task_id": 1, "trial": 0, "reward": None, "info": {}, "traj": _tau_like()}
    run = from_openai_chat(record, task_id="t", run_id="r")
    assert run.stop_reason == "missing_reward"
    assert run.truncated
    record["reward"] = 1.0
    assert from_openai_chat(record, task_id="t", run_id="r").stop_reason is None
    length = from_openai_chat(
        {"messages": _tau_like(), "finish_reason": "length"}, task_id="t", run_id="r"
    )
    assert length.stop_reason == "max_tokens"


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("anthropic", "anthropic_refund.json"),
        ("openai-chat", "openai_chat.json"),
        ("openai-responses", "openai_responses.json"),
        ("otel", "otel_otlp.json"),
        ("otel", "otel_flat.json"),
    ],
)
def test_every_importer_fills_replies(fmt: str, name: str) -> None:
    from pathjudge.agent.importers import import_file

    runs = list(import_file(FIXTURES / "importers" / name, fmt))
    assert runs
    for run in runs:
        assert run.schema_version == 2
        if run.final_answer is not None:
            assert run.replies, f"{name}: a final answer is a reply"
            assert run.replies[-1].text == run.final_answer
            assert run.replies[-1].after_steps == len(run.steps)


def test_managed_agents_replies() -> None:
    from pathjudge.agent.importers.managed_agents import import_file

    for name in ("session_full.json", "session_done_page.json"):
        (run,) = list(import_file(FIXTURES / "managed_agents" / name, session_id="s"))
        earlier = run.metadata.get("agent_replies") or []
        assert isinstance(earlier, list)
        assert [r.text for r in run.replies] == [
            *(e["text"] for e in earlier),  # type: ignore[index]
            *([run.final_answer] if run.final_answer is not None else []),
        ]
    assert run.replies[-1].text == "SSO is part of the Enterprise plan."


def test_anthropic_and_responses_mark_cut_runs() -> None:
    from pathjudge.agent.importers.anthropic import from_anthropic
    from pathjudge.agent.importers.openai_responses import from_openai_responses

    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Let me"}],
            "stop_reason": "max_tokens",
        },
    ]
    run = from_anthropic(messages, task_id="t", run_id="r")
    assert run.truncated
    assert run.replies[0].text == "Let me"
    stored = {
        "input": "hi",
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Par"}],
            }
        ],
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    run = from_openai_responses(stored, task_id="t", run_id="r")
    assert run.stop_reason == "max_tokens"
    assert run.truncated
    assert [r.text for r in run.replies] == ["Par"]


def test_judged_criteria_can_read_every_reply() -> None:
    from pathjudge.scoring.judged import build_inputs

    suite = parse_suite(
        {
            "name": "s",
            "tasks": [
                {"id": "t", "judged": [{"criterion": "c", "inputs": {"conversation": "replies"}}]}
            ],
        }
    )
    task = suite.tasks[0]
    run = from_openai_chat(_tau_like(), task_id="t", run_id="r")
    inputs = build_inputs(run, task, task.judged[0])
    assert inputs == {"conversation": "Your refund will be $23,553.\n\nCancelled. Anything else?"}


def test_refusal_over_replies() -> None:
    messages = [
        {"role": "user", "content": "migrate my Mongo cluster"},
        {"role": "assistant", "content": "I couldn't find anything about Mongo in the docs."},
        {"role": "user", "content": "are you sure?"},
        {"role": "assistant", "content": "Yes. Anything else?"},
    ]
    run = from_openai_chat(messages, task_id="t", run_id="r")
    final = _criterion({"kind": "refusal"})
    anyr = _criterion({"kind": "refusal", "over": "any_reply"})
    joined = _criterion({"kind": "refusal", "over": "all_replies"})
    assert check_outcome(run, final).status == "fail"  # type: ignore[arg-type]
    assert check_outcome(run, anyr).status == "pass"  # type: ignore[arg-type]
    assert check_outcome(run, joined).status == "pass"  # type: ignore[arg-type]
    silent = RunRecord(run_id="r", task_id="t")
    assert check_outcome(silent, anyr).reason == (  # type: ignore[arg-type]
        "no reply to the user (expected the agent to refuse)"
    )
