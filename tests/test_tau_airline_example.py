"""examples/tau_airline: a suite written from tau-bench task data grades the real recorded runs like
tau-bench's reward, and every rule it relies on is pinned on the real records (issue 12)."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pathjudge.agent.importers.openai_chat import from_openai_chat
from pathjudge.agent.trajectory import RunRecord
from pathjudge.cli import main
from pathjudge.rubrics.suite import Suite, load_suite
from pathjudge.scoring.grade import RunGrade, grade

SAMPLE = Path("tau_bench_sample") / "gpt-4o-airline.sample3.json"


@pytest.fixture(scope="module")
def make_suite(repo_root: Path) -> ModuleType:
    path = repo_root / "examples" / "tau_airline" / "make_suite.py"
    spec = importlib.util.spec_from_file_location("tau_make_suite", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tau_make_suite"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def records(shared_data: Path) -> list[dict[str, Any]]:
    data = json.loads((shared_data / SAMPLE).read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


@pytest.fixture(scope="module")
def suite(
    make_suite: ModuleType, records: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> Suite:
    target = tmp_path_factory.mktemp("tau") / "suite.yaml"
    make_suite.write_suite(make_suite.build_suite(make_suite.read_tasks(records)), target)
    return load_suite(target)


def imported(record: dict[str, Any], run_id: str = "r") -> RunRecord:
    return from_openai_chat(record, task_id=str(record["task_id"]), run_id=run_id)


def graded(suite: Suite, record: dict[str, Any]) -> RunGrade:
    (result,) = grade([imported(record)], suite)
    return result


def by_task(records: list[dict[str, Any]], task_id: int) -> dict[str, Any]:
    return copy.deepcopy(next(r for r in records if r["task_id"] == task_id))


def tool_call(message_index: int, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    call_id = f"call_added_{message_index}"
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "name": name, "content": ""},
    ]


def insert_before_last_reply(record: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    traj = record["traj"]
    last = max(
        i for i, m in enumerate(traj) if m["role"] == "assistant" and not m.get("tool_calls")
    )
    traj[last:last] = messages


def expected_write(record: dict[str, Any], index: int = 0) -> tuple[str, dict[str, Any]]:
    action = record["info"]["task"]["actions"][index]
    return action["name"], copy.deepcopy(action["kwargs"])


# --- the generated suite -------------------------------------------------------------------------


def test_generator_writes_one_task_per_task_id(suite: Suite, records: list[dict[str, Any]]) -> None:
    assert [task.id for task in suite.tasks] == ["1", "2", "6"]
    six = suite.task("6")
    (reference,) = six.references
    assert (reference.mode, reference.scope) == ("unordered", "state_changing")
    assert [step.tool for step in reference.steps] == ["update_reservation_flights"]
    assert six.errored_calls == "ignore"
    assert six.passed.checks == ()
    assert six.passed.path is True
    assert six.passed.undecided == "fail"
    assert six.success is None  # no required outputs
    assert suite.task("2").success is not None  # "23553" must be said


def test_the_suite_agrees_with_the_benchmark_reward_on_every_real_run(
    suite: Suite, records: list[dict[str, Any]]
) -> None:
    runs = [imported(r, f"run-{i}") for i, r in enumerate(records)]
    verdicts = [g.passed for g in grade(runs, suite)]
    rewards = [r["reward"] == 1.0 for r in records]
    assert verdicts == rewards == [True, False, False]


# --- every rule, on the real records ------------------------------------------------------------------


def test_reads_and_scratch_tools_are_neither_extra_nor_wasted(
    suite: Suite, records: list[dict[str, Any]]
) -> None:
    record = by_task(records, 6)
    result = graded(suite, record)
    tools = [s.tool for s in imported(record).steps]
    assert {"get_user_details", "search_onestop_flight", "think", "calculate"} <= set(tools)
    assert result.path is not None
    assert result.path.extra == ()
    assert result.path.wasted == ()
    assert result.path.pairs[0].call == tools.index("update_reservation_flights")
    assert result.passed is True


def test_a_second_identical_read_is_not_a_redundancy(
    suite: Suite, records: list[dict[str, Any]]
) -> None:
    record = by_task(records, 6)
    insert_before_last_reply(
        record, tool_call(90, "get_user_details", {"user_id": "aarav_garcia_1177"})
    )
    insert_before_last_reply(
        record, tool_call(91, "get_user_details", {"user_id": "aarav_garcia_1177"})
    )
    result = graded(suite, record)
    assert next(c for c in result.checks if c.check == "steps.redundant").status == "pass"
    assert result.passed is True


def test_an_errored_write_changed_nothing(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    name, kwargs = expected_write(record)
    kwargs["payment_id"] = "credit_card_0000000"
    added = tool_call(92, name, kwargs)
    added[1]["content"] = "Error: payment method not found"  # tau-bench's error convention
    insert_before_last_reply(record, added)
    run = imported(record)
    assert [s.is_error for s in run.steps].count(True) == 1
    result = graded(suite, record)
    assert result.path is not None
    assert result.path.satisfied
    assert result.passed is True
    # error recovery still sees it (the agent went on to make the right call)
    retries = next(c for c in result.checks if c.check == "recovery.retry_budget")
    assert len(retries.details["events"]) == 1  # type: ignore[arg-type]


def test_a_repeated_successful_write_fails(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    name, kwargs = expected_write(record)
    insert_before_last_reply(record, tool_call(93, name, kwargs))
    result = graded(suite, record)
    assert result.path is not None
    assert not result.path.satisfied
    assert len(result.path.wasted) == 1
    assert result.passed is False
    assert result.blockers == ("path",)


def test_a_wrong_argument_fails(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    for message in record["traj"]:
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == "update_reservation_flights":
                arguments = json.loads(call["function"]["arguments"])
                arguments["cabin"] = "Economy"  # case matters: the database stores what it is given
                call["function"]["arguments"] = json.dumps(arguments)
    result = graded(suite, record)
    assert result.path is not None
    assert not result.path.pairs[0].ok  # paired as an argument diff, counted as a missing step
    assert result.path.faults["missing"] == 1
    assert "cabin" in result.path.reason
    assert result.passed is False


def test_an_extra_write_fails(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    insert_before_last_reply(
        record, tool_call(94, "cancel_reservation", {"reservation_id": "UHDAHF"})
    )
    result = graded(suite, record)
    assert result.path is not None
    assert result.path.extra == (len(imported(record).steps) - 1,)
    assert result.passed is False


def test_a_missing_write_fails(suite: Suite, records: list[dict[str, Any]]) -> None:
    result = graded(suite, by_task(records, 1))  # the agent never cancelled Z7GOZK
    assert result.path is not None
    assert result.path.missing == ("#1",)
    assert result.passed is False
    # listed as a weak run, with the path diff as the reason (the task has no output to fail)
    assert result.weak == ("not_passed",)
    assert "did not pass: path" in result.reason
    assert "missing: ref step #1" in result.reason


def test_transfer_to_a_human_changes_no_state(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    insert_before_last_reply(record, tool_call(95, "transfer_to_human_agents", {"summary": "x"}))
    assert graded(suite, record).passed is True


def test_writes_in_any_order_pass(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 2)
    actions = record["info"]["task"]["actions"]
    traj = [m for m in record["traj"] if m["role"] != "assistant" or not m.get("tool_calls")]
    traj = [m for m in traj if m["role"] != "tool"]
    calls: list[dict[str, Any]] = []
    for i, action in enumerate(reversed(actions)):
        calls.extend(tool_call(100 + i, action["name"], action["kwargs"]))
    last = max(i for i, m in enumerate(traj) if m["role"] == "assistant")
    traj[last:last] = calls
    traj[-2 if traj[-1]["role"] == "user" else -1] = {
        "role": "assistant",
        "content": "All five reservations are now economy; you saved 23553 dollars in total.",
    }
    record["traj"] = traj
    result = graded(suite, record)
    assert result.path is not None
    assert result.path.satisfied
    assert result.success == "pass"
    assert result.passed is True


def say(record: dict[str, Any], text: str, *, last: bool) -> None:
    """Replace the agent's last reply (``last``) or its first reply with ``text``."""
    replies = [
        i
        for i, m in enumerate(record["traj"])
        if m["role"] == "assistant" and not m.get("tool_calls")
    ]
    record["traj"][replies[-1] if last else replies[0]]["content"] = text


def writes_done(record: dict[str, Any]) -> dict[str, Any]:
    """Task 2 with every expected write made (the recorded run made two of five)."""
    done = copy.deepcopy(record)
    calls: list[dict[str, Any]] = []
    for i, action in enumerate(done["info"]["task"]["actions"][2:]):
        calls.extend(tool_call(200 + i, action["name"], action["kwargs"]))
    insert_before_last_reply(done, calls)
    return done


def test_outputs_are_read_in_every_reply_with_commas_removed(
    suite: Suite, records: list[dict[str, Any]]
) -> None:
    record = writes_done(by_task(records, 2))
    assert graded(suite, record).blockers == ("success",)  # "$10,519": the recorded, wrong total
    said_early = copy.deepcopy(record)
    say(said_early, "Downgrading all five will save you $23,553 in total.", last=False)
    result = graded(suite, said_early)
    assert result.success == "pass"  # in an earlier reply, written with a comma
    assert result.passed is True
    dotted = copy.deepcopy(record)
    say(dotted, "You saved $23.553 in total.", last=True)  # a dot is not a comma
    assert graded(suite, dotted).passed is False


def test_a_run_cut_short_fails_like_tau_bench(suite: Suite, records: list[dict[str, Any]]) -> None:
    record = by_task(records, 6)
    record["reward"] = None  # tau-bench records no reward for an episode that never finished
    run = imported(record)
    assert run.stop_reason == "missing_reward"
    result = graded(suite, record)
    assert result.path is not None
    assert result.path.satisfied  # the right write was made...
    assert result.passed is False  # ...but an unfinished episode scores 0
    assert result.blockers == ("outcome.truncated",)


def test_an_episode_cut_at_the_step_cap_fails(suite: Suite, records: list[dict[str, Any]]) -> None:
    for record in records:
        assert imported(record).stop_reason is None  # each real episode ended with ###STOP###
    record = by_task(records, 6)
    assert "###STOP###" in record["traj"][-1]["content"]
    # the loop stopped at its cap right after the write, before the agent's reply and the user's stop
    record["traj"] = record["traj"][:-2]
    assert record["traj"][-1]["role"] == "tool"
    assert imported(record).stop_reason == "max_steps"
    result = graded(suite, record)
    assert result.path is not None
    assert result.path.satisfied
    assert result.passed is False
    assert result.blockers == ("outcome.truncated",)
    transferred = by_task(records, 6)
    transferred["traj"][-1:] = tool_call(96, "transfer_to_human_agents", {"summary": "x"})
    assert imported(transferred).stop_reason is None  # a terminate tool ends the episode


def test_a_required_output_must_be_said(suite: Suite, records: list[dict[str, Any]]) -> None:
    result = graded(suite, by_task(records, 2))
    assert result.success == "fail"
    assert "success" in result.blockers
    assert "23553" in " ".join(c.reason for c in result.checks if c.check.startswith("outcome"))


# --- the generator as a command ---------------------------------------------------------------------


def test_generator_cli(
    make_suite: ModuleType, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "suite.yaml"
    assert make_suite.main([str(shared_data / SAMPLE), str(target)]) == 0
    assert "wrote 3 tasks" in capsys.readouterr().out
    assert load_suite(target).name == "tau-airline"


def test_the_score_headline_is_tau_benchs_reward(
    make_suite: ModuleType,
    shared_data: Path,
    records: list[dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the README's three commands, on the recorded runs; tau-bench's verdict is reward == 1
    source = shared_data / SAMPLE
    suite, runs, out = tmp_path / "suite.yaml", tmp_path / "runs.jsonl", tmp_path / "out.json"
    assert make_suite.main([str(source), str(suite)]) == 0
    assert main(["import", str(source), "--from", "openai-chat", "-o", str(runs)]) == 0
    code = main(["score", str(runs), "--suite", str(suite), "--json", str(out), "--include-runs"])
    assert code == 0
    rewards = [record["reward"] == 1.0 for record in records]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["scorecard"]["verdict_passed"] == sum(rewards) == 1
    assert [run["passed"] for run in report["runs"]] == rewards
    assert f"{sum(rewards)}/{len(rewards)} runs" in capsys.readouterr().out


def test_generator_reads_a_task_list(make_suite: ModuleType) -> None:
    tasks = make_suite.read_tasks(
        [
            {"actions": [{"name": "get_user_details", "kwargs": {"user_id": "u"}}], "outputs": []},
            {"actions": [{"name": "cancel_reservation", "kwargs": {"reservation_id": "A"}}]},
        ]
    )
    suite = make_suite.build_suite(tasks)
    first, second = suite["tasks"]
    assert first["id"] == "0"
    assert first["references"][0]["steps"] == []  # a read is never part of the end state
    assert second["references"][0]["steps"] == [
        {"tool": "cancel_reservation", "args": {"reservation_id": "A"}}
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"not": "a list"}, "top level: expected list"),
        ([{"task_id": 1, "info": {}}], "[0].info.task: expected dict"),
        ([{"actions": [{"kwargs": {}}]}], "[0].actions[0].name"),
        ([{"actions": [], "outputs": [5]}], "[0].outputs[0]"),
        (
            [
                {"task_id": 1, "info": {"task": {"actions": []}}},
                {"task_id": 1, "info": {"task": {"actions": [{"name": "x", "kwargs": {}}]}}},
            ],
            "appears twice",
        ),
    ],
)
def test_generator_errors_name_the_place(
    make_suite: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: Any,
    message: str,
) -> None:
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    target = tmp_path / "suite.yaml"
    target.write_text("keep me", encoding="utf-8")
    assert make_suite.main([str(source), str(target)]) == 2
    assert message in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "keep me"  # a failed command leaves files intact


def test_literal_arguments_survive_dollar_keys(make_suite: ModuleType) -> None:
    entry = make_suite.task_entry(
        "t", {"actions": [{"name": "set", "kwargs": {"filter": {"$gt": 5}, "n": 1}}]}
    )
    args = entry["references"][0]["steps"][0]["args"]
    assert args == {"filter": {"$eq": {"$gt": 5}}, "n": 1}
