"""The labels schema: resolving gold labels, and one clear LabelsError per bad input."""

from __future__ import annotations

import re

import pytest

from pathjudge.calibration.labels import load_labels
from pathjudge.errors import LabelsError

from .conftest import Writer


def test_label_score_and_annotator_rules(write: Writer) -> None:
    path = write(
        "labels.jsonl",
        [
            {"item_id": "a", "label": "pass", "split": "train", "rationale": "all supported"},
            "",
            {"item_id": "b", "score": 4.667, "threshold": 5},
            {"item_id": "c", "score": 3},  # default threshold 3 -> pass
            {
                "item_id": "d",
                "annotators": [
                    {"annotator": "x", "label": "fail"},
                    {"annotator": "y", "label": "fail"},
                    {"annotator": "z", "label": "pass"},
                ],
                "group": "task1",
            },
            {
                "item_id": "e",
                "label": "pass",
                "annotators": [
                    {"annotator": "x", "label": "fail"},
                    {"annotator": "y", "label": "pass"},
                ],
            },
            {
                "item_id": "f",
                "criterion": "other",
                "annotators": [
                    {"annotator": "s1", "score": 5},
                    {"annotator": "s2", "score": 2},
                    {"annotator": "s3", "score": 4},
                ],
                "threshold": 4,
                "inputs": {"source": "s", "summary": "t"},
            },
        ],
    )
    labels = load_labels(path, threshold=3)
    assert labels.criteria == (None, "other")
    assert len(labels) == 6
    got = {item.item_id: item for item in labels}
    assert [got[k].label for k in "abcdef"] == ["pass", "fail", "pass", "fail", "pass", "pass"]
    assert got["a"].split == "train"
    assert got["a"].rationale == "all supported"
    assert got["b"].line == 3  # the blank line 2 still counts
    assert got["d"].group == "task1"
    assert got["d"].annotator_labels == (("x", "fail"), ("y", "fail"), ("z", "pass"))
    # f: scores 5, 2, 4 with threshold 4 -> pass, fail, pass -> majority pass
    assert got["f"].annotator_labels == (("s1", "pass"), ("s2", "fail"), ("s3", "pass"))
    assert got["f"].annotator_scores == (("s1", 5.0), ("s2", 2.0), ("s3", 4.0))
    assert got["f"].inputs == {"source": "s", "summary": "t"}
    assert [i.item_id for i in labels.items("other")] == ["f"]
    assert labels.items("missing") == ()


BAD = [
    (
        [{"item_id": "a", "label": "pass"}, {"item_id": "a", "label": "fail"}],
        "labels.jsonl:2: field 'item_id': item 'a': is labelled twice (first on line 1)",
    ),
    (
        [{"item_id": "a", "label": "maybe"}],
        "labels.jsonl:1: field 'label': Input should be 'pass' or 'fail'",
    ),
    (
        [{"item_id": "a", "label": "pass", "colour": 1}],
        "labels.jsonl:1: field 'colour': unknown field in a label",
    ),
    ([{"item_id": "a"}], "labels.jsonl:1: field 'label': item 'a': has no label"),
    (
        [{"item_id": "a", "score": 4}],
        "labels.jsonl:1: field 'threshold': item 'a': has a 'score' but no threshold",
    ),
    (
        [{"item_id": "a", "label": "pass", "score": 4, "threshold": 5}],
        "item 'a': has both 'label' and 'score'",
    ),
    (
        [
            {
                "item_id": "a",
                "annotators": [
                    {"annotator": "x", "label": "pass"},
                    {"annotator": "y", "label": "fail"},
                ],
            }
        ],
        "item 'a': annotators split evenly (1 pass, 1 fail) — add an adjudicated top-level 'label'",
    ),
    (
        [
            {
                "item_id": "a",
                "annotators": [
                    {"annotator": "x", "label": "pass"},
                    {"annotator": "x", "label": "pass"},
                ],
            }
        ],
        "field 'annotators[1]': item 'a': annotator 'x' appears twice",
    ),
    (
        [{"item_id": "a", "annotators": [{"annotator": "x", "label": "pass", "score": 3}]}],
        "annotator 'x' must give exactly one of 'label' or 'score'",
    ),
    (
        [
            {"item_id": "a", "annotators": [{"annotator": "x", "label": "pass"}]},
            {"item_id": "b", "threshold": 3, "annotators": [{"annotator": "x", "score": 4}]},
        ],
        "labels.jsonl:2: field 'annotators[0]': item 'b': annotator 'x' gives a score here but a label on line 1",
    ),
    (
        [{"item_id": "a", "schema_version": 2, "label": "pass"}],
        "schema_version 2 is newer",
    ),
    (["{not json"], "labels.jsonl:1: not valid JSON"),
]


@pytest.mark.parametrize(("records", "message"), BAD)
def test_bad_labels_are_one_clear_labels_error(
    write: Writer, records: list[object], message: str
) -> None:
    path = write("labels.jsonl", records)  # type: ignore[arg-type]
    with pytest.raises(LabelsError) as info:
        load_labels(path)
    text = str(info.value)
    assert message in text.replace(str(path.parent) + "/", "")
    assert info.value.exit_code == 2


def test_empty_and_missing_files(write: Writer, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LabelsError, match="has no label records"):
        load_labels(write("empty.jsonl", [""]))
    with pytest.raises(LabelsError, match=re.escape("nope.jsonl: file not found")):
        load_labels(tmp_path / "nope.jsonl")
