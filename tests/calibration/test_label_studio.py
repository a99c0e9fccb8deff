"""Label Studio interop: items out as tasks with a labelling config, a JSON export back as labels."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.calibration.label_store import item_content_hash, read_events
from pathjudge.calibration.labels import load_labels

from .conftest import Writer

ITEMS = [
    {"item_id": "a1", "inputs": {"source": "The cat sat.", "summary": "A cat sat."}},
    {"item_id": 2, "inputs": {"source": "Rain fell.", "summary": "It was <b>sunny</b>."}},
    {"item_id": "c3", "inputs": {"source": "Tea.", "summary": "Coffee."}},
]


def _annotation(
    task: int, number: int, user: Any, choice: str | None, at: str, **extra: Any
) -> dict[str, Any]:
    """One annotation as Label Studio 1.x's JSON export writes it."""
    result: list[dict[str, Any]] = []
    if choice is not None:
        result.append(
            {
                "value": {"choices": [choice]},
                "id": f"r{task}{number}",
                "from_name": "verdict",
                "to_name": "text_summary",
                "type": "choices",
                "origin": "manual",
            }
        )
    if extra.pop("note", None):
        result.append(
            {
                "value": {"text": ["the summary invents the weather"]},
                "id": f"n{task}{number}",
                "from_name": "note",
                "to_name": "text_summary",
                "type": "textarea",
                "origin": "manual",
            }
        )
    return {
        "id": 100 * task + number,
        "completed_by": user,
        "result": result,
        "was_cancelled": extra.pop("was_cancelled", False),
        "ground_truth": False,
        "created_at": at,
        "updated_at": extra.pop("updated_at", at),
        "draft_created_at": None,
        "lead_time": 12.5,
        "prediction": {},
        "result_count": 0,
        "unique_id": f"u-{task}-{number}",
        "import_id": None,
        "last_action": None,
        "task": task,
        "project": 7,
        "updated_by": user if isinstance(user, int) else None,
        "parent_prediction": None,
        "parent_annotation": None,
        "last_created_by": None,
    }


def _export(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What Label Studio exports after raters labelled the imported tasks."""
    at = "2026-12-01T10:0{}:00.123456Z"
    annotations = [
        [
            _annotation(1, 1, 1, "pass", at.format(1)),
            _annotation(1, 2, {"id": 2, "email": "bo@example.org"}, "pass", at.format(2)),
        ],
        [
            _annotation(
                2, 1, 1, "fail", at.format(3), note=True, updated_at="2026-12-01T11:00:00+01:00"
            ),
            _annotation(2, 2, 2, None, at.format(4), was_cancelled=True),
        ],
        [_annotation(3, 1, 1, None, at.format(5))],
    ]
    return [
        {
            "id": number,
            "annotations": found,
            "file_upload": "tasks.json",
            "drafts": [],
            "predictions": [],
            "data": task["data"],
            "meta": {},
            "created_at": "2026-12-01T09:00:00.000000Z",
            "updated_at": "2026-12-01T10:05:00.000000Z",
            "inner_id": number,
            "total_annotations": len(found),
            "cancelled_annotations": 0,
            "total_predictions": 0,
            "comment_count": 0,
            "unresolved_comment_count": 0,
            "last_comment_updated_at": None,
            "project": 7,
            "updated_by": 1,
            "comment_authors": [],
        }
        for number, (task, found) in enumerate(zip(tasks, annotations, strict=True), 1)
    ]


def test_items_round_trip_through_label_studio_into_labels_calibrate_reads(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write("items.jsonl", ITEMS)
    tasks_path = tmp_path / "ls" / "tasks.json"
    tasks_path.parent.mkdir()
    argv = ["label-studio", "export", str(items), "-o", str(tasks_path)]
    assert main([*argv, "--criterion", "summary-faithful"]) == 0
    tasks = json.loads(tasks_path.read_text())
    assert [t["data"]["item_id"] for t in tasks] == ["a1", "2", "c3"]
    assert tasks[1]["data"]["summary"] == "It was <b>sunny</b>."
    assert tasks[1]["data"]["pathjudge_item_hash"] == item_content_hash(ITEMS[1]["inputs"])
    config = ET.fromstring((tmp_path / "ls" / "tasks.label_config.xml").read_text())
    assert [c.get("value") for c in config.iter("Choice")] == ["pass", "fail", "unsure"]
    assert {t.get("value") for t in config.iter("Text")} == {"$source", "$summary"}

    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export(tasks)))
    labels_path = tmp_path / "labels.jsonl"
    argv = ["label-studio", "import", str(export), "-o", str(labels_path)]
    assert main([*argv, "--criterion", "summary-faithful"]) == 0
    assert "wrote 3 label(s) from 3 task(s)" in capsys.readouterr().err
    events = list(read_events(labels_path))
    assert [(e.item_id, e.rater, e.label, e.labelled_at) for e in events] == [
        # in time order; the edited annotation's time is its updated_at, in UTC
        ("2", "label-studio-user-1", "fail", "2026-12-01T10:00:00Z"),
        ("a1", "label-studio-user-1", "pass", "2026-12-01T10:01:00.123456Z"),
        ("a1", "bo@example.org", "pass", "2026-12-01T10:02:00.123456Z"),
    ]
    assert events[0].note == "the summary invents the weather"
    assert {e.order for e in events} == {"file"}
    assert {e.criterion for e in events} == {"summary-faithful"}
    labels = load_labels(labels_path)
    got = {i.item_id: i.label for i in labels.items("summary-faithful")}
    assert got == {"a1": "pass", "2": "fail"}


def test_a_hostile_input_name_is_escaped_in_the_labelling_config() -> None:
    from pathjudge.calibration.label_studio import labelling_config, tasks_from_items

    items = [{"item_id": "x", "inputs": {'a"/><Script>alert(1)</Script>': "t"}}]
    config = labelling_config(items, question="<b>is it</b> & so?")
    root = ET.fromstring(config)
    assert root.find(".//Script") is None
    assert [h.get("value") for h in root.iter("Header")][:2] == [
        "<b>is it</b> & so?",
        'a"/><Script>alert(1)</Script>',
    ]
    assert tasks_from_items(items)[0]["data"]["input_0"] == "t"


def test_a_verdict_label_studio_was_not_configured_for_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathjudge.calibration.label_studio import tasks_from_items

    tasks = tasks_from_items(ITEMS[:1])
    bad = _export([*tasks, *tasks, *tasks])
    bad[0]["annotations"][0]["result"][0]["value"]["choices"] = ["maybe"]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(bad))
    out = tmp_path / "labels.jsonl"
    code = main(
        ["label-studio", "import", str(export), "-o", str(out), "--criterion", "summary-faithful"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "task 0 (item 'a1'): the verdict is 'maybe', not pass, fail or unsure" in err
    assert "Traceback" not in err
    assert not out.exists()
    no_id = tmp_path / "noid.json"
    no_id.write_text(json.dumps([{"data": {"text": "x"}, "annotations": []}]))
    assert (
        main(
            [
                "label-studio",
                "import",
                str(no_id),
                "-o",
                str(out),
                "--criterion",
                "summary-faithful",
            ]
        )
        == 2
    )
    assert "task 0 has no data.item_id" in capsys.readouterr().err


def test_tasks_made_elsewhere_take_their_hash_from_items_and_a_second_import_appends(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write("items.jsonl", ITEMS)
    tasks = [{"data": {"item_id": "a1", "text": "The cat sat. / A cat sat."}}]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export([*tasks, *tasks, *tasks])[:1]))
    out = tmp_path / "labels.jsonl"
    argv = [
        "label-studio",
        "import",
        str(export),
        "-o",
        str(out),
        "--criterion",
        "summary-faithful",
    ]
    assert main(argv) == 2
    assert "its content hash is unknown" in capsys.readouterr().err
    assert main([*argv, "--items", str(items)]) == 0
    assert main([*argv, "--items", str(items), "--random-order"]) == 0
    events = list(read_events(out))
    assert len(events) == 4  # two imports of two annotations, appended
    assert {e.item_hash for e in events} == {item_content_hash(ITEMS[0]["inputs"])}
    assert [e.order for e in events] == ["file", "file", "random", "random"]
