"""JUnit XML from a scorecard: one ``<testcase>`` per task, for CI systems that read JUnit.

A task's case follows its runs' one verdict (``passed``: every counted gating check and the success,
see :class:`~pathjudge.rubrics.suite.PassedSpec`): it fails when any run did not pass (``<failure>``
carries the first failing run's reason, what blocked it and the alignment diff), is skipped when no
run has a verdict (every run undecided and excluded, or no runs), and passes otherwise. With
``strict=True`` a run that succeeded by a poor path or repeated a call fails its task too; otherwise
such runs are listed in the case's ``<system-out>``. The checks that broke (status ``error``) are listed
in the testsuite's ``<system-err>``, never counted as failures or errors. The document follows the common
JUnit schema (``testsuites/testsuite/testcase/failure/skipped`` with ``name, tests, failures, errors,
time``, and ``skipped`` on the testsuite) and contains no timestamp, so the same scorecard gives the same bytes.
Characters XML 1.0 cannot hold (control characters in an id, an answer or a reason), C1 controls and
bidi marks are written as visible escapes (``\\x1b``, ``\\u202e``), so the document stays well-formed
and reads in order whatever the data holds.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pathjudge._io import write_text_atomic
from pathjudge.report.text import xml_text
from pathjudge.scoring.scorecard import Scorecard, TaskRow, WeakPath

if TYPE_CHECKING:
    from pathjudge.judge.identity import Certification

__all__ = ["failure_details", "junit_xml", "task_verdict", "write_junit"]


def task_verdict(row: TaskRow | None, *, strict: bool = False) -> str:
    """``failed``, ``skipped`` or ``passed`` for one task (see the module docstring)."""
    if row is None or row.verdict_passed + row.verdict_failed == 0:
        return "skipped"
    if row.verdict_failed:
        return "failed"
    if strict and row.weak:
        return "failed"
    return "passed"


def failure_details(row: TaskRow, weak: list[WeakPath], *, strict: bool = False) -> tuple[str, str]:
    """The head and the details of a failed task, as its JUnit ``<failure>`` and its pytest item show them.

    The head counts the runs whose one verdict is failed (``2 of 3 runs did not pass``), or under
    ``strict`` with none failed, the runs on a weak path. The details name the first failing run: its
    reason, what blocked it (``did not pass: tools.required``) and the alignment diff, then the reasons
    of up to four more failing runs.
    """
    failing = [w for w in weak if w.passed is False] or (weak if strict else [])
    head = (
        f"{row.verdict_failed} of {row.runs} runs did not pass"
        if row.verdict_failed
        else f"{row.weak} of {row.runs} runs took a weak path"
    )
    if not failing:
        return head, head + " (details beyond the listed weak paths)"
    first = failing[0]
    body = [f"run {first.run_id} (epoch {first.epoch}): {first.reason}"]
    if first.blockers:
        body.append("did not pass: " + ", ".join(first.blockers))
    if first.diff:
        body.append("alignment diff:")
        body.extend(first.diff)
    for other in failing[1:5]:
        body.append(f"run {other.run_id}: {other.reason}")
    return head, "\n".join(body)


def _message(row: TaskRow, weak: list[WeakPath], strict: bool) -> tuple[str, str]:
    head, body = failure_details(row, weak, strict=strict)
    failing = [w for w in weak if w.passed is False] or (weak if strict else [])
    if not failing:
        return head, body
    return f"{head}: {failing[0].reason}"[:500], body


def junit_xml(
    scorecard: Scorecard,
    task_ids: list[str],
    *,
    strict: bool = False,
    certifications: Sequence[Certification] = (),
) -> str:
    """The JUnit XML document (text) for the scorecard's tasks, in ``task_ids`` order.

    Each judged criterion's pass rate is a testsuite ``<property>`` named ``judged:<criterion>``,
    valued with the rate and its certification (certified or uncertified: ``certifications``, by
    criterion); a scorecard without judged criteria has no properties."""
    rows = {row.task_id: row for row in scorecard.task_rows}
    by_task: dict[str, list[WeakPath]] = {}
    for entry in scorecard.weak:
        by_task.setdefault(entry.task_id, []).append(entry)
    suite_name = xml_text(scorecard.suite)
    suites = ET.Element("testsuites", name=f"pathjudge {suite_name}")
    suite = ET.SubElement(suites, "testsuite", name=suite_name)
    _judged_properties(suite, scorecard, certifications)
    failures = skipped = 0
    broken = scorecard.broken_checks
    for task_id in task_ids:
        row = rows.get(task_id)
        weak = by_task.get(task_id, [])
        verdict = task_verdict(row, strict=strict)
        case = ET.SubElement(
            suite, "testcase", name=xml_text(task_id), classname=f"pathjudge.{suite_name}", time="0"
        )
        if verdict == "skipped":
            skipped += 1
            reason = (
                "no runs for this task"
                if row is None
                else "no run could be decided (e.g. judged criteria not run"
                + (", or a check broke: see the suite's system-err" if broken else "")
                + "); undecided runs are excluded by the task's passed.undecided"
            )
            ET.SubElement(case, "skipped", message=reason)
            continue
        assert row is not None
        if verdict == "failed":
            failures += 1
            message, text = _message(row, weak, strict)
            failure = ET.SubElement(
                case, "failure", message=xml_text(message), type="pathjudge.TaskFailed"
            )
            failure.text = xml_text(text)
        elif weak:
            out = ET.SubElement(case, "system-out")
            out.text = xml_text("\n".join(f"weak path: run {w.run_id}: {w.reason}" for w in weak))
    if broken:
        # the checks that broke: listed, never counted as failures or errors (their runs are undecided)
        err = ET.SubElement(suite, "system-err")
        err.text = xml_text(
            "\n".join(
                [
                    f"checks that broke ({scorecard.check_errors}, status error; their runs are "
                    "undecided, not failed):",
                    *(
                        f"{b.check} x{b.count} (first on run {b.example_run}): {b.reason}"
                        for b in broken
                    ),
                ]
            )
        )
    for element in (suites, suite):
        element.set("tests", str(len(task_ids)))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("time", "0")
    suite.set("skipped", str(skipped))  # the common schema has 'skipped' on testsuite only
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def _judged_properties(
    suite: ET.Element, scorecard: Scorecard, certifications: Sequence[Certification]
) -> None:
    if not scorecard.judged:
        return
    labels = {c.criterion: c.label for c in certifications}
    properties = ET.SubElement(suite, "properties")
    for j in scorecard.judged:
        rate = "undefined" if j.pass_rate is None else f"{j.pass_rate:.3f}"
        label = labels.get(j.criterion, "uncertified (no certificate)")
        ET.SubElement(
            properties,
            "property",
            name=xml_text(f"judged:{j.criterion}"),
            value=xml_text(f"pass rate {rate}; {label}"),
        )


def write_junit(
    path: str | Path,
    scorecard: Scorecard,
    task_ids: list[str],
    *,
    strict: bool = False,
    certifications: Sequence[Certification] = (),
) -> None:
    """Write :func:`junit_xml` to ``path``."""

    write_text_atomic(
        Path(path),
        junit_xml(scorecard, task_ids, strict=strict, certifications=certifications),
    )
