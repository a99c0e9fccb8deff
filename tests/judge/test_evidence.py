"""Evidence verification: every quote checked against the judged inputs (issue 14, point 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.calibrate import calibrate
from pathjudge.calibration.labels import load_labels
from pathjudge.calibration.verdicts import load_verdicts
from pathjudge.judge.evidence import FUZZY_THRESHOLD, normalise, quote_found, verify_evidence
from pathjudge.judge.runner import JudgeJob
from pathjudge.rubrics.criteria import get_criterion
from tests.fakes.anthropic_server import FakeAnthropic, forced_tool_policy

from .conftest import judge_run

SOURCE = (
    "The Federal Reserve raised interest rates by 0.25 percentage points on Wednesday, citing "
    "\u201cpersistent inflation\u201d. Officials \u2014 led by Chair Powell \u2014 said more "
    "hikes may follow if prices keep rising through the summer."
)


def test_normalisation_rules() -> None:
    assert normalise("  \u201cA\u201d \u2014  B\u2026 ") == '"a" - b...'
    assert normalise("\uff21BC") == "abc"  # NFKC folds the full-width letter


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("raised interest rates by 0.25 percentage points", True),  # verbatim
        ("RAISED   interest\nrates", True),  # case and whitespace
        ('citing "persistent inflation"', True),  # straight vs curly quotes
        ("Officials - led by Chair Powell - said", True),  # hyphen vs em dash
        ("Officials, led by Chair Powell, said", True),  # punctuation differs: same words
        ("The Federal Reserve raised \u2026 more hikes may follow", True),  # elided middle
        ("raised rates by 0.25 percentage points on Wednesday", True),  # one word dropped of 9
        ("The Fed cut rates sharply", False),  # invented
        ("raised interest rates by 0.5 percentage points", False),  # a changed number
        ("The Federal Reserve raised ... rates were cut", False),  # one fragment invented
        ("rate", False),  # not a word of the source ('rates', 'separate' do not count)
        ("...", None),  # nothing to check
    ],
)
def test_quote_rules(quote: str, found: bool | None) -> None:
    assert quote_found(quote, SOURCE) is found


def test_fuzzy_threshold_is_the_documented_one() -> None:
    assert FUZZY_THRESHOLD == 0.85
    words = [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
    ]
    source = " ".join(words)
    # one substituted word in 12: ratio 22/24 = 0.917 >= 0.85 -> found
    assert quote_found(" ".join([*words[:5], "FIVE", *words[6:]]), source) is True
    # one substituted word in 6: ratio 10/12 = 0.833 < 0.85 -> not found
    assert quote_found(" ".join([*words[:2], "X", *words[3:6]]), source) is False


def test_verify_evidence_over_all_inputs() -> None:
    inputs = {"source": SOURCE, "summary": "Rates rose a quarter point."}
    check = verify_evidence(["a quarter point", "citing persistent inflation"], inputs)
    assert (check.verified, check.missing, check.checked) == (True, (), 2)
    check = verify_evidence(["a quarter point", "rates were cut to zero"], inputs)
    assert check.verified is False
    assert check.missing == ("rates were cut to zero",)
    assert verify_evidence([], inputs).verified is None


def _job(item: str, summary: str) -> JudgeJob:
    return JudgeJob(
        item_id=item,
        criterion=get_criterion("summary-faithful"),
        inputs={"source": SOURCE, "summary": summary},
    )


def test_the_judge_marks_verdicts_whose_quotes_are_not_found(
    fake_anthropic: FakeAnthropic, api_key: str
) -> None:
    def decide(request: Any) -> dict[str, Any]:
        body = str(request.body)
        quote = "persistent inflation" if "quarter" in body else "the Fed cut rates to zero"
        return {"reasoning": "checked", "evidence": [quote], "verdict": "pass"}

    fake_anthropic.policy = forced_tool_policy(decide)
    run = judge_run(
        fake_anthropic,
        [_job("good", "Rates rose a quarter point."), _job("bad", "Rates rose.")],
        concurrency=2,
    )
    good, bad = run.results["good"], run.results["bad"]
    assert getattr(good, "evidence_verified", None) is True
    assert getattr(bad, "evidence_verified", None) is False
    assert getattr(bad, "unverified_evidence", ()) == ("the Fed cut rates to zero",)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_calibration_reports_and_can_count_unverified_as_unsure(tmp_path: Path) -> None:
    labels = _write(
        tmp_path / "l.jsonl",
        [
            {"item_id": f"i{i}", "label": "pass" if i < 6 else "fail", "inputs": {"src": SOURCE}}
            for i in range(12)
        ],
    )
    rows = []
    for i in range(12):
        verdict = "pass" if i < 6 else "fail"
        quote = "citing persistent inflation" if i % 4 else "a sentence that is not there at all"
        if i == 11:
            verdict = "pass"  # a wrong verdict, with an invented quote (11 % 4 != 0 -> real quote)
            quote = "an invented quote about rates"
        rows.append({"item_id": f"i{i}", "verdict": verdict, "evidence": [quote]})
    verdicts = _write(tmp_path / "v.jsonl", rows)
    report = calibrate(load_labels(labels), load_verdicts(verdicts), n_bootstrap=30)
    ev = report.criteria[0].evidence
    assert ev is not None
    # items 0, 4, 8 (i % 4 == 0) and 11 cite quotes that are not in the source
    assert ev.n_checked == 12
    assert ev.unverified_items == ("i0", "i4", "i8", "i11")
    assert ev.accuracy_unverified.value == pytest.approx(3 / 4)
    assert ev.accuracy_verified.value == 1.0
    strict = calibrate(
        load_labels(labels), load_verdicts(verdicts), n_bootstrap=30, unverified_as_unsure=True
    )
    a = strict.criteria[0].agreement
    assert a.n_unsure == 4
    assert strict.criteria[0].evidence is not None
    assert strict.criteria[0].evidence.treated_as_unsure
