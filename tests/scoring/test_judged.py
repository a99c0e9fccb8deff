"""The judge seam: requests, item ids, inputs, recorded verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.errors import CriterionError, LabelsError, SuiteError
from pathjudge.judge.session import judge_unavailable
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.judged import (
    JudgeRequest,
    judge_requests,
    judged_criteria,
    load_verdicts,
    status_of,
)

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
    path.write_text('{"item_id": "a:c", "verdict": "unsure", "reasoning": "?"}\n')
    verdicts = load_verdicts(path)
    assert status_of(verdicts["a:c"]) == "unsure"
    assert status_of(None) == "not_run"
    path.write_text(
        '{"item_id": "a:c", "verdict": "pass"}\n{"item_id": "a:c", "verdict": "fail"}\n'
    )
    with pytest.raises(LabelsError, match="second verdict"):
        load_verdicts(path)
    # One reader, one strictness: an unknown field is an error naming the line (issue 11).
    path.write_text('{"item_id": "a:c", "verdict": "pass", "agreement": 0.5}\n')
    with pytest.raises(LabelsError, match="unknown field") as info:
        load_verdicts(path)
    assert info.value.line == 1
    # k samples of one item: the majority; all samples errored: error
    path.write_text(
        '{"item_id": "a:c", "verdict": "pass", "sample": 0}\n'
        '{"item_id": "a:c", "verdict": "pass", "sample": 1}\n'
        '{"item_id": "a:c", "verdict": "fail", "sample": 2}\n'
        '{"item_id": "b:c", "verdict": "error"}\n'
    )
    verdicts = load_verdicts(path)
    assert status_of(verdicts["a:c"]) == "pass"
    assert status_of(verdicts["b:c"]) == "error"
    path.write_text("")
    assert load_verdicts(path) == {}


def test_one_recorded_verdict_model() -> None:
    import pathjudge.scoring.judged as judged
    from pathjudge.calibration import verdicts

    assert not hasattr(judged, "RecordedVerdict")
    assert verdicts.RecordedVerdict.model_config["extra"] == "forbid"


def test_judge_unavailable_reasons(tmp_path: Path) -> None:
    key = {"ANTHROPIC_API_KEY": "sk-ant-x"}
    assert judge_unavailable("anthropic", model="m", base_url=None, env=key) is None
    assert (
        judge_unavailable("anthropic", model="m", base_url=None, env={"ANTHROPIC_AUTH_TOKEN": "t"})
        is None
    )
    reason = judge_unavailable("anthropic", model="m", base_url="http://127.0.0.1:9", env={})
    assert reason is not None
    assert "ANTHROPIC_API_KEY" in reason
    assert judge_unavailable("openai-compatible", model="m", base_url="http://h", env={}) is None
    assert "base_url" in (
        judge_unavailable("openai-compatible", model="m", base_url=None, env={}) or ""
    )
    gguf = tmp_path / "m.gguf"
    assert "GGUF" in (judge_unavailable("llama-cpp", model=str(gguf), base_url=None, env={}) or "")
    gguf.write_bytes(b"GGUF")
    assert judge_unavailable("llama-cpp", model=str(gguf), base_url=None, env={}) is None


def test_criterion_files_resolve_beside_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pathjudge.rubrics

    builtin = Path(pathjudge.rubrics.__file__).parent / "criteria" / "summary-covers-points.yaml"
    folder = tmp_path / "suite"
    folder.mkdir()
    text = builtin.read_text().replace("id: summary-covers-points", "id: my-points", 1)
    (folder / "mine.yaml").write_text(text)

    def request(criterion: str) -> JudgeRequest:
        return JudgeRequest(
            item_id=f"r:{criterion}", run_id="r", task_id="t", criterion_id=criterion, inputs={}
        )

    requests = [request("mine.yaml"), request("summary-covers-points")]
    found = judged_criteria(requests, folder)
    assert list(found) == ["mine.yaml"]  # built-ins are left to the judge's own lookup
    assert found["mine.yaml"].id == "my-points"
    # a suite with no file resolves its criteria inside the working folder, and only there
    monkeypatch.chdir(folder)
    assert judged_criteria(requests, None)["mine.yaml"].id == "my-points"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CriterionError, match="criterion file not found"):
        judged_criteria(requests, None)
