"""examples/tooltalk: real ToolTalk conversations, imported as OpenAI chat transcripts, grade correctly.

Every golden conversation satisfies its reference (the ground-truth calls, in order, exact
parameters); each assistant turn's text is one reply, positioned after that turn's calls; the one
ground-truth call that raised is flagged ``is_error``; a dropped or altered call fails, an extra
lookup in between does not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pathjudge.agent.importers import import_file
from pathjudge.agent.trajectory import RunRecord, Step
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
