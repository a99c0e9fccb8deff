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
from collections.abc import Iterable, Sequence
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
                    judge=JudgeIdentity(
                        rec.backend, rec.model, rec.criterion_id, rec.criterion_hash
                    ),
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
                    judge=JudgeIdentity(
                        rec.backend, rec.model, rec.criterion_id, rec.criterion_hash
                    ),
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


_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1b1b1b;max-width:75rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.4rem;
vertical-align:top;text-align:left}th{background:#f4f4f4}.pass{color:#1a7f37;font-weight:600}
.fail{color:#cf222e;font-weight:600}.unsure,.error{color:#9a6700;font-weight:600}
blockquote{margin:.2rem 0;padding:.1rem .5rem;border-left:3px solid #8c959f;font-size:.9em}
blockquote.bad{border-color:#cf222e;background:#ffebe9}.muted{color:#57606a;font-size:.85em}
pre{white-space:pre-wrap;margin:0;font-family:inherit}
"""


def render_verdicts_html(rows: Sequence[VerdictRow], summary: VerdictsSummary) -> str:
    """A self-contained HTML page (no script, no external resource); every data string escaped."""
    e = html.escape
    counts = ", ".join(f"{e(k)} {v}" for k, v in sorted(summary.verdicts.items()))
    judges = "".join(
        f"<li>{e(j.backend or '—')} · model {e(j.model or '—')} · criterion "
        f"{e(j.criterion or '(unnamed)')} · hash <code>{e(j.criterion_hash or '—')}</code> "
        f"({count} lines)</li>"
        for j, count in summary.judges
    )
    low, high = summary.samples
    body_rows: list[str] = []
    for row in rows:
        quotes = "".join(
            f'<blockquote class="{"bad" if quote_mark(row, q) == "✗ " else ""}">'
            f"{e(quote_mark(row, q))}{e(q)}</blockquote>"
            for q in row.evidence
        )
        votes = (
            " · votes " + ", ".join(f"{e(k)} {v}" for k, v in row.votes.items() if v)
            if row.votes
            else ""
        )
        sample = f" · sample {row.sample}" if row.sample is not None else ""
        body_rows.append(
            "<tr>"
            f"<td>{e(row.item_id)}<div class=muted>line {row.line}</div></td>"
            f'<td class="{e(row.verdict)}">{e(row.verdict)}</td>'
            f"<td><pre>{e(row.reasoning)}</pre></td>"
            f"<td>{quotes or '<span class=muted>none cited</span>'}</td>"
            f"<td class=muted>{e(row.judge.describe())}{sample}{votes}</td>"
            "</tr>"
        )
    unverified = (
        f"<p>Evidence: {summary.evidence_unverified} of {summary.evidence_checked} checked verdicts "
        "cite a quote that is not in the judged inputs (✗).</p>"
        if summary.evidence_checked
        else "<p>Evidence: no verdict's quotes were checked against the judged inputs.</p>"
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>Verdicts — {e(summary.file)}</title><style>{_CSS}</style></head><body>"
        f"<h1>Verdicts <span class=muted>{e(summary.file)}</span></h1>"
        f"<p>{summary.rows} lines, {summary.items} items: {counts or 'none'}; samples per item "
        f"{low if low == high else f'{low}-{high}'}.</p>"
        f"<h2>Judge</h2><ul>{judges or '<li>not recorded</li>'}</ul>{unverified}"
        "<table><thead><tr><th>item</th><th>verdict</th><th>reasoning</th><th>evidence</th>"
        f"<th>judge</th></tr></thead><tbody>{''.join(body_rows)}</tbody></table>"
        "</body></html>\n"
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
