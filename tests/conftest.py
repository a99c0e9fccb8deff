"""Shared test configuration: opt-in markers and the location of the real public data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-model", action="store_true", help="run tests that need a real local model"
    )
    parser.addoption(
        "--run-browser", action="store_true", help="run tests that need headless Chromium"
    )


def _enabled(config: pytest.Config, flag: str, env: str) -> bool:
    return bool(config.getoption(flag)) or os.environ.get(env, "") not in ("", "0")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gates = {
        "model": ("--run-model", "PATHJUDGE_RUN_MODEL"),
        "browser": ("--run-browser", "PATHJUDGE_RUN_BROWSER"),
    }
    for marker, (flag, env) in gates.items():
        if _enabled(config, flag, env):
            continue
        skip = pytest.mark.skip(reason=f"opt-in: pass {flag} or set {env}=1")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"real public data not found at {SHARED_DATA} (a user's checkout has no ../shared)"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO
