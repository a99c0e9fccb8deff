"""Label Studio interop: items out as tasks, annotations back in as label events.

A team that already runs a Label Studio server keeps it:

* :func:`tasks_from_items` turns items-file records into Label Studio tasks (``[{"data": {...}}]``,
  the JSON import shape): ``data`` holds the ``item_id``, the item's content hash
  (``pathjudge_item_hash``, so imported labels can be told stale later) and each input as text;
  :func:`labelling_config` is the matching labelling config (XML): every input as a ``<Text>``, a
  single ``pass``/``fail``/``unsure`` ``<Choices>`` named ``verdict``, and an optional ``note``.
* :func:`events_from_export` reads Label Studio's JSON export (a list of tasks, each with
  ``data`` and ``annotations[]``; an annotation has ``result[]`` of regions, ``completed_by``,
  ``created_at``, ``updated_at``, ``was_cancelled``) into
  :class:`~pathjudge.calibration.label_store.LabelEvent` s: the ``verdict`` choice is the label,
  the ``note`` text area the note, ``completed_by`` the rater (the user's email where the export
  has it, else ``label-studio-user-<id>``), ``updated_at`` (else ``created_at``) the time.
  Cancelled (skipped) annotations and annotations without a verdict are left out and counted.

Label Studio decides which task a rater sees next, so imported labels carry ``order: file`` (not a
random sample for PPI++) unless the caller says the project sampled tasks uniformly at random.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import JsonValue, ValidationError

from pathjudge.calibration.label_store import LabelEvent, item_content_hash
from pathjudge.errors import InputError

__all__ = [
    "CHOICES_NAME",
    "NOTE_NAME",
    "ImportSummary",
    "events_from_export",
    "labelling_config",
    "tasks_from_items",
]

CHOICES_NAME = "verdict"
"""The ``name`` of the pass/fail/unsure ``<Choices>`` in the labelling config."""
NOTE_NAME = "note"
"""The ``name`` of the rationale ``<TextArea>``."""
HASH_KEY = "pathjudge_item_hash"
_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_RESERVED = {"item_id", HASH_KEY}


def _data_keys(names: Iterable[str]) -> dict[str, str]:
    """Input name -> task data key: the name itself when it is a plain identifier, else input_<n>."""
    keys: dict[str, str] = {}
    for index, name in enumerate(names):
        key = name if _SAFE.fullmatch(name) and name not in _RESERVED else f"input_{index}"
        while key in keys.values():
            key += "_"
        keys[name] = key
    return keys


def _as_text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def _input_names(items: Sequence[Mapping[str, Any]]) -> list[str]:
    names: list[str] = []
    for item in items:
        for name in item.get("inputs") or {}:
            if name not in names:
                names.append(name)
    return names


def tasks_from_items(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Label Studio tasks (import shape) for items-file records ``{item_id, inputs, ...}``."""
    keys = _data_keys(_input_names(items))
    tasks: list[dict[str, Any]] = []
    for item in items:
        inputs: Mapping[str, JsonValue] = item.get("inputs") or {}
        data: dict[str, Any] = {"item_id": str(item["item_id"])}
        data[HASH_KEY] = item_content_hash(dict(inputs))
        for name, key in keys.items():
            data[key] = _as_text(inputs[name]) if name in inputs else ""
        tasks.append({"data": data})
    return tasks


def labelling_config(items: Sequence[Mapping[str, Any]], *, question: str | None = None) -> str:
    """The Label Studio labelling config (XML) for :func:`tasks_from_items`'s tasks.

    ``question``, when given, is shown first (e.g. the criterion's question). Every name and text
    is XML-escaped; task text is never part of the config.
    """
    keys = _data_keys(_input_names(items))
    lines = ["<View>"]
    if question:
        lines.append(f"  <Header value={quoteattr(question)}/>")
    target = "item"
    for name, key in keys.items():
        lines.append(f'  <Header value={quoteattr(name)} size="5"/>')
        lines.append(f"  <Text name={quoteattr('text_' + key)} value={quoteattr('$' + key)}/>")
        target = "text_" + key
    if not keys:
        lines.append('  <Text name="item" value="$item_id"/>')
    lines += [
        f'  <Choices name="{CHOICES_NAME}" toName={quoteattr(target)} choice="single-radio" '
        'required="true" showInline="true">',
        '    <Choice value="pass"/>',
        '    <Choice value="fail"/>',
        '    <Choice value="unsure"/>',
        "  </Choices>",
        f'  <TextArea name="{NOTE_NAME}" toName={quoteattr(target)} '
        'placeholder="Why (optional)" rows="2" maxSubmissions="1"/>',
        "</View>",
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ImportSummary:
    """What an import read: events made and annotations left out (with why)."""

    events: tuple[LabelEvent, ...]
    tasks: int
    cancelled: int
    without_verdict: int


def _rater(completed_by: Any) -> str | None:
    if isinstance(completed_by, Mapping):
        for key in ("email", "username"):
            value = completed_by.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        completed_by = completed_by.get("id")
    if isinstance(completed_by, int) and not isinstance(completed_by, bool):
        return f"label-studio-user-{completed_by}"
    if isinstance(completed_by, str) and completed_by.strip():
        return completed_by.strip()
    return None


def _utc(value: Any) -> str | None:
    """An ISO time as UTC with a Z; a time without an offset is read as UTC (Label Studio's)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _verdict_and_note(result: Any) -> tuple[str | None, str | None]:
    verdict = note = None
    for region in result if isinstance(result, list) else ():
        if not isinstance(region, Mapping):
            continue
        value = region.get("value")
        if not isinstance(value, Mapping):
            continue
        choices = value.get("choices")
        if region.get("from_name") == CHOICES_NAME and isinstance(choices, list) and choices:
            verdict = str(choices[0]).strip().lower()
        text = value.get("text")
        if region.get("from_name") == NOTE_NAME and isinstance(text, list) and text:
            note = "\n".join(str(t) for t in text)
    return verdict, note


def events_from_export(
    export: Any,
    *,
    criterion_id: str,
    criterion_version: str,
    criterion_hash: str,
    pathjudge_version: str,
    current_hashes: Mapping[str, str] | None = None,
    order: Literal["file", "random"] = "file",
    file: str | Path | None = None,
) -> ImportSummary:
    """Label events from a Label Studio JSON export (module docstring).

    The item hash comes from the task's ``pathjudge_item_hash`` (written by :func:`tasks_from_items`),
    else from ``current_hashes`` (the items file). Problems are one :class:`InputError` naming the
    file, the task (its position and id) and the field: not a list of tasks, a task without
    ``data.item_id``, a verdict other than pass/fail/unsure, an annotation without a rater or a
    time, a task whose item hash is unknown.
    """
    if not isinstance(export, list):
        raise InputError(
            "is not a Label Studio JSON export (a list of tasks)",
            file=file,
            hint="export the project as JSON (not JSON-MIN or CSV) from Label Studio",
        )
    made = _EventMaker(
        criterion_id, criterion_version, criterion_hash, pathjudge_version, order, file
    )
    events: list[LabelEvent] = []
    cancelled = missing = 0
    for index, task in enumerate(export):
        item_id, item_hash = _task_item(task, index, current_hashes, file)
        where = f"task {index} (item {item_id!r})"
        annotations = task.get("annotations") or []
        for number, annotation in enumerate(annotations if isinstance(annotations, list) else []):
            field = f"[{index}].annotations[{number}]"
            if not isinstance(annotation, Mapping):
                continue
            if annotation.get("was_cancelled"):
                cancelled += 1
                continue
            verdict, note = _verdict_and_note(annotation.get("result"))
            if verdict is None:
                missing += 1
                continue
            events.append(made.event(annotation, verdict, note, item_id, item_hash, where, field))
    events.sort(key=lambda e: datetime.fromisoformat(e.labelled_at))
    return ImportSummary(tuple(events), len(export), cancelled, missing)


def _task_item(
    task: Any, index: int, current_hashes: Mapping[str, str] | None, file: str | Path | None
) -> tuple[str, str]:
    """A task's item id and content hash (its ``pathjudge_item_hash``, else ``current_hashes``)."""
    data = task.get("data") if isinstance(task, Mapping) else None
    item_id = data.get("item_id") if isinstance(data, Mapping) else None
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or item_id == "":
        raise InputError(
            f"task {index} has no data.item_id",
            file=file,
            field=f"[{index}].data.item_id",
            hint="import tasks made by `pathjudge label-studio export` (they carry item_id)",
        )
    item_id = str(item_id)
    item_hash = data.get(HASH_KEY) if isinstance(data, Mapping) else None
    if not isinstance(item_hash, str) and current_hashes is not None:
        item_hash = current_hashes.get(item_id)
    if not isinstance(item_hash, str):
        raise InputError(
            f"task {index} (item {item_id!r}): its content hash is unknown",
            file=file,
            field=f"[{index}].data.{HASH_KEY}",
            hint="pass --items with the items file the tasks were made from",
        )
    return item_id, item_hash


@dataclass(frozen=True)
class _EventMaker:
    """What every label event of one import shares: the criterion, the pathjudge version, the
    order the items were labelled in, and the export file (for errors)."""

    criterion_id: str
    criterion_version: str
    criterion_hash: str
    pathjudge_version: str
    order: Literal["file", "random"]
    file: str | Path | None

    def event(
        self,
        annotation: Mapping[str, Any],
        verdict: str,
        note: str | None,
        item_id: str,
        item_hash: str,
        where: str,
        field: str,
    ) -> LabelEvent:
        """The label event of one annotation; a bad verdict, rater or time is an InputError."""
        if verdict not in ("pass", "fail", "unsure"):
            raise InputError(
                f"{where}: the verdict is {verdict!r}, not pass, fail or unsure",
                file=self.file,
                field=f"{field}.result",
                hint="use the labelling config written by `pathjudge label-studio export`",
            )
        rater = _rater(annotation.get("completed_by"))
        when = _utc(annotation.get("updated_at")) or _utc(annotation.get("created_at"))
        if rater is None or when is None:
            what = "completed_by" if rater is None else "created_at"
            raise InputError(
                f"{where}: an annotation has no usable {what}",
                file=self.file,
                field=f"{field}.{what}",
                hint="import the full JSON export, which records who labelled and when",
            )
        try:
            return LabelEvent(
                item_id=item_id,
                criterion=self.criterion_id,
                criterion_version=self.criterion_version,
                criterion_hash=self.criterion_hash,
                label=verdict,
                note=note,
                rater=rater,
                labelled_at=when,
                item_hash=item_hash,
                pathjudge_version=self.pathjudge_version,
                order=self.order,
                reason="Label Studio"
                + (" (uniform random sampling)" if self.order == "random" else ""),
            )
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            raise InputError(
                f"{where}: {first['msg']}",
                file=self.file,
                field=f"{field}.{'.'.join(str(p) for p in first['loc'])}",
                hint="fix the annotation in Label Studio and export again",
            ) from None
