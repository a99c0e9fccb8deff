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

from pathjudge.report.html import write_html
from tests.report.conftest import XSS_IMG, XSS_SCRIPT, make_view

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


def test_report_filters_sorts_expands_and_keeps_agent_markup_inert(
    page: _Page, tmp_path: Path
) -> None:
    report = write_html(make_view(12), tmp_path / "report.html")
    p = page.page
    p.goto(report.as_uri(), wait_until="load")

    rows = p.locator("#task-table tbody tr")
    assert rows.count() == 3
    p.fill("#tasks-filter", "task-01")
    assert p.locator("#task-table tbody tr:visible").count() == 1
    assert p.locator("#task-table-count").inner_text() == "1 of 3 shown"
    p.fill("#tasks-filter", "")
    assert p.locator("#task-table tbody tr:visible").count() == 3

    path_header = p.locator("#task-table thead th", has_text="path score")
    path_header.click()
    assert path_header.get_attribute("aria-sort") == "ascending"
    first = p.locator("#task-table tbody tr").first.locator("td").first.inner_text()
    path_header.click()
    assert path_header.get_attribute("aria-sort") == "descending"
    assert p.locator("#task-table tbody tr").first.locator("td").first.inner_text() != first

    run = p.locator("details.run").first
    assert run.locator(".body").count() == 0, "the viewer builds a run only when it is opened"
    run.locator("summary").click()
    body = run.locator(".body")
    body.wait_for(state="visible")
    assert body.locator("ol.steps > li").count() == 4
    assert body.locator(".verdict").count() == 1
    assert "search_docs" in body.locator("ol.steps > li").first.inner_text()

    assert p.evaluate("typeof window.__pwned") == "undefined"
    answer = body.locator(".kv pre.text").nth(1)
    assert XSS_SCRIPT in answer.inner_text()
    assert XSS_IMG in answer.inner_text()
    assert answer.is_visible()
    assert body.locator("img").count() == 0
    assert body.locator("script").count() == 0
    assert p.get_by_text("window.__pwned=1").first.is_visible()

    p.click("a.jump[data-task='task-02']")
    assert p.locator("#run-list-count").inner_text() == "4 of 12 shown"

    assert p.evaluate("typeof window.__pwned") == "undefined"
    assert page.problems == []
    assert [url for url in page.requests if not url.startswith(("file:", "data:"))] == []
    shot = p.screenshot(path=str(tmp_path / "report-screenshot.png"), full_page=True)
    assert shot[:4] == b"\x89PNG"
    _save_artifact(tmp_path / "report-screenshot.png")


def test_thousand_run_report_opens_under_five_megabytes(page: _Page, tmp_path: Path) -> None:
    report = write_html(make_view(1000, result_chars=3_000), tmp_path / "report-1000.html")
    assert report.stat().st_size < 5_000_000
    p = page.page
    p.set_default_timeout(30_000)
    p.goto(report.as_uri(), wait_until="load")
    assert p.locator("details.run").count() == 1000
    last = p.locator("details.run").last
    last.locator("summary").click()
    last.locator(".body .trunc").first.wait_for(state="visible")
    assert "truncated (3000 chars" in last.locator(".body").inner_text()
    p.fill("#runs-filter", "run-0999")
    assert p.locator("#run-list-count").inner_text() == "1 of 1000 shown"
    assert page.problems == []
