"""The HTML report without a browser: escaping, the JSON blob, the CSP pin, truncation and size."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pathjudge.report._view import ReportView
from pathjudge.report.html import MIN_FIELD_CHARS, field_limit, render_html, script_json, write_html
from tests.report.support import HOSTILE_ANSWER, XSS_IMG, XSS_SCRIPT, make_view


class _Scan(HTMLParser):
    """Collects element names, scripts (with their type) and every attribute name seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: set[str] = set()
        self.scripts: list[tuple[str | None, str]] = []
        self.img_srcs: list[str] = []
        self._in_script: str | bool | None = False
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.update(name for name, _ in attrs)
        if tag == "img":
            self.img_srcs.append(dict(attrs).get("src") or "")
        if tag == "script":
            self._in_script = dict(attrs).get("type")
            self._buffer = []

    def handle_data(self, data: str) -> None:
        if self._in_script is not False:
            self._buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.scripts.append(
                (
                    self._in_script if isinstance(self._in_script, str) else None,
                    "".join(self._buffer),
                )
            )
            self._in_script = False


def _scan(text: str) -> _Scan:
    scan = _Scan()
    scan.feed(text)
    scan.close()
    return scan


def test_script_json_escapes_everything_that_could_end_the_element() -> None:
    value = {"a": "</script><!-- & \u2028 \u2029 > <"}
    text = script_json(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert "\\u003c/script\\u003e" in text
    assert json.loads(text) == value


def test_hostile_agent_text_never_becomes_markup(view: ReportView) -> None:
    page = render_html(view)
    scan = _scan(page)
    assert scan.tags.count("script") == 2, "only the data blob and the report's own script"
    assert len(scan.img_srcs) == 4
    assert all(src.startswith("data:image/png;base64,") for src in scan.img_srcs)
    assert "onerror" not in scan.attrs
    assert XSS_SCRIPT not in page
    assert XSS_IMG not in page
    assert html_escaped(XSS_SCRIPT) in page  # the task table's reason, escaped in place
    (kind, blob), (_, code) = scan.scripts
    assert kind == "application/json"
    data = json.loads(blob)
    assert data["runs"][0]["answer"] == HOSTILE_ANSWER
    assert "innerHTML" not in code
    assert "insertAdjacentHTML" not in code
    assert "document.write" not in code


def html_escaped(text: str) -> str:
    return html.escape(text, quote=True)


def test_csp_allows_only_the_reports_own_script_and_no_network(view: ReportView) -> None:
    page = render_html(view)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = html.unescape(csp.group(1))
    assert "default-src 'none'" in policy
    assert "img-src data:" in policy
    code = _scan(page).scripts[1][1]
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert not re.search(r'(src|href)="(https?:)?//', page), "nothing is fetched from the network"


def test_every_section_is_present_and_images_are_inline(view: ReportView) -> None:
    page = render_html(view)
    for anchor in (
        "scorecard",
        "weak-paths",
        "tasks",
        "trajectories",
        "diff",
        "variance",
        "calibration",
    ):
        assert f'<section id="{anchor}">' in page
    images = _scan(page).img_srcs
    assert len(images) == 4  # path scores, pass^k, confusion matrix, reliability
    assert all(src.startswith("data:image/png;base64,") for src in images)
    assert page.count('<details class="run"') == len(view.runs)
    assert 'data-metric="trajectory"' in page
    assert ">0.75<" in page


def test_optional_sections_are_left_out_and_empty_view_renders() -> None:
    bare = replace(
        make_view(0), diff=None, variance=None, calibration=None, weak_paths=(), tasks=()
    )
    page = render_html(bare)
    assert '<section id="diff">' not in page
    assert '<section id="calibration">' not in page
    assert "no tasks" in page
    assert "no runs" in page
    assert "No weak paths" in page


def test_long_results_are_cut_with_their_full_length_recorded() -> None:
    view = make_view(4, result_chars=50_000)
    data = json.loads(_scan(render_html(view)).scripts[0][1])
    step = dict(zip(data["step_fields"], data["runs"][0]["steps"][0], strict=True))
    result = step["result"]
    assert isinstance(result, list)
    assert result[1] == 50_000
    assert len(result[0]) < 50_000
    assert len(result[0]) >= MIN_FIELD_CHARS
    assert "long texts are cut to" in render_html(view)


def test_a_thousand_run_report_stays_under_five_megabytes(tmp_path: Path) -> None:
    path = write_html(make_view(1000, result_chars=3_000), tmp_path / "big.html")
    size = path.stat().st_size
    assert size < 5_000_000, f"{size} bytes"
    assert render_html(make_view(6)) == render_html(make_view(6)), "rendering is deterministic"


def test_field_limit_water_fills_the_budget() -> None:
    # sorted [10, 20, 1000, 1000], budget 1000: 10 <= 1000//4=250 keeps all (990 left); 20 <= 990//3=330
    # keeps all (970 left); 1000 > 970//2=485, so both long texts are cut to 485 (10+20+485+485 = 1000).
    assert field_limit([1000, 10, 1000, 20], budget=1000) == 485
    assert (
        field_limit([10, 20], budget=1000) == 4000
    )  # everything fits: only the per-field cap applies
    assert field_limit([], budget=1000) == 4000
    assert (
        field_limit([1000] * 100, budget=1000) == MIN_FIELD_CHARS
    )  # 1000//100 = 10, floored at 120


def test_without_matplotlib_plots_become_a_note_and_the_page_still_renders(
    view: ReportView, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    page = render_html(view)
    assert _scan(page).img_srcs == []
    assert page.count("Plot omitted:") == 4
    assert "pip install" in page
    assert '<section id="calibration">' in page


# bidi embeddings, overrides, isolates and marks, and controls a browser draws as nothing
HIDDEN = (
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\x00\x1b\x07\x7f\x9b"
)


def test_bidi_marks_and_controls_in_agent_text_are_shown_never_applied(view: ReportView) -> None:
    trojan = "refund \u202eevil\u202c ok\x1b[31m"
    run = view.runs[0]
    step = replace(run.steps[0], arguments={"q\u2067": trojan}, result=trojan + HIDDEN)
    runs = (
        replace(run, run_id="run\u202e-0", final_answer=trojan, steps=(step, *run.steps[1:])),
        *view.runs[1:],
    )
    hostile = replace(
        view,
        title=f"report {trojan}",
        runs=runs,
        weak_paths=(replace(view.weak_paths[0], reason=trojan), *view.weak_paths[1:]),
    )
    page = render_html(hostile)
    assert not set(page) & set(HIDDEN)  # nowhere: markup, attributes or the viewer's data
    assert "refund \\u202eevil\\u202c ok\\x1b[31m" in page  # the title and the weak-path reason
    (_, blob), _ = _scan(page).scripts
    data = json.loads(blob)
    shown = data["runs"][0]
    assert shown["id"] == "run\\u202e-0"
    assert shown["answer"] == "refund \\u202eevil\\u202c ok\\x1b[31m"
    assert "\\u2067" in shown["steps"][0][3]  # an argument's key
    assert shown["steps"][0][5].endswith("\\u2069\\u200e\\u200f\\u061c\\x00\\x1b\\x07\\x7f\\x9b")
    assert data["runs"][1]["answer"] == view.runs[1].final_answer  # ordinary text as it was
