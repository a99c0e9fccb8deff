"""Inputs several test modules build the same way."""

from __future__ import annotations

from pathlib import Path

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
