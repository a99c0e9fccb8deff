"""Inputs several test modules build the same way."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from pathjudge.agent.trajectory import RunRecord, Step


def suite_that_fails_a_gating_check(here: Path) -> tuple[Path, Path]:
    """A task whose two runs answer right (success passes) but never call the required tool:
    ``(suite, runs)`` written into ``here``."""
    suite = here / "refunds.yaml"
    suite.write_text(
        "name: refunds\ntasks:\n  - id: refund\n"
        "    success: {kind: contains_all, values: [done]}\n"
        "    tools: {required: [refund]}\n",
        encoding="utf-8",
    )
    runs = here / "refund-runs.jsonl"
    runs.write_text(
        "".join(
            RunRecord(
                run_id=f"r{epoch}",
                task_id="refund",
                epoch=epoch,
                steps=(Step(tool="lookup_order", arguments={"order_id": "A17"}, turn=0),),
                final_answer="done",
            ).model_dump_json()
            + "\n"
            for epoch in range(2)
        ),
        encoding="utf-8",
    )
    return suite, runs


def example_module(folder: str, name: str) -> ModuleType:
    """Load ``examples/<folder>/<name>.py`` under a unique module name (examples share file names);
    loaded once per process, so two test modules share it."""
    unique = f"example_{folder}_{name}"
    if unique in sys.modules:
        return sys.modules[unique]
    path = Path(__file__).resolve().parents[1] / "examples" / folder / f"{name}.py"
    sys.path.insert(0, str(path.parent))  # for the example's own sibling imports
    spec = importlib.util.spec_from_file_location(unique, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
