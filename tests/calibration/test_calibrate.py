"""Labels + verdicts -> report: pairing rules, clear errors, PPI and disagreements end to end."""

from __future__ import annotations

import pytest
import yaml

from pathjudge.calibration.agreement import Gates
from pathjudge.calibration.calibrate import calibrate
from pathjudge.calibration.disagreements import few_shot_examples, few_shot_yaml, find_disagreements
from pathjudge.calibration.labels import load_labels
from pathjudge.calibration.verdicts import load_verdicts
from pathjudge.errors import LabelsError
from pathjudge.rubrics.criteria import Criterion

from .conftest import Writer


def _labels(
    n_pass: int = 6, n_fail: int = 4, criterion: str | None = None
) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(n_pass + n_fail):
        rec: dict[str, object] = {
            "item_id": f"i{i}",
            "label": "pass" if i < n_pass else "fail",
            "split": "train" if i % 2 == 0 else "test",
            "inputs": {"source": f"source {i}", "summary": f"summary {i}", "n": i}
            if i != 9
            else {},
            "group": f"t{i // 2}",
        }
        if criterion:
            rec["criterion"] = criterion
        if i == 4:
            rec["rationale"] = "The summary invents nothing."
        out.append(rec)
    return out


# Judge: same pattern as the hand example in test_agreement (TP 4, FN 1, FP 1, TN 2, 2 unsure).
JUDGE = ["pass", "pass", "pass", "pass", "fail", "unsure", "pass", "fail", "fail", "unsure"]


def _verdicts(criterion: str | None = None, samples: int = 1) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, v in enumerate(JUDGE):
        for s in range(samples):
            rec: dict[str, object] = {
                "item_id": f"i{i}",
                "verdict": v,
                "sample": s,
                "reasoning": f"r{i}",
            }
            if criterion:
                rec["criterion"] = criterion
            out.append(rec)
    return out


def test_end_to_end_report(write: Writer) -> None:
    labels = load_labels(write("l.jsonl", _labels()))
    verdicts = load_verdicts(write("v.jsonl", _verdicts("summary-faithful", samples=2)))
    unlabelled = load_verdicts(
        write(
            "u.jsonl",
            [{"item_id": f"u{i}", "verdict": "pass" if i % 3 else "fail"} for i in range(30)],
        )
    )
    report = calibrate(labels, verdicts, unlabelled=unlabelled, n_bootstrap=100)
    assert len(report.criteria) == 1
    crit = report.criteria[0]
    assert crit.criterion is None  # unnamed labels take the verdicts' single criterion
    assert crit.agreement.kappa.value == pytest.approx(7 / 15)
    assert crit.split_counts == {"train": 5, "test": 5}
    assert crit.samples_per_item == (2, 2)
    assert not crit.trust.trusted
    assert not report.trusted
    assert crit.noise is not None
    assert crit.noise.mean_pairwise_agreement.value == 1.0  # both samples always agree
    # groups t0..t4 hold two items each, so agent variance is defined
    assert crit.noise.agent_variance.value is not None
    assert crit.ppi is not None
    assert (crit.ppi.n_labelled, crit.ppi.n_unlabelled) == (10, 30)
    assert crit.ppi.humans_only.value == pytest.approx(0.6)
    assert [(d.item_id, d.kind) for d in crit.disagreements] == [
        ("i4", "false_fail"),
        ("i6", "false_pass"),
    ]
    assert crit.inter_annotator is None
    assert "human-human ceiling is unknown" in crit.ceiling
    # The report round-trips through JSON.
    again = type(report).model_validate_json(report.model_dump_json())
    assert again == report


def test_split_filter_and_trust(write: Writer) -> None:
    labels = load_labels(write("l.jsonl", _labels()))
    verdicts = load_verdicts(write("v.jsonl", _verdicts()))
    report = calibrate(labels, verdicts, split="test", n_bootstrap=50)
    crit = report.criteria[0]
    # test split = odd items: i1 P->pass, i3 P->pass, i5 P->unsure, i7 F->fail, i9 F->unsure
    assert crit.n_labelled == 5
    assert crit.agreement.confusion.matrix == ((2, 0), (0, 1))
    lenient = calibrate(
        labels,
        verdicts,
        split="test",
        gates=Gates(tpr=0, tnr=0, kappa=-1, max_unsure=None),
        n_bootstrap=50,
    )
    assert lenient.criteria[0].trust.trusted


def test_few_shot_export_from_train_disagreements(write: Writer) -> None:
    labels = load_labels(write("l.jsonl", _labels()))
    verdicts = load_verdicts(write("v.jsonl", _verdicts()))
    items = {i.item_id: i for i in labels}
    disagreements = find_disagreements(list(labels), verdicts.by_criterion[None])
    # i4 (train, human pass, judge fail) and i6 (train, human fail, judge pass)
    examples = few_shot_examples(disagreements, items)
    assert [e["verdict"] for e in examples] == ["pass", "fail"]
    assert examples[0]["reasoning"] == "The summary invents nothing."
    assert examples[1]["inputs"] == {"source": "source 6", "summary": "summary 6", "n": "6"}
    text = few_shot_yaml(examples, criterion="summary-faithful")
    assert "# 1 have no recorded rationale" in text
    # The snippet drops into a criterion YAML and validates there.
    block = yaml.safe_load(text)
    Criterion(
        id="x",
        version="1",
        criterion="q?",
        inputs=("source", "summary", "n"),
        pass_means="p",
        fail_means="f",
        examples=block["examples"],
    )
    assert few_shot_examples(disagreements, items, split="dev") == []
    assert yaml.safe_load(few_shot_yaml([])) == {"examples": []}


def test_few_shot_needs_inputs(write: Writer) -> None:
    records = _labels()
    records[4]["inputs"] = None
    labels = load_labels(write("l.jsonl", records))
    verdicts = load_verdicts(write("v.jsonl", _verdicts()))
    disagreements = find_disagreements(list(labels), verdicts.by_criterion[None])
    with pytest.raises(
        LabelsError, match=r"l\.jsonl:5: field 'inputs': item 'i4' is a train disagreement"
    ):
        few_shot_examples(disagreements, {i.item_id: i for i in labels}, file=labels.file)


def _error(
    write: Writer, labels: list[dict[str, object]], verdicts: list[dict[str, object]], **kw: object
) -> str:
    with pytest.raises(LabelsError) as info:
        calibrate(
            load_labels(write("l.jsonl", labels)), load_verdicts(write("v.jsonl", verdicts)), **kw
        )  # type: ignore[arg-type]
    return str(info.value)


def test_verdicts_without_a_label_become_judge_only_items(write: Writer) -> None:
    # Subset labelling: verdicts for unlabelled items feed PPI++ as judge-only items, with a note.
    extra = [{"item_id": f"u{i}", "verdict": "pass" if i % 3 else "fail"} for i in range(12)]
    report = calibrate(
        load_labels(write("l.jsonl", _labels())),
        load_verdicts(write("v.jsonl", [*_verdicts(), *extra])),
        n_bootstrap=50,
    )
    crit = report.criteria[0]
    assert crit.n_labelled == 10
    assert crit.n_judge_only == 12
    assert crit.ppi is not None
    assert crit.ppi.n_unlabelled == 12
    assert crit.ppi.n_labelled == 10
    assert any("12 verdict(s) have no label" in note for note in crit.notes)
    # The same judge-only items given through --unlabelled give the same PPI estimate.
    alone = calibrate(
        load_labels(write("l2.jsonl", _labels())),
        load_verdicts(write("v2.jsonl", _verdicts())),
        unlabelled=load_verdicts(write("u.jsonl", extra)),
        n_bootstrap=50,
    )
    assert alone.criteria[0].ppi == crit.ppi
    # ... but not both at once: PPI would count them twice.
    with pytest.raises(LabelsError, match="judged both in the judge-only file and in the verdicts"):
        calibrate(
            load_labels(write("l3.jsonl", _labels())),
            load_verdicts(write("v3.jsonl", [*_verdicts(), *extra])),
            unlabelled=load_verdicts(write("u3.jsonl", extra)),
            n_bootstrap=50,
        )


def test_labels_without_verdicts_are_reported_not_refused(write: Writer) -> None:
    report = calibrate(
        load_labels(write("l.jsonl", _labels())),
        load_verdicts(write("v.jsonl", _verdicts()[:7])),
        n_bootstrap=50,
    )
    crit = report.criteria[0]
    assert crit.labels_without_verdict == ("i7", "i8", "i9")
    assert crit.n_labelled == 7
    assert crit.agreement.n_items == 7
    assert "3 labelled item(s) have no verdict and are left out: 'i7', 'i8', 'i9'" in crit.notes[0]
    # No labelled item judged at all: one clear error.
    message = _error(write, _labels(), [{"item_id": "zz", "verdict": "pass"}])
    assert "none of the 10 labelled items has a verdict" in message


def test_single_class(write: Writer) -> None:
    message = _error(write, _labels(10, 0), _verdicts())
    assert "all 10 labelled items are 'pass', so TNR and kappa cannot be estimated" in message
    assert "add labelled 'fail' items" in message
    report = calibrate(
        load_labels(write("l.jsonl", _labels(10, 0))),
        load_verdicts(write("v.jsonl", _verdicts())),
        allow_single_class=True,
        n_bootstrap=20,
    )
    assert report.criteria[0].agreement.tnr.value is None
    assert not report.criteria[0].trust.trusted


def test_criteria_that_do_not_match(write: Writer) -> None:
    both = _labels(criterion="a") + [{**r, "criterion": "b"} for r in _labels()]
    message = _error(write, both, _verdicts("c"))
    assert "verdicts for criterion 'c' but the labels have 'a', 'b'" in message
    assert "no verdicts for criterion 'b'" in _error(write, both, _verdicts("a"))
    assert "the labels have no criterion 'z'" in _error(write, both, _verdicts("a"), criterion="z")
    named = _error(write, _labels(criterion="a"), _verdicts("b"))
    assert "verdicts for criterion 'b' but the labels have 'a'" in named
    # Restricting to one criterion ignores the other's missing verdicts.
    report = calibrate(
        load_labels(write("l.jsonl", both)),
        load_verdicts(write("v.jsonl", _verdicts("a"))),
        criterion="a",
        n_bootstrap=20,
    )
    assert [c.criterion for c in report.criteria] == ["a"]


def test_unlabelled_items_must_not_be_labelled(write: Writer) -> None:
    labels = load_labels(write("l.jsonl", _labels()))
    verdicts = load_verdicts(write("v.jsonl", _verdicts()))
    unl = load_verdicts(
        write(
            "u.jsonl", [{"item_id": "u1", "verdict": "pass"}, {"item_id": "i3", "verdict": "pass"}]
        )
    )
    with pytest.raises(
        LabelsError,
        match=r"u\.jsonl:2: field 'item_id': item 'i3' is judge-only \(unlabelled\) but also labelled",
    ):
        calibrate(labels, verdicts, unlabelled=unl)


def test_unlabelled_for_one_of_two_criteria(write: Writer) -> None:
    both = _labels(criterion="a") + [{**r, "criterion": "b"} for r in _labels()]
    labels = load_labels(write("l.jsonl", both))
    verdicts = load_verdicts(write("v.jsonl", _verdicts("a") + _verdicts("b")))
    unl = load_verdicts(write("u.jsonl", [{"item_id": "u1", "verdict": "pass", "criterion": "a"}]))
    report = calibrate(labels, verdicts, unlabelled=unl, n_bootstrap=20)
    by = {c.criterion: c for c in report.criteria}
    assert by["a"].ppi is not None
    assert by["a"].ppi.n_unlabelled == 1
    assert by["b"].ppi is None


def _log() -> list[dict[str, object]]:
    """A label log: ana labels i0-i9 (i0-i4 in a random order, the rest by gates), bo double-codes
    i0-i3 and i7 by gates and i6 in a random order; the truth is pass for i0-i5."""
    from .test_labels import label_event

    out = []
    for i in range(10):
        truth = "pass" if i < 6 else "fail"
        out.append(label_event(f"i{i}", truth, "ana", order="random" if i < 5 else "gates"))
        if i in (0, 1, 2, 3, 6, 7):
            out.append(label_event(f"i{i}", truth, "bo", order="random" if i == 6 else "gates"))
    return [{**e, "criterion": "faithful"} for e in out]


def test_ppi_uses_only_labels_drawn_in_a_random_order_and_says_how_many_it_left_out(
    write: Writer,
) -> None:
    from pathjudge.calibration.ppi import ppi_mean, predictions
    from pathjudge.calibration.verdicts import load_verdicts as load

    labels = load_labels(write("log.jsonl", _log()))
    unl = write("u.jsonl", [{"item_id": f"u{i}", "verdict": "pass"} for i in range(8)])
    verdicts = load(write("v.jsonl", _verdicts()))
    report = calibrate(labels, verdicts, unlabelled=load(unl), n_bootstrap=50)
    crit = report.criteria[0]
    assert crit.n_labelled == 10
    assert crit.n_ppi_left_out == 4  # i5, i7, i8, i9: nobody labelled them in a random order
    assert crit.ppi is not None
    assert crit.ppi.n_labelled == 6
    kept = [0, 1, 2, 3, 4, 6]
    expected = ppi_mean(
        [1.0 if i < 6 else 0.0 for i in kept],
        predictions([verdicts.by_criterion[None][f"i{i}"] for i in kept], "vote_share"),
        predictions(list(load(unl).by_criterion[None].values()), "vote_share"),
    )
    assert crit.ppi.estimate == expected.estimate
    assert "PPI++ uses the 6 random-order label(s) only (it needs a simple random sample)" in (
        crit.notes
    )
    # these gates-order labels carry no stratum (an old log): they cannot be weighed, so the gates
    # are those of the random-order labels alone, never the judge-leaning mix
    assert any(
        n.startswith(
            "the gates (TPR, TNR, kappa, unsure rate) are computed over the 6 random-order"
        )
        for n in crit.notes
    )
    assert crit.n_design_weighted == 6
    from pathjudge.calibration.agreement import judge_agreement

    alone = judge_agreement(
        [("pass" if i < 6 else "fail") for i in kept],
        [verdicts.by_criterion[None][f"i{i}"].majority for i in kept],
        n_bootstrap=50,
    )
    assert crit.agreement.tpr_unsure_as_wrong == alone.tpr_unsure_as_wrong
    assert crit.agreement.kappa_unsure_as_wrong == alone.kappa_unsure_as_wrong
    # the gates on the random-order labels alone, as an unbiased check
    assert any(
        n.startswith("on the 6 random-order labels alone: NOT TRUSTED (") for n in crit.notes
    )


def test_the_rater_ceiling_stands_beside_judge_human_agreement(write: Writer) -> None:
    from pathjudge.calibration.verdicts import load_verdicts as load

    labels = load_labels(write("log.jsonl", _log()))
    report = calibrate(labels, load(write("v.jsonl", _verdicts())), n_bootstrap=50)
    crit = report.criteria[0]
    assert crit.rater_agreement is not None
    assert crit.rater_agreement.statistic == "cohen_kappa"
    assert crit.rater_agreement.n_items == 6
    assert crit.rater_agreement.value.value == pytest.approx(1.0)
    assert "rater-rater Cohen's kappa 1.000" in crit.ceiling
    assert "judge-human kappa" in crit.ceiling


def test_stale_labels_are_reported_with_their_ids(write: Writer) -> None:
    from pathjudge.calibration.label_store import item_content_hash
    from pathjudge.calibration.verdicts import load_verdicts as load

    now = {f"i{i}": item_content_hash({"text": f"i{i}"}) for i in range(10)}
    now["i9"] = item_content_hash({"text": "edited"})
    labels = load_labels(write("log.jsonl", _log()), current_hashes=now)
    report = calibrate(labels, load(write("v.jsonl", _verdicts())), n_bootstrap=50)
    crit = report.criteria[0]
    assert crit.stale_labels == ("i9",)
    assert crit.n_labelled == 9
    assert any("1 item(s) have labels given to different content" in n for n in crit.notes)


def test_items_whose_raters_split_still_count_for_the_rater_ceiling(write: Writer) -> None:
    from pathjudge.calibration.verdicts import load_verdicts as load

    from .test_labels import label_event

    log = _log()
    log.append(
        {**label_event("i1", "fail", "bo", at="2026-12-06T21:00:00Z"), "criterion": "faithful"}
    )
    labels = load_labels(write("log.jsonl", log))
    crit = calibrate(labels, load(write("v.jsonl", _verdicts())), n_bootstrap=50).criteria[0]
    assert crit.n_labelled == 9  # i1 waits for adjudication
    assert crit.rater_agreement is not None
    assert crit.rater_agreement.n_items == 6
    # ana/bo on i0 i1 i2 i3 i6 i7: pass/pass, pass/fail, pass/pass, pass/pass, fail/fail, fail/fail
    # po = 5/6; ana passes 4/6, bo 3/6: pe = 4/6*3/6 + 2/6*3/6 = 1/2; kappa = (5/6-1/2)/(1/2) = 2/3
    assert crit.rater_agreement.value.value == pytest.approx(2 / 3, abs=1e-9)
    assert crit.inter_annotator is not None
    assert crit.inter_annotator.n_items == 6
    assert crit.inter_annotator.percent_agreement.value == pytest.approx(5 / 6, abs=1e-9)


def _stratified_log() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Gates-order labels with their strata, two random-order labels and one file-order label, and
    the judge's verdicts on them."""
    from .test_labels import label_event

    # (item, truth, judge, order, stratum, N_h)
    rows = [
        ("g0", "pass", "pass", "gates", "judge-pass", 40),
        ("g1", "pass", "pass", "gates", "judge-pass", 40),
        ("g2", "pass", "pass", "gates", "judge-pass", 40),
        ("g3", "fail", "pass", "gates", "judge-pass", 40),
        ("g4", "pass", "fail", "gates", "judge-fail", 160),
        ("g5", "fail", "fail", "gates", "judge-fail", 160),
        ("g6", "fail", "fail", "gates", "judge-fail", 160),
        ("g7", "fail", "fail", "gates", "judge-fail", 160),
        ("r0", "pass", "pass", "random", None, None),
        ("r1", "fail", "fail", "random", None, None),
        ("f0", "pass", "pass", "file", None, None),
    ]
    log = [
        {**label_event(i, truth, order=order), "stratum": key, "stratum_size": size}
        for i, truth, _, order, key, size in rows
    ]
    verdicts = [
        {"item_id": i, "verdict": judge, "criterion": "faithful"} for i, _, judge, *_ in rows
    ]
    return log, verdicts


def test_gates_order_labels_are_weighed_by_their_strata_and_the_rest_left_out(
    write: Writer,
) -> None:
    log, said = _stratified_log()
    labels = load_labels(write("log.jsonl", log))
    report = calibrate(labels, load_verdicts(write("v.jsonl", said)), n_bootstrap=200)
    crit = report.criteria[0]
    # judge-pass (N 40): g0-g3 and r0 (random order, judged pass), 5 labels, each weighs 8:
    # pass/pass 4·8 = 32, fail/pass 1·8 = 8. judge-fail (N 160): g4-g7 and r1, each weighs 32:
    # pass/fail 32, fail/fail 4·32 = 128. f0 (file order) has no known design: left out.
    # TPR = 32 / (32 + 32) = 0.5 (the labels as they are would say 4/5 = 0.8); TNR = 128/136
    assert crit.agreement.tpr_unsure_as_wrong.value == pytest.approx(0.5)
    assert crit.agreement.tnr_unsure_as_wrong.value == pytest.approx(128 / 136)
    assert crit.agreement.tpr.value == pytest.approx(5 / 6)  # not a gate: every label alike
    assert crit.n_design_weighted == 10
    assert not crit.trust.trusted
    assert any(
        n.startswith("the gates (TPR, TNR, kappa, unsure rate) are design-weighted over 10 of 11")
        and n.endswith(
            "1 label(s) with no known design (file order, or gates order before "
            "pathjudge recorded strata) are left out of the gates"
        )
        for n in crit.notes
    )
    assert '"n_design_weighted":10' in report.model_dump_json()


def test_with_only_random_order_labels_the_report_has_no_design_field(write: Writer) -> None:
    from .test_labels import label_event

    log = [label_event(f"i{i}", "pass" if i < 6 else "fail") for i in range(10)]
    labels = load_labels(write("log.jsonl", log))
    report = calibrate(labels, load_verdicts(write("v.jsonl", _verdicts())), n_bootstrap=50)
    assert report.criteria[0].n_design_weighted is None
    assert "n_design_weighted" not in report.model_dump_json()
    assert not any("design-weighted" in n for n in report.criteria[0].notes)


def test_a_stratum_recorded_with_two_sizes_weighs_by_the_largest_and_says_so(
    write: Writer,
) -> None:
    log, said = _stratified_log()
    log[0] = {**log[0], "stratum_size": 30}  # g0 labelled when the items file was smaller
    labels = load_labels(write("log.jsonl", log))
    report = calibrate(labels, load_verdicts(write("v.jsonl", said)), n_bootstrap=50)
    crit = report.criteria[0]
    assert crit.agreement.tpr_unsure_as_wrong.value == pytest.approx(0.5)  # as with 40 throughout
    assert any(
        "stratum 'judge-pass' was recorded with sizes 30, 40 (did the items file change between "
        "sessions?): weighed by the largest" in n
        for n in crit.notes
    )
