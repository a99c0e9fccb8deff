"""What to settle: rater vs rater and rater vs judge, until an adjudication settles it."""

from __future__ import annotations

from pathjudge.calibration.adjudication import disagreement_kind, disagreements_to_settle
from pathjudge.calibration.label_store import LabelEvent, item_content_hash
from pathjudge.calibration.verdicts import ItemVotes

from .test_labels import label_event


def _events(*lines: dict[str, object]) -> list[LabelEvent]:
    return [LabelEvent.model_validate(line) for line in lines]


def test_raters_who_differ_and_a_rater_against_the_judge_are_both_listed() -> None:
    events = _events(
        label_event("a", "pass", "ana"),
        label_event("a", "fail", "bo"),
        label_event("b", "pass", "ana"),
        label_event("b", "pass", "bo"),
        label_event("c", "fail", "ana"),
        label_event("d", "pass", "ana"),
        label_event("d", "unsure", "bo"),
        label_event("e", "pass", "ana"),  # one rater, not judged: nothing to disagree with
    )
    verdicts = {
        "a": ItemVotes("a", "faithful", ("pass",)),
        "b": ItemVotes("b", "faithful", ("pass", "pass")),
        "c": "pass",
    }
    found = disagreements_to_settle(events, verdicts, criterion="faithful")
    assert [(d.item_id, d.kind) for d in found] == [
        ("a", "rater-rater"),
        ("c", "rater-judge"),
        ("d", "rater-rater"),
    ]
    assert found[0].reason == "ana says pass, bo says fail; the judge says pass"
    assert found[1].reason == "ana says fail; the judge says pass"
    assert found[1].labels == (("ana", "fail"),)
    assert disagreements_to_settle(events, None, criterion="other") == []


def test_an_adjudication_settles_an_item_until_a_rater_relabels_it() -> None:
    base = [label_event("a", "pass", "ana"), label_event("a", "fail", "bo")]
    settled = label_event(
        "a", "fail", "lead", kind="adjudication", order="adjudication", at="2026-12-06T21:00:00Z"
    )
    assert disagreements_to_settle(_events(*base, settled), criterion="faithful") == []
    relabel = label_event("a", "pass", "bo", at="2026-12-06T22:00:00Z")
    again = disagreements_to_settle(_events(*base, settled, relabel), criterion="faithful")
    assert again == []  # ana and bo now agree
    split = label_event("a", "unsure", "bo", at="2026-12-06T22:00:00Z")
    found = disagreements_to_settle(_events(*base, settled, split), criterion="faithful")
    assert [d.item_id for d in found] == ["a"]


def test_stale_labels_are_not_listed() -> None:
    events = _events(
        label_event("a", "pass", "ana", inputs={"text": "old"}),
        label_event("a", "fail", "bo", inputs={"text": "old"}),
    )
    now = {"a": item_content_hash({"text": "new"})}
    assert disagreements_to_settle(events, criterion="faithful", current_hashes=now) == []
    assert len(disagreements_to_settle(events, criterion="faithful")) == 1


def test_one_rule_says_what_needs_settling() -> None:
    """The rule the adjudication list and the labelling page's adjudication view share."""
    assert disagreement_kind(["pass", "unsure"], None) == "rater-rater"
    assert disagreement_kind(["pass", "fail"], "pass") == "rater-rater"
    assert disagreement_kind(["pass", "pass"], "fail") == "rater-judge"
    assert (
        disagreement_kind(["unsure"], "fail") is None
    )  # an unsure rater has no pass/fail to differ
    assert disagreement_kind(["pass"], "unsure") is None
    assert disagreement_kind(["fail"], "fail") is None
    assert disagreement_kind(["pass"], None) is None
