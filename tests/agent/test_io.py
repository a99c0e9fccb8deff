"""Streaming JSONL I/O: the round-trip property, the bad-input corpus, collect mode, torn tails."""

from __future__ import annotations

import gzip
import json
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathjudge._io import JsonlAppender, iter_jsonl, write_jsonl
from pathjudge.agent.io import read_runs
from pathjudge.agent.trajectory import AgentInfo, RunRecord, Step, Timing, Usage
from pathjudge.errors import RecordError

# ---------------------------------------------------------------- round trip (hypothesis)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
names = st.text(min_size=1, max_size=12)
optional_text = st.none() | st.text(max_size=30)
non_negative = st.floats(min_value=0, max_value=1e9, allow_nan=False)


@st.composite
def steps(draw: st.DrawFn) -> tuple[Step, ...]:
    increments = draw(st.lists(st.integers(min_value=0, max_value=2), max_size=6))
    out: list[Step] = []
    turn = 0
    for inc in increments:
        turn += inc
        malformed = draw(st.booleans())
        out.append(
            Step(
                decision=draw(optional_text),
                turn=turn,
                call_id=draw(st.none() | names),
                tool=draw(names),
                arguments={} if malformed else draw(json_objects),
                arguments_error="invalid JSON: Expecting value" if malformed else None,
                raw_arguments=draw(st.text(max_size=20)) if malformed else None,
                result=draw(json_values),
                is_error=draw(st.booleans()),
                latency_ms=draw(st.none() | non_negative),
                state=draw(json_objects),
            )
        )
    return tuple(out)


counts = st.integers(min_value=0, max_value=10**9)
run_records = st.builds(
    RunRecord,
    run_id=names,
    task_id=names,
    epoch=st.integers(min_value=0, max_value=1000),
    agent=st.builds(AgentInfo, name=optional_text, model=optional_text, version=optional_text),
    input=json_values,
    steps=steps(),
    final_answer=optional_text,
    stop_reason=st.none() | st.sampled_from(["end_turn", "max_steps", "error"]),
    usage=st.builds(
        Usage,
        input_tokens=counts,
        output_tokens=counts,
        cache_creation_input_tokens=counts,
        cache_read_input_tokens=counts,
        cost_usd=st.none() | non_negative,
    ),
    timing=st.builds(
        Timing,
        started_at=st.none() | st.datetimes(timezones=st.just(UTC)),
        ended_at=st.none() | st.datetimes(timezones=st.just(UTC)),
        duration_ms=st.none() | non_negative,
    ),
    metadata=json_objects,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(runs=st.lists(run_records, min_size=1, max_size=4))
def test_trajectory_jsonl_round_trip(tmp_path: Path, runs: list[RunRecord]) -> None:
    path = tmp_path / "runs.jsonl"
    assert write_jsonl(path, runs) == len(runs)
    back = list(read_runs(path))
    assert back == runs
    # the bytes are stable too: writing what was read gives the same file
    again = tmp_path / "again.jsonl"
    write_jsonl(again, back)
    assert again.read_bytes() == path.read_bytes()


def test_round_trip_gzip_and_unicode(tmp_path: Path) -> None:
    run = RunRecord(
        run_id="r",
        task_id="tâche-✓",
        input={"q": "naïve 😀", "nested": [1, {"a": [None, True, 2.5]}]},
        steps=(
            Step(tool="a", turn=0, arguments={"x": {"y": ["z"]}}),
            Step(tool="b", turn=0),
            Step(tool="c", turn=3),
        ),
    )
    path = tmp_path / "runs.jsonl.gz"
    write_jsonl(path, [run, run])
    assert gzip.decompress(path.read_bytes()).count(b"\n") == 2
    assert list(read_runs(path)) == [run, run]


# ---------------------------------------------------------------- the bad-input corpus

GOOD = RunRecord(run_id="r1", task_id="t1").model_dump_json()

BAD_LINES: dict[str, tuple[bytes, str, str | None]] = {
    # name: (second line of the file, expected message fragment, expected field)
    "truncated": (GOOD[:-9].encode(), "not valid JSON", None),
    "wrong type": (
        json.dumps({"run_id": "r2", "task_id": "t", "epoch": "first"}).encode(),
        "valid integer",
        "epoch",
    ),
    "unknown field": (
        json.dumps({"run_id": "r2", "task_id": "t", "color": "red"}).encode(),
        "unknown field",
        "color",
    ),
    "unknown step field": (
        json.dumps({"run_id": "r2", "task_id": "t", "steps": [{"tool": "a", "cost": 1}]}).encode(),
        "unknown field",
        "steps[0].cost",
    ),
    "non-utf8": (b'{"run_id": "r2", "task_id": "caf\xe9"}', "not valid UTF-8", None),
    "newer schema": (
        json.dumps({"schema_version": 9, "run_id": "r2", "task_id": "t"}).encode(),
        "newer than this pathjudge reads",
        None,
    ),
    "not an object": (b"[1, 2]", "expected a JSON object", None),
}


def write_bad(path: Path, second: bytes) -> Path:
    path.write_bytes(GOOD.encode() + b"\n" + second + b"\n" + GOOD.encode() + b"\n")
    return path


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_line_gives_one_located_error(tmp_path: Path, case: str) -> None:
    second, fragment, field = BAD_LINES[case]
    path = write_bad(tmp_path / "runs.jsonl", second)
    with pytest.raises(RecordError) as info:
        list(read_runs(path))
    error = info.value
    assert (error.file, error.line) == (str(path), 2)
    assert fragment in str(error)
    if field is not None:
        assert error.field == field
    assert str(error).startswith(f"{path}:2: ")
    assert "\n" not in str(error)


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_collect_mode_keeps_going(tmp_path: Path, case: str) -> None:
    path = write_bad(tmp_path / "runs.jsonl", BAD_LINES[case][0])
    errors: list[RecordError] = []
    runs = list(read_runs(path, errors=errors))
    assert len(runs) == 2
    assert [e.line for e in errors] == [2]


def test_seventy_megabyte_line_is_skipped_not_loaded(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(GOOD.encode() + b"\n")
        handle.write(b'{"run_id": "' + b"x" * (70 * 1024 * 1024) + b'"}\n')
        handle.write(GOOD.encode() + b"\n")
    errors: list[RecordError] = []
    assert len(list(read_runs(path, errors=errors))) == 2
    (error,) = errors
    assert error.line == 2
    assert "73.4 MB, over the limit of 67.1 MB" in str(error)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n  \n")
    with pytest.raises(RecordError, match="has no run records"):
        list(read_runs(empty))
    assert list(read_runs(empty, allow_empty=True)) == []
    with pytest.raises(RecordError, match="file not found"):
        list(read_runs(tmp_path / "nope.jsonl"))


def test_iter_jsonl_other_models(tmp_path: Path) -> None:
    path = tmp_path / "usage.jsonl"
    write_jsonl(path, [Usage(input_tokens=3), {"output_tokens": 2}])
    assert list(iter_jsonl(path, Usage)) == [Usage(input_tokens=3), Usage(output_tokens=2)]


def test_write_is_atomic_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, [RunRecord(run_id="old", task_id="t")])

    def broken() -> object:
        yield RunRecord(run_id="new", task_id="t")
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        write_jsonl(path, broken())  # type: ignore[arg-type]
    assert [r.run_id for r in read_runs(path)] == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl"]


# ---------------------------------------------------------------- JsonlAppender


def test_appender_repairs_torn_tail_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with JsonlAppender(path) as out:
        out.write(RunRecord(run_id="a", task_id="t"))
        out.write(RunRecord(run_id="b", task_id="t"))
    with path.open("ab") as handle:  # a crash mid-write leaves half a line
        handle.write(RunRecord(run_id="c", task_id="t").model_dump_json().encode()[:20])
    with pytest.raises(RecordError):
        list(read_runs(path))
    with JsonlAppender(path) as out:
        out.write(RunRecord(run_id="d", task_id="t"))
    assert [r.run_id for r in read_runs(path)] == ["a", "b", "d"]


def test_appender_on_a_file_that_is_only_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"run_id": "half')
    with JsonlAppender(path, fsync=True) as out:
        out.write({"run_id": "x", "task_id": "t"})
    assert [r.run_id for r in read_runs(path)] == ["x"]
