"""The Parquet layout of run records (for Ray Data's ``read_parquet`` and object-storage datasets).

One column per top-level :class:`~pathjudge.agent.trajectory.RunRecord` field, in declaration order;
``steps`` is a list of structs with one field per :class:`~pathjudge.agent.trajectory.Step` field. Fields
whose value is arbitrary JSON cannot have one Arrow type across runs, so they are stored as JSON text
(UTF-8 strings) under their own name: ``input``, ``metadata``, and each step's ``arguments``, ``result``
and ``state``. Timestamps are ISO 8601 strings, so a timezone survives exactly.

=================  ==============================================================================
column             Arrow type
=================  ==============================================================================
schema_version     int64
run_id             string
task_id            string
epoch              int64
agent              struct<name, model, version, backend: string>
input              string (JSON text)
steps              list<struct<decision: string, turn: int64, call_id: string, tool: string,
                   arguments: string (JSON text), arguments_error: string, raw_arguments: string,
                   result: string (JSON text), is_error: bool, latency_ms: double,
                   state: string (JSON text)>>
final_answer       string
stop_reason        string
usage              struct<input_tokens, output_tokens, cache_creation_input_tokens,
                   cache_read_input_tokens: int64, cost_usd: double>
timing             struct<started_at, ended_at: string, duration_ms: double>
metadata           string (JSON text)
=================  ==============================================================================

:func:`write_runs_parquet` writes that layout from records; :func:`record_from_row` reads one row (a
dict, as Ray Data and ``pyarrow.Table.to_pylist`` give it) back into a validated ``RunRecord``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pathjudge.agent.trajectory import RunRecord

__all__ = ["JSON_COLUMNS", "STEP_JSON_FIELDS", "record_from_row", "row_from_record", "runs_schema"]

#: Top-level columns stored as JSON text.
JSON_COLUMNS = ("input", "metadata")
#: Step fields stored as JSON text.
STEP_JSON_FIELDS = ("arguments", "result", "state")


def runs_schema() -> Any:
    """The ``pyarrow.Schema`` of the runs layout (needs the ``ray`` extra, which brings pyarrow)."""
    import pyarrow as pa

    string, int64, double = pa.string(), pa.int64(), pa.float64()
    step = pa.struct(
        [
            ("decision", string),
            ("turn", int64),
            ("call_id", string),
            ("tool", string),
            ("arguments", string),
            ("arguments_error", string),
            ("raw_arguments", string),
            ("result", string),
            ("is_error", pa.bool_()),
            ("latency_ms", double),
            ("state", string),
        ]
    )
    return pa.schema(
        [
            ("schema_version", int64),
            ("run_id", string),
            ("task_id", string),
            ("epoch", int64),
            (
                "agent",
                pa.struct(
                    [("name", string), ("model", string), ("version", string), ("backend", string)]
                ),
            ),
            ("input", string),
            ("steps", pa.list_(step)),
            ("final_answer", string),
            ("stop_reason", string),
            (
                "usage",
                pa.struct(
                    [
                        ("input_tokens", int64),
                        ("output_tokens", int64),
                        ("cache_creation_input_tokens", int64),
                        ("cache_read_input_tokens", int64),
                        ("cost_usd", double),
                    ]
                ),
            ),
            (
                "timing",
                pa.struct([("started_at", string), ("ended_at", string), ("duration_ms", double)]),
            ),
            ("metadata", string),
        ]
    )


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def row_from_record(record: RunRecord) -> dict[str, Any]:
    """One record as a row of the layout (plain Python values)."""
    data = record.model_dump(mode="json")
    for name in JSON_COLUMNS:
        data[name] = _text(data[name])
    steps = []
    for step in data["steps"]:
        for name in STEP_JSON_FIELDS:
            step[name] = _text(step[name])
        steps.append(step)
    data["steps"] = steps
    return data


def record_from_row(row: Mapping[str, Any]) -> RunRecord:
    """Validate one row of the layout as a ``RunRecord`` (JSON-text fields parsed; missing = default).

    Raises ``ValueError`` (bad JSON text) or pydantic's ``ValidationError``; the caller adds the place.
    """
    data = {key: value for key, value in row.items() if value is not None and key != "path"}
    for name in JSON_COLUMNS:
        if isinstance(data.get(name), str):
            data[name] = json.loads(data[name])
    steps = data.get("steps")
    if steps is not None:
        parsed = []
        for step in steps:
            step = {key: value for key, value in dict(step).items() if value is not None}
            for name in STEP_JSON_FIELDS:
                if isinstance(step.get(name), str):
                    step[name] = json.loads(step[name])
            parsed.append(step)
        data["steps"] = parsed
    for name in ("agent", "usage", "timing"):
        if isinstance(data.get(name), Mapping):
            data[name] = {k: v for k, v in data[name].items() if v is not None}
    return RunRecord.model_validate(data)


def write_runs_parquet(
    records: Iterable[RunRecord], path: str | Path, *, rows_per_group: int = 10_000
) -> int:
    """Write ``records`` to one Parquet file in the layout above; returns how many were written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = runs_schema()
    count = 0
    with pq.ParquetWriter(str(path), schema) as writer:
        rows: list[dict[str, Any]] = []
        for record in records:
            rows.append(row_from_record(record))
            if len(rows) >= rows_per_group:
                writer.write_table(pa.Table.from_pylist(rows, schema=schema))
                count += len(rows)
                rows = []
        if rows:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))
            count += len(rows)
    return count
