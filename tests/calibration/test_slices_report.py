"""Slices in the calibration's HTML page and Markdown summary: each slice's gates with their bounds,
its verdict, the labels it still needs and its PPI++ rate, with hostile slice values escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pathjudge.cli import main

from .conftest import Writer
from .test_slices import _cli

# a slice value from a user's file: markup, a bidi override (U+202E) and an isolate (U+2066)
HOSTILE = '<script>alert("x")</script>\u202eevil\u2066 & "q"'
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\x00\x1b"


def _sliced_files(write: Writer) -> None:
    """billing (150 labels, the judge always right) is trusted; the hostile slice (20 labels, one
    human-pass item the judge fails) fails TPR and TNR; misc (4 labels) is too small to decide.
    30 judge-only items, 20 of them in the hostile slice, give each of those slices a PPI++ rate."""
    rows = [(f"b{i}", "billing", *(["pass"] * 2 if i % 2 else ["fail"] * 2)) for i in range(150)]
    rows += [(f"r{i}", HOSTILE, "pass", "fail" if i == 0 else "pass") for i in range(10)]
    rows += [(f"r{i}", HOSTILE, "fail", "fail") for i in range(10, 20)]
    rows += [(f"m{i}", "misc", *(["pass"] * 2 if i % 2 else ["fail"] * 2)) for i in range(4)]
    judge_only = [(f"u{i}", HOSTILE if i % 3 else "billing", "pass") for i in range(30)]
    write(
        "labels.jsonl",
        [{"item_id": i, "label": h, "slice": {"category": c}} for i, c, h, _ in rows],
    )
    write(
        "verdicts.jsonl",
        [{"item_id": i, "verdict": j} for i, _, _, j in rows]
        + [{"item_id": i, "verdict": v} for i, _, v in judge_only],
    )
    write(
        "items.jsonl",
        [
            {"item_id": i, "inputs": {"answer": i}, "slice": {"category": c}}
            for i, c, _ in judge_only
        ],
    )


def _calibrate(tmp_path: Path, *extra: str) -> int:
    return main(
        _cli(
            tmp_path,
            "--items",
            str(tmp_path / "items.jsonl"),
            "--slice-by",
            "category",
            "-q",
            *extra,
        )
    )


def _slice_rows(page: str) -> dict[str, str]:
    """The rows of the slices table, by their first cell's text."""
    table = page.split('<table class="slices">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
    return {re.search(r"<code>(.*?)</code>", row).group(1): row for row in rows}  # type: ignore[union-attr]


def test_the_html_page_shows_each_slice_with_gates_verdict_labels_needed_and_ppi(
    write: Writer, tmp_path: Path
) -> None:
    _sliced_files(write)
    page_path = tmp_path / "cal.html"
    assert _calibrate(tmp_path, "--html", str(page_path), "--plots", str(tmp_path / "p")) == 1
    page = page_path.read_text(encoding="utf-8")
    assert "<h4>Slices (3): 1 not trusted, 1 too small to decide</h4>" in page
    # the whole criterion passes but a slice fails (exit 1): its badge is not green
    assert '<span class="badge fail">trusted overall, 1 slice(s) not trusted</span>' in page
    shown = "category=&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\\u202eevil\\u2066 &amp; &quot;q&quot;"
    rows = _slice_rows(page)
    assert list(rows) == [shown, "category=billing", "category=misc"]  # values sorted
    hostile = rows[shown]
    assert '<span class="badge fail">not trusted</span>' in hostile
    # TPR 9/10: Wilson lower bound 0.596 (tests/calibration/test_slices.py has the arithmetic)
    assert "TPR bound 0.596 vs 0.80 missed" in hostile
    assert "TNR bound 0.722 vs 0.80 missed" in hostile
    assert re.search(r'<td class="num">about \d+</td>', hostile)
    assert re.search(r"PPI\+\+ 0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\]", hostile)
    assert "next: TNR: about 16 human-fail items" in hostile
    assert '<span class="badge unsure">too small to decide</span>' in rows["category=misc"]
    assert '<span class="badge pass">trusted</span>' in rows["category=billing"]
    assert '<td class="num">0</td>' in rows["category=billing"]
    assert "<script>alert" not in page
    assert not set(page) & set(HIDDEN)


def test_the_html_page_without_slices_has_no_slice_table(write: Writer, tmp_path: Path) -> None:
    _sliced_files(write)
    page_path = tmp_path / "cal.html"
    main(_cli(tmp_path, "--quiet", "--html", str(page_path)))
    assert 'class="slices"' not in page_path.read_text(encoding="utf-8")


def test_the_markdown_summary_names_the_failing_slices_escaped(
    write: Writer, tmp_path: Path
) -> None:
    _sliced_files(write)
    cal = tmp_path / "cal.json"
    assert _calibrate(tmp_path, "--json", str(cal)) == 1
    from pathjudge.report.markdown import write_markdown_report

    text = write_markdown_report(None, tmp_path / "summary.md", calibration=cal).read_text(
        encoding="utf-8"
    )
    assert "- slices: 1 not trusted, 1 too small to decide (of 3)" in text
    # the whole criterion passes but a slice fails (calibrate exits 1): the headline is not green
    headline = next(x for x in text.splitlines() if x.startswith("**Judge calibration"))
    assert "❌ trusted overall, 1 slice(s) not trusted" in headline
    assert "✅" not in headline
    line = next(x for x in text.splitlines() if x.startswith("- slice not trusted: "))
    assert "<script>" not in line
    assert "&lt;script&gt;" in line
    assert not set(text) & set(HIDDEN)
    assert "- slice too small to decide: category=misc" in text
    assert json.loads(cal.read_text())["criteria"][0]["slices"][0]["value"] == HOSTILE
