"""The CI job summary: the scorecard renders as a real Markdown table, hostile text stays inert."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from markdown_it import MarkdownIt

from pathjudge.report._view import ReportView
from pathjudge.report.markdown import md_cell, render_markdown, write_markdown
from tests.report.support import XSS_IMG, make_view


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every table as rows of cell texts, parsed by markdown-it (GFM tables enabled)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close" and row is not None:
            tables[-1].append(row)
            row = None
    return tables


def test_scorecard_renders_as_a_table_with_header_separator_and_rows(view: ReportView) -> None:
    text = render_markdown(view)
    lines = text.splitlines()
    header = lines.index("| metric | value | detail |")
    assert re.fullmatch(r"\| --- \| ---: \| --- \|", lines[header + 1])
    scorecard, axes, weak = _tables(text)
    assert scorecard == [
        ["metric", "value", "detail"],
        ["Task success", "1.00", "8 of 8 runs"],
        ["Tool-call correctness", "1.00", "mean over runs"],
        ["Trajectory quality", "0.75", "6 of 8 on a reference path"],
        ["Weighted overall", "0.91", "weights: equal"],
        ["Mean path score", "87.5", "0-100"],
    ]
    assert [row[0] for row in axes[1:]] == [
        "tool selection",
        "argument correctness",
        "step efficiency",
        "error recovery",
        "goal completion",
    ]
    assert axes[2] == ["argument correctness", "0.95", "0.20"]
    assert len(weak) == 3
    assert all(len(row) == 4 for row in weak)
    assert "- ✅ success: 1.00 ≥ 1.00 (met)" in lines
    assert "- ❌ trajectory: 0.75 < 0.80 (missed)" in lines


def test_hostile_text_neither_breaks_the_table_nor_injects_html(view: ReportView) -> None:
    text = render_markdown(view)
    assert "<img" not in text
    assert "<script" not in text
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in rendered
    assert "<script" not in rendered
    assert "&amp;lt;img src=x onerror=" in rendered or "&lt;img src=x onerror=" in rendered
    weak_rows = _tables(text)[2]
    assert weak_rows[1][3] == md_cell(f"answer lacks '30 days' {XSS_IMG}")
    assert md_cell("a|b\nc") == "a\\|b c"


def test_weak_list_is_capped_with_a_count_of_the_rest_and_empty_list_says_so() -> None:
    many = make_view()
    many = replace(many, weak_paths=many.weak_paths * 15, weak_total=30)
    text = render_markdown(many, max_weak=20)
    assert len(_tables(text)[2]) == 21
    assert "… and 10 more (see the HTML or JSON report" in text
    assert "**Weak paths**: showing 20 of 30" in text
    assert "None: every run succeeded" in render_markdown(replace(many, weak_paths=()))


def test_write_markdown(tmp_path: Path, view: ReportView) -> None:
    out = write_markdown(view, tmp_path / "sub" / "summary.md")
    assert out.read_text(encoding="utf-8") == render_markdown(view)
