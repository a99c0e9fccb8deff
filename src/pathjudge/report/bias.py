"""The bias battery (:class:`~pathjudge.calibration.bias.BiasReport`) for the terminal and as HTML.

Every value from the labels or the judge (item ids, model names, file names, reasons) is data: the
terminal table escapes control characters (:func:`~pathjudge.report.text.print_table`), the HTML
page escapes every value with :func:`html.escape`.
"""

from __future__ import annotations

import html

from rich.console import Console
from rich.text import Text

from pathjudge.calibration.bias import BiasReport, ProbeResult
from pathjudge.calibration.estimate import Estimate
from pathjudge.report.text import Column, Prose, number_columns, print_table, styled

__all__ = ["bias_html", "print_bias"]

_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow"}


def _rate(estimate: Estimate | None, signed: bool = False) -> str:
    if estimate is None or estimate.value is None:
        return "-"
    spec = "+.3f" if signed else ".3f"
    if estimate.lower is None or estimate.upper is None:
        return format(estimate.value, spec)
    return f"{estimate.value:{spec}} [{estimate.lower:{spec}}, {estimate.upper:{spec}}]"


def _status(probe: ProbeResult) -> str:
    return probe.status if probe.must_pass else f"{probe.status} (advisory)"


def _cells(probe: ProbeResult) -> tuple[str, str, str, str, str, str]:
    return (
        probe.probe,
        "must pass" if probe.must_pass else "advisory",
        str(probe.n_items) + (f" (-{probe.n_excluded})" if probe.n_excluded else ""),
        _rate(probe.placebo_rate),
        _rate(probe.probe_rate),
        _rate(probe.beyond_placebo, signed=True),
    )


def _verdict_line(report: BiasReport) -> Text:
    text = styled(f"bias battery (tolerance {report.tolerance:g} beyond placebo): ")
    text.append("passed" if report.passed else "FAILED", "green" if report.passed else "bold red")
    return text


def print_bias(console: Console, report: BiasReport) -> None:
    """The battery as a table (rates with their intervals), each probe's reason, and the verdict."""
    console.print(
        Prose(
            f"Judge {report.backend}:{report.model} (family {report.judge_family}) on "
            f"{report.criterion}, probes change input {report.field!r}; "
            f"{report.confidence:.0%} intervals"
        )
    )
    print_table(
        console,
        None,
        [
            Column("probe", "id"),
            Column("kind"),
            *number_columns("items", "placebo flips", "probe flips", "beyond placebo"),
            Column("status"),
        ],
        [(*_cells(p), Text(_status(p), style=_STYLE.get(p.status, ""))) for p in report.probes],
    )
    for probe in report.probes:
        console.print(Prose(f"{probe.probe}: {probe.reason}", indent=2, hanging=True))
    for note in report.notes:
        console.print(Prose(note))
    console.print(_verdict_line(report))


def bias_html(report: BiasReport) -> str:
    """A self-contained HTML page of the battery (every value escaped)."""
    e = html.escape
    rows = "\n".join(
        "<tr>"
        + "".join(f"<td>{e(cell)}</td>" for cell in (*_cells(p), _status(p), p.reason))
        + "</tr>"
        for p in report.probes
    )
    head = "".join(
        f"<th>{e(h)}</th>"
        for h in (
            "probe",
            "kind",
            "items",
            "placebo flips",
            "probe flips",
            "beyond placebo",
            "status",
            "reason",
        )
    )
    verdict = "passed" if report.passed else "FAILED"
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>pathjudge bias: {e(report.criterion)}</title></head><body>\n"
        f"<h1>Bias battery: {e(verdict)}</h1>\n"
        f"<p>Judge {e(report.backend)}:{e(report.model)} (family {e(report.judge_family)}) on "
        f"criterion {e(report.criterion)}; probes change input {e(report.field)}; tolerance "
        f"{report.tolerance:g} beyond placebo; {report.confidence:.0%} Newcombe intervals.</p>\n"
        f"<table>\n<tr>{head}</tr>\n{rows}\n</table>\n</body></html>\n"
    )
