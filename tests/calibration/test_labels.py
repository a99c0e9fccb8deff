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
        [{"item_id": "a", "schema_version": 3, "label": "pass"}],
        "schema_version 3 is newer",
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


# --------------------------------------------------------------------------------------------------
# Label logs (schema 2, written by pathjudge label)


def label_event(
    item_id: str,
    label: str,
    rater: str = "ana",
    *,
    kind: str = "label",
    order: str = "random",
    at: str = "2026-12-06T20:00:00Z",
    inputs: dict[str, str] | None = None,
    criterion: str = "faithful",
) -> dict[str, object]:
    """One label-log line as pathjudge label writes it."""
    from pathjudge.calibration.label_store import LabelEvent, item_content_hash

    return LabelEvent(
        kind=kind,  # type: ignore[arg-type]
        item_id=item_id,
        criterion=criterion,
        criterion_version="1",
        criterion_hash="sha256:c",
        label=label,  # type: ignore[arg-type]
        rater=rater,
        labelled_at=at,
        item_hash=item_content_hash(inputs or {"text": item_id}),
        pathjudge_version="0",
        order=order,  # type: ignore[arg-type]
        seed=0 if order == "random" else None,
    ).model_dump(mode="json")


def test_a_label_log_resolves_by_rater_majority_and_an_adjudication_wins(write: Writer) -> None:
    path = write(
        "log.jsonl",
        [
            label_event("a", "pass", "ana"),
            label_event("a", "pass", "bo"),
            label_event("a", "fail", "cy"),
            label_event("b", "fail", "ana"),
            label_event("b", "pass", "bo"),
            label_event("b", "pass", "ana", kind="adjudication", order="adjudication"),
            label_event("c", "pass", "ana"),
            label_event("c", "unsure", "bo"),
            label_event("d", "fail", "ana"),
            label_event("d", "fail", "ana", at="2026-12-06T21:00:00Z"),  # a relabel, not a vote
        ],
    )
    labels = load_labels(path)
    got = {item.item_id: item for item in labels.items("faithful")}
    assert {k: v.label for k, v in got.items()} == {
        "a": "pass",
        "b": "pass",
        "c": "pass",
        "d": "fail",
    }
    assert got["b"].adjudicated
    assert not got["a"].adjudicated
    assert got["a"].annotator_labels == (("ana", "pass"), ("bo", "pass"), ("cy", "fail"))
    assert got["c"].annotator_labels == (("ana", "pass"),)  # unsure is no vote
    assert got["d"].annotator_labels == (("ana", "fail"),)


def test_an_even_rater_split_or_only_unsure_is_left_out_with_a_note(write: Writer) -> None:
    path = write(
        "log.jsonl",
        [
            label_event("a", "pass", "ana"),
            label_event("a", "fail", "bo"),
            label_event("b", "unsure", "ana"),
            label_event("c", "pass", "ana"),
        ],
    )
    labels = load_labels(path)
    assert [item.item_id for item in labels.items("faithful")] == ["c"]
    notes = " ".join(labels.notes["faithful"])
    assert "1 item(s) whose raters split evenly are left out until adjudicated" in notes
    assert "'a'" in notes
    assert "1 item(s) labelled only 'unsure' are left out: 'b'" in notes


def test_a_label_of_content_that_changed_since_is_stale_and_left_out_unless_kept(
    write: Writer,
) -> None:
    from pathjudge.calibration.label_store import item_content_hash

    path = write(
        "log.jsonl",
        [
            label_event("a", "pass", inputs={"text": "old"}),
            label_event("b", "fail", inputs={"text": "same"}),
            label_event("gone", "fail"),  # not in the items any more: cannot be checked, kept
        ],
    )
    now = {"a": item_content_hash({"text": "new"}), "b": item_content_hash({"text": "same"})}
    labels = load_labels(path, current_hashes=now)
    assert [item.item_id for item in labels.items("faithful")] == ["b", "gone"]
    assert labels.stale == {"faithful": ("a",)}
    kept = load_labels(path, current_hashes=now, keep_stale=True)
    assert [item.item_id for item in kept.items("faithful")] == ["a", "b", "gone"]
    assert kept.stale == {"faithful": ("a",)}
    assert kept.kept_stale


def test_an_item_counts_as_random_order_when_a_rater_labelled_it_in_a_random_order(
    write: Writer,
) -> None:
    path = write(
        "log.jsonl",
        [
            label_event("a", "pass", "ana", order="gates"),
            label_event("a", "pass", "bo", order="random"),
            label_event("b", "fail", "ana", order="gates"),
            label_event("c", "fail", "ana", order="file"),
        ],
    )
    got = {item.item_id: item.random_order for item in load_labels(path).items("faithful")}
    assert got == {"a": True, "b": False, "c": False}


def test_label_logs_and_schema_1_files_load_together_and_an_item_in_both_is_refused(
    write: Writer,
) -> None:
    from pathjudge.calibration.labels import load_label_files

    old = write("old.jsonl", [{"item_id": "x", "criterion": "faithful", "label": "fail"}])
    log = write("log.jsonl", [label_event("a", "pass")])
    both = load_label_files([old, log])
    assert sorted(item.item_id for item in both.items("faithful")) == ["a", "x"]
    assert {item.item_id: item.random_order for item in both} == {"x": True, "a": True}
    clash = write("clash.jsonl", [label_event("x", "pass")])
    with pytest.raises(LabelsError, match="item 'x' is labelled for criterion 'faithful' in both"):
        load_label_files([old, clash])


def test_a_torn_last_line_of_a_label_log_is_skipped_with_a_warning(write: Writer) -> None:
    import json as _json

    whole = _json.dumps(label_event("a", "pass"))
    path = write("log.jsonl", [whole, whole.replace('"a"', '"b"')[:40]])
    seen: list[str] = []
    from pathjudge.calibration.labels import load_label_files

    labels = load_label_files([path], warn=seen.append)
    assert [item.item_id for item in labels] == ["a"]
    assert "log.jsonl:2: skipped a label line cut off mid-write" in seen[0]


def test_a_label_event_line_inside_a_schema_1_file_says_what_it_is(write: Writer) -> None:
    path = write("l.jsonl", [{"item_id": "x", "label": "fail"}, label_event("a", "pass")])
    with pytest.raises(LabelsError, match="is a label event \\(schema 2"):
        load_labels(path)


def test_a_rater_relabel_after_the_adjudication_reopens_the_item(write: Writer) -> None:
    settled = label_event(
        "a", "fail", "lead", kind="adjudication", order="adjudication", at="2026-12-06T21:00:00Z"
    )
    base = [label_event("a", "pass", "ana"), label_event("a", "fail", "bo"), settled]
    assert [i.label for i in load_labels(write("one.jsonl", base))] == ["fail"]
    later = label_event("a", "pass", "bo", at="2026-12-06T22:00:00Z")
    again = load_labels(write("two.jsonl", [*base, later]))
    assert [(i.label, i.adjudicated) for i in again] == [("pass", False)]
