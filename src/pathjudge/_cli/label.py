"""``pathjudge label``: hand-label items against one criterion in a local web page.

Serves :mod:`pathjudge.calibration.label_app` on 127.0.0.1 (a random port with ``--port 0``) behind a
per-run token, prints the URL and opens the browser. Every label is appended to ``-o`` the moment it
is given (see :mod:`pathjudge.calibration.label_store`), so stopping the server loses nothing and a
restart resumes at the first unlabelled item. Exit codes: 0 stopped normally, 2 bad input or the
``label`` extra missing, 130 stopped with Ctrl-C (every label given is already on disk).
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from pathjudge._cli.app import app, err_console, out_console

if TYPE_CHECKING:
    from pathjudge.calibration.label_app import LabelItem, LabelSession
    from pathjudge.rubrics.criteria import Criterion


_Items = Annotated[
    Path,
    typer.Argument(
        help="Items JSONL: one {item_id, inputs: {name: text or trajectory}} per line "
        "(optional split, group, slice)."
    ),
]
_Criterion = Annotated[
    str,
    typer.Option(
        "--criterion", help="A built-in criterion id or a criterion YAML path (what to judge)."
    ),
]
_Output = Annotated[
    Path,
    typer.Option("-o", "--output", help="The label file (JSONL, appended to; a restart resumes)."),
]
_Rater = Annotated[str, typer.Option("--rater", help="Who is labelling (a stable id, e.g. 'ana').")]
_Verdicts = Annotated[
    Path | None,
    typer.Option(
        "--verdicts",
        help="The judge's verdicts JSONL: hidden until an item is labelled (see --show-judge); "
        "needed by --order gates; adds rater-vs-judge disagreements to --adjudicate.",
    ),
]
_ShowJudge = Annotated[
    bool,
    typer.Option("--show-judge", help="Reveal the judge's verdict once you have labelled an item."),
]
_Order = Annotated[
    str,
    typer.Option(
        "--order",
        help="random (default; --seed), file (as in the items file) or gates (the items that "
        "matter most for the judge's gates first; needs --verdicts).",
    ),
]
_Seed = Annotated[int, typer.Option("--seed", help="Seed of the random order.")]
_Raters = Annotated[
    str | None,
    typer.Option(
        "--raters",
        help="The whole team, comma-separated (a,b,c): each item goes to one rater by a "
        "stable hash, and a share --overlap to every rater.",
    ),
]
_Overlap = Annotated[
    float,
    typer.Option(
        "--overlap", help="Share of the items every rater of --raters labels (double-coding)."
    ),
]
_Adjudicate = Annotated[
    bool,
    typer.Option(
        "--adjudicate",
        help="Settle disagreements in -o (rater vs rater, and rater vs judge with --verdicts).",
    ),
]
_Host = Annotated[
    str,
    typer.Option(
        "--host", help="Address to bind (default 127.0.0.1; another address shares on a LAN)."
    ),
]
_Port = Annotated[int, typer.Option("--port", help="Port (0: any free port).")]
_NoBrowser = Annotated[
    bool, typer.Option("--no-browser", help="Print the URL only; do not open a browser.")
]


@app.command()
def label(
    items: _Items,
    criterion: _Criterion,
    output: _Output,
    rater: _Rater,
    verdicts: _Verdicts = None,
    show_judge: _ShowJudge = False,
    order: _Order = "random",
    seed: _Seed = 0,
    raters: _Raters = None,
    overlap: _Overlap = 0.0,
    adjudicate: _Adjudicate = False,
    host: _Host = "127.0.0.1",
    port: _Port = 0,
    no_browser: _NoBrowser = False,
) -> None:
    """Hand-label items in a local web page (keyboard first; every label saved at once)."""
    from pathjudge._optional import require
    from pathjudge.calibration.label_app import (
        allowed_hosts,
        create_app,
        judge_verdicts,
        read_label_items,
    )
    from pathjudge.rubrics.criteria import get_criterion

    require("starlette", "label", "pathjudge label")
    uvicorn = require("uvicorn", "label", "pathjudge label")
    _check_options(order, rater, overlap)
    the_criterion = get_criterion(criterion)
    all_items = read_label_items(items, the_criterion)
    judged = judge_verdicts(verdicts, the_criterion.id) if verdicts is not None else None
    if adjudicate:
        session = _adjudication(all_items, the_criterion, output, rater.strip(), judged)
    else:
        team = [name.strip() for name in raters.split(",") if name.strip()] if raters else []
        session = _labelling(
            all_items, the_criterion, output, rater.strip(), judged, team=team, overlap=overlap,
            order=order, seed=seed, verdicts=verdicts, show_judge=show_judge,
        )  # fmt: skip
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    session.allowed_hosts = allowed_hosts(host, bound)
    session.port = bound
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{bound}/?token={session.token}"
    what = "disagreements to settle" if adjudicate else "items to label"
    done = sum(1 for p in session.items if p.item.item_id in session.labelled_ids())
    err_console.print(
        f"{len(session.items)} {what} ({done} done) · criterion {the_criterion.id} "
        f"v{the_criterion.version} · rater {session.rater} · labels → {output}"
    )
    out_console.print(url, markup=False, highlight=False, soft_wrap=True)
    out_console.file.flush()
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(
        create_app(session), log_level="warning", access_log=False, lifespan="off"
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    err_console.print(f"stopped; labels are in {output}")


def _warn(message: str) -> None:
    err_console.print(f"warning: {message}")


def _check_options(order: str, rater: str, overlap: float) -> None:
    """Refuse an unknown --order, an empty --rater and an --overlap outside 0..1."""
    from pathjudge.errors import InputError

    if order not in ("random", "file", "gates"):
        raise InputError(
            f"--order must be random, file or gates, got {order!r}",
            field="--order",
            hint="e.g. --order random --seed 0",
        )
    if not rater.strip():
        raise InputError("--rater is empty", field="--rater", hint="give your name or initials")
    if not 0.0 <= overlap <= 1.0:
        raise InputError(
            f"--overlap must be between 0 and 1, got {overlap}",
            field="--overlap",
            hint="e.g. 0.2 double-codes a fifth of the items",
        )


def _adjudication(
    all_items: list[LabelItem],
    criterion: Criterion,
    output: Path,
    rater: str,
    judged: dict[str, str] | None,
) -> LabelSession:
    """A session over the disagreements already in ``output`` (and with the judge, if given)."""
    from pathjudge.calibration.label_app import LabelSession, Placed, find_disagreements
    from pathjudge.calibration.label_store import read_events

    found = find_disagreements(all_items, read_events(output, warn=_warn), criterion.id, judged)
    placed = [Placed(d.item, i, d.reason) for i, d in enumerate(found)]
    return LabelSession(
        criterion=criterion,
        items=placed,
        output=output,
        rater=rater,
        order="adjudication",
        seed=None,
        verdicts=judged,
        adjudicate=True,
        disagreements={d.item.item_id: d for d in found},
        warn=_warn,
    )


def _labelling(
    all_items: list[LabelItem],
    criterion: Criterion,
    output: Path,
    rater: str,
    judged: dict[str, str] | None,
    *,
    team: list[str],
    overlap: float,
    order: str,
    seed: int,
    verdicts: Path | None,
    show_judge: bool,
) -> LabelSession:
    """A session over this rater's share of the items, in the --order asked for."""
    from pathjudge.calibration.label_app import LabelSession, assign_items, judge_votes, next_items
    from pathjudge.calibration.label_store import current_labels, read_events

    mine = assign_items(all_items, rater, team, overlap)
    ordered, used = next_items(
        mine,
        population=all_items,
        order=_order(order),
        seed=seed,
        verdicts=judge_votes(verdicts, criterion.id)
        if verdicts is not None and order == "gates"
        else judged,
        labels={
            event.item_id: event
            for event in current_labels(read_events(output, warn=_warn)).values()
            if event.criterion == criterion.id and event.kind == "label" and event.rater == rater
        }
        if order == "gates"
        else None,
        warn=_warn,
    )
    return LabelSession(
        criterion=criterion,
        items=ordered,
        output=output,
        rater=rater,
        order=used,
        seed=seed if used == "random" else None,
        verdicts=judged,
        show_judge=show_judge,
        warn=_warn,
    )


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; every-address hosts refused, a LAN address warned of."""
    from pathjudge.errors import InputError

    if host in ("0.0.0.0", "::", ""):
        raise InputError(
            f"--host {host or repr(host)} listens on every address, so the page cannot tell its "
            "own address from a rebound one",
            field="--host",
            hint="give this machine's LAN address (e.g. --host 192.168.1.5); the URL then names it",
        )
    if host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print(
            f"warning: serving on {host}: anyone on that network who has the URL (with its token) "
            "can read the items and write labels"
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            field="--port",
            hint="pick another --port, or --port 0 for any free one",
        ) from None
    sock.listen(128)  # connections wait in the backlog until the server accepts them
    return sock


def _order(value: str) -> Literal["random", "gates", "file"]:
    return "file" if value == "file" else "gates" if value == "gates" else "random"
