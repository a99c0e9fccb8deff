"""The JUnit XML of `pathjudge score --junit` validates against the schema Jenkins uses.

The schema is Jenkins' xUnit-plugin ``junit-10.xsd`` (MIT, shipped beside this test with its licence and
source). Validation runs offline with xmlschema.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.report.support import Scored

XSD = Path(__file__).with_name("jenkins-junit-10.xsd")


@pytest.fixture(scope="module")
def schema() -> object:
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is in the dev extra")
    return xmlschema.XMLSchema(str(XSD))


def test_real_junit_output_validates_against_the_jenkins_schema(
    schema: object, hostile_scored: Scored
) -> None:
    schema.validate(str(hostile_scored.junit))  # type: ignore[attr-defined]
    root = ET.parse(hostile_scored.junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 15, "one case per task of the Docent suite"
    failed = [case for case in cases if case.find("failure") is not None]
    assert [case.get("name") for case in failed] == ["pro-rpm", "free-storage"]
    message = failed[0].find("failure")
    assert message is not None
    assert 'missing: "600"' in (message.text or ""), (
        "the failure carries the reason that reproduces it"
    )
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "15"
    assert suite.get("failures") == "2"


def test_the_schema_check_rejects_what_ci_systems_reject(
    schema: object, hostile_scored: Scored
) -> None:
    root = ET.parse(hostile_scored.junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    del suite.attrib["failures"]  # a required attribute of <testsuite>
    assert not schema.is_valid(ET.tostring(root, encoding="unicode"))  # type: ignore[attr-defined]
    case = ET.fromstring(
        '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><bogus/></testsuite></testsuites>'
    )
    assert not schema.is_valid(ET.tostring(case, encoding="unicode"))  # type: ignore[attr-defined]


def test_bidi_marks_and_controls_in_runs_stay_visible_and_the_document_well_formed() -> None:
    from pathjudge.agent.trajectory import RunRecord, Step
    from pathjudge.report.junit import junit_xml
    from pathjudge.rubrics.suite import parse_suite_text
    from pathjudge.scoring.grade import grade
    from pathjudge.scoring.scorecard import build_scorecard

    hidden = "\u202e\u2066\u200f\x00\x1b\x0c\x9b\x7f\ufffe"
    suite = parse_suite_text(
        "name: s\ntasks:\n  - id: t\n    success: {kind: contains_all, values: ['30 days']}\n"
    )
    runs = [
        RunRecord(
            run_id=f"run-{hidden}",
            task_id="t",
            steps=(Step(tool="search", turn=0),),
            final_answer=f"refund {hidden} never",
        )
    ]
    card = build_scorecard(grade(runs, suite, fast=True), suite)
    document = junit_xml(card, ["t"])
    assert not set(document) & set(hidden)
    root = ET.fromstring(document)  # well-formed
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None
    assert "run-\\u202e\\u2066\\u200f\\x00\\x1b\\x0c\\x9b\\x7f\\ufffe" in (failure.text or "")
