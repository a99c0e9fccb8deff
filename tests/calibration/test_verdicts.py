"""Verdict files from any grader, and from pathjudge's own judge: samples, majority, vote share."""

from __future__ import annotations

import pytest

from pathjudge.calibration.verdicts import ItemVotes, load_verdicts
from pathjudge.errors import LabelsError
from pathjudge.judge.verdict import JudgeFailure, SampleVerdict, aggregate_samples

from .conftest import Writer


def test_majority_and_vote_share() -> None:
    v = ItemVotes(
        "a", None, ("pass", "fail", "pass", "unsure", "error"), ("r1", "r2", "r3", None, None)
    )
    assert (v.n_pass, v.n_fail, v.n_unsure, v.n_error, v.n_decided) == (2, 1, 1, 1, 3)
    assert v.majority == "pass"
    assert v.vote_share == pytest.approx(2 / 3)
    assert v.reasoning == "r1"
    tie = ItemVotes("b", None, ("pass", "fail"), (None, "why fail"))
    assert tie.majority == "unsure"
    assert tie.reasoning == "why fail"
    none = ItemVotes("c", None, ("unsure", "error"))
    assert none.majority == "unsure"
    assert none.vote_share is None
    assert not none.errored
    assert ItemVotes("d", None, ("error",)).errored


def test_generic_file_with_samples(write: Writer) -> None:
    path = write(
        "v.jsonl",
        [
            {"item_id": "a", "verdict": "pass", "sample": 1, "reasoning": "second"},
            {"item_id": "a", "verdict": "fail", "sample": 0, "reasoning": "first"},
            {"item_id": "a", "verdict": "pass", "sample": 2},
            {"item_id": "b", "verdict": "unsure", "model": "m", "metadata": {"k": 1}},
            {"item_id": "a", "verdict": "fail", "criterion": "c2"},
        ],
    )
    verdicts = load_verdicts(path)
    assert verdicts.criteria == (None, "c2")
    a = verdicts.by_criterion[None]["a"]
    assert a.verdicts == ("fail", "pass", "pass")  # sample order
    assert a.majority == "pass"
    assert a.line == 1
    assert verdicts.by_criterion["c2"]["a"].verdicts == ("fail",)
    assert len(verdicts) == 3


def test_duplicate_sample_and_bad_lines(write: Writer) -> None:
    dup = write(
        "d.jsonl", [{"item_id": "a", "verdict": "pass"}, {"item_id": "a", "verdict": "fail"}]
    )
    with pytest.raises(
        LabelsError,
        match=r"d\.jsonl:2: field 'sample': item 'a': sample 0 has a second verdict \(first on line 1\)",
    ):
        load_verdicts(dup)
    bad = write("b.jsonl", [{"item_id": "a", "verdict": "PASS"}])
    with pytest.raises(LabelsError, match=r"b\.jsonl:1: field 'verdict'"):
        load_verdicts(bad)
    extra = write("e.jsonl", [{"item_id": "a", "verdict": "pass", "score": 0.3}])
    with pytest.raises(LabelsError, match="unknown field in a verdict"):
        load_verdicts(extra)
    arr = write("x.jsonl", ["[1, 2]"])
    with pytest.raises(LabelsError, match=r"x\.jsonl:1"):
        load_verdicts(arr)


def _sample(item: str, index: int, verdict: str) -> SampleVerdict:
    return SampleVerdict(
        item_id=item,
        sample_index=index,
        criterion_id="summary-faithful",
        criterion_version="1",
        criterion_hash="sha256:x",
        input_hash="sha256:y",
        backend="openai",
        model="smol",
        verdict=verdict,  # type: ignore[arg-type]
        reasoning=f"{verdict} because",
    )


def _failure(item: str, index: int | None) -> JudgeFailure:
    return JudgeFailure(
        item_id=item,
        reasoning="timed out",
        error_type="timeout",
        message="read timeout",
        criterion_id="summary-faithful",
        criterion_hash="sha256:x",
        backend="openai",
        model="smol",
        sample_index=index,
    )


def test_reads_pathjudge_judge_records(write: Writer) -> None:
    record = aggregate_samples(
        "a",
        [_sample("a", 0, "pass"), _sample("a", 2, "fail"), _sample("a", 3, "pass")],
        [_failure("a", 1)],
    )
    failure = aggregate_samples("b", [], [_failure("b", 0)])
    path = write("judge.jsonl", [record.model_dump(mode="json"), failure.model_dump(mode="json")])
    verdicts = load_verdicts(path)
    assert verdicts.criteria == ("summary-faithful",)
    a = verdicts.by_criterion["summary-faithful"]["a"]
    # samples 0, 2, 3 voted; the failed sample takes the free index 1
    assert a.verdicts == ("pass", "error", "fail", "pass")
    assert a.majority == "pass"
    assert a.reasoning == "pass because"
    b = verdicts.by_criterion["summary-faithful"]["b"]
    assert b.verdicts == ("error",)
    assert b.errored
    assert b.reasoning == "timeout: timed out"
    broken = write("broken.jsonl", [{**record.model_dump(mode="json"), "samples": 0}])
    with pytest.raises(LabelsError, match=r"broken\.jsonl:1: field 'samples'"):
        load_verdicts(broken)
