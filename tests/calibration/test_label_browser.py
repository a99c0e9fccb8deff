"""``pathjudge label`` in real headless Chromium: 30 items labelled by keyboard alone, the server
killed with SIGKILL midway and restarted, hostile item text inert.

Opt-in: ``--run-browser`` or ``PATHJUDGE_RUN_BROWSER=1`` (Debian's chromium driven by playwright).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathjudge.calibration.label_store import current_labels, item_content_hash, read_events

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
SRC = Path(__file__).resolve().parents[2] / "src"

HOSTILE = [
    "<script>window.__pwned = 1; alert('script')</script>",
    "<img src=x onerror=\"window.__pwned = 1; alert('img')\">",
    "<a href=\"javascript:alert('link')\">click</a>",
    '<svg onload="alert(\'svg\')"></svg><iframe src="javascript:alert(1)"></iframe>',
    "bell\x07 nul\x00 escape\x1b[31m red \u202e reversed",
    "</textarea><style>body{display:none}</style>",
]


def _items(path: Path) -> dict[str, dict[str, Any]]:
    items: dict[str, dict[str, Any]] = {}
    for i in range(30):
        source = f"source {i}: " + HOSTILE[i % len(HOSTILE)]
        if i == 7:
            source += " " + "long text " * 500_000  # 5 MB
        summary = f"summary {i} " + HOSTILE[(i + 1) % len(HOSTILE)]
        if i == 11:  # a trajectory
            summary = json.dumps(
                [
                    {"tool": "<b onmouseover=alert(1)>search</b>", "arguments": {"q": HOSTILE[0]}},
                    {"tool": "fetch", "result": HOSTILE[1], "is_error": True},
                ]
            )
        items[f"item-{i}"] = {"source": source, "summary": summary}
    with path.open("w", encoding="utf-8") as handle:
        for item_id, inputs in items.items():
            line = {
                "item_id": item_id,
                "inputs": inputs,
                "slice": {"parity": str(len(item_id) % 2)},
            }
            handle.write(json.dumps(line) + "\n")
    return items


class _Server:
    def __init__(self, items: Path, labels: Path) -> None:
        env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pathjudge",
                "label",
                str(items),
                "--criterion",
                "summary-faithful",
                "-o",
                str(labels),
                "--rater",
                "ana",
                "--no-browser",
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), (
            self.proc.stderr and self.proc.stderr.read()
        )

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
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


def _label_by_keyboard(page: Any, keys: list[str], start: int) -> list[str]:
    """Press one label key per item (a note on every fifth) and return the ids labelled."""
    labelled = []
    for offset, key in enumerate(keys):
        page.wait_for_function(
            "() => document.body.dataset.ready === '1' && !document.body.dataset.busy"
        )
        item_id = page.locator("body").get_attribute("data-item")
        labelled.append(item_id)
        if (start + offset) % 5 == 0:
            page.keyboard.press("n")
            page.keyboard.type(f"why {item_id} <script>alert(1)</script>")
            page.keyboard.press("Enter")
        page.keyboard.press(key)
        page.wait_for_function(
            f"() => document.body.dataset.labelled === '{start + offset + 1}' "
            "&& !document.body.dataset.busy",
            timeout=60_000,
        )
    return labelled


def test_thirty_items_labelled_by_keyboard_survive_a_sigkill_and_a_restart(
    browser: Any, tmp_path: Path
) -> None:
    items_path = tmp_path / "items.jsonl"
    labels = tmp_path / "labels.jsonl"
    items = _items(items_path)
    dialogs: list[str] = []
    problems: list[str] = []
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: problems.append(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("request", lambda request: requests.append(request.url))
    keys = ["p", "f", "u"] * 10

    server = _Server(items_path, labels)
    try:
        page.goto(server.url)
        page.wait_for_function("() => document.body.dataset.ready === '1'")
        assert page.locator("#question").inner_text().startswith("Is every claim")
        first = _label_by_keyboard(page, keys[:13], 0)
        # back and forth with the keys, then undo the last label and give it again
        page.keyboard.press("k")
        page.wait_for_function("() => !document.body.dataset.busy")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => !document.body.dataset.busy")
        page.keyboard.press("z")
        page.wait_for_function("() => document.body.dataset.labelled === '12'")
        page.wait_for_function("() => !document.body.dataset.busy")
        assert page.locator("body").get_attribute("data-item") == first[-1]
        page.keyboard.press(keys[12])
        page.wait_for_function("() => document.body.dataset.labelled === '13'")
        first += _label_by_keyboard(page, keys[13:15], 13)[:2]
    finally:
        server.kill()  # SIGKILL: no clean shutdown
    assert page.evaluate("() => typeof window.__pwned") == "undefined"

    server = _Server(items_path, labels)
    try:
        page.goto(server.url)
        page.wait_for_function("() => document.body.dataset.ready === '1'")
        assert page.locator("body").get_attribute("data-labelled") == "15"  # resumed
        assert page.locator("body").get_attribute("data-item") not in first
        second = _label_by_keyboard(page, keys[15:28], 15)
        page.keyboard.press(keys[28])  # a quick burst: both keys count, each for its own item
        page.keyboard.press(keys[29])
        page.wait_for_function(
            "() => document.body.dataset.labelled === '30' && !document.body.dataset.busy",
            timeout=60_000,
        )
        assert "labelled 30 of 30" in page.locator("#progress-text").inner_text()
        # hostile text is shown as text: no element, no script, no dialog came from it
        assert page.locator("#inputs script, #inputs img, #inputs a, #inputs svg").count() == 0
        assert page.evaluate("() => typeof window.__pwned") == "undefined"
    finally:
        server.kill()
        context.close()

    assert dialogs == []
    assert problems == []
    port_prefixes = {server.url.split("/?")[0]}
    assert all(
        any(url.startswith(p) for p in port_prefixes) or "127.0.0.1" in url for url in requests
    )
    events = list(read_events(labels))
    current = current_labels(events)
    assert len(current) == 30
    assert {key[0] for key in current} == set(items)
    assert len(set(first + second)) == 28  # every key labelled the item on screen, once
    for (item_id, criterion, rater, kind), event in current.items():
        assert (criterion, rater, kind) == ("summary-faithful", "ana", "label")
        assert event.item_hash == item_content_hash(items[item_id])
        assert event.order == "random"
        assert event.seed == 0
        assert event.position is not None
        assert event.reason == "random order (seed 0)"
        assert event.criterion_hash.startswith("sha256:")
    assert sum(1 for e in current.values() if e.note) >= 5
    assert any("<script>" in (e.note or "") for e in current.values())  # notes kept verbatim
    # one line per label, plus the one undone and given again (history kept)
    assert len(events) == 31
