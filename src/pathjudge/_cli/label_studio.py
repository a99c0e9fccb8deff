"""``pathjudge label-studio``: items out as Label Studio tasks, annotations back as label events.

``pathjudge label-studio export ITEMS -o tasks.json`` writes the tasks and, beside them,
``tasks.label_config.xml`` (paste it into the project's Labeling Interface);
``pathjudge label-studio import EXPORT.json -o labels.jsonl --criterion ID`` reads the project's JSON
export into a label log that ``pathjudge calibrate --labels`` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from pathjudge._cli.app import command_group, err_console

label_studio_app = command_group(
    "label-studio", "Label Studio interop: export items as tasks, import annotations as labels."
)


def _read_items(path: Path) -> list[dict[str, Any]]:
    from pydantic import BaseModel, ConfigDict, Field, JsonValue

    from pathjudge._io import iter_jsonl
    from pathjudge.errors import InputError

    class _Item(BaseModel):
        model_config = ConfigDict(frozen=True, extra="ignore")

        item_id: str | int = Field(description="The item's id.")
        inputs: dict[str, JsonValue] = Field(description="Its named inputs.")

    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line, item in iter_jsonl(path, _Item, what="item").numbered():
        item_id = str(item.item_id)
        if item_id in seen:
            raise InputError(
                f"item id {item_id!r} appears twice",
                file=path,
                line=line,
                field="item_id",
                hint="item ids must be unique",
            )
        seen.add(item_id)
        out.append({"item_id": item_id, "inputs": item.inputs})
    return out


@label_studio_app.command("export")
def export_tasks(
    items: Annotated[Path, typer.Argument(help="Items JSONL ({item_id, inputs} per line).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Tasks JSON to write.")],
    criterion: Annotated[
        str | None,
        typer.Option(help="Criterion id or YAML path: its question heads the labelling config."),
    ] = None,
) -> None:
    """Write the items as Label Studio tasks, and the labelling config (XML) beside them."""
    import json

    from pathjudge._io import write_text_atomic
    from pathjudge.calibration.label_studio import labelling_config, tasks_from_items

    records = _read_items(items)
    question = None
    if criterion is not None:
        from pathjudge.rubrics.criteria import get_criterion

        found = get_criterion(criterion)
        question = f"{found.id}: {found.criterion}"
    config_path = output.with_name(f"{output.stem}.label_config.xml")
    config = labelling_config(records, question=question)
    tasks = tasks_from_items(records)
    write_text_atomic(output, json.dumps(tasks, indent=1, ensure_ascii=False) + "\n")
    write_text_atomic(config_path, config)
    err_console.print(f"wrote {output} ({len(tasks)} tasks) and {config_path}", markup=False)


@label_studio_app.command("import")
def import_annotations(
    export: Annotated[Path, typer.Argument(help="Label Studio JSON export of the project.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Label log to write (appended if it exists).")
    ],
    criterion: Annotated[
        str, typer.Option(help="The criterion the labels answer (id or YAML path).")
    ],
    items: Annotated[
        Path | None,
        typer.Option(help="The items file, for tasks that do not carry their content hash."),
    ] = None,
    random_order: Annotated[
        bool,
        typer.Option(
            "--random-order",
            help="The project showed tasks in uniform random order (Label Studio's 'Uniform "
            "sampling'): the labels then count as a random sample for PPI++.",
        ),
    ] = False,
) -> None:
    """Read a Label Studio JSON export into label events (rater, time, note kept)."""
    import json

    from pathjudge import __version__
    from pathjudge.calibration.label_store import append_label, item_content_hash
    from pathjudge.calibration.label_studio import events_from_export
    from pathjudge.errors import InputError
    from pathjudge.rubrics.criteria import get_criterion

    found = get_criterion(criterion)
    try:
        data = json.loads(export.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("not found", file=export, hint="check the path") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"is not JSON ({exc})", file=export, hint="export the project as JSON from Label Studio"
        ) from None
    hashes = (
        {str(r["item_id"]): item_content_hash(r["inputs"]) for r in _read_items(items)}
        if items is not None
        else None
    )
    summary = events_from_export(
        data,
        criterion_id=found.id,
        criterion_version=found.version,
        criterion_hash=found.content_hash,
        pathjudge_version=__version__,
        current_hashes=hashes,
        order="random" if random_order else "file",
        file=export,
    )
    if output.exists():
        for event in summary.events:
            append_label(output, event)
    else:
        from pathjudge._io import write_text_atomic

        write_text_atomic(output, "".join(e.model_dump_json() + "\n" for e in summary.events))
    skipped = []
    if summary.cancelled:
        skipped.append(f"{summary.cancelled} skipped (cancelled) annotation(s)")
    if summary.without_verdict:
        skipped.append(f"{summary.without_verdict} annotation(s) without a verdict")
    err_console.print(
        f"wrote {len(summary.events)} label(s) from {summary.tasks} task(s) to {output}"
        + (f"; left out {', '.join(skipped)}" if skipped else ""),
        markup=False,
    )
