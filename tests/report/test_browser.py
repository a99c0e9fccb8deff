"""The HTML report in real headless Chromium (Debian's chromium driven by playwright).

Opt-in: ``--run-browser`` or ``PATHJUDGE_RUN_BROWSER=1`` (CI sets it and installs chromium with
``.ci/install-extras``). Screenshots are saved next to the test's report and copied to
``$PATHJUDGE_ARTIFACTS`` when that variable names a folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathjudge.cli import main
from tests.report.support import XSS_IMG, XSS_SCRIPT, Scored, many_docent_runs, score

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _save_artifact(path: Path) -> None:
    target = os.environ.get("PATHJUDGE_ARTIFACTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, Path(target) / path.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found; install Debian's chromium (bash .ci/install-extras)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class _Page:
    """A page that records console errors, page errors and any network request it attempts."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"pageerror: {error}"))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[_Page]:
    wrapped = _Page(browser)
    try:
        yield wrapped
    finally:
        wrapped.close()


def _report(scored: Scored, out: Path, *extra: str) -> Path:
    code = main(
        ["report", str(scored.score_json), "-o", str(out), "--runs", str(scored.runs), *extra]
    )
    assert code == 0
    return out


def test_real_report_filters_sorts_expands_and_keeps_agent_markup_inert(
    page: _Page, hostile_scored: Scored, calibration_json: Path, tmp_path: Path
) -> None:
    report = _report(
        hostile_scored, tmp_path / "report.html", "--calibration", str(calibration_json)
    )
    p = page.page
    p.goto(report.as_uri(), wait_until="load")

    rows = p.locator("#task-table tbody tr")
    assert rows.count() == 15
    p.fill("#tasks-filter", "free-")
    assert p.locator("#task-table tbody tr:visible").count() == 2  # free-cap, free-storage
    assert p.locator("#task-table-count").inner_text() == "2 of 15 shown"
    p.fill("#tasks-filter", "")
    assert p.locator("#task-table tbody tr:visible").count() == 15

    success_header = p.locator("#task-table thead th", has_text="success").first
    success_header.click()
    assert success_header.get_attribute("aria-sort") == "ascending"
    assert (
        p.locator("#task-table tbody tr").first.locator("td").first.inner_text() == "pro-rpm"
    )  # 0.00
    success_header.click()
    assert success_header.get_attribute("aria-sort") == "descending"
    assert p.locator("#task-table tbody tr").last.locator("td").first.inner_text() == "pro-rpm"

    p.click("a.jump[data-jump='rate-429']")
    assert p.locator("#run-list-count").inner_text() == "1 of 16 shown"
    run = p.locator("details.run:visible")
    assert run.locator(".body").count() == 0, "the viewer builds a run only when it is opened"
    run.locator("summary").click()
    body = run.locator(".body")
    body.wait_for(state="visible")
    steps = body.locator("ol.steps > li")
    assert steps.count() == 1
    assert "search_docs" in steps.first.inner_text()
    assert "truncated (" in steps.first.inner_text()
    assert body.locator("table tbody tr").count() >= 5, "the run's checks with their reasons"

    answer = body.locator(".kv pre.text").nth(1)
    assert XSS_SCRIPT in answer.inner_text()
    assert XSS_IMG in answer.inner_text()
    assert answer.is_visible()
    assert body.locator("img").count() == 0
    assert body.locator("script").count() == 0
    assert p.evaluate("typeof window.__pwned") == "undefined"
    reasoning = p.locator("#calibration").get_by_text(XSS_SCRIPT).first  # the judge's reasoning
    assert reasoning.is_visible()

    assert page.problems == []
    assert [url for url in page.requests if not url.startswith(("file:", "data:"))] == []
    p.locator("#scorecard").scroll_into_view_if_needed()
    shot = tmp_path / "report-screenshot.png"
    p.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:4] == b"\x89PNG"
    _save_artifact(shot)


def test_thousand_run_real_report_opens_under_five_megabytes(
    page: _Page, repo_root: Path, tmp_path: Path
) -> None:
    scored = score(repo_root, many_docent_runs(repo_root, tmp_path, 1000), tmp_path)
    report = _report(scored, tmp_path / "report-1000.html")
    size = report.stat().st_size
    assert size < 5_000_000, f"{size} bytes"
    p = page.page
    p.set_default_timeout(30_000)
    p.goto(report.as_uri(), wait_until="load")
    assert p.locator("details.run").count() == 1000
    p.fill("#runs-filter", "grace-period-e0-c61")
    assert p.locator("#run-list-count").inner_text() == "1 of 1000 shown"
    run = p.locator("details.run:visible")
    run.locator("summary").click()
    run.locator(".body .trunc").first.wait_for(state="visible")
    assert "truncated (" in run.locator(".body").inner_text()
    assert page.problems == []
    shot = tmp_path / "report-1000-screenshot.png"
    p.screenshot(path=str(shot))
    _save_artifact(shot)
