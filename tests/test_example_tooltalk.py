"""examples/tooltalk: real ToolTalk conversations, imported as OpenAI chat transcripts, grade correctly.

Every golden conversation satisfies its reference (the ground-truth calls, in order, exact
parameters); each assistant turn's text is one reply, positioned after that turn's calls; the one
ground-truth call that raised is flagged ``is_error``; a dropped or altered call fails, an extra
lookup in between does not.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.cli import main
from pathjudge.rubrics.suite import Suite, load_suite
from pathjudge.scoring.grade import grade

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "tooltalk"))
import make_suite


@pytest.fixture(scope="module")
def generated(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Suite, list[RunRecord]]:
    out = tmp_path_factory.mktemp("tooltalk")
    code = make_suite.main(
        [
            str(shared_data / "tooltalk"),
            "-o",
            str(out / "suite.yaml"),
            "--runs",
            str(out / "runs.jsonl"),
        ]
    )
    assert code == 0
    return load_suite(out / "suite.yaml"), list(import_file(out / "runs.jsonl", "openai-chat"))


def test_golden_conversations_satisfy_their_reference(
    shared_data: Path, generated: tuple[Suite, list[RunRecord]]
) -> None:
    suite, runs = generated
    assert len(runs) == len(suite) == 78
    grades = list(grade(runs, suite))
    assert all(g.path is not None and g.path.satisfied for g in grades), [
        g.path.reason for g in grades if g.path is not None and not g.path.satisfied
    ]
    assert all(g.path_score == 100 for g in grades)
    # every assistant text is a reply, after the calls of its turn
    for (task_id, conversation), run in zip(
        make_suite.conversations(shared_data / "tooltalk"), runs, strict=True
    ):
        assert run.task_id == task_id
        expected = []
        calls = 0
        for turn in conversation["conversation"]:
            if turn["role"] == "assistant":
                calls += len(turn.get("apis") or [])
                if turn.get("text"):
                    expected.append((turn["text"], calls))
        assert [(r.text, r.after_steps) for r in run.replies] == expected
    errored = [(r.task_id, s.tool) for r in runs for s in r.steps if s.is_error]
    assert len(errored) == 1


def test_dropped_altered_and_extra_calls(generated: tuple[Suite, list[RunRecord]]) -> None:
    suite, runs = generated
    run = next(r for r in runs if len(r.steps) >= 2)
    first = run.steps[0]
    changed_args = {k: (v + " x" if isinstance(v, str) else v) for k, v in first.arguments.items()}
    variants = {
        "dropped": run.steps[1:],
        "altered": (first.model_copy(update={"arguments": changed_args}), *run.steps[1:]),
        "extra": (
            first,
            Step(tool="QueryUser", arguments={"username": "someone"}, turn=first.turn),
            *run.steps[1:],
        ),
    }
    verdicts = {}
    for name, steps in variants.items():
        turns = [s.model_copy(update={"turn": i}) for i, s in enumerate(steps)]
        variant = run.model_copy(update={"run_id": name, "steps": tuple(turns), "replies": ()})
        (graded,) = grade([variant], suite)
        verdicts[name] = graded.path is not None and graded.path.satisfied
    assert verdicts == {"dropped": False, "altered": False, "extra": True}
    assert json.dumps(first.arguments)  # the golden arguments are plain JSON


def _tooltalk_success(conversation: dict[str, object], run: RunRecord) -> bool:
    """ToolTalk's own success for a run that makes no call outside the ground truth: recall 1,
    every ground-truth call (name and parameters) among the run's calls."""
    truth = Counter(
        (call["request"]["api_name"], json.dumps(call["request"]["parameters"], sort_keys=True))
        for call in make_suite._calls(conversation)
    )
    made = Counter((s.tool, json.dumps(s.arguments, sort_keys=True)) for s in run.steps)
    return not truth - made


def test_the_score_headline_is_tooltalks_own_success(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the README's three commands, on the golden conversations and on each with its last call dropped
    suite, golden, runs = (
        tmp_path / "suite.yaml",
        tmp_path / "golden.jsonl",
        tmp_path / "runs.jsonl",
    )
    data = str(shared_data / "tooltalk")
    assert make_suite.main([data, "-o", str(suite), "--runs", str(golden)]) == 0
    assert main(["import", str(golden), "--from", "openai-chat", "-o", str(runs)]) == 0
    imported = list(read_runs(runs))
    dropped = [
        r.model_copy(update={"run_id": r.run_id + ":dropped", "steps": r.steps[:-1], "replies": ()})
        for r in imported
    ]
    every = imported + dropped
    runs.write_text("".join(r.model_dump_json() + "\n" for r in every), encoding="utf-8")
    conversations = dict(make_suite.conversations(shared_data / "tooltalk"))
    success = [_tooltalk_success(conversations[r.task_id], r) for r in every]
    assert sum(success) == len(imported) == 78  # every golden run, no run missing a call
    out = tmp_path / "out.json"
    argv = ["score", str(runs), "--suite", str(suite), "--json", str(out), "--include-runs"]
    assert main(argv) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["scorecard"]["verdict_passed"] == sum(success)
    assert [run["passed"] for run in report["runs"]] == success
    assert f"{sum(success)}/{len(every)} runs" in capsys.readouterr().out
