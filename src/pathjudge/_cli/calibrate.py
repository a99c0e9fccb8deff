"""``pathjudge calibrate``: how far the judge can be trusted, against human labels.

Exit codes: 0 when the judge passes the trust gates on every criterion (or with ``--report-only``),
1 when it misses a gate or (with ``--slice-by``) a slice fails its gates (a slice too small to
decide does not count), 2 for bad input. A ``--pairwise`` judge is gated on kappa, position bias
and its unsure share (:func:`pathjudge.calibration.pairwise.pairwise_trust`) with the same codes.
An option the chosen mode cannot use (``--few-shot`` with ``--pairwise``, ``--save-verdicts`` with
recorded ``--verdicts``) is refused with exit 2, never ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from pathjudge._cli import options
from pathjudge._cli.app import app, err_console, json_to_stdout, out_console, write_json

if TYPE_CHECKING:
    from pathjudge.calibration.agreement import Gates, TrustDecision
    from pathjudge.calibration.calibrate import (
        CalibrationReport,
        CriterionCalibration,
        EvidenceDiagnostic,
        Slicing,
    )
    from pathjudge.calibration.estimate import Estimate
    from pathjudge.calibration.labels import LabelSet
    from pathjudge.calibration.pairwise import PairwiseReport, UnsureAs
    from pathjudge.calibration.ppi import PPIResult
    from pathjudge.calibration.test_use import HonestTest
    from pathjudge.calibration.verdicts import VerdictSet
    from pathjudge.config import ResolvedConfig
    from pathjudge.judge.session import JudgeSession


def _fmt(est: Estimate, *, digits: int = 3) -> tuple[str, str]:
    if est.value is None:
        return "undefined", ""
    value = f"{est.value:.{digits}f}"
    if est.lower is None or est.upper is None:
        return value, ""
    return value, f"[{est.lower:.{digits}f}, {est.upper:.{digits}f}]"


def _slug(name: str | None, limit: int = 60) -> str:
    """A file-name-safe form of a criterion name: ASCII letters, digits, ``-`` and ``_``, at most
    ``limit`` characters. A name that had to be changed or cut gets a short hash of the original,
    so two criteria never share a plot file, and a 600-character name still makes a valid file."""
    raw = name or "criterion"
    text = "".join(c if (c.isascii() and c.isalnum()) or c in "-_" else "-" for c in raw)
    text = text.strip("-") or "criterion"
    if text == raw and len(text) <= limit:
        return text
    import hashlib

    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{text[:limit].rstrip('-')}-{digest}"


def _render(report: CalibrationReport, disagreements: int) -> None:
    for crit in report.criteria:
        _render_criterion(crit, report, disagreements)
    _slice_verdict(report)


def _slice_verdict(report: CalibrationReport) -> None:
    """The last lines of a sliced run: the slices that fail their gates (they fail the run, exit
    1) and those too small to decide (they do not)."""
    from pathjudge.report.text import styled

    many = len(report.criteria) > 1

    def named(criterion: str | None, name: str) -> str:
        return f"{criterion or '(unnamed criterion)'}: {name}" if many else name

    failed = [named(c, one.name) for c, one in report.failed_slices]
    small = [
        named(crit.criterion, one.name)
        for crit in report.criteria
        for one in crit.slices
        if one.status == "too small"
    ]
    if failed:
        out_console.print(
            styled("SLICE NOT TRUSTED", "bold red")
            + styled(
                f": {', '.join(failed)} {'fail their' if len(failed) > 1 else 'fails its'} gates"
            )
        )
    if small:
        _say(
            f"too small to decide, not failing the run: {', '.join(small)} (a slice decides once "
            "it has --slice-min labels of both classes: label more, or lower --slice-min)",
            indent=2,
        )


_BOOTSTRAP_NOTE = re.compile(
    r"; \d+% percentile interval from \d+ per-item bootstrap resamples \(seed -?\d+\)"
)


def _how(est: Estimate, confidence: float) -> str:
    """An estimate's reason without the interval method, which the line under the table names."""
    text = est.reason.removesuffix(f"; {confidence:.0%} Wilson interval")
    return _BOOTSTRAP_NOTE.sub("", text)


def _say(text: str, *, indent: int = 2) -> None:
    """One line of the report: wrapped at spaces on a terminal, continuation lines hang-indented."""
    from pathjudge.report.text import Prose

    out_console.print(Prose(text, indent=indent, hanging=True))


def _item(text: str) -> None:
    """A ``  - `` list entry whose continuation lines start under its text."""
    from pathjudge.report.text import Prose

    out_console.print(Prose(f"  - {text}", indent=4, hanging=True))


def _samples_per_item(low: int, high: int) -> str:
    if low == high:
        return f"{low} sample{'' if low == 1 else 's'} per item"
    return f"{low} to {high} samples per item"


def _clip_words(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut at a space near ``limit`` characters (never inside a word) with ``…``."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return head.rstrip(",;:") + "…"


def _trust_lines(trust: TrustDecision) -> None:
    from pathjudge.report.text import styled

    missed = [gate for gate in trust.gates if not gate.passed]
    if trust.trusted:
        out_console.print(
            styled("TRUSTED", "bold green")
            + styled(f": all {len(trust.gates)} gates pass on their confidence bounds")
        )
        return
    out_console.print(
        styled("NOT TRUSTED", "bold red")
        + styled(f": {len(missed)} of {len(trust.gates)} gates missed")
    )
    for gate in missed:
        _item(gate.reason)


def _render_criterion(crit: CriterionCalibration, report: CalibrationReport, shown: int) -> None:
    from pathjudge.report.text import Prose

    out_console.print(Prose(_criterion_title(crit), indent=2, hanging=True))
    _print_statistics(_statistic_rows(crit), report.confidence)
    _say(
        "gated: every labelled item counts and an unsure verdict counts as wrong (the trust gates "
        "read these); decided: unsure verdicts left out. Intervals: Wilson for rates, per-item "
        f"percentile bootstrap for kappa ({report.n_bootstrap} resamples, seed {report.seed})."
    )
    cm = crit.agreement.confusion
    _say(
        f"confusion (human → judge): pass→pass {cm.tp}, pass→fail {cm.fn}, "
        f"fail→pass {cm.fp}, fail→fail {cm.tn}; unsure: human-pass {cm.unsure['pass']}, "
        f"human-fail {cm.unsure['fail']}"
    )
    _say(f"ceiling: {crit.ceiling}")
    if crit.judges:
        _say("judge: " + "; ".join(j.describe() for j in crit.judges))
    if crit.ppi is not None:
        _say(_ppi_line(crit.ppi))
    if crit.evidence is not None:
        _say(_evidence_line(crit.evidence))
    for note in crit.notes:
        _say(f"note: {note}")
    _trust_lines(crit.trust)
    if crit.next_steps:
        out_console.print("next steps:")
        for step in crit.next_steps:
            _item(step)
    if crit.slices:
        _print_slices(crit)
    if crit.disagreements and shown > 0:
        _print_disagreements(crit, shown)
    out_console.print()


def _print_slices(crit: CriterionCalibration) -> None:
    """Each slice's status on one entry, and under a failing one what its gates need."""
    failing = [s.name for s in crit.slices if s.status == "not trusted"]
    small = sum(1 for s in crit.slices if s.status == "too small")
    out_console.print(
        f"slices: {len(crit.slices)}, {len(failing)} not trusted"
        + (f" ({', '.join(failing)})" if failing else "")
        + (f", {small} too small to decide" if small else "")
    )
    for one in crit.slices:
        _item(one.describe())
        if one.status != "trusted":
            for step in one.next_steps:
                _say(f"    next: {step}", indent=10)
        if one.ppi is not None and one.ppi.estimate.value is not None:
            _say(f"    {_ppi_line(one.ppi)}", indent=6)


def _criterion_title(crit: CriterionCalibration) -> str:
    """The line above a criterion's table: how many items were labelled, decided and unsure."""
    a = crit.agreement
    name = crit.criterion or "(unnamed criterion)"
    split = f", split {crit.split}" if crit.split else ""
    errors = (
        f" ({crit.n_judge_errors} of them {'a judge error' if crit.n_judge_errors == 1 else 'judge errors'})"
        if crit.n_judge_errors
        else ""
    )
    return (
        f"{name}: {crit.n_labelled} labelled items{split}, {a.n_decided} decided, "
        f"{a.n_unsure} unsure{errors}; "
        f"{_samples_per_item(*crit.samples_per_item)}"
    )


def _statistic_rows(crit: CriterionCalibration) -> list[tuple[str, Estimate]]:
    """The statistics table of one criterion, as (label, estimate) rows."""
    a = crit.agreement
    # the gated forms first (every labelled item, unsure counted as wrong); the decided-only forms,
    # which an abstaining judge can make look perfect, after them and labelled as such
    rows: list[tuple[str, Estimate]] = [
        ("TPR (gated)", a.tpr_unsure_as_wrong),
        ("TNR (gated)", a.tnr_unsure_as_wrong),
        ("kappa (gated)", a.kappa_unsure_as_wrong),
        ("unsure rate (gated)", a.unsure_rate),
        ("accuracy (decided)", a.accuracy),
        ("kappa (decided)", a.kappa),
        ("TPR (decided)", a.tpr),
        ("TNR (decided)", a.tnr),
        ("judge pass rate (decided)", a.judge_pass_rate),
        ("human pass rate", a.prevalence),
    ]
    for scores in a.per_class:
        rows.append((f"precision '{scores.label}' (decided)", scores.precision))
        rows.append((f"F1 '{scores.label}' (decided)", scores.f1))
    if crit.inter_annotator is not None:
        ia = crit.inter_annotator
        rows.append(("agreement (humans)", ia.percent_agreement))
        rows.append(("Fleiss kappa (humans)", ia.fleiss_kappa))
        rows.append(("Krippendorff alpha (humans)", ia.krippendorff_alpha))
    if crit.rater_agreement is not None:
        ra = crit.rater_agreement
        name = "Cohen kappa" if ra.statistic == "cohen_kappa" else "Krippendorff alpha"
        rows.append((f"rater-rater {name} (ceiling)", ra.value))
    if crit.noise is not None:
        rows.append(("judge self-agreement", crit.noise.mean_pairwise_agreement))
        rows.append(("judge noise share", crit.noise.judge_noise_share))
    return rows


def _print_statistics(rows: list[tuple[str, Estimate]], confidence: float) -> None:
    """A statistic / value / interval / how table."""
    from pathjudge.report.text import Column, print_table

    cells = []
    for label, est in rows:
        value, interval = _fmt(est)
        cells.append((label, value, interval, _how(est, confidence)))
    print_table(
        out_console,
        None,
        [
            Column("statistic", "id"),
            Column("value", "num", "right"),
            Column(f"{confidence:.0%} interval", "num", "right"),
            Column("how", "text"),
        ],
        cells,
    )


def _ppi_line(p: PPIResult) -> str:
    """The PPI++ success rate beside the naive judge rate and the humans-only rate."""
    corrected, ci = _fmt(p.estimate)
    naive, naive_ci = _fmt(p.naive_judge_rate)
    humans, humans_ci = _fmt(p.humans_only)
    gain = f"{p.gain:.2f}x" if p.gain is not None else "undefined"
    lam = "undefined" if p.lam is None else f"{p.lam:.3f}"
    return (
        f"success rate: PPI++ {corrected} {ci} (lambda {lam}) | "
        f"naive judge {naive} {naive_ci} | humans only {humans} {humans_ci} "
        f"(n={p.n_labelled}, N={p.n_unlabelled}); effective sample-size gain {gain}"
    )


def _evidence_line(ev: EvidenceDiagnostic) -> str:
    """How many verdicts cite a quote not found in the judged inputs, and agreement on each side."""
    acc_bad, _ = _fmt(ev.accuracy_unverified)
    acc_good, _ = _fmt(ev.accuracy_verified)
    return (
        f"evidence: {ev.n_unverified} of {ev.n_checked} items cite a quote not found in the "
        f"judged inputs (agreement {acc_bad} there, {acc_good} where the quotes were found)"
        + ("; counted as unsure" if ev.treated_as_unsure else "")
    )


def _print_disagreements(crit: CriterionCalibration, shown: int) -> None:
    """The first ``shown`` disagreements of a criterion, one line each."""
    which = f"{crit.split}-split " if crit.split else ""
    _say(
        f"{which}disagreements ({len(crit.disagreements)}), first "
        f"{min(shown, len(crit.disagreements))}; [split] is the item's split, [-] = none:"
    )
    for d in crit.disagreements[:shown]:
        why = _clip_words(d.judge_reasoning or "")
        _say(
            f"  {d.item_id} [{d.split or '-'}] human {d.human}, judge {d.judge}: {why}",
            indent=4,
        )


_Labels = options.HumanLabels
_Verdicts = Annotated[
    Path | None, typer.Option("--verdicts", help="Recorded verdicts JSONL (any grader).")
]
_Criterion = Annotated[
    str | None,
    typer.Option(
        help=f"Criterion id or YAML path (live judging; filters --verdicts). Built-ins: {options.BUILTINS}."
    ),
]
_Backend = options.LiveJudgeBackend
_Model = options.JudgeModel
_BaseUrl = options.LiveJudgeBaseUrl
_Samples = options.LiveJudgeSamples
_Concurrency = options.LiveJudgeConcurrency
_Cache = options.LiveJudgeCache
_SaveVerdicts = Annotated[
    Path | None, typer.Option(help="Write the live judge's verdicts to this JSONL.")
]
_Unlabelled = Annotated[
    Path | None,
    typer.Option("--unlabelled", help="Judge-only verdicts JSONL: PPI++ corrected rate."),
]
_Json = options.JsonOut
_Plots = Annotated[Path | None, typer.Option(help="Write PNG plots into this folder.")]
_Html = Annotated[
    Path | None,
    typer.Option("--html", help="Write a self-contained HTML page of the calibration here."),
]
_Gates = options.TrustGates
_Split = Annotated[str | None, typer.Option(help="Evaluate one split only: train, dev or test.")]
_Threshold = Annotated[
    float | None, typer.Option(help="Default pass threshold for scores (score >= threshold).")
]
_Confidence = options.IntervalConfidence
_Bootstrap = options.KappaBootstrap
_Seed = options.BootstrapSeed
_Bins = Annotated[int, typer.Option(min=1, help="Reliability bins.")]
_FewShot = Annotated[
    Path | None, typer.Option(help="Write train-split disagreements as few-shot YAML here.")
]
_Disagreements = Annotated[int, typer.Option(min=0, help="Disagreements to print.")]
_Quiet = Annotated[
    bool,
    typer.Option(
        "-q",
        "--quiet",
        help="Print nothing on stdout (use with --json FILE; exit code says it).",
    ),
]
_Pairwise = Annotated[
    bool,
    typer.Option(
        "--pairwise",
        help="Pairwise judge judged in both orders: --labels holds {item_id, preference: "
        "A|B|tie}, --verdicts one {item_id, order: ab|ba, verdict} per order (see docs/reference/formats.md).",
    ),
]
_UnsureAs = Annotated[
    str,
    typer.Option(
        "--unsure-as",
        help="Pairwise: how an unsure or unparsed answer counts: wrong (default, as published "
        "pairwise evaluations count it), tie, or drop (leave the item out).",
    ),
]
_UnverifiedAsUnsure = Annotated[
    bool,
    typer.Option(
        "--unverified-as-unsure",
        help="Count a verdict whose evidence quotes are not in the judged inputs as unsure.",
    ),
]
_AllowSingleClass = Annotated[
    bool, typer.Option(help="Report (undefined) statistics for one-class labels.")
]
_ReportOnly = Annotated[bool, typer.Option(help="Exit 0 even when the judge misses a gate.")]
_Items = Annotated[
    Path | None,
    typer.Option(
        "--items",
        help="The items file as it is now: labels given to different content are stale "
        "(default: the input hashes in --verdicts, where recorded).",
    ),
]
_KeepStale = Annotated[
    bool,
    typer.Option("--keep-stale", help="Keep stale labels in the statistics (still reported)."),
]
_SliceBy = Annotated[
    list[str] | None,
    typer.Option(
        "--slice-by",
        help="Also gate each slice: a slice key (e.g. category) of the labels' or --items' "
        "'slice'; repeat for several keys.",
    ),
]
_SliceMin = Annotated[
    int,
    typer.Option(
        "--slice-min", min=1, help="Labelled items a slice needs before its gates decide."
    ),
]
_ConfigFile = options.ConfigFile
_Certify = Annotated[
    Path | None,
    typer.Option(
        "--certify",
        help="Write a sealed judge certificate here when the live judge is TRUSTED on --split test.",
    ),
]
_Bias = Annotated[
    Path | None,
    typer.Option(
        "--bias",
        help="With --certify: the bias battery of this judge and labels (pathjudge bias --json "
        "FILE), copied into the certificate; a failed must-pass probe writes none (exit 1). "
        "Without it the certificate says bias: not run.",
    ),
]
_ReuseTest = options.ReuseTest
_AssignSplits = options.AssignSplits


@dataclass(frozen=True)
class _Outputs:
    """What calibrate writes and prints: --json, --html, --plots, --few-shot, --quiet and how many
    disagreements the table lists."""

    json_out: Path | None
    html: Path | None
    plots: Path | None
    few_shot: Path | None
    quiet: bool
    disagreements: int
    certify: Path | None = None


@dataclass(frozen=True)
class CalibrateOptions:
    """The options of one ``pathjudge calibrate``, as given on the command line (see its ``--help``)."""

    labels: list[Path]
    verdicts: Path | None
    criterion: str | None
    backend: str | None
    model: str | None
    base_url: str | None
    samples: int
    concurrency: int | None
    cache: Path | None
    save_verdicts: Path | None
    unlabelled: Path | None
    json_out: Path | None
    plots: Path | None
    html: Path | None
    gates: str | None
    split: str | None
    threshold: float | None
    confidence: float
    bootstrap: int
    seed: int
    bins: int
    few_shot: Path | None
    disagreements: int
    quiet: bool
    pairwise: bool
    unsure_as: str
    unverified_as_unsure: bool
    allow_single_class: bool
    report_only: bool
    items: Path | None
    keep_stale: bool
    slice_by: list[str] | None
    slice_min: int
    config_file: Path | None
    certify: Path | None
    bias: Path | None
    reuse_test: bool
    assign_splits: bool

    @property
    def outputs(self) -> _Outputs:
        return _Outputs(
            self.json_out, self.html, self.plots, self.few_shot, quiet=self.quiet,
            disagreements=self.disagreements, certify=self.certify,
        )  # fmt: skip

    @property
    def inputs(self) -> dict[str, Path | None]:
        """The command's input files by option, which no output may overwrite."""
        paths = _input_paths(
            self.labels, self.verdicts, self.unlabelled, self.config_file, self.criterion
        )
        return {**paths, "--bias": self.bias}


@app.command()
def calibrate(
    ctx: typer.Context,
    labels: _Labels,
    verdicts: _Verdicts = None,
    criterion: _Criterion = None,
    backend: _Backend = None,
    model: _Model = None,
    base_url: _BaseUrl = None,
    samples: _Samples = 1,
    concurrency: _Concurrency = None,
    cache: _Cache = None,
    save_verdicts: _SaveVerdicts = None,
    unlabelled: _Unlabelled = None,
    json_out: _Json = None,
    plots: _Plots = None,
    html: _Html = None,
    gates: _Gates = None,
    split: _Split = None,
    threshold: _Threshold = None,
    confidence: _Confidence = 0.95,
    bootstrap: _Bootstrap = 2000,
    seed: _Seed = 0,
    bins: _Bins = 5,
    few_shot: _FewShot = None,
    disagreements: _Disagreements = 10,
    quiet: _Quiet = False,
    pairwise: _Pairwise = False,
    unsure_as: _UnsureAs = "wrong",
    unverified_as_unsure: _UnverifiedAsUnsure = False,
    allow_single_class: _AllowSingleClass = False,
    report_only: _ReportOnly = False,
    items: _Items = None,
    keep_stale: _KeepStale = False,
    slice_by: _SliceBy = None,
    slice_min: _SliceMin = 10,
    config_file: _ConfigFile = None,
    certify: _Certify = None,
    bias: _Bias = None,
    reuse_test: _ReuseTest = False,
    assign_splits: _AssignSplits = False,
) -> int:
    """Agreement of the judge with human labels, trust gates, PPI++ success rate, disagreements.

    Recorded verdicts (--verdicts) or live judging (--criterion without --verdicts). The judge backend,
    model, base URL, concurrency, cache and the trust gates resolve command line > PATHJUDGE_*
    environment > configuration file > defaults (see `pathjudge config`). A live judge evaluated on
    --split test is recorded in the test-split ledger beside the verdict cache: a changed judge on
    the same test split is refused unless --reuse-test."""
    opts = CalibrateOptions(**{name: value for name, value in locals().items() if name != "ctx"})
    if pairwise:
        trusted = _pairwise(
            ctx, labels, verdicts, opts.outputs, unsure_as=unsure_as, gates=gates,
            config_file=config_file, confidence=confidence, n_bootstrap=bootstrap, seed=seed,
        )  # fmt: skip
        return 0 if trusted or report_only else 1
    return _calibrate(ctx, opts)


def _calibrate(ctx: typer.Context, opts: CalibrateOptions) -> int:
    """Pass/fail calibration of recorded or live verdicts: print and write the report (and the
    certificate); the exit code."""
    from pathjudge.calibration.calibrate import calibrate as run_calibration
    from pathjudge.calibration.verdicts import load_verdicts

    live_options = {"--backend": opts.backend, "--model": opts.model, "--base-url": opts.base_url}
    _refuse_options_of_other_modes(ctx, opts.unsure_as, opts.verdicts, opts.criterion, live_options)
    split_value = _split(opts.split)
    resolved = _resolve_config(
        opts.gates, opts.backend, opts.model, opts.base_url, opts.concurrency, opts.cache,
        opts.config_file, live=opts.verdicts is None,
    )  # fmt: skip
    gate_values = _configured_gates(resolved)
    label_set = _label_set(opts)
    verdict_set, honest = _verdict_set(opts, label_set, resolved, split_value)
    unl = load_verdicts(opts.unlabelled) if opts.unlabelled is not None else None
    report = run_calibration(
        label_set, verdict_set, unlabelled=unl, criterion=opts.criterion, split=split_value,
        gates=gate_values, confidence=opts.confidence, n_bootstrap=opts.bootstrap, seed=opts.seed,
        n_bins=opts.bins, allow_single_class=opts.allow_single_class,
        unverified_as_unsure=opts.unverified_as_unsure,
        slicing=_slicing(opts.slice_by, opts.slice_min, opts.items),
    )  # fmt: skip
    if honest is not None:
        report = honest.noted(report)
    out = opts.outputs
    _check_derived_outputs(report, out, save_verdicts=opts.save_verdicts, inputs=opts.inputs)
    _write_report(report, label_set, out)
    if opts.certify is not None and honest is not None:
        written, said = honest.certify(report, label_set, opts.certify)
        err_console.print(said, markup=False)
        if not written and not opts.report_only:
            return 1
    passed = report.trusted and not report.failed_slices
    return 0 if passed or opts.report_only else 1


def _label_set(opts: CalibrateOptions) -> LabelSet:
    """The labels of --labels (stale ones checked), with --assign-splits' splits; --few-shot needs
    train items."""
    label_set = _load_label_files(
        opts.labels, opts.threshold, opts.items, opts.verdicts, keep_stale=opts.keep_stale
    )
    if opts.assign_splits:
        from pathjudge.calibration.splits import assign_splits

        label_set = assign_splits(label_set)
    if opts.few_shot is not None:
        _require_train_items(label_set)
    return label_set


def _verdict_set(
    opts: CalibrateOptions,
    label_set: LabelSet,
    resolved: ResolvedConfig,
    split: Literal["train", "dev", "test"] | None,
) -> tuple[VerdictSet, HonestTest | None]:
    """The recorded --verdicts, or the live judge's verdicts with its identity checked against the
    test-split ledger (and --bias) first."""
    from pathjudge.calibration.verdicts import load_verdicts

    if opts.verdicts is not None:
        _refuse_certify_on_recorded(opts.certify, opts.reuse_test, opts.bias)
        return load_verdicts(opts.verdicts), None
    criterion = opts.criterion or ""
    session = _session(resolved, opts.samples)
    honest = _honest_test(
        label_set, criterion, session, split, certify=opts.certify, reuse_test=opts.reuse_test,
        bias=opts.bias,
    )  # fmt: skip
    live = _live(label_set, criterion, session, save=opts.save_verdicts, split=split)
    return live, honest


def _slicing(keys: list[str] | None, min_labels: int, items: Path | None) -> Slicing | None:
    """--slice-by's keys with the slice values of --items (labels carry their own)."""
    if not keys:
        return None
    from pathjudge.calibration.calibrate import Slicing
    from pathjudge.calibration.labels import item_slices

    found = item_slices(items) if items is not None else {}
    return Slicing(tuple(dict.fromkeys(keys)), found, min_labels)


def _refuse_certify_on_recorded(certify: Path | None, reuse_test: bool, bias: Path | None) -> None:
    """--certify, --bias and --reuse-test name the judge that runs: refused on recorded --verdicts."""
    from pathjudge.errors import InputError

    if certify is not None or reuse_test or bias is not None:
        flag = "--certify" if certify is not None else "--bias" if bias else "--reuse-test"
        raise InputError(
            f"{flag} is for live judging: a certificate names the judge configuration that ran",
            field=flag,
            hint="drop --verdicts and name the --criterion to judge live (the verdict cache "
            "makes a rerun free)",
        )


def _honest_test(
    labels: LabelSet,
    criterion: str,
    session: JudgeSession,
    split: Literal["train", "dev", "test"] | None,
    *,
    certify: Path | None,
    reuse_test: bool,
    bias: Path | None,
) -> HonestTest:
    """The live judge's identity, checked against the test-split ledger when it runs on test."""
    from pathjudge.calibration.ledger import ledger_path
    from pathjudge.calibration.test_use import HonestTest

    return HonestTest.start(
        labels,
        criterion,
        session,
        split,
        ledger=ledger_path(session.cache),
        certify=certify is not None,
        reuse_test=reuse_test,
        bias=bias,
    )


def _refuse_options_of_other_modes(
    ctx: typer.Context,
    unsure_as: str,
    verdicts: Path | None,
    criterion: str | None,
    live_options: dict[str, str | None],
) -> None:
    """Refuse --unsure-as without --pairwise, a live judge's options with recorded --verdicts, and
    a run with neither --verdicts nor --criterion."""
    from pathjudge.errors import InputError

    if unsure_as != "wrong":
        raise InputError(
            "--unsure-as is for --pairwise calibration",
            field="--unsure-as",
            hint="add --pairwise, or drop --unsure-as (pass/fail gates always count unsure as wrong)",
        )
    if verdicts is not None:
        given = [name for name, value in live_options.items() if value is not None]
        # the live judge's other options do nothing on recorded verdicts: say so, never ignore them
        given += [
            _flag(ctx, name)
            for name in ("samples", "concurrency", "cache", "save_verdicts")
            if _given(ctx, name)
        ]
        if given:
            raise InputError(
                f"{given[0]} is for live judging; recorded --verdicts are not judged again",
                field=given[0],
                hint="drop it, or drop --verdicts and name the --criterion to judge live",
            )
    elif criterion is None:
        if any(value is not None for value in live_options.values()):
            raise InputError("live judging needs --criterion", field="--criterion")
        raise InputError(
            "give either --verdicts (recorded) or --criterion (live judging)",
            field="--verdicts",
        )


def _split(split: str | None) -> Literal["train", "dev", "test"] | None:
    """The --split value checked: train, dev, test or none."""
    from pathjudge.errors import InputError

    splits: dict[str, Literal["train", "dev", "test"]] = {
        "train": "train",
        "dev": "dev",
        "test": "test",
    }
    split_value = splits.get(split) if split is not None else None
    if split is not None and split_value is None:
        raise InputError(f"unknown split {split!r}", field="--split", hint="use train, dev or test")
    return split_value


def _resolve_config(
    gates: str | None,
    backend: str | None,
    model: str | None,
    base_url: str | None,
    concurrency: int | None,
    cache: Path | None,
    config_file: Path | None,
    *,
    live: bool,
) -> ResolvedConfig:
    """The configuration with the command line's judge options and --gates laid over it."""
    from pathjudge._cli.config import judge_overrides, resolve_for_cli
    from pathjudge.calibration.agreement import parse_gates

    given_gates = parse_gates(gates or "")
    overrides = judge_overrides(
        backend=backend, model=model, base_url=base_url, concurrency=concurrency, cache=cache
    )
    # the twin warning is about a judge grading its own model: only when a judge runs here
    return resolve_for_cli(
        {**overrides, **_gate_overrides(given_gates)}, config_file=config_file, warn=live
    )


def _gate_overrides(given: Gates) -> dict[str, object]:
    """The gates --gates names, as configuration overrides (the others keep their configured value)."""
    return {f"calibration.{name}": getattr(given, name) for name in given.model_fields_set}


def _configured_gates(resolved: ResolvedConfig) -> Gates:
    """The trust gates of the resolved configuration."""
    from pathjudge.calibration.agreement import Gates

    return Gates.model_validate(resolved.config.calibration.model_dump())


def _require_train_items(label_set: LabelSet) -> None:
    """--few-shot exports train-split disagreements: refuse it when no labelled item is in train."""
    from pathjudge.errors import InputError

    if not any(item.split == "train" for c in label_set.criteria for item in label_set.items(c)):
        raise InputError(
            "--few-shot exports train-split disagreements, but no labelled item is in the "
            "train split",
            file=label_set.file,
            field="split",
            hint='mark the items to learn from with "split": "train" (and evaluate with --split '
            "test), or drop --few-shot",
        )


def _input_paths(
    labels: list[Path],
    verdicts: Path | None,
    unlabelled: Path | None,
    config_file: Path | None,
    criterion: str | None,
) -> dict[str, Path | None]:
    """The command's input files by option, which no output may overwrite."""
    return {
        **{f"--labels {path}" if len(labels) > 1 else "--labels": path for path in labels},
        "--verdicts": verdicts,
        "--unlabelled": unlabelled,
        "--config": config_file,
        "--criterion": Path(criterion) if criterion and Path(criterion).is_file() else None,
    }


def _write_report(report: CalibrationReport, label_set: LabelSet, out: _Outputs) -> None:
    """Print the report (unless --json - or --quiet) and write --json, --plots, --html, --few-shot."""
    if not json_to_stdout(out.json_out) and not out.quiet:
        _render(report, out.disagreements)
    write_json(out.json_out, report.model_dump_json(indent=2), quiet=out.quiet)
    if out.plots is not None:
        for path in _plots(report, out.plots):
            err_console.print(f"wrote {path}")
    if out.html is not None:
        from pathjudge.report.html import write_html_report

        err_console.print(f"wrote {write_html_report(None, out.html, calibration=report)}")
    if out.few_shot is not None:
        for path, count in _few_shot(report, label_set, out.few_shot):
            err_console.print(
                f"wrote {path}: {count} example(s) from train-split disagreements"
                + ("" if count else " (the judge agreed with every judged train item)")
            )


def _load_label_files(
    paths: list[Path],
    threshold: float | None,
    items: Path | None,
    verdicts: Path | None,
    *,
    keep_stale: bool,
) -> LabelSet:
    """The labels of every --labels file; stale labels checked against --items (else the input
    hashes recorded in --verdicts)."""
    from pathjudge.calibration.labels import item_hashes, load_label_files, verdict_input_hashes

    current: dict[str, str] | None = None
    if items is not None:
        current = item_hashes(items)
    elif verdicts is not None:
        current = verdict_input_hashes(verdicts) or None

    def warn(message: str) -> None:
        err_console.print(f"warning: {message}", markup=False)

    return load_label_files(
        paths, threshold=threshold, current_hashes=current, keep_stale=keep_stale, warn=warn
    )


def _write_text(path: Path, text: str) -> None:
    from pathjudge._io import write_text_atomic

    write_text_atomic(path, text)


def _check_derived_outputs(
    report: CalibrationReport,
    out: _Outputs,
    *,
    save_verdicts: Path | None,
    inputs: dict[str, Path | None],
) -> None:
    """Refuse, before anything is written, a file named after a criterion (``--few-shot``'s
    per-criterion YAML, ``--plots``' PNGs) that is one of the command's inputs or another output
    (see :func:`pathjudge._outputs.check_outputs`): a criterion named "labels" must not make
    ``--few-shot few.jsonl`` write ``few-labels.jsonl`` over the labels."""
    from pathjudge._outputs import OutputKind, check_outputs

    few_shot, plots = out.few_shot, out.plots
    outputs = {
        "--json": out.json_out,
        "--html": out.html,
        "--save-verdicts": save_verdicts,
        "--certify": out.certify,
    }
    named: dict[str, tuple[Path, OutputKind]] = {
        option: (path, "file")
        for option, path in outputs.items()
        if path is not None and not json_to_stdout(path)
    }
    if few_shot is not None:
        for crit, path in _few_shot_paths(report, few_shot):
            named[f"--few-shot (criterion {crit.criterion!r})"] = (path, "file")
    if plots is not None:
        for crit in report.criteria:
            for path in _plot_paths(crit, plots):
                named[f"--plots ({path.name})"] = (path, "file")
    check_outputs(named, [(option, path) for option, path in inputs.items() if path is not None])


def _plot_paths(crit: CriterionCalibration, folder: Path) -> tuple[Path, Path]:
    slug = _slug(crit.criterion)
    return folder / f"confusion-{slug}.png", folder / f"reliability-{slug}.png"


def _few_shot_paths(
    report: CalibrationReport, target: Path
) -> list[tuple[CriterionCalibration, Path]]:
    """Where each criterion's few-shot YAML goes: ``target`` itself for one criterion, else
    ``target``'s name with ``-<criterion>`` before its suffix."""
    many = len(report.criteria) > 1
    return [
        (
            crit,
            target.with_name(f"{target.stem}-{_slug(crit.criterion)}{target.suffix}")
            if many
            else target,
        )
        for crit in report.criteria
    ]


def _plots(report: CalibrationReport, folder: Path) -> list[Path]:
    from pathjudge.report.plots import plot_confusion_matrix, plot_reliability

    written: list[Path] = []
    for crit in report.criteria:
        confusion, reliability = _plot_paths(crit, folder)
        cm = crit.agreement.confusion
        unsure = crit.agreement.n_unsure
        written.append(
            plot_confusion_matrix(
                [list(row) for row in cm.matrix],
                list(cm.labels),
                f"{crit.criterion or 'judge'} vs humans"
                + (f" ({unsure} unsure not shown)" if unsure else ""),
                confusion,
            )
        )
        written.append(
            plot_reliability(
                crit.reliability.points,
                f"{crit.criterion or 'judge'}: vote share vs human pass rate",
                reliability,
            )
        )
    return written


def _few_shot(report: CalibrationReport, labels: LabelSet, target: Path) -> list[tuple[Path, int]]:
    from pathjudge.calibration.disagreements import few_shot_examples, few_shot_yaml

    written: list[tuple[Path, int]] = []
    for crit, path in _few_shot_paths(report, target):
        examples = few_shot_examples(
            crit.train_disagreements,
            {item.item_id: item for item in labels.items(crit.criterion)},
            file=labels.file,
        )
        _write_text(path, few_shot_yaml(examples, criterion=crit.criterion))
        written.append((path, len(examples)))
    return written


def _session(resolved: ResolvedConfig, samples: int) -> JudgeSession:
    from pathjudge.judge.session import JudgeSession
    from pathjudge.report.progress import progress_bars

    return JudgeSession.resolve(config=resolved, samples=samples, progress=progress_bars())


def _live(
    labels: LabelSet,
    criterion: str,
    session: JudgeSession,
    *,
    save: Path | None,
    split: Literal["train", "dev", "test"] | None,
) -> VerdictSet:
    import asyncio

    from pathjudge._io import write_jsonl
    from pathjudge.calibration.live import judge_labelled
    from pathjudge.judge.cache import VerdictCache

    judge = session.build_backend()
    try:
        with VerdictCache(session.cache) as store:
            verdict_set, results = judge_labelled(
                labels,
                criterion,
                backend=judge,
                samples=session.samples,
                cache=store,
                concurrency=session.concurrency,
                budget=session.budget,
                split=split,
                progress=session.progress,
            )
    finally:
        asyncio.run(judge.aclose())
    if save is not None:
        write_jsonl(save, results)
        err_console.print(f"wrote {save}")
    return verdict_set


_PAIRWISE_ONLY_UNUSED = (
    "criterion",
    "backend",
    "model",
    "base_url",
    "samples",
    "concurrency",
    "cache",
    "save_verdicts",
    "unlabelled",
    "split",
    "threshold",
    "bins",
    "few_shot",
    "disagreements",
    "unverified_as_unsure",
    "allow_single_class",
    "certify",
    "bias",
    "reuse_test",
    "assign_splits",
)
"""Options of pass/fail calibration that a pairwise run has no use for: given, they are refused."""


def _given(ctx: typer.Context, name: str) -> bool:
    """True when the option ``name`` was written on the command line (not a default)."""
    source = ctx.get_parameter_source(name)  # typer's own click: compare by name
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def _flag(ctx: typer.Context, name: str) -> str:
    for param in ctx.command.params:
        if param.name == name and param.opts:
            return max(param.opts, key=len)
    return f"--{name.replace('_', '-')}"


def _pairwise(
    ctx: typer.Context,
    labels: list[Path],
    verdicts: Path | None,
    out: _Outputs,
    *,
    unsure_as: str,
    gates: str | None,
    config_file: Path | None,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> bool:
    """Calibrate a pairwise judge; print and write its report. Returns whether it is trusted."""
    from pathjudge.calibration.pairwise import (
        PairwiseReport,
        pairwise_agreement,
        pairwise_confusion,
        pairwise_trust,
    )
    from pathjudge.calibration.pairwise_io import read_pairwise
    from pathjudge.errors import InputError

    if len(labels) != 1:
        raise InputError("--pairwise reads one --labels file", field="--labels")
    policy = _pairwise_policy(ctx, unsure_as)
    if verdicts is None:
        raise InputError(
            "--pairwise needs --verdicts (the judge's answers in both orders)",
            field="--verdicts",
            hint="record one line per item and order: {item_id, order: ab|ba, verdict}",
        )
    gate_values = _pairwise_gates(gates, config_file)
    found = read_pairwise(labels[0], verdicts)
    stats = pairwise_agreement(
        found.items, confidence=confidence, unsure_as=policy, n_bootstrap=n_bootstrap, seed=seed
    )
    names, ab = pairwise_confusion(found.items, policy, "ab")
    _, ba = pairwise_confusion(found.items, policy, "ba")
    report = PairwiseReport(
        labels_file=str(labels[0]),
        verdicts_file=str(verdicts),
        notes=tuple(found.notes),
        judges=tuple(f"{who} ({n} answers)" for who, n in found.judges.items()),
        gates=gate_values,
        trust=pairwise_trust(stats, gate_values),
        confusion_columns=names,
        confusion_ab=ab,
        confusion_ba=ba,
        stats=stats,
    )
    _write_pairwise(report, out)
    return report.trusted


def _pairwise_policy(ctx: typer.Context, unsure_as: str) -> UnsureAs:
    """Refuse the options a pairwise run has no use for; the --unsure-as policy, checked."""
    from pathjudge.errors import InputError

    for name in _PAIRWISE_ONLY_UNUSED:
        if _given(ctx, name):
            flag = _flag(ctx, name)
            raise InputError(
                f"{flag} is for pass/fail calibration; a --pairwise run cannot use it",
                field=flag,
                hint=f"drop {flag}, or drop --pairwise",
            )
    policies: dict[str, UnsureAs] = {"wrong": "wrong", "tie": "tie", "drop": "drop"}
    policy = policies.get(unsure_as)
    if policy is None:
        raise InputError(
            f"unknown --unsure-as {unsure_as!r}", field="--unsure-as", hint="use wrong, tie or drop"
        )
    return policy


def _pairwise_gates(gates: str | None, config_file: Path | None) -> Gates:
    """The pairwise trust gates: --gates over the configuration; tpr and tnr have no meaning here."""
    from pathjudge._cli.config import resolve_for_cli
    from pathjudge.calibration.agreement import parse_gates
    from pathjudge.errors import InputError

    given_gates = parse_gates(gates or "")
    for name in ("tpr", "tnr"):
        if name in given_gates.model_fields_set:
            raise InputError(
                f"gate {name!r} has no pairwise meaning",
                field="--gates",
                hint="a pairwise judge is gated on kappa and max_unsure (and on position bias)",
            )
    resolved = resolve_for_cli(_gate_overrides(given_gates), config_file=config_file, warn=False)
    return _configured_gates(resolved)


def _write_pairwise(report: PairwiseReport, out: _Outputs) -> None:
    """Print the pairwise report (unless --json - or --quiet) and write --json, --plots, --html."""
    if not json_to_stdout(out.json_out) and not out.quiet:
        _render_pairwise(report)
    write_json(out.json_out, report.model_dump_json(indent=2), quiet=out.quiet)
    if out.plots is not None:
        for path in _pairwise_plots(report, out.plots):
            err_console.print(f"wrote {path}")
    if out.html is not None:
        from pathjudge.report.html import write_html_report

        err_console.print(f"wrote {write_html_report(None, out.html, pairwise=report)}")


def _pairwise_plots(report: PairwiseReport, folder: Path) -> list[Path]:
    from pathjudge.report.plots import plot_confusion_matrix

    return [
        plot_confusion_matrix(
            [list(row) for row in matrix],
            list(report.confusion_rows),
            f"pairwise judge, {shown} shown first, vs humans",
            folder / f"pairwise-confusion-{order}.png",
            columns=list(report.confusion_columns),
        )
        for order, shown, matrix in (
            ("ab", "A", report.confusion_ab),
            ("ba", "B", report.confusion_ba),
        )
    ]


_PAIRWISE_ROWS = (
    ("position-consistent accuracy", "position_consistent_accuracy"),
    ("accuracy, A shown first", "accuracy_ab"),
    ("accuracy, B shown first", "accuracy_ba"),
    ("accuracy, orders averaged", "accuracy_averaged"),
    ("right in both orders", "both_correct"),
    ("same answer in both orders", "consistency"),
    ("first slot won both orders", "bias_first_slot"),
    ("second slot won both orders", "bias_second_slot"),
    ("other (a tie once, unsure)", "bias_other"),
    ("first-slot rate (0.5 = none)", "first_slot_rate"),
    ("kappa, A shown first", "kappa_ab"),
    ("kappa, B shown first", "kappa_ba"),
    ("kappa, mean of both orders", "kappa_mean"),
    ("kappa between the orders", "kappa_between_orders"),
)
"""The pairwise table: (label, PairwiseStats field), in the order a reader needs them."""


def _render_pairwise(report: PairwiseReport) -> None:
    stats = report.stats
    judge = ", ".join(report.judges) or "unnamed grader"
    policy = {
        "wrong": "counted as wrong",
        "tie": "read as a tie",
        "drop": "left out",
    }[stats.unsure_as]
    _say(
        f"pairwise judge {judge}, both orders: {stats.n_items} items, {stats.n_decided} "
        f"evaluated, {stats.n_unsure} with an unsure answer ({policy})"
    )
    rows: list[tuple[str, Estimate]] = [
        (label, getattr(stats, name)) for label, name in _PAIRWISE_ROWS
    ]
    _print_statistics(rows, stats.confidence)
    _say(
        "Intervals: Wilson for rates, per-item percentile bootstrap for kappa "
        f"({stats.n_bootstrap} resamples, seed {stats.seed})."
    )
    direction = {
        "first": "the judge favours the candidate shown FIRST",
        "second": "the judge favours the candidate shown SECOND",
        "none": "no position bias detected (the first-slot rate's interval holds 0.5)",
    }[stats.bias_direction]
    _say(f"position bias: {direction}")
    for note in report.notes:
        _say(f"note: {note}")
    if report.trust is not None:
        _trust_lines(report.trust)
