"""Readable verdicts: a verdicts JSONL file as a terminal table, an HTML page or Markdown.

:func:`verdict_rows` turns the records of a verdicts file in either shape (pathjudge's own judge
records, or the generic one-judgement-a-line shape; the faces read the file with
:func:`pathjudge.judge.verdicts_file.read_verdicts_file`) into one :class:`VerdictRow` a line, and
:func:`verdicts_summary` names the judge(s) behind them: backend, model, criterion id and content
hash, and samples per item. The renderers show, per item, the
verdict, the reasoning, every evidence quote (marked when it was not found in the judged inputs,
see :mod:`pathjudge.judge.evidence`) and the judge.

Verdict text is data written by a model: the HTML escapes it, the Markdown neutralises links,
images and raw HTML, and the terminal shows control characters as visible escapes.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathjudge.judge.verdict import JudgeFailure, VerdictRecord
from pathjudge.judge.verdicts_file import VerdictLine

__all__ = [
    "JudgeIdentity",
    "VerdictRow",
    "VerdictsSummary",
    "excerpt",
    "judge_line",
    "quote_mark",
    "render_verdicts_html",
    "render_verdicts_markdown",
    "verdict_rows",
    "verdicts_summary",
    "visible",
]


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    """Who judged: backend, model, criterion id and content hash (None where the file does not say)."""

    backend: str | None
    model: str | None
    criterion: str | None
    criterion_hash: str | None

    @classmethod
    def of(cls, record: VerdictRecord | JudgeFailure) -> JudgeIdentity:
        """The judge a pathjudge verdict or failure record names."""
        return cls(record.backend, record.model, record.criterion_id, record.criterion_hash)

    def describe(self) -> str:
        who = ":".join(part for part in (self.backend, self.model) if part) or "unnamed grader"
        crit = self.criterion or "(unnamed criterion)"
        digest = (
            f" {self.criterion_hash.removeprefix('sha256:')[:12]}" if self.criterion_hash else ""
        )
        return f"{who} · {crit}{digest}"


@dataclass(frozen=True, slots=True)
class VerdictRow:
    """One line of a verdicts file: one item (judge records) or one sample (generic lines)."""

    line: int
    item_id: str
    verdict: str
    reasoning: str
    evidence: tuple[str, ...]
    evidence_verified: bool | None
    unverified_evidence: tuple[str, ...]
    judge: JudgeIdentity
    samples: int
    sample: int | None
    votes: dict[str, int] | None
    error_type: str | None = None


@dataclass(frozen=True, slots=True)
class VerdictsSummary:
    """Counts per verdict, the judges behind the file, and the evidence check tally."""

    file: str
    rows: int
    items: int
    verdicts: dict[str, int]
    judges: tuple[tuple[JudgeIdentity, int], ...]
    samples: tuple[int, int]
    evidence_checked: int
    evidence_unverified: int


def verdict_rows(records: Iterable[tuple[int, VerdictLine]]) -> list[VerdictRow]:
    """Every ``(line, record)`` of a verdicts file as a :class:`VerdictRow` (empty input: no rows).

    The faces read the file with :func:`pathjudge.judge.verdicts_file.read_verdicts_file` (errors:
    :class:`~pathjudge.errors.LabelsError` naming file and line) and hand its records here; a
    renderer reads no file.
    """
    rows: list[VerdictRow] = []
    for line, rec in records:
        if isinstance(rec, VerdictRecord):
            rows.append(
                VerdictRow(
                    line=line,
                    item_id=rec.item_id,
                    verdict=rec.verdict,
                    reasoning=rec.reasoning,
                    evidence=rec.evidence,
                    evidence_verified=rec.evidence_verified,
                    unverified_evidence=rec.unverified_evidence,
                    judge=JudgeIdentity.of(rec),
                    samples=rec.samples + rec.failed_samples,
                    sample=None,
                    votes=dict(rec.votes),
                )
            )
        elif isinstance(rec, JudgeFailure):
            rows.append(
                VerdictRow(
                    line=line,
                    item_id=rec.item_id,
                    verdict="error",
                    reasoning=f"{rec.reasoning}: {rec.message}",
                    evidence=(),
                    evidence_verified=None,
                    unverified_evidence=(),
                    judge=JudgeIdentity.of(rec),
                    samples=1,
                    sample=rec.sample_index,
                    votes=None,
                    error_type=rec.error_type,
                )
            )
        else:
            rows.append(
                VerdictRow(
                    line=line,
                    item_id=rec.item_id,
                    verdict=rec.verdict,
                    reasoning=rec.reasoning or "",
                    evidence=rec.evidence,
                    evidence_verified=rec.evidence_verified,
                    unverified_evidence=(),
                    judge=JudgeIdentity(None, rec.model, rec.criterion, None),
                    samples=1,
                    sample=rec.sample,
                    votes=None,
                )
            )
    return rows


def verdicts_summary(rows: Sequence[VerdictRow], *, file: str | Path) -> VerdictsSummary:
    """Tally ``rows`` (empty input: all zero)."""
    judges = Counter(row.judge for row in rows)
    sizes = [row.samples for row in rows] or [0]
    per_item: Counter[str] = Counter()
    for row in rows:
        per_item[row.item_id] += 1
    return VerdictsSummary(
        file=str(file),
        rows=len(rows),
        items=len(per_item),
        verdicts=dict(Counter(row.verdict for row in rows)),
        judges=tuple(judges.most_common()),
        samples=(min(sizes), max(sizes))
        if all(r.sample is None for r in rows)
        else (
            min(per_item.values(), default=0),
            max(per_item.values(), default=0),
        ),
        evidence_checked=sum(1 for row in rows if row.evidence_verified is not None),
        evidence_unverified=sum(1 for row in rows if row.evidence_verified is False),
    )


# --------------------------------------------------------------------------------------------------
# Rendering


def visible(text: str) -> str:
    """``text`` with control and format characters (ESC, BEL, bidi overrides...) as visible escapes."""
    out: list[str] = []
    for ch in text:
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def excerpt(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)] + "…"


def judge_line(summary: VerdictsSummary) -> str:
    """The judges behind the file in one line, with samples per item."""
    if len(summary.judges) == 1:  # every line: no count to give
        names = summary.judges[0][0].describe()
    else:
        names = "; ".join(
            f"{judge.describe()} ({count} line{'s' if count != 1 else ''})"
            for judge, count in summary.judges
        )
    low, high = summary.samples
    samples = f"{low}" if low == high else f"{low}-{high}"
    return f"judge: {names or 'none'} · samples per item {samples}"


def quote_mark(row: VerdictRow, quote: str) -> str:
    """``"✓ "`` for a quote found in the judged inputs, ``"✗ "`` for one not found, else empty."""
    if row.evidence_verified is None:
        return ""
    if row.evidence_verified is False and (
        not row.unverified_evidence or quote in row.unverified_evidence
    ):
        return "✗ "
    return "✓ "


def render_verdicts_html(
    rows: Sequence[VerdictRow],
    summary: VerdictsSummary,
    inputs: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The verdicts page, in the look and under the Content-Security-Policy of the other reports
    (:func:`pathjudge.report.html.render_page`): counts, the judge(s), then one row per line with
    the verdict, reasoning, evidence and, collapsed, the judged inputs (``inputs``: item id → input
    name → text, from the items file; None: not available). Every data string is escaped."""
    from pathjudge.report.html import render_page, table

    cards = "".join(
        f'<div class="card"><div class="label">{_e(name)}</div><div class="value">{count}</div></div>'
        for name, count in [("items", summary.items), *sorted(summary.verdicts.items())]
    )
    low, high = summary.samples
    evidence = (
        f"{summary.evidence_unverified} of {summary.evidence_checked} checked verdicts cite a quote "
        "that is not in the judged inputs (✗)."
        if summary.evidence_checked
        else "No verdict's quotes were checked against the judged inputs."
    )
    judges = "".join(
        f"<tr><td>{_e(j.backend or '—')}</td><td>{_e(j.model or '—')}</td>"
        f"<td>{_e(j.criterion or '(unnamed)')}</td><td><code>{_e(j.criterion_hash or '—')}</code></td>"
        f'<td class="num">{count}</td></tr>'
        for j, count in summary.judges
    )
    one_judge = len(summary.judges) == 1
    body_rows: list[str] = []
    for row in rows:
        quotes = "".join(
            f'<div class="verdict">{_badge_for(row, q)}<pre class="text">{_e(q)}</pre></div>'
            for q in row.evidence
        )
        votes = ", ".join(f"{_e(k)} {v}" for k, v in (row.votes or {}).items() if v)
        detail = [f"line {row.line}"]
        if row.sample is not None:
            detail.append(f"sample {row.sample}")
        if votes and sum((row.votes or {}).values()) > 1:
            detail.append(f"votes {votes}")
        if not one_judge:
            detail.append(_e(row.judge.describe()))
        judged = _judged_inputs(row.item_id, inputs)
        body_rows.append(
            f'<tr data-search="{_e(row.item_id)} {_e(row.verdict)}">'
            f'<td>{_e(row.item_id)}<div class="muted">{" · ".join(detail)}</div></td>'
            f'<td><span class="badge {_e(_css(row.verdict))}">{_e(row.verdict)}</span></td>'
            f'<td class="reason"><pre class="text">{_e(row.reasoning)}</pre>{judged}</td>'
            f"<td>{quotes or '<span class=empty>none cited</span>'}</td>"
            "</tr>"
        )
    no_inputs = (
        '<p class="note">The judged inputs are not in a verdicts file: pass the items file '
        "(<code>--items ITEMS.jsonl</code>) to show them.</p>"
        if inputs is None
        else ""
    )
    sections = [
        (
            "summary",
            "Summary",
            f'<section id="summary"><h2>Summary</h2><div class="cards">{cards}</div>'
            f'<p class="note">{summary.rows} lines; samples per item '
            f"{low if low == high else f'{low}-{high}'}. Evidence: {_e(evidence)}</p></section>",
        ),
        (
            "judge",
            "Judge",
            '<section id="judge"><h2>Judge</h2>'
            + table(
                "<th>backend</th><th>model</th><th>criterion</th><th>content hash</th>"
                '<th class="num">lines</th>',
                judges or "<tr><td colspan=5 class=empty>not recorded</td></tr>",
            )
            + "</section>",
        ),
        (
            "verdicts",
            "Verdicts",
            '<section id="verdicts"><h2>Verdicts</h2>'
            f"{no_inputs}"
            '<div class="toolbar"><input type="search" id="verdicts-filter" '
            'data-filter="verdict-table" placeholder="filter by item or verdict">'
            '<span class="count" id="verdict-table-count"></span></div>'
            + table(
                "<th>item</th><th>verdict</th><th>reasoning and judged inputs</th><th>evidence</th>",
                "".join(body_rows),
                ' id="verdict-table" data-sortable="1"',
            )
            + "</section>",
        ),
    ]
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.verdicts.items()))
    return render_page(
        f"Verdicts — {summary.file}", f"{summary.items} items: {counts or 'none'}", sections
    )


def _e(text: object) -> str:
    """Data for the page: control characters shown as escapes (:func:`visible`), then HTML-escaped."""
    return html.escape(visible(str(text)))


def _css(name: str) -> str:
    return "".join(ch for ch in name if ch.isalnum() or ch == "_")


def _badge_for(row: VerdictRow, quote: str) -> str:
    mark = quote_mark(row, quote)
    if not mark:
        return ""
    found = mark.startswith("✓")
    label = "found in the judged inputs" if found else "NOT in the judged inputs"
    return f'<span class="badge {"pass" if found else "fail"}">{html.escape(mark.strip())} {label}</span>'


def _judged_inputs(item_id: str, inputs: Mapping[str, Mapping[str, str]] | None) -> str:
    """The item's judged inputs, collapsed under a summary line (escaped)."""
    if inputs is None:
        return ""
    named = inputs.get(item_id)
    if named is None:
        return '<div class="empty">judged inputs: this item is not in the items file</div>'
    fields = "".join(
        f'<div class="k">{_e(name)}</div><div class="v"><pre class="text">{_e(text)}</pre></div>'
        for name, text in named.items()
    )
    return (
        f'<details class="run"><summary>judged inputs ({len(named)}: '
        f"{_e(', '.join(named))})</summary>"
        f'<div class="body"><div class="kv">{fields}</div></div></details>'
    )


_MD_SPECIAL = re.compile(r"([\[\]()!*_#~])")


def md_text(text: object) -> str:
    """Text safe in a Markdown table cell: no raw HTML, no link or image, no cell break."""
    from pathjudge.report.markdown import md_cell

    return _MD_SPECIAL.sub(r"\\\1", md_cell(text))


def render_verdicts_markdown(
    rows: Sequence[VerdictRow], summary: VerdictsSummary, *, reasoning_chars: int = 300
) -> str:
    """A Markdown summary: the judge(s), the counts, and one table row per line."""
    lines = [
        f"## Verdicts: {md_text(summary.file)}",
        "",
        f"{summary.rows} lines, {summary.items} items: "
        + (", ".join(f"{md_text(k)} {v}" for k, v in sorted(summary.verdicts.items())) or "none"),
        "",
        md_text(judge_line(summary)),
        "",
    ]
    if summary.evidence_checked:
        lines += [
            f"Evidence: {summary.evidence_unverified} of {summary.evidence_checked} checked "
            "verdicts cite a quote not found in the judged inputs (✗).",
            "",
        ]
    lines += ["| item | verdict | reasoning | evidence | judge |", "|---|---|---|---|---|"]
    for row in rows:
        quotes = "<br>".join(md_text(quote_mark(row, q) + "“" + q + "”") for q in row.evidence)
        lines.append(
            f"| {md_text(row.item_id)} | {md_text(row.verdict)} | "
            f"{md_text(excerpt(row.reasoning, reasoning_chars))} | {quotes or '—'} | "
            f"{md_text(row.judge.describe())} |"
        )
    return "\n".join(lines) + "\n"
