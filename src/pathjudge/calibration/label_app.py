"""The hand-labelling page: a small local Starlette app over an items file and a label store.

:func:`create_app` builds the app for one :class:`LabelSession` (what ``pathjudge label`` serves):

- ``GET /`` the page (plain HTML/CSS/JS shipped in ``label_assets/``; nothing fetched from the
  network), ``GET /assets/{name}`` its script and style;
- ``GET /api/state`` the criterion, progress (labelled N of M, per class, per slice) and the order
  (each item's id, position, label and why it comes there);
- ``GET /api/item/{position}`` one item's inputs (and, when allowed, the judge's verdict);
- ``POST /api/label`` ``{"position", "label", "note"}`` appends a :class:`LabelEvent`;
- ``POST /api/undo`` takes back this session's last label.

Every request must carry the run's token (``?token=`` once, then the cookie the page sets) and a
``Host`` header naming the address the server is bound to: anything else is a 403, so another web
page (DNS rebinding, a cross-site form) cannot read or write labels. Item text is data: the server
sends it as JSON only, the page writes it with ``textContent``, and the Content-Security-Policy
allows no script but the page's own file and no network access but this server.

Ordering: :func:`next_items` places the (assigned) items in the order the rater sees them, each with a
short reason; ``gates`` is delegated to :mod:`pathjudge.calibration.queue`.
Several raters: :func:`assign_items` gives a deterministic share ``overlap`` of the items to every rater
(double-coding) and splits the rest between the raters by a stable hash of the item id.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from pathjudge._ids import ItemId
from pathjudge._io import record_error_from_validation
from pathjudge.calibration import queue
from pathjudge.calibration.adjudication import disagreement_kind
from pathjudge.calibration.label_store import (
    LabelEvent,
    LabelOrder,
    LabelValue,
    append_label,
    current_labels,
    item_content_hash,
    read_events,
)
from pathjudge.calibration.labels import slice_keys
from pathjudge.errors import InputError

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from pathjudge.calibration.verdicts import ItemVotes
    from pathjudge.rubrics.criteria import Criterion

__all__ = [
    "COOKIE",
    "CSP",
    "Disagreement",
    "LabelItem",
    "LabelSession",
    "Placed",
    "allowed_hosts",
    "assign_items",
    "create_app",
    "find_disagreements",
    "judge_verdicts",
    "judge_votes",
    "next_items",
    "read_label_items",
]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'none'; "
    "font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own script and style only, no inline code, no network
access but this server (``connect-src 'self'``), not framed by another page."""

COOKIE = "pathjudge_label"
_ASSETS = {"label.js": "text/javascript", "label.css": "text/css"}
OrderName = Literal["random", "gates", "file"]


# --------------------------------------------------------------------------------------------------
# Items


class _ItemLine(BaseModel):
    """One line of an items file as the labelling page reads it (a judge items line, plus optional
    ``split``, ``group``, ``slice`` and ``metadata``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: ItemId = Field(description="Unique id (an integer is read as text).")
    inputs: dict[str, JsonValue] = Field(
        description="The criterion's named inputs: text, or a trajectory (a list of steps)."
    )
    split: Literal["train", "dev", "test"] | None = Field(default=None, description="Its split.")
    group: str | None = Field(default=None, description="Its group, e.g. the task id.")
    slice: dict[str, str] = Field(default_factory=dict, description="Slice keys, e.g. domain.")
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="Anything else.")


@dataclass(frozen=True)
class LabelItem:
    """An item to label: its inputs, where it sits in the file, and what its labels carry along."""

    item_id: str
    inputs: Mapping[str, JsonValue]
    line: int
    item_hash: str
    split: Literal["train", "dev", "test"] | None = None
    group: str | None = None
    slice: Mapping[str, str] = field(default_factory=dict)


def read_label_items(path: Path, criterion: Criterion | None = None) -> list[LabelItem]:
    """Read an items file (line-numbered errors); a duplicate id, or an item that lacks one of the
    criterion's inputs, is an :class:`InputError` naming the line."""
    from pathjudge.judge.items import numbered_items

    items: list[LabelItem] = []
    for number, line in numbered_items(path, _ItemLine):
        if criterion is not None:
            missing = [name for name in criterion.inputs if name not in line.inputs]
            if missing:
                raise InputError(
                    f"item {line.item_id!r} lacks input(s) {missing} needed by criterion "
                    f"{criterion.id!r}",
                    file=path,
                    line=number,
                    field="inputs",
                    hint=f"supply all of {list(criterion.inputs)}",
                )
        items.append(
            LabelItem(
                item_id=line.item_id,
                inputs=line.inputs,
                line=number,
                item_hash=item_content_hash(line.inputs),
                split=line.split,
                group=line.group if line.group is not None else _text(line.metadata.get("group")),
                slice=slice_keys(line.slice, line.metadata),
            )
        )
    return items


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------------------------------
# Assignment and order


def assign_items(
    items: Sequence[LabelItem], rater: str, raters: Sequence[str], overlap: float
) -> list[LabelItem]:
    """The items ``rater`` labels when the team ``raters`` shares the work.

    A share ``overlap`` of the items (chosen by a stable hash of the item id, so the same items for
    every rater and every run) goes to everyone: those are double-coded, for agreement between
    raters. Each other item goes to exactly one rater, also by a stable hash of its id. With no team
    (or a team of one) every item is the rater's. The result keeps the input order.
    """
    team = sorted(set(raters))
    if len(team) <= 1:
        return list(items)
    if rater not in team:
        raise InputError(
            f"--rater {rater!r} is not one of --raters {','.join(team)}",
            field="--rater",
            hint="add the rater to the team, or fix the spelling",
        )
    if not 0.0 <= overlap <= 1.0:
        raise InputError(
            f"--overlap must be between 0 and 1, got {overlap}",
            field="--overlap",
            hint="e.g. 0.2 double-codes a fifth of the items",
        )
    out = []
    for item in items:
        if (
            queue.stable_unit("overlap", item.item_id) < overlap
            or team[int(queue.stable_unit("assign", item.item_id) * len(team))] == rater
        ):
            out.append(item)
    return out


@dataclass(frozen=True)
class Placed:
    """An item in the rater's order: its 0-based place and why it comes there."""

    item: LabelItem
    position: int
    reason: str
    stratum: tuple[str, int] | None = None
    """The gates order's stratum of the item and its size (N_h), recorded with the label."""


def next_items(
    items: Sequence[LabelItem],
    *,
    order: OrderName,
    seed: int = 0,
    verdicts: Mapping[str, Any] | None = None,
    labels: Mapping[str, LabelEvent] | None = None,
    warn: Callable[[str], None] | None = None,
    population: Sequence[LabelItem] | None = None,
) -> tuple[list[Placed], LabelOrder]:
    """Place ``items`` in the order the rater labels them, with a reason for each; also return the
    order actually used.

    ``file``: as in the items file. ``random``: shuffled by a stable hash of ``seed`` and the item
    id (the same order on every restart, whatever the file order). ``gates``: the items labelled
    already (``labels``: this rater's current labels by item id) first, then the rest in the order
    ``pathjudge.calibration.queue.next_items`` gives from the judge's ``verdicts`` (item id →
    :class:`~pathjudge.calibration.verdicts.ItemVotes` or a verdict string) and those labels, with
    its reason per item. Without verdicts, ``warn`` says why and the random
    order is used. ``population``: every item of the file when ``items`` are this rater's share of
    it; the gates order records each stratum's size over the whole file, so that every rater's
    labels weigh alike.
    """
    if order == "gates":
        if verdicts is None:
            if warn is not None:
                warn(
                    "--order gates needs --verdicts (the judge's verdicts decide which items matter "
                    f"most); using the random order (seed {seed}) instead"
                )
            order = "random"
        else:
            return _gates_order(items, verdicts, labels or {}, seed, population), "gates"
    if order == "file":
        return (
            [Placed(item, i, f"file order (line {item.line})") for i, item in enumerate(items)],
            "file",
        )
    shuffled = sorted(items, key=lambda item: queue.stable_unit("order", seed, item.item_id))
    return (
        [Placed(item, i, f"random order (seed {seed})") for i, item in enumerate(shuffled)],
        "random",
    )


def _gates_order(
    items: Sequence[LabelItem],
    verdicts: Mapping[str, Any],
    labels: Mapping[str, LabelEvent],
    seed: int,
    population: Sequence[LabelItem] | None = None,
) -> list[Placed]:
    """The labelled items (random order) and then ``queue.next_items``' order of the others, each
    with its stratum over ``population`` (default: ``items``)."""
    current = {
        item.item_id: labels[item.item_id]
        for item in items
        if item.item_id in labels and labels[item.item_id].item_hash == item.item_hash
    }
    by_id = {item.item_id: item for item in items}
    done = sorted(
        (item for item in items if item.item_id in current),
        key=lambda item: queue.stable_unit("order", seed, item.item_id),
    )
    design = queue.strata(population or items, verdicts)
    placed = [
        Placed(
            item, i, current[item.item_id].reason or "labelled earlier", design.get(item.item_id)
        )
        for i, item in enumerate(done)
    ]
    for item_id, reason in queue.next_items(items, verdicts, current, None, "gates", seed):
        placed.append(Placed(by_id[item_id], len(placed), str(reason), design.get(item_id)))
    return placed


# --------------------------------------------------------------------------------------------------
# Adjudication


@dataclass(frozen=True)
class Disagreement:
    """One item whose labels disagree (rater vs rater, or rater vs judge)."""

    item: LabelItem
    labels: tuple[LabelEvent, ...]
    judge: str | None
    reason: str


def find_disagreements(
    items: Sequence[LabelItem],
    events: Iterable[LabelEvent],
    criterion: str,
    judge: Mapping[str, str] | None = None,
) -> list[Disagreement]:
    """Every item (in file order) whose current labels under ``criterion`` disagree: two raters
    gave different labels (``unsure`` counts: it needs settling too), or, with the judge's verdicts
    (item id → pass/fail/unsure), a rater's pass/fail differs from the judge's pass/fail. An item
    labelled by one rater alone, with no judge verdict, has nothing to disagree with."""
    by_item: dict[str, list[LabelEvent]] = {}
    for event in current_labels(events).values():
        if event.kind == "label" and event.criterion == criterion:
            by_item.setdefault(event.item_id, []).append(event)
    out: list[Disagreement] = []
    for item in items:
        labels = by_item.get(item.item_id, [])
        if not labels:
            continue
        verdict = judge.get(item.item_id) if judge is not None else None
        said = ", ".join(f"{event.rater} says {event.label}" for event in labels)
        kind = disagreement_kind([event.label for event in labels], verdict)
        if kind == "rater-rater":
            out.append(Disagreement(item, tuple(labels), verdict, said))
        elif kind == "rater-judge":
            out.append(
                Disagreement(item, tuple(labels), verdict, f"{said}; the judge says {verdict}")
            )
    return out


def judge_votes(path: Path, criterion: str) -> dict[str, ItemVotes]:
    """The judge's samples per item id for ``criterion`` from a verdicts file (either shape; lines
    without a criterion count for any criterion)."""
    from pathjudge.calibration.verdicts import load_verdicts

    verdict_set = load_verdicts(path)
    out: dict[str, ItemVotes] = {}
    for key in (None, criterion):
        for votes in verdict_set.items(key):
            out[votes.item_id] = votes
    return out


def judge_verdicts(path: Path, criterion: str) -> dict[str, str]:
    """The judge's majority verdict per item id for ``criterion`` (``error`` where every sample
    errored), as the page shows it."""
    return {
        item_id: "error" if votes.errored else votes.majority
        for item_id, votes in judge_votes(path, criterion).items()
    }


# --------------------------------------------------------------------------------------------------
# The session


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class _LabelBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    position: int = Field(ge=0, description="The item's place in the order.")
    label: LabelValue = Field(description="pass, fail or unsure.")
    note: str | None = Field(default=None, max_length=20_000, description="The rationale.")


def _is_trajectory(value: JsonValue) -> bool:
    if isinstance(value, str):
        text = value.lstrip()
        if not text.startswith(("[", "{")):
            return False
        try:
            value = json.loads(value)
        except ValueError:
            return False
    if isinstance(value, dict):
        value = value.get("steps")
    return isinstance(value, list) and bool(value) and all(isinstance(s, dict) for s in value)


def _trajectory(value: JsonValue) -> dict[str, JsonValue]:
    """A trajectory input as ``{"steps": [...], "final_answer": ..., "input": ...}``."""
    if isinstance(value, str):
        value = json.loads(value)
    if isinstance(value, list):
        return {"steps": value}
    assert isinstance(value, dict)
    return {
        "steps": value.get("steps"),
        "input": value.get("input"),
        "final_answer": value.get("final_answer"),
        "replies": value.get("replies"),
    }


@dataclass
class LabelSession:
    """One rater's labelling run: the criterion, the ordered items, the label file, and the undo
    stack. Thread-safe (the server handles requests in a thread pool)."""

    criterion: Criterion
    items: list[Placed]
    output: Path
    rater: str
    order: LabelOrder
    seed: int | None
    verdicts: Mapping[str, str] | None = None
    show_judge: bool = False
    adjudicate: bool = False
    disagreements: Mapping[str, Disagreement] = field(default_factory=dict)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    allowed_hosts: frozenset[str] = frozenset()
    port: int | None = None
    warn: Callable[[str], None] | None = None
    _labels: dict[str, LabelEvent] = field(default_factory=dict, init=False)
    _undo: list[tuple[str, LabelEvent | None]] = field(default_factory=list, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self.reload()

    @property
    def cookie(self) -> str:
        """The token cookie's name: one per port, so two servers on one host keep their own."""
        return COOKIE if self.port is None else f"{COOKIE}_{self.port}"

    @property
    def kind(self) -> Literal["label", "adjudication"]:
        return "adjudication" if self.adjudicate else "label"

    def reload(self) -> None:
        """Read the label file again: this rater's current labels of these items (resume)."""
        hashes = {placed.item.item_id: placed.item.item_hash for placed in self.items}
        labels: dict[str, LabelEvent] = {}
        for (item_id, criterion, rater, kind), event in current_labels(
            read_events(self.output, warn=self.warn)
        ).items():
            if criterion != self.criterion.id or hashes.get(item_id) != event.item_hash:
                continue  # another criterion, another item, or the item changed since
            if self.adjudicate and kind == "adjudication":
                labels[item_id] = event  # settled by anyone: settled
            elif not self.adjudicate and kind == "label" and rater == self.rater:
                labels[item_id] = event
        self._labels = labels

    def labelled_ids(self) -> set[str]:
        """The ids of the items labelled (or, adjudicating, settled) so far."""
        with self._lock:
            return set(self._labels)

    def cursor(self) -> int:
        """Where to resume: the first unlabelled item in the order (the last one when all are)."""
        for placed in self.items:
            if placed.item.item_id not in self._labels:
                return placed.position
        return max(len(self.items) - 1, 0)

    def state(self) -> dict[str, Any]:
        with self._lock:
            counts = Counter(event.label for event in self._labels.values())
            slices: dict[str, dict[str, int]] = {}
            for placed in self.items:
                for key, value in placed.item.slice.items():
                    entry = slices.setdefault(f"{key}={value}", {"labelled": 0, "total": 0})
                    entry["total"] += 1
                    entry["labelled"] += placed.item.item_id in self._labels
            c = self.criterion
            return {
                "mode": self.kind,
                "rater": self.rater,
                "order": self.order,
                "seed": self.seed,
                "blind": not self.show_judge and not self.adjudicate,
                "has_verdicts": self.verdicts is not None,
                "criterion": {
                    "id": c.id,
                    "version": c.version,
                    "title": c.title,
                    "question": c.criterion,
                    "pass_means": c.pass_means,
                    "fail_means": c.fail_means,
                    "unsure_means": c.unsure_means,
                    "hash": c.content_hash,
                },
                "scale": None,
                "total": len(self.items),
                "labelled": sum(1 for p in self.items if p.item.item_id in self._labels),
                "counts": {v: counts.get(v, 0) for v in ("pass", "fail", "unsure")},
                "slices": dict(sorted(slices.items())),
                "cursor": self.cursor(),
                "can_undo": bool(self._undo),
                "items": [
                    {
                        "position": p.position,
                        "item_id": p.item.item_id,
                        "reason": p.reason,
                        "label": self._label_of(p.item.item_id),
                    }
                    for p in self.items
                ],
            }

    def _label_of(self, item_id: str) -> str | None:
        event = self._labels.get(item_id)
        return event.label if event is not None else None

    def item(self, position: int) -> dict[str, Any]:
        placed = self._placed(position)
        with self._lock:
            event = self._labels.get(placed.item.item_id)
        inputs = []
        names = list(self.criterion.inputs) + sorted(
            set(placed.item.inputs) - set(self.criterion.inputs)
        )
        for name in names:
            if name not in placed.item.inputs:
                continue
            value = placed.item.inputs[name]
            if _is_trajectory(value):
                inputs.append({"name": name, "kind": "trajectory", "value": _trajectory(value)})
            elif isinstance(value, str):
                inputs.append({"name": name, "kind": "text", "value": value})
            else:
                inputs.append(
                    {
                        "name": name,
                        "kind": "text",
                        "value": json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True),
                    }
                )
        texts = [entry for entry in inputs if entry["kind"] == "text"]
        document: dict[str, Any] = {
            "position": placed.position,
            "item_id": placed.item.item_id,
            "reason": placed.reason,
            "split": placed.item.split,
            "group": placed.item.group,
            "slice": dict(placed.item.slice),
            "layout": "side-by-side" if len(texts) == 2 and len(inputs) == 2 else "stacked",
            "inputs": inputs,
            "label": event.label if event is not None else None,
            "note": event.note if event is not None else None,
            "judge": None,
            "others": [],
        }
        verdict = self.verdicts.get(placed.item.item_id) if self.verdicts is not None else None
        if self.adjudicate or (self.show_judge and event is not None):
            document["judge"] = verdict  # blind: never sent before the item is labelled
        if self.adjudicate:
            found = self.disagreements.get(placed.item.item_id)
            if found is not None:
                document["others"] = [
                    {"rater": e.rater, "label": e.label, "note": e.note} for e in found.labels
                ]
        return document

    def _placed(self, position: int) -> Placed:
        if not 0 <= position < len(self.items):
            raise KeyError(position)
        return self.items[position]

    def label(self, body: _LabelBody) -> LabelEvent:
        from pathjudge import __version__

        placed = self._placed(body.position)
        note = body.note.strip() if body.note else None
        event = LabelEvent(
            kind=self.kind,
            item_id=placed.item.item_id,
            criterion=self.criterion.id,
            criterion_version=self.criterion.version,
            criterion_hash=self.criterion.content_hash,
            label=body.label,
            score=None,
            note=note or None,
            rater=self.rater,
            labelled_at=_now(),
            item_hash=placed.item.item_hash,
            pathjudge_version=__version__,
            order=self.order,
            seed=self.seed,
            position=placed.position,
            reason=placed.reason,
            stratum=placed.stratum[0] if placed.stratum else None,
            stratum_size=placed.stratum[1] if placed.stratum else None,
            split=placed.item.split,
            group=placed.item.group,
            slice=dict(placed.item.slice),
        )
        with self._lock:
            append_label(self.output, event)
            self._undo.append((placed.item.item_id, self._labels.get(placed.item.item_id)))
            self._labels[placed.item.item_id] = event
        return event

    def undo(self) -> dict[str, Any]:
        """Take back this session's last label: an earlier label of that item is written again
        (so it is current once more); an item labelled for the first time is reopened. The file
        keeps every line (history); returns ``{"position", "label"}`` of the item to go back to."""
        with self._lock:
            if not self._undo:
                return {"position": None, "label": None}
            item_id, previous = self._undo.pop()
            placed = next(p for p in self.items if p.item.item_id == item_id)
            if previous is not None:
                again = previous.model_copy(update={"labelled_at": _now()})
                append_label(self.output, again)
                self._labels[item_id] = again
            else:
                self._labels.pop(item_id, None)
            return {"position": placed.position, "label": previous.label if previous else None}


# --------------------------------------------------------------------------------------------------
# The app


def _asset(name: str) -> bytes:
    return resources.files("pathjudge.calibration").joinpath("label_assets", name).read_bytes()


def create_app(session: LabelSession) -> Starlette:
    """The Starlette app serving ``session`` (see the module docstring for its routes and guards)."""
    from pathjudge._optional import require

    require("starlette", "label", "the labelling page")
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send

    security = {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Resource-Policy": "same-origin",
    }

    def index(request: Request) -> Response:
        if request.query_params.get("token"):
            # the token moves into a cookie and out of the address bar (and of the history)
            response: Response = RedirectResponse("/", status_code=303, headers=security)
            response.set_cookie(
                session.cookie, session.token, httponly=True, samesite="strict", path="/"
            )
            return response
        return Response(_asset("index.html"), media_type="text/html", headers=security)

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _ASSETS:
            return PlainTextResponse("not found", status_code=404, headers=security)
        return Response(_asset(name), media_type=_ASSETS[name], headers=security)

    def state(request: Request) -> Response:
        return JSONResponse(session.state(), headers=security)

    def item(request: Request) -> Response:
        try:
            position = int(request.path_params["position"])
            return JSONResponse(session.item(position), headers=security)
        except (KeyError, ValueError):
            return JSONResponse({"error": "no such item"}, status_code=404, headers=security)

    async def label(request: Request) -> Response:
        try:
            body = _LabelBody.model_validate_json(await request.body())
            session._placed(body.position)
        except ValidationError as exc:
            problem = record_error_from_validation(exc, file=None, line=None, what="label")
            return JSONResponse({"error": str(problem)}, status_code=400, headers=security)
        except KeyError:
            return JSONResponse({"error": "no such item"}, status_code=404, headers=security)
        try:
            event = session.label(body)
        except ValidationError as exc:
            problem = record_error_from_validation(exc, file=None, line=None, what="label")
            return JSONResponse({"error": str(problem)}, status_code=400, headers=security)
        return JSONResponse(
            {"item_id": event.item_id, "label": event.label, "position": event.position},
            headers=security,
        )

    def undo(request: Request) -> Response:
        return JSONResponse(session.undo(), headers=security)

    routes = [
        Route("/", index),
        Route("/assets/{name}", asset),
        Route("/api/state", state),
        Route("/api/item/{position}", item),
        Route("/api/label", label, methods=["POST"]),
        Route("/api/undo", undo, methods=["POST"]),
    ]

    class Guard:
        """Refuses (403) every request without the token or with a foreign Host header."""

        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                reason = _refusal(scope, session)
                if reason is not None:
                    refused = PlainTextResponse(reason, status_code=403, headers=security)
                    await refused(scope, receive, send)
                    return
            await self.app(scope, receive, send)

    app = Starlette(routes=routes, middleware=[Middleware(Guard)])
    app.state.session = session
    return app


def _refusal(scope: MutableMapping[str, Any], session: LabelSession) -> str | None:
    """Why a request is refused (403), or None: a Host other than the bound address, no token, or
    a write that is not JSON (a cross-site form cannot send one without asking first)."""
    from urllib.parse import parse_qs

    from starlette.datastructures import Headers
    from starlette.requests import cookie_parser

    headers = Headers(scope=scope)
    host = headers.get("host", "")
    if session.allowed_hosts and host.lower() not in session.allowed_hosts:
        return "forbidden: unknown Host header"
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    candidates = [
        *query.get("token", []),
        cookie_parser(headers.get("cookie", "")).get(session.cookie),
    ]
    expected = session.token.encode()
    if not any(
        given is not None and secrets.compare_digest(given.encode(), expected)
        for given in candidates
    ):
        return "forbidden: open the URL that pathjudge label printed (it carries the token)"
    if scope.get("method") == "POST" and not headers.get("content-type", "").startswith(
        "application/json"
    ):
        return "forbidden: writes are JSON"
    return None


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` headers a server bound to ``host:port`` accepts: that address (and, for a
    loopback address, ``localhost`` and ``127.0.0.1``)."""
    names = {host}
    if host in ("127.0.0.1", "localhost", "::1"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    if ":" in host and not host.startswith("["):
        names.add(f"[{host}]")
    return frozenset(f"{name}:{port}".lower() for name in names)
