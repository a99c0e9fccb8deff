"""``pathjudge panel``: several judges on one criterion, aggregated into a judge of their own.

Reads one verdicts file per judge (``pathjudge judge --model ... -o FILE``), writes the panel's
verdicts (``-o``, a verdicts file ``calibrate --verdicts`` gates like any judge's), prints the
judges' agreement (Krippendorff's alpha) and, with ``--items`` and ``--queue``, writes the items
they disagree on as the labelling page's next queue. Exit codes: 0 done, 2 bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import app, err_console, human_console, write_json
from pathjudge._cli.options import BootstrapSeed, JsonOut

_Verdicts = Annotated[
    list[Path], typer.Argument(help="One verdicts JSONL per judge (two or more), one criterion.")
]
_Output = Annotated[Path, typer.Option("-o", "--output", help="The panel's verdicts JSONL.")]
_Rule = Annotated[
    str,
    typer.Option("--rule", help="majority (more than half the judges) or unanimous (every judge)."),
]
_Criterion = Annotated[
    str | None,
    typer.Option("--criterion", help="The criterion, when the files hold several."),
]
_Items = Annotated[
    Path | None,
    typer.Option("--items", help="The items file the judges judged (needed by --queue)."),
]
_Queue = Annotated[
    Path | None,
    typer.Option(
        "--queue",
        help="Write the items the judges disagree on here, most divided first: an items file "
        "for `pathjudge label QUEUE --order file`.",
    ),
]
_Bootstrap = Annotated[int, typer.Option(min=0, help="Bootstrap resamples for alpha.")]


@app.command()
def panel(
    verdicts: _Verdicts,
    output: _Output,
    rule: _Rule = "majority",
    criterion: _Criterion = None,
    items: _Items = None,
    queue_out: _Queue = None,
    bootstrap: _Bootstrap = 2000,
    seed: BootstrapSeed = 0,
    json_out: JsonOut = None,
) -> None:
    """Aggregate several judges of one criterion (majority or unanimous), with their agreement."""
    from pathjudge._io import write_jsonl
    from pathjudge.calibration.label_app import read_label_items
    from pathjudge.calibration.panel import disagreement_queue, panel_records, run_panel
    from pathjudge.calibration.verdicts import load_verdicts
    from pathjudge.errors import InputError

    if rule not in ("majority", "unanimous"):
        raise InputError(
            f"unknown --rule {rule!r}", field="--rule", hint="use majority or unanimous"
        )
    if queue_out is not None and items is None:
        raise InputError(
            "--queue needs --items (the label page shows each item's inputs)",
            field="--items",
            hint="give the items file the judges judged",
        )
    report = run_panel(
        [load_verdicts(path) for path in verdicts],
        "majority" if rule == "majority" else "unanimous",
        criterion=criterion,
        n_bootstrap=bootstrap,
        seed=seed,
    )
    queue = (
        disagreement_queue(report, read_label_items(items), items_file=items)
        if queue_out is not None and items is not None
        else None
    )
    write_jsonl(output, panel_records(report))
    if queue_out is not None and queue is not None:
        write_jsonl(queue_out, queue)
    console = human_console(json_out)
    counts = report.counts()
    console.print(
        f"{len(report.judges)} judges ({', '.join(report.judges)}) on "
        f"{report.criterion or '(unnamed criterion)'}: {len(report.items)} items, "
        f"{len(report.disagreements)} where they disagree; panel {rule}: "
        + ", ".join(f"{n} {name}" for name, n in counts.items() if n),
        markup=False,
    )
    alpha = report.agreement.describe() if report.agreement else "no item has two verdicts"
    console.print(f"judge-judge agreement: {alpha.removeprefix('rater-rater ')}", markup=False)
    err_console.print(f"wrote {output}")
    if queue_out is not None:
        err_console.print(
            f"wrote {queue_out}: label it next with "
            f"`pathjudge label {queue_out} --order file --criterion ...`"
        )
    write_json(json_out, report.model_dump_json(indent=2))
