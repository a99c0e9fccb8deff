"""`pathjudge report` on the REAL output of `pathjudge score --json` for examples/docent."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from pathjudge.cli import main
from pathjudge.report.html import write_html_report
from pathjudge.report.json_report import ScoreReport
from pathjudge.report.markdown import write_markdown_report
from tests.report.support import (
    LONG_DOC_CHARS,
    XSS_IMG,
    XSS_SCRIPT,
    Scored,
    many_docent_runs,
    score,
)


class _Page(HTMLParser):
    """Section ids, task-table rows, run entries, metric cards and the JSON blob of a report page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[str] = []
        self.metrics: dict[str, str] = {}
        self.task_rows = 0
        self.run_entries = 0
        self.blob = ""
        self._where: list[str] = []
        self._metric: str | None = None
        self._in_value = False
        self._in_blob = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id") or "")
        if tag == "table":
            self._where.append(a.get("id") or "")
        if tag == "tr" and self._where and self._where[-1] == "task-table" and not self._in_head:
            self.task_rows += 1
        if tag == "thead":
            self._in_head = True
        if tag == "details" and "run" in (a.get("class") or "").split():
            self.run_entries += 1
        if tag == "div" and a.get("data-metric"):
            self._metric = a["data-metric"]
        if tag == "div" and a.get("class") == "value" and self._metric:
            self._in_value = True
        if tag == "script" and a.get("type") == "application/json":
            self._in_blob = True

    _in_head = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._where:
            self._where.pop()
        if tag == "thead":
            self._in_head = False
        if tag == "script":
            self._in_blob = False

    def handle_data(self, data: str) -> None:
        if self._in_value and self._metric:
            self.metrics[self._metric] = data
            self._in_value = False
            self._metric = None
        if self._in_blob:
            self.blob += data


def _parse(path: Path) -> tuple[str, _Page]:
    text = path.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    page.close()
    return text, page


@pytest.fixture(scope="module")
def rendered(
    hostile_scored: Scored, calibration_json: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("rendered")
    html, md = folder / "report.html", folder / "summary.md"
    code = main(
        [
            "report",
            str(hostile_scored.score_json),
            "-o",
            str(html),
            "--runs",
            str(hostile_scored.runs),
            "--calibration",
            str(calibration_json),
            "--markdown",
            str(md),
        ]
    )
    assert code == 0
    return html, md


def test_the_real_score_report_renders_every_section_with_its_numbers(
    hostile_scored: Scored, rendered: tuple[Path, Path]
) -> None:
    assert hostile_scored.exit_code == 1, "the success=1.0 gate is missed: pro-rpm now refuses"
    data = json.loads(hostile_scored.score_json.read_text(encoding="utf-8"))
    card = data["scorecard"]
    text, page = _parse(rendered[0])
    assert page.sections == [
        "scorecard",
        "weak-paths",
        "tasks",
        "trajectories",
        "variance",
        "calibration",
    ]
    assert page.metrics["success"] == f"{card['success_rate']:.2f}"
    assert page.metrics["tool_calls"] == f"{card['tool_calls']:.2f}"
    assert page.metrics["trajectory"] == f"{card['trajectory']:.2f}"
    assert page.metrics["overall"] == f"{card['overall']:.2f}"
    assert page.task_rows == len(card["task_rows"]) == 15
    assert page.run_entries == len(data["runs"]) == 16
    assert "success 0.88 &lt; 1.00 missed" in text  # 14 of 16 decided runs passed: 14/16 = 0.875
    assert "pro-rpm" in text.split('id="weak-paths"')[1].split("</section>")[0]


def test_agent_and_judge_text_stays_inert_and_long_results_are_cut(
    rendered: tuple[Path, Path],
) -> None:
    text, page = _parse(rendered[0])
    for hostile in (XSS_SCRIPT, XSS_IMG, "<b>sorry</b>"):
        assert hostile not in text
    blob = json.loads(page.blob)
    runs = {run["id"]: run for run in blob["runs"]}
    assert runs["rate-429-e0"]["answer"].endswith(f"{XSS_SCRIPT} {XSS_IMG}")
    step = dict(zip(blob["step_fields"], runs["rate-429-e0"]["steps"][0], strict=True))
    kept, full = step["result"]
    assert full > LONG_DOC_CHARS
    assert len(kept) < full
    assert (
        "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in text
    )  # judge reasoning in the calibration table


def test_markdown_summary_renders_the_real_scorecard_as_a_table(
    hostile_scored: Scored, rendered: tuple[Path, Path]
) -> None:
    card = json.loads(hostile_scored.score_json.read_text(encoding="utf-8"))["scorecard"]
    markdown = rendered[1].read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    first_table = html.split("</table>")[0]
    assert "<th>metric</th>" in first_table
    rows = re.findall(r"<tr>\s*<td>([^<]+)</td>\s*<td[^>]*>([^<]+)</td>", first_table)
    assert rows[:4] == [
        ("Task success", f"{card['success_rate']:.2f}"),
        ("Tool-call correctness", f"{card['tool_calls']:.2f}"),
        ("Trajectory quality", f"{card['trajectory']:.2f}"),
        ("Weighted overall", f"{card['overall']:.2f}"),
    ]
    assert "❌ success: 0.88 < 1.00 (missed)" in markdown
    assert "<img" not in html
    assert "not trusted" in markdown or "trusted" in markdown


def test_the_runs_file_named_in_the_report_is_found_without_runs(
    hostile_scored: Scored, tmp_path: Path
) -> None:
    out = tmp_path / "auto.html"
    assert main(["report", str(hostile_scored.score_json), "-o", str(out)]) == 0
    blob = json.loads(_parse(out)[1].blob)
    assert all(run["has_steps"] for run in blob["runs"])


def test_library_call_matches_and_is_deterministic(hostile_scored: Scored, tmp_path: Path) -> None:
    model = ScoreReport.model_validate_json(hostile_scored.score_json.read_text(encoding="utf-8"))
    first = write_html_report(model, tmp_path / "a.html", runs=hostile_scored.runs)
    second = write_html_report(
        hostile_scored.score_json, tmp_path / "b.html", runs=hostile_scored.runs
    )
    assert first.read_bytes() == second.read_bytes()


def test_baseline_diff_section_flags_the_regression(
    repo_root: Path, hostile_scored: Scored, tmp_path: Path
) -> None:
    baseline = score(repo_root, repo_root / "examples" / "docent" / "runs.jsonl", tmp_path)
    assert baseline.exit_code == 0
    out = tmp_path / "diff.html"
    code = main(
        [
            "report",
            str(hostile_scored.score_json),
            "-o",
            str(out),
            "--baseline",
            str(baseline.score_json),
        ]
    )
    assert code == 0
    text, page = _parse(out)
    assert "diff" in page.sections
    diff = text.split('<section id="diff">')[1].split("</section>")[0]
    assert ">block<" in diff
    assert re.search(r"<td>pro-rpm</td>.*?regression", diff, re.S)


def test_bad_inputs_are_one_clear_error_with_exit_2(tmp_path: Path, calibration_json: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"kind": "pathjudge.score",\n  oops}', encoding="utf-8")
    assert main(["report", str(broken), "-o", str(out)]) == 2
    assert main(["report", str(calibration_json), "-o", str(out)]) == 2
    assert not out.exists()


def test_bad_input_messages_name_file_line_and_field(
    tmp_path: Path, calibration_json: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"kind": "pathjudge.score",\n  oops}', encoding="utf-8")
    main(["report", str(broken), "-o", str(tmp_path / "r.html")])
    assert f"{broken}:2:" in capsys.readouterr().err
    main(["report", str(calibration_json), "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert "not a score report" in err
    assert str(calibration_json) in err


def test_a_thousand_real_runs_render_under_five_megabytes(repo_root: Path, tmp_path: Path) -> None:
    scored = score(repo_root, many_docent_runs(repo_root, tmp_path, 1000), tmp_path)
    out = tmp_path / "report-1000.html"
    assert main(["report", str(scored.score_json), "-o", str(out), "--runs", str(scored.runs)]) == 0
    size = out.stat().st_size
    assert size < 5_000_000, f"{size} bytes"
    text, page = _parse(out)
    assert page.run_entries == 1000
    assert "long texts are cut to" in text
    assert "variance" in page.sections  # 62-63 epochs per task


def test_calibration_only_page_for_calibrate_html(calibration_json: Path, tmp_path: Path) -> None:
    out = write_html_report(None, tmp_path / "calibration.html", calibration=calibration_json)
    text, page = _parse(out)
    assert page.sections == ["calibration"]
    assert text.count("<img") == 2  # confusion matrix and reliability of the vote share
    assert "not trusted" in text or "trusted" in text
    summary = write_markdown_report(None, tmp_path / "calibration.md", calibration=calibration_json)
    assert "| metric |" not in summary.read_text(encoding="utf-8")
    assert "**Judge calibration, faithful**" in summary.read_text(encoding="utf-8")


def test_baseline_may_be_the_json_of_pathjudge_diff(
    repo_root: Path, hostile_scored: Scored, tmp_path: Path
) -> None:
    diff_json = tmp_path / "diff.json"
    code = main(
        [
            "diff",
            str(repo_root / "examples" / "docent" / "runs.jsonl"),
            str(hostile_scored.runs),
            "--suite",
            str(repo_root / "examples" / "docent" / "suite.yaml"),
            "--resamples",
            "200",
            "--json",
            str(diff_json),
        ]
    )
    assert code == 1, "pro-rpm flipped to a failure: the diff blocks"
    out = tmp_path / "diff.html"
    assert (
        main(
            ["report", str(hostile_scored.score_json), "-o", str(out), "--baseline", str(diff_json)]
        )
        == 0
    )
    diff = out.read_text(encoding="utf-8").split('<section id="diff">')[1].split("</section>")[0]
    assert ">block<" in diff
    assert re.search(r"<td>pro-rpm</td>.*?regression", diff, re.S)


def test_tasks_without_runs_show_their_count_and_first_ten_the_json_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"t{i:02}" for i in range(25)]
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: many\ntasks:\n" + "".join(f"  - {{id: {i}}}\n" for i in ids), encoding="utf-8"
    )
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"run_id": "r", "task_id": "t00", "steps": []}\n', encoding="utf-8")
    out, page = tmp_path / "out.json", tmp_path / "out.html"
    argv = ["score", str(runs), "--suite", str(suite), "--json", str(out), "--html", str(page)]
    main([*argv, "--include-runs"])
    shown = "24: t01, t02, t03, t04, t05, t06, t07, t08, t09, t10 and 14 more"
    terminal = capsys.readouterr().out
    assert f"tasks without runs: {shown} (all in the JSON report)" in terminal
    assert "t11" not in terminal
    html_page = page.read_text(encoding="utf-8")
    assert f"Tasks with no runs: {shown}" in html_page
    assert "t24" not in html_page.split("<script")[0]  # the visible page (the blob has the data)
    card = json.loads(out.read_text(encoding="utf-8"))["scorecard"]
    assert card["tasks_without_runs"] == ids[1:]


def test_a_report_without_per_run_grades_names_include_runs(
    repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README workflow (`score --json r.json`, then `report r.json`): the warning and the page
    name the flag that puts the grades in, not "per-run output"."""
    docent = repo_root / "examples" / "docent"
    results = tmp_path / "r.json"
    runs, suite = docent / "runs.jsonl", docent / "suite.yaml"
    assert main(["score", str(runs), "--suite", str(suite), "--json", str(results), "-q"]) == 0
    capsys.readouterr()
    out = tmp_path / "r.html"
    assert main(["report", str(results), "-o", str(out), "--runs", str(runs)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "holds no per-run grades" in err
    assert f"--json {results} --include-runs" in err
    assert "--include-runs" in out.read_text(encoding="utf-8")
    # with the grades in the report, no warning
    assert (
        main(["score", str(runs), "-s", str(suite), "--json", str(results), "--include-runs"]) == 0
    )
    capsys.readouterr()
    assert main(["report", str(results), "-o", str(out)]) == 0
    assert "per-run grades" not in capsys.readouterr().err
