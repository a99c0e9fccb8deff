"""``pathjudge calibrate``: how far the judge can be trusted, against human labels.

Exit codes: 0 when the judge passes the trust gates on every criterion (or with ``--report-only``),
1 when it misses a gate, 2 for bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from pathjudge._cli.app import JSON_HELP, app, err_console, json_to_stdout, out_console, write_json
from pathjudge._cli.judge import BUILTINS

if TYPE_CHECKING:
    from pathjudge.calibration.calibrate import CalibrationReport, CriterionCalibration
    from pathjudge.calibration.estimate import Estimate
    from pathjudge.calibration.labels import LabelSet
    from pathjudge.calibration.verdicts import VerdictSet
    from pathjudge.config import ResolvedConfig


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


def _render_criterion(crit: CriterionCalibration, report: CalibrationReport, shown: int) -> None:
    from pathjudge.report.text import Column, print_table, styled

    a = crit.agreement
    name = crit.criterion or "(unnamed criterion)"
    split = f", split {crit.split}" if crit.split else ""
    title = (
        f"{name}: {crit.n_labelled} labelled items{split}, {a.n_decided} decided, "
        f"{a.n_unsure} unsure ({crit.n_judge_errors} judge errors), "
        f"samples/item {crit.samples_per_item[0]}-{crit.samples_per_item[1]}"
    )
    rows: list[tuple[str, Estimate]] = [
        ("accuracy (decided)", a.accuracy),
        ("Cohen's kappa (decided)", a.kappa),
        ("TPR (pass recall, decided)", a.tpr),
        ("TNR (fail recall, decided)", a.tnr),
        ("TPR, unsure = wrong (gated)", a.tpr_unsure_as_wrong),
        ("TNR, unsure = wrong (gated)", a.tnr_unsure_as_wrong),
        ("kappa, unsure = wrong (gated)", a.kappa_unsure_as_wrong),
        ("prevalence (human pass)", a.prevalence),
        ("judge pass rate", a.judge_pass_rate),
        ("unsure rate", a.unsure_rate),
    ]
    for scores in a.per_class:
        rows.append((f"precision '{scores.label}'", scores.precision))
        rows.append((f"F1 '{scores.label}'", scores.f1))
    if crit.inter_annotator is not None:
        ia = crit.inter_annotator
        rows.append(("human-human agreement", ia.percent_agreement))
        rows.append(("human-human Fleiss kappa", ia.fleiss_kappa))
        rows.append(("human-human Krippendorff alpha", ia.krippendorff_alpha))
    if crit.rater_agreement is not None:
        ra = crit.rater_agreement
        name = "Cohen kappa" if ra.statistic == "cohen_kappa" else "Krippendorff alpha"
        rows.append((f"rater-rater {name} (ceiling)", ra.value))
    if crit.noise is not None:
        rows.append(("judge self-agreement (samples)", crit.noise.mean_pairwise_agreement))
        rows.append(("judge noise share", crit.noise.judge_noise_share))
    cells = []
    for label, est in rows:
        value, interval = _fmt(est)
        cells.append((label, value, interval, est.reason))
    print_table(
        out_console,
        title,
        [
            Column("statistic", "id"),
            Column("value", "num", "right"),
            Column(f"{report.confidence:.0%} interval", "num", "right"),
            Column("how", "text"),
        ],
        cells,
    )
    cm = a.confusion
    out_console.print(
        f"confusion (rows human, cols judge): pass→pass {cm.tp}, pass→fail {cm.fn}, "
        f"fail→pass {cm.fp}, fail→fail {cm.tn}; unsure: human-pass {cm.unsure['pass']}, "
        f"human-fail {cm.unsure['fail']}"
    )
    out_console.print(f"ceiling: {crit.ceiling}")
    if crit.judges:
        out_console.print("judge: " + "; ".join(j.describe() for j in crit.judges), markup=False)
    if crit.ppi is not None:
        p = crit.ppi
        corrected, ci = _fmt(p.estimate)
        naive, naive_ci = _fmt(p.naive_judge_rate)
        humans, humans_ci = _fmt(p.humans_only)
        gain = f"{p.gain:.2f}x" if p.gain is not None else "undefined"
        out_console.print(
            f"success rate: PPI++ {corrected} {ci} (lambda {p.lam if p.lam is None else round(p.lam, 3)}) | "
            f"naive judge {naive} {naive_ci} | humans only {humans} {humans_ci} "
            f"(n={p.n_labelled}, N={p.n_unlabelled}); effective sample-size gain {gain}"
        )
    if crit.evidence is not None:
        ev = crit.evidence
        acc_bad, _ = _fmt(ev.accuracy_unverified)
        acc_good, _ = _fmt(ev.accuracy_verified)
        out_console.print(
            f"evidence: {ev.n_unverified} of {ev.n_checked} items cite a quote not found in the "
            f"judged inputs (agreement {acc_bad} there, {acc_good} where the quotes were found)"
            + ("; counted as unsure" if ev.treated_as_unsure else "")
        )
    for note in crit.notes:
        out_console.print(f"note: {note}")
    verdict = (
        styled("TRUSTED", "bold green") if crit.trust.trusted else styled("NOT TRUSTED", "bold red")
    )
    out_console.print(verdict + styled(f" — {crit.trust.reason}"))
    if crit.next_steps:
        out_console.print("next steps:")
        for step in crit.next_steps:
            out_console.print(f"  - {step}")
    if crit.disagreements and shown > 0:
        which = f"{crit.split}-split " if crit.split else ""
        out_console.print(
            f"{which}disagreements ({len(crit.disagreements)}), first "
            f"{min(shown, len(crit.disagreements))}; [split] is the item's split, [-] = none:"
        )
        for d in crit.disagreements[:shown]:
            why = (d.judge_reasoning or "").replace("\n", " ")
            why = why[:117] + "..." if len(why) > 120 else why
            out_console.print(
                f"  {d.item_id} [{d.split or '-'}] human {d.human}, judge {d.judge}: {why}"
            )
    out_console.print()


@app.command()
def calibrate(
    labels: Annotated[
        list[Path],
        typer.Option(
            "--labels",
            help="Human labels JSONL: a labels file or a label log from pathjudge label "
            "(repeat to combine files).",
        ),
    ],
    verdicts: Annotated[
        Path | None, typer.Option("--verdicts", help="Recorded verdicts JSONL (any grader).")
    ] = None,
    criterion: Annotated[
        str | None,
        typer.Option(
            help="Criterion id or YAML path (live judging; filters --verdicts). Built-ins: "
            f"{BUILTINS}."
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            help="Judge backend for live judging (config judge.backend): anthropic, "
            "openai-compatible or llama-cpp."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="Judge model, config judge.model (llama-cpp: path to a GGUF)."),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="Server URL, config judge.base_url (openai-compatible backend)."),
    ] = None,
    samples: Annotated[int, typer.Option(min=1, help="Judge samples per item (live).")] = 1,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Judge calls in flight (live; config concurrency, default 8)."),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            help="Verdict cache (live; config cache, default .pathjudge/cache.sqlite); reruns reuse it."
        ),
    ] = None,
    save_verdicts: Annotated[
        Path | None, typer.Option(help="Write the live judge's verdicts to this JSONL.")
    ] = None,
    unlabelled: Annotated[
        Path | None,
        typer.Option("--unlabelled", help="Judge-only verdicts JSONL: PPI++ corrected rate."),
    ] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help=JSON_HELP)] = None,
    plots: Annotated[Path | None, typer.Option(help="Write PNG plots into this folder.")] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write a self-contained HTML page of the calibration here."),
    ] = None,
    gates: Annotated[
        str | None,
        typer.Option(
            help="Trust gates on lower bounds, e.g. tpr=0.8,tnr=0.8,kappa=0.6[,max_unsure=0.2] "
            "(config calibration.*; gates not named keep their configured value)."
        ),
    ] = None,
    split: Annotated[
        str | None, typer.Option(help="Evaluate one split only: train, dev or test.")
    ] = None,
    threshold: Annotated[
        float | None, typer.Option(help="Default pass threshold for scores (score >= threshold).")
    ] = None,
    confidence: Annotated[
        float, typer.Option(min=0.5, max=0.999, help="Confidence level of every interval.")
    ] = 0.95,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples for kappa.")] = 2000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    bins: Annotated[int, typer.Option(min=1, help="Reliability bins.")] = 5,
    few_shot: Annotated[
        Path | None, typer.Option(help="Write train-split disagreements as few-shot YAML here.")
    ] = None,
    disagreements: Annotated[int, typer.Option(min=0, help="Disagreements to print.")] = 10,
    quiet: Annotated[
        bool,
        typer.Option(
            "-q",
            "--quiet",
            help="Print nothing on stdout (use with --json FILE; exit code says it).",
        ),
    ] = False,
    pairwise: Annotated[
        bool,
        typer.Option(
            "--pairwise",
            help="Pairwise judge judged in both orders: --labels holds {item_id, preference: "
            "A|B|tie}, --verdicts one {item_id, order: ab|ba, verdict} per order (see the README).",
        ),
    ] = False,
    unsure_as: Annotated[
        str,
        typer.Option(
            "--unsure-as",
            help="Pairwise: how an unsure or unparsed answer counts: wrong (default, as published "
            "pairwise evaluations count it), tie, or drop (leave the item out).",
        ),
    ] = "wrong",
    unverified_as_unsure: Annotated[
        bool,
        typer.Option(
            "--unverified-as-unsure",
            help="Count a verdict whose evidence quotes are not in the judged inputs as unsure.",
        ),
    ] = False,
    allow_single_class: Annotated[
        bool, typer.Option(help="Report (undefined) statistics for one-class labels.")
    ] = False,
    report_only: Annotated[
        bool, typer.Option(help="Exit 0 even when the judge misses a gate.")
    ] = False,
    items: Annotated[
        Path | None,
        typer.Option(
            "--items",
            help="The items file as it is now: labels given to different content are stale "
            "(default: the input hashes in --verdicts, where recorded).",
        ),
    ] = None,
    keep_stale: Annotated[
        bool,
        typer.Option("--keep-stale", help="Keep stale labels in the statistics (still reported)."),
    ] = False,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Project configuration file (default: pathjudge.toml or pyproject.toml "
            "[tool.pathjudge] found from the working directory).",
        ),
    ] = None,
) -> int:
    """Agreement of the judge with human labels, trust gates, PPI++ success rate, disagreements.

    Recorded verdicts (--verdicts) or live judging (--criterion without --verdicts). The judge backend,
    model, base URL, concurrency, cache and the trust gates resolve command line > PATHJUDGE_*
    environment > configuration file > defaults (see `pathjudge config`)."""
    from pathjudge._cli.config import resolve_for_cli
    from pathjudge.calibration.agreement import Gates, parse_gates
    from pathjudge.calibration.calibrate import calibrate as run_calibration
    from pathjudge.calibration.verdicts import load_verdicts
    from pathjudge.errors import InputError
    from pathjudge.judge.session import backend_name

    if pairwise:
        if len(labels) != 1:
            raise InputError("--pairwise reads one --labels file", field="--labels")
        _pairwise(
            labels[0],
            verdicts,
            unsure_as=unsure_as,
            json_out=json_out,
            quiet=quiet,
            confidence=confidence,
            n_bootstrap=bootstrap,
            seed=seed,
        )
        return 0
    if unsure_as != "wrong":
        raise InputError(
            "--unsure-as is for --pairwise calibration",
            field="--unsure-as",
            hint="add --pairwise, or drop --unsure-as (pass/fail gates always count unsure as wrong)",
        )
    live_options = {"--backend": backend, "--model": model, "--base-url": base_url}
    if verdicts is not None:
        given = [name for name, value in live_options.items() if value is not None]
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
    splits: dict[str, Literal["train", "dev", "test"]] = {
        "train": "train",
        "dev": "dev",
        "test": "test",
    }
    split_value = splits.get(split) if split is not None else None
    if split is not None and split_value is None:
        raise InputError(f"unknown split {split!r}", field="--split", hint="use train, dev or test")
    given_gates = parse_gates(gates or "")
    overrides: dict[str, object] = {
        "judge.backend": backend_name(backend, field="--backend") if backend is not None else None,
        "judge.model": model,
        "judge.base_url": base_url,
        "concurrency": concurrency,
        "cache": cache,
    }
    for name in given_gates.model_fields_set:
        overrides[f"calibration.{name}"] = getattr(given_gates, name)
    # the twin warning is about a judge grading its own model: only when a judge runs here
    resolved = resolve_for_cli(overrides, config_file=config_file, warn=verdicts is None)
    gate_values = Gates.model_validate(resolved.config.calibration.model_dump())
    label_set = _load_label_files(labels, threshold, items, verdicts, keep_stale=keep_stale)
    if few_shot is not None and not any(
        item.split == "train" for c in label_set.criteria for item in label_set.items(c)
    ):
        raise InputError(
            "--few-shot exports train-split disagreements, but no labelled item is in the "
            "train split",
            file=label_set.file,
            field="split",
            hint='mark the items to learn from with "split": "train" (and evaluate with --split '
            "test), or drop --few-shot",
        )
    if verdicts is not None:
        verdict_set = load_verdicts(verdicts)
    else:
        verdict_set = _live(
            label_set,
            criterion or "",
            resolved,
            samples=samples,
            save=save_verdicts,
            split=split_value,
        )
    unl = load_verdicts(unlabelled) if unlabelled is not None else None
    report = run_calibration(
        label_set,
        verdict_set,
        unlabelled=unl,
        criterion=criterion,
        split=split_value,
        gates=gate_values,
        confidence=confidence,
        n_bootstrap=bootstrap,
        seed=seed,
        n_bins=bins,
        allow_single_class=allow_single_class,
        unverified_as_unsure=unverified_as_unsure,
    )
    if not json_to_stdout(json_out) and not quiet:
        _render(report, disagreements)
    if quiet and json_out is not None and not json_to_stdout(json_out):
        from pathjudge._io import write_text_atomic

        write_text_atomic(json_out, report.model_dump_json(indent=2) + "\n")
    else:
        write_json(json_out, report.model_dump_json(indent=2))
    if plots is not None:
        for path in _plots(report, plots):
            err_console.print(f"wrote {path}")
    if html is not None:
        from pathjudge.report.html import write_html_report

        err_console.print(f"wrote {write_html_report(None, html, calibration=report)}")
    if few_shot is not None:
        for path, count in _few_shot(report, label_set, few_shot):
            err_console.print(
                f"wrote {path}: {count} example(s) from train-split disagreements"
                + ("" if count else " (the judge agreed with every judged train item)")
            )
    return 0 if report.trusted or report_only else 1


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


def _plots(report: CalibrationReport, folder: Path) -> list[Path]:
    from pathjudge.report.plots import plot_confusion_matrix, plot_reliability

    written: list[Path] = []
    for crit in report.criteria:
        slug = _slug(crit.criterion)
        cm = crit.agreement.confusion
        unsure = crit.agreement.n_unsure
        written.append(
            plot_confusion_matrix(
                [list(row) for row in cm.matrix],
                list(cm.labels),
                f"{crit.criterion or 'judge'} vs humans"
                + (f" ({unsure} unsure not shown)" if unsure else ""),
                folder / f"confusion-{slug}.png",
            )
        )
        written.append(
            plot_reliability(
                crit.reliability.points,
                f"{crit.criterion or 'judge'}: vote share vs human pass rate",
                folder / f"reliability-{slug}.png",
            )
        )
    return written


def _few_shot(report: CalibrationReport, labels: LabelSet, target: Path) -> list[tuple[Path, int]]:
    from pathjudge.calibration.disagreements import few_shot_examples, few_shot_yaml

    written: list[tuple[Path, int]] = []
    many = len(report.criteria) > 1
    for crit in report.criteria:
        examples = few_shot_examples(
            crit.train_disagreements,
            {item.item_id: item for item in labels.items(crit.criterion)},
            file=labels.file,
        )
        path = (
            target.with_name(f"{target.stem}-{_slug(crit.criterion)}{target.suffix}")
            if many
            else target
        )
        _write_text(path, few_shot_yaml(examples, criterion=crit.criterion))
        written.append((path, len(examples)))
    return written


def _live(
    labels: LabelSet,
    criterion: str,
    resolved: ResolvedConfig,
    *,
    samples: int,
    save: Path | None,
    split: Literal["train", "dev", "test"] | None,
) -> VerdictSet:
    import asyncio

    from pathjudge._io import write_jsonl
    from pathjudge.calibration.live import judge_labelled
    from pathjudge.judge.cache import VerdictCache
    from pathjudge.judge.session import JudgeSession
    from pathjudge.report.progress import progress_bars

    session = JudgeSession.resolve(config=resolved, samples=samples, progress=progress_bars())
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


def _pairwise(
    labels: Path,
    verdicts: Path | None,
    *,
    unsure_as: str,
    json_out: Path | None,
    quiet: bool,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> None:
    import json

    from rich.table import Table

    from pathjudge.calibration.pairwise import UnsureAs, pairwise_agreement
    from pathjudge.calibration.pairwise_io import load_pairwise
    from pathjudge.errors import InputError

    policies: dict[str, UnsureAs] = {"wrong": "wrong", "tie": "tie", "drop": "drop"}
    policy = policies.get(unsure_as)
    if policy is None:
        raise InputError(
            f"unknown --unsure-as {unsure_as!r}", field="--unsure-as", hint="use wrong, tie or drop"
        )
    if verdicts is None:
        raise InputError(
            "--pairwise needs --verdicts (the judge's answers in both orders)",
            field="--verdicts",
            hint="record one line per item and order: {item_id, order: ab|ba, verdict}",
        )
    items, notes = load_pairwise(labels, verdicts)
    stats = pairwise_agreement(
        items, confidence=confidence, unsure_as=policy, n_bootstrap=n_bootstrap, seed=seed
    )
    payload = {
        "schema_version": 1,
        "kind": "pathjudge.pairwise",
        "labels_file": str(labels),
        "verdicts_file": str(verdicts),
        "notes": notes,
        "stats": stats.model_dump(mode="json"),
    }
    if json_out is not None and str(json_out) == "-":
        out_console.print(json.dumps(payload, indent=2), markup=False, highlight=False)
        return
    if json_out is not None:
        _write_text(json_out, json.dumps(payload, indent=2) + "\n")
        if not quiet:
            err_console.print(f"wrote {json_out}")
    if quiet:
        return
    title = (
        f"pairwise judge, both orders: {stats.n_items} items, {stats.n_decided} evaluated, "
        f"{stats.n_unsure} with an unsure answer (counted as {stats.unsure_as})"
    )
    table = Table(title=title, title_justify="left")
    table.add_column("statistic", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column(f"{confidence:.0%} interval", justify="right", no_wrap=True)
    table.add_column("how", overflow="fold")
    rows = [
        ("accuracy, A shown first", stats.accuracy_ab),
        ("accuracy, B shown first", stats.accuracy_ba),
        ("accuracy, both orders averaged", stats.accuracy_averaged),
        ("correct in both orders", stats.both_correct),
        ("position-consistent accuracy", stats.position_consistent_accuracy),
        ("positional agreement", stats.consistency),
        ("bias: first slot won twice", stats.bias_first_slot),
        ("bias: second slot won twice", stats.bias_second_slot),
        ("bias: other (tie once, unsure)", stats.bias_other),
        ("first-slot rate (0.5 = none)", stats.first_slot_rate),
        ("kappa, A shown first", stats.kappa_ab),
        ("kappa, B shown first", stats.kappa_ba),
        ("kappa, mean of both orders", stats.kappa_mean),
        ("kappa between the orders", stats.kappa_between_orders),
    ]
    for label, est in rows:
        value, interval = _fmt(est, digits=4)
        table.add_row(label, value, interval, est.reason)
    out_console.print(table)
    direction = {
        "first": "the judge favours the candidate shown FIRST",
        "second": "the judge favours the candidate shown SECOND",
        "none": "no position bias detected (the first-slot rate's interval holds 0.5)",
    }[stats.bias_direction]
    out_console.print(f"position bias: {direction}")
    for note in notes:
        out_console.print(f"note: {note}", markup=False)
