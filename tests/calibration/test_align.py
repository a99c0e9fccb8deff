"""``pathjudge.calibration.align`` against the fake Anthropic align_server with the scripted judge of
``align_fakes`` (right on every item only when its prompt holds the useful example or wording)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.agreement import Gates
from pathjudge.calibration.align import align, criterion_yaml, plan_budget
from pathjudge.calibration.labels import load_labels
from pathjudge.calibration.proposer import AnthropicProposer
from pathjudge.errors import ConfigError, LabelsError
from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend
from pathjudge.judge.cache import VerdictCache
from pathjudge.judge.runner import JudgeJob, sample_keys
from pathjudge.rubrics.criteria import CriterionExample, parse_criterion
from tests.calibration.align_fakes import (
    CRITERION,
    DEV,
    MODEL,
    TEST,
    TRAIN,
    _judged,
    _labels,
    _user,
)
from tests.fakes.anthropic_server import FakeAnthropic


def _run(
    tmp_path: Path,
    align_server: FakeAnthropic,
    train: dict[str, str] = TRAIN,
    dev: dict[str, str] = DEV,
    **options: Any,
) -> Any:
    labels = load_labels(_labels(tmp_path, train, dev))
    backend = AnthropicJudgeBackend(model=MODEL, base_url=align_server.url)
    with VerdictCache(tmp_path / "cache.sqlite") as cache:
        return align(
            labels, parse_criterion(CRITERION), name="fact-stated", backend=backend,
            cache=cache, gates=Gates(), n_bootstrap=50, **{"max_calls": 500, **options},
        )  # fmt: skip


def test_align_finds_the_useful_example_and_tests_once(
    tmp_path: Path, align_server: FakeAnthropic
) -> None:
    result = _run(tmp_path, align_server, k=3)
    report = result.report
    judged = [_judged(r) for r in align_server.requests if r.path == "/v1/messages"]
    # the search judged dev items only; test items come last, once each, all with the chosen hash
    first_test = next(i for i, item in enumerate(judged) if item.startswith("x"))
    assert all(item.startswith("d") for item in judged[:first_test])
    assert sorted(judged[first_test:]) == sorted(TEST)
    assert report.test.calls == len(TEST)
    assert (
        report.test.criterion_hash == result.criterion.content_hash == report.aligned.criterion_hash
    )
    assert report.test.calibration.split == "test"
    assert report.test.calibration.n_labelled == len(TEST)
    # baseline: always pass, so TNR 0 on dev; with t3 as an example every dev item is right
    before, after = report.dev_before.agreement, report.dev_after.agreement
    assert before.tnr_unsure_as_wrong.value == 0.0
    assert after.tpr_unsure_as_wrong.value == after.tnr_unsure_as_wrong.value == 1.0
    assert after.tnr_unsure_as_wrong.lower > before.tnr_unsure_as_wrong.lower  # type: ignore[operator]
    assert report.improved
    assert report.examples == ("t3",)
    assert [e.verdict for e in result.criterion.examples] == ["fail"]
    assert result.criterion.examples[0].reasoning == "States no fact."
    assert report.test.calibration.agreement.tnr_unsure_as_wrong.value == 1.0
    # greedy: round 1 tries all six train items, round 2 the five others (none beats perfect)
    kinds = [s.kind for s in report.steps]
    assert kinds == ["baseline"] + ["few-shot"] * 11
    assert [s.kept for s in report.steps].count(True) == 2
    # every call is counted: 8 baseline + 11 candidates x 8 dev items + 6 test
    assert report.judge_calls == 8 + 11 * 8 + 6 == align_server.count("POST", "/v1/messages")
    assert report.budget.estimated_calls == 8 + (6 + 5 + 4) * 8 + 6


def test_a_rerun_is_free_and_gives_the_same_result(
    tmp_path: Path, align_server: FakeAnthropic
) -> None:
    first = _run(tmp_path, align_server, k=2)
    sent = align_server.count("POST", "/v1/messages")
    again = _run(tmp_path, align_server, k=2)
    assert align_server.count("POST", "/v1/messages") == sent
    assert again.report.judge_calls == 0
    assert again.criterion == first.criterion
    assert again.report.budget.estimated_calls < first.report.budget.estimated_calls


def test_the_examples_change_the_cache_key() -> None:
    """A candidate with other examples never reuses another's verdicts: the hash is in the key."""
    base = parse_criterion(CRITERION)
    one = base.model_copy(update={"examples": (CriterionExample(
        inputs={"answer": "a"}, verdict="pass", reasoning="r"),)})  # fmt: skip
    two = base.model_copy(update={"examples": (CriterionExample(
        inputs={"answer": "b"}, verdict="pass", reasoning="r"),)})  # fmt: skip

    class Backend:
        model = "m"

        def cache_identity(self) -> str:
            return "fake"

    keys = {
        sample_keys(JudgeJob("i", c, {"answer": "x"}), Backend(), 1)[0]  # type: ignore[arg-type]
        for c in (base, one, two)
    }
    assert len(keys) == 3


def test_the_proposer_clarification_raises_dev(tmp_path: Path, align_server: FakeAnthropic) -> None:
    # no train item is useful here: only the proposer's wording can help
    proposer = AnthropicProposer(model=MODEL, base_url=align_server.url)
    result = _run(tmp_path, align_server, {"t1": "pass", "t2": "fail"}, proposer=proposer, rounds=2)
    report = result.report
    assert report.clarification is not None
    assert result.criterion.pass_means.startswith("CLARIFIED")
    assert report.steps[-1].kind == "clarification"
    assert report.steps[-1].kept
    assert report.dev_after.agreement.tnr_unsure_as_wrong.value == 1.0
    # round 2 finds no dev disagreement left, so the proposer is asked once
    assert (
        report.proposer_calls
        == 1
        == align_server.count("POST", "/v1/messages")
        - sum(1 for r in align_server.requests if r.json["tool_choice"]["name"] == "Verdict")
    )
    assert any("no dev disagreement left" in note for note in report.notes)
    proposer_request = next(
        r for r in align_server.requests if r.json["tool_choice"]["name"] == "Clarification"
    )
    assert "item d" in _user(proposer_request)
    assert "item x" not in _user(proposer_request)
    assert "pathjudge_data" in _user(proposer_request)


def test_a_small_budget_shrinks_the_pool(tmp_path: Path, align_server: FakeAnthropic) -> None:
    # baseline 8 + pool 2 (2 + 1 candidates x 8) + test 6 = 38; pool 3 would need 62
    result = _run(tmp_path, align_server, k=2, max_calls=40)
    assert result.report.budget.pool == 2
    assert result.report.budget.shrunk
    assert result.report.judge_calls <= 40
    assert any("shrunk from 6 to 2" in note for note in result.report.notes)


def test_a_budget_too_small_for_one_candidate_is_refused(
    tmp_path: Path, align_server: FakeAnthropic
) -> None:
    with pytest.raises(ConfigError, match=r"at least 22 judge calls .* --max-calls is 21"):
        _run(tmp_path, align_server, k=2, max_calls=21)
    assert align_server.count("POST", "/v1/messages") == 0


def test_plan_budget_counts_the_greedy_worst_case() -> None:
    # 10 dev items x 2 samples = 20 per candidate; pool 4, k 2: 4 + 3 candidates; 1 round; test 5x2
    plan = plan_budget(max_calls=1000, baseline_calls=20, n_dev=10, n_test=5, samples=2,
                       pool_available=4, k=2, rounds=1, chars_per_call=400.0,
                       backend="anthropic", model="claude-haiku-4-5")  # fmt: skip
    assert plan.estimated_calls == 20 + 7 * 20 + 20 + 10
    # 190 calls x 100 tokens in ($1/MTok), x 250 out ($5/MTok)
    assert plan.estimated_usd == pytest.approx((190 * 100 * 1.0 + 190 * 250 * 5.0) / 1e6)


def test_dev_of_one_class_is_refused(tmp_path: Path, align_server: FakeAnthropic) -> None:
    with pytest.raises(LabelsError, match="dev items of criterion 'fact-stated' are all 'pass'"):
        _run(tmp_path, align_server, dev={"d1": "pass", "d2": "pass"})


def test_the_criterion_file_reads_back_to_the_same_hash(
    tmp_path: Path, align_server: FakeAnthropic
) -> None:
    result = _run(tmp_path, align_server, k=1)
    text = criterion_yaml(result.criterion, origin=result.report.original)
    assert parse_criterion(text).content_hash == result.criterion.content_hash
    assert result.criterion.content_hash in text.splitlines()[1]
    assert result.criterion.version == "1+align"
