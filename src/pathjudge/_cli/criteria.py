"""``pathjudge criteria``: list the built-in judge criteria, show one, export one to edit.

``pathjudge criteria export summary-faithful -o my-faithful.yaml`` writes the built-in's YAML as it
ships; edit it (wording, examples) and judge with ``--criterion my-faithful.yaml``. Any edit changes
the criterion's content hash, so cached verdicts of the original are never reused for the copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathjudge._cli.app import command_group, err_console, out_console

criteria_app = command_group(
    "criteria", "The built-in judge criteria: list them, show one, export one to edit."
)


def _builtin_text(criterion_id: str) -> str:
    from importlib import resources

    from pathjudge.errors import CriterionError
    from pathjudge.rubrics.criteria import BUILTIN_CRITERIA

    if criterion_id not in BUILTIN_CRITERIA:
        raise CriterionError(
            f"no built-in criterion {criterion_id!r}",
            field="ID",
            hint="pick one of " + ", ".join(BUILTIN_CRITERIA) + " (see `pathjudge criteria list`)",
        )
    folder = resources.files("pathjudge.rubrics").joinpath("criteria")
    return folder.joinpath(f"{criterion_id}.yaml").read_text(encoding="utf-8")


@criteria_app.command("list")
def list_criteria(
    json_out: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """Every built-in criterion: id, version, inputs, examples and title (--json adds the content
    hash; `pathjudge criteria show ID` prints it with the YAML)."""
    import json

    from pathjudge.report.text import Column, print_table
    from pathjudge.rubrics.criteria import builtin_criteria

    library = builtin_criteria()
    if json_out:
        rows = [
            {
                "id": c.id,
                "version": c.version,
                "title": c.title,
                "inputs": list(c.inputs),
                "examples": len(c.examples),
                "content_hash": c.content_hash,
            }
            for c in library.values()
        ]
        out_console.print(json.dumps(rows, indent=2), markup=False, highlight=False)
        return
    # the table every other command prints (fits the terminal, ids whole or in a legend)
    print_table(
        out_console,
        f"{len(library)} built-in criteria",
        [
            Column("id", "id"),
            Column("version", "num"),
            Column("inputs", "text"),
            Column("examples", "num", "right"),
            Column("title", "text"),
        ],
        [
            (
                c.id,
                c.version,
                ", ".join(c.inputs),
                str(len(c.examples)),
                c.title or "—",
            )
            for c in library.values()
        ],
    )
    out_console.print(
        "show one: pathjudge criteria show ID · copy one to edit: pathjudge criteria export ID -o FILE"
    )


@criteria_app.command("show")
def show_criterion(
    criterion_id: Annotated[str, typer.Argument(metavar="ID", help="A built-in criterion id.")],
) -> None:
    """Print a built-in criterion's YAML (with its content hash), exactly as it ships.

    The YAML is never wrapped to the terminal (a folded line would not be valid YAML when copied):
    a line longer than the terminal is left to it.
    """
    from pathjudge.rubrics.criteria import builtin_criteria

    text = _builtin_text(criterion_id)
    crit = builtin_criteria()[criterion_id]
    out_console.print(
        f"# {crit.id} v{crit.version} · content hash {crit.content_hash}", soft_wrap=True
    )
    out_console.print(text.rstrip("\n"), soft_wrap=True)


@criteria_app.command("export")
def export_criterion(
    criterion_id: Annotated[str, typer.Argument(metavar="ID", help="A built-in criterion id.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the YAML copy.")],
    force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
) -> None:
    """Write a built-in criterion's YAML to a file, to edit and use with --criterion FILE."""
    from pathjudge.errors import InputError

    text = _builtin_text(criterion_id)
    if output.exists() and not force:
        raise InputError(
            "already exists",
            file=output,
            hint="choose another path, or pass --force to overwrite it",
        )
    _write(output, text)
    err_console.print(
        f"wrote {output}: edit it (a new 'id' keeps it apart from the built-in), then judge with "
        f"--criterion {output}"
    )


def _write(path: Path, text: str) -> None:
    from pathjudge._io import write_text_atomic
    from pathjudge.errors import InputError

    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise InputError(
            f"cannot be written ({exc.strerror or type(exc).__name__})",
            file=path,
            hint="choose a writable path",
        ) from None
