"""Every report format lists the checks that broke (status ``error``), with their hostile reasons
rendered safely; their runs are undecided, never failures (JUnit counts no failure and no error)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

from rich.console import Console

from pathjudge.agent.trajectory import RunRecord, Step
from pathjudge.report._adapt import report_view
from pathjudge.report.html import render_html
from pathjudge.report.json_report import ScoreReport, dumps_report
from pathjudge.report.junit import junit_xml
from pathjudge.report.markdown import render_markdown
from pathjudge.report.terminal import print_scorecard
from pathjudge.rubrics.suite import parse_suite_text
from pathjudge.scoring.grade import grade
from pathjudge.scoring.scorecard import build_scorecard

HOSTILE = "<script>alert(1)</script> ![x](http://evil.example/a.png) \x1b[31m| pipe"


def breaks_loudly(run: RunRecord) -> bool:
    raise ValueError(HOSTILE)


SUITE = """\
name: broken
tasks:
  - id: breaks
    success: {kind: callable, function: "tests.report.test_broken_checks_listed:breaks_loudly"}
  - id: fine
    success: {kind: contains_all, values: ["ok"]}
"""


def _report() -> ScoreReport:
    suite = parse_suite_text(SUITE, allow_callables=True)
    runs = [
        RunRecord(run_id=f"r-{t}", task_id=t, steps=(Step(tool="s", turn=0),), final_answer="ok")
        for t in ("breaks", "fine")
    ]
    card = build_scorecard(grade(runs, suite, fast=True), suite)
    assert card.check_errors == 1
    return ScoreReport(fast=True, judge="fast", scorecard=card, passed=True)


def test_markdown_lists_the_checks_that_broke_with_the_reason_neutralised() -> None:
    text = render_markdown(report_view(_report()))
    assert "**Checks that broke** (1)" in text
    row = next(line for line in text.splitlines() if line.startswith("| outcome.callable"))
    assert "r-breaks" in row
    assert "ValueError" in row
    assert "](http" not in row  # the link/image is neutralised
    assert "\x1b" not in row
    assert row.count(" | ") == 3  # the pipe in the reason does not add a column


def test_html_lists_the_checks_that_broke_escaped() -> None:
    page = render_html(report_view(_report()))
    assert '<section id="broken-checks">' in page
    assert 'href="#broken-checks"' in page
    section = page.split('<section id="broken-checks">', 1)[1].split("</section>", 1)[0]
    assert "outcome.callable" in section
    assert "r-breaks" in section
    assert "<script>" not in section
    assert "&lt;script&gt;" in section


def test_junit_lists_the_checks_that_broke_and_counts_no_failure() -> None:
    report = _report()
    document = junit_xml(report.scorecard, ["breaks", "fine"])
    root = ET.fromstring(document)  # well-formed despite the control character
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "0"
    assert suite.get("errors") == "0"
    err = suite.find("system-err")
    assert err is not None
    assert err.text is not None
    assert "outcome.callable x1 (first on run r-breaks)" in err.text
    skipped = suite.find("testcase[@name='breaks']/skipped")
    assert skipped is not None
    assert "a check broke" in (skipped.get("message") or "")


def test_json_and_terminal_list_the_checks_that_broke() -> None:
    report = _report()
    data = json.loads(dumps_report(report))
    (broken,) = data["scorecard"]["broken_checks"]
    assert broken["check"] == "outcome.callable"
    assert broken["example_run"] == "r-breaks"
    out = io.StringIO()
    print_scorecard(Console(file=out, width=300), report.scorecard, [])
    text = out.getvalue()
    assert "checks that broke" in text
    assert "outcome.callable x1 (first on run r-breaks)" in text
    assert "\x1b" not in text


def test_no_section_when_nothing_broke() -> None:
    view = report_view(_report())
    from dataclasses import replace

    clean = replace(view, broken_checks=(), check_errors=0)
    assert "Checks that broke**" not in render_markdown(clean)
    assert 'id="broken-checks"' not in render_html(clean)
