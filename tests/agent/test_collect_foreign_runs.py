"""``collect`` counts the runs already in its output file that belong to other tasks or agents."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pathjudge._io import write_jsonl
from pathjudge.agent.trajectory import AgentInfo, RunRecord


def test_collect_counts_foreign_runs(tmp_path: Path) -> None:
    from pathjudge.agent.collect import CollectTask, collect

    out = tmp_path / "runs.jsonl"
    write_jsonl(
        out,
        [
            RunRecord(run_id="o1", task_id="other-task", agent=AgentInfo(name="docent")),
            RunRecord(run_id="o2", task_id="t1", epoch=1, agent=AgentInfo(name="other-agent")),
            RunRecord(run_id="mine", task_id="t1", agent=AgentInfo(name="docent")),
        ],
    )

    async def runner(task: CollectTask, epoch: int) -> RunRecord:
        return RunRecord(
            run_id=f"{task.id}@{epoch}",
            task_id=task.id,
            epoch=epoch,
            agent=AgentInfo(name="docent"),
        )

    tasks = [CollectTask(id="t1", question="q")]
    result = asyncio.run(collect(tasks, runner, out, epochs=1, agent_name="docent"))
    # other-task is outside the tasks; o2 is another agent; 'mine' belongs here
    assert (result.foreign, result.skipped, result.written) == (2, 1, 0)
