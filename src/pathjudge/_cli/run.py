"""``pathjudge run``: collect live runs of an agent on a suite (concurrent, resumable)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, err_console, out_console


@app.command("run")
def run_command(
    suite: Annotated[Path, typer.Argument(help="The suite YAML whose tasks the agent runs.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Runs JSONL to append to (resumed if it exists).")
    ],
    agent: Annotated[str | None, typer.Option(help="Agent under test: docent.")] = None,
    backend: Annotated[
        str | None,
        typer.Option(help="Model backend: anthropic, openai (compatible) or scripted (offline)."),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Model name (default claude-haiku-4-5 for anthropic).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="API base URL (openai: ending in /v1).")
    ] = None,
    epochs: Annotated[int | None, typer.Option(help="Runs per task (default 1).")] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Runs in flight at once (default 4).")
    ] = None,
    max_steps: Annotated[int | None, typer.Option(help="Model turns per run (default 4).")] = None,
    retriever: Annotated[
        str | None,
        typer.Option(help="Docent's retriever: keyword, or worst_match (deliberately broken)."),
    ] = None,
    task: Annotated[list[str] | None, typer.Option(help="Only this task id (repeatable).")] = None,
) -> None:
    """Run the agent on every task for N epochs; each finished run is appended at once, and a rerun
    skips every (task, epoch) already in the output, so Ctrl-C loses nothing finished."""
    import asyncio

    from pathjudge.agent.collect import collect_suite, resolve_run_options
    from pathjudge.rubrics.suite import load_suite

    options = resolve_run_options(
        agent=agent,
        backend=backend,
        model=model,
        base_url=base_url,
        epochs=epochs,
        concurrency=concurrency,
        max_steps=max_steps,
        retriever=retriever,
    )
    loaded = load_suite(suite)
    try:
        result = asyncio.run(collect_suite(loaded, output, options, only=task))
    except KeyboardInterrupt:
        err_console.print(
            f"interrupted; every finished run is saved in {output} — rerun the same command to resume."
        )
        raise typer.Exit(130) from None
    out_console.print(
        f"{result.written} runs written to {result.output} "
        f"({result.skipped} of {result.planned} already finished; "
        f"agent {options.agent}, {options.backend}:{options.model}, {options.epochs} epoch(s))"
    )
    if result.failed:
        for failure in result.failed[:20]:
            err_console.print(
                f"[red]failed:[/] {failure.task_id} epoch {failure.epoch}: {failure.error}",
                markup=True,
            )
        if len(result.failed) > 20:
            err_console.print(f"... and {len(result.failed) - 20} more")
        err_console.print(
            f"{len(result.failed)} runs failed and were not written; rerun the same command to retry them."
        )
        raise typer.Exit(1)
