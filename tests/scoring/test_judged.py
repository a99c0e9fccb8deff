"""The judge seam: requests, item ids, inputs, recorded verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import LabelsError, SuiteError
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.judged import judge_requests, load_verdicts, status_of

SUITE = parse_suite_text(
    """\
name: j
tasks:
  - id: summary
    input: Summarize rate limiting
    judged:
      - criterion: summary-covers-points
        inputs: {summary: final_answer, points: reference, question: input, results: tool_results}
        reference: "- 429"
  - id: plain
"""
)


def test_requests() -> None:
    runs = [
        RunRecord(
            run_id="r1",
            task_id="summary",
            final_answer="429 per key",
            steps=(
                Step(tool="search_docs", arguments={"query": "q"}, result=[{"id": "ratelimits"}]),
            ),
        ),
        RunRecord(run_id="r2", task_id="plain"),
    ]
    (request,) = judge_requests(runs, SUITE)
    assert request.item_id == "r1:summary-covers-points"
    assert request.inputs == {
        "summary": "429 per key",
        "points": "- 429",
        "question": "Summarize rate limiting",
        "results": 'search_docs: [{"id": "ratelimits"}]',
    }
    with pytest.raises(SuiteError):
        judge_requests([RunRecord(run_id="x", task_id="nope")], SUITE)


def test_load_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text('{"item_id": "a:c", "verdict": "unsure", "reasoning": "?", "agreement": 0.5}\n')
    verdicts = load_verdicts(path)
    assert status_of(verdicts["a:c"]) == "unsure"
    assert status_of(None) == "not_run"
    path.write_text(
        '{"item_id": "a:c", "verdict": "pass"}\n{"item_id": "a:c", "verdict": "fail"}\n'
    )
    with pytest.raises(LabelsError, match="twice"):
        load_verdicts(path)
