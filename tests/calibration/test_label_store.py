"""The label store: an append-only event log that loses nothing and keeps provenance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pathjudge.calibration.label_store import (
    LABEL_EVENT_SCHEMA_VERSION,
    LabelEvent,
    TornLineWarning,
    append_label,
    current_labels,
    item_content_hash,
    read_events,
)
from pathjudge.errors import RecordError
from pathjudge.judge.cache import input_hash


def event(
    item_id: str = "a", label: str = "pass", rater: str = "ana", **extra: object
) -> LabelEvent:
    fields: dict[str, object] = {
        "item_id": item_id,
        "criterion": "summary-faithful",
        "criterion_version": "1",
        "criterion_hash": "sha256:abc",
        "label": label,
        "rater": rater,
        "labelled_at": "2026-12-06T20:41:07Z",
        "item_hash": item_content_hash({"article": "x", "summary": "y"}),
        "pathjudge_version": "0.1.0",
        "order": "random",
        "seed": 0,
        "position": 0,
    }
    fields.update(extra)
    return LabelEvent.model_validate(fields)


def test_every_field_is_described_and_the_schema_is_version_2() -> None:
    assert LABEL_EVENT_SCHEMA_VERSION == 2
    for name, info in LabelEvent.model_fields.items():
        assert info.description, name
    assert event().schema_version == 2


def test_the_item_hash_is_the_verdict_cache_input_hash() -> None:
    inputs = {"summary": "s", "article": "a"}
    assert item_content_hash(inputs) == input_hash(inputs)
    assert item_content_hash(inputs) != item_content_hash({"summary": "s", "article": "b"})


def test_a_label_time_outside_utc_is_refused() -> None:
    with pytest.raises(ValueError, match="UTC"):
        event(labelled_at="2026-12-06T20:41:07+02:00")
    with pytest.raises(ValueError, match="ISO 8601"):
        event(labelled_at="yesterday")


def test_appended_events_read_back_in_order_and_the_last_wins(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    append_label(path, event("a", "pass"))
    append_label(path, event("b", "fail"))
    append_label(path, event("a", "fail", note="second look"))
    append_label(path, event("a", "pass", kind="adjudication", rater="lead"))
    events = list(read_events(path))
    assert [(e.item_id, e.label) for e in events] == [
        ("a", "pass"),
        ("b", "fail"),
        ("a", "fail"),
        ("a", "pass"),
    ]
    current = current_labels(events)
    assert len(current) == 3
    assert current[("a", "summary-faithful", "ana", "label")].note == "second look"
    assert current[("a", "summary-faithful", "lead", "adjudication")].label == "pass"
    assert path.read_bytes().count(b"\n") == 4  # history stays in the file


def test_a_missing_file_has_no_events(tmp_path: Path) -> None:
    assert list(read_events(tmp_path / "none.jsonl")) == []


def test_a_torn_last_line_is_skipped_with_a_warning_and_never_joined(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    append_label(path, event("a"))
    whole = event("b").model_dump_json()
    with path.open("ab") as handle:
        handle.write(whole[: len(whole) // 2].encode())  # a crash mid-write
    with pytest.warns(TornLineWarning, match=r"labels.jsonl:2"):
        assert [e.item_id for e in read_events(path)] == ["a"]
    append_label(path, event("c"))
    lines = path.read_bytes().split(b"\n")
    assert json.loads(lines[2])["item_id"] == "c"  # on a line of its own
    with pytest.warns(TornLineWarning, match=r"labels.jsonl:2"):
        assert [e.item_id for e in read_events(path)] == ["a", "c"]


def test_a_line_cut_inside_a_multibyte_character_counts_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    whole = event("a", note="naïve ünïcode").model_dump_json().encode()
    cut = whole.index("ï".encode()) + 1
    path.write_bytes(whole + b"\n" + whole[:cut])
    messages: list[str] = []
    assert [e.item_id for e in read_events(path, warn=messages.append)] == ["a"]
    assert len(messages) == 1


def test_a_complete_but_wrong_line_is_an_error_naming_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    append_label(path, event("a"))
    bad = json.loads(event("b").model_dump_json())
    bad["label"] = "maybe"
    with path.open("a") as handle:
        handle.write(json.dumps(bad) + "\n")
    append_label(path, event("c"))
    with pytest.raises(RecordError) as info:
        list(read_events(path))
    assert info.value.line == 2
    assert info.value.field == "label"
    assert "labels.jsonl:2" in str(info.value)


_WRITER = """
import sys
from pathlib import Path
from pathjudge.calibration.label_store import LabelEvent, append_label
path, rater, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    append_label(path, LabelEvent(
        item_id=f"item-{i}", criterion="c", criterion_version=1, criterion_hash="sha256:c",
        label="pass", note="x" * 5000, rater=rater, labelled_at="2026-12-06T20:00:00Z",
        item_hash="sha256:i", pathjudge_version="0", order="file", seed=None, position=i))
"""


@pytest.mark.slow
def test_two_processes_appending_at_once_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    count = 300
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), rater, str(count)])
        for rater in ("ana", "ben")
    ]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    events = list(read_events(path))  # every line parses: none interleaved
    assert len(events) == 2 * count
    current = current_labels(events)
    assert len(current) == 2 * count
    for rater in ("ana", "ben"):
        assert {e.position for e in events if e.rater == rater} == set(range(count))
