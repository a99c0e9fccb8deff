"""The scoring pipeline: runs + suite → :class:`ScoreReport`, used by ``pathjudge score``, the pytest plugin
and anyone calling :func:`pathjudge.score`.

One function does what scoring means, in order:

1. load the suite (a path) and resolve the project configuration (unless one is passed in);
2. gather judged verdicts: recorded ones (``verdicts``), then, unless ``fast`` or ``judge=False``, a
   live judge for the judged items they do not cover (through a
   :class:`~pathjudge.judge.session.JudgeSession`, its cache and budget);
3. grade every run (streamed, or in ``jobs`` worker processes) into the scorecard;
4. evaluate the gates: the configuration's ``fail_under.*`` overlaid by ``thresholds``.

It prints nothing and writes no report: warnings go to ``warn`` (and into ``ScoreReport.warnings``),
progress to ``progress``; rendering and writing files are the caller's (the CLI's) business. The only
file it may write is ``grades_out``, the per-run grades streamed as they are made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import Field, PlainSerializer, PlainValidator, ValidationError

from pathjudge._io import JsonlAppender, open_atomic_temp
from pathjudge._records import FrozenModel
from pathjudge.agent.io import RunKeys, read_runs
from pathjudge.calibration._judge_name import JudgeName
from pathjudge.config import resolve_config, twin_warning
from pathjudge.errors import ConfigError, InputError, RecordError
from pathjudge.judge.identity import Certification
from pathjudge.rubrics.assertions.base import AXES
from pathjudge.rubrics.checks import SuitePlan
from pathjudge.rubrics.suite import Suite as SuiteModel
from pathjudge.rubrics.suite import load_suite
from pathjudge.scoring.certified import labelled
from pathjudge.scoring.chunk import default_jobs, grade_chunk, iter_lines, score_file_parallel
from pathjudge.scoring.grade import RunGrade
from pathjudge.scoring.judged import (
    JudgeRequest,
    judged_criteria,
    read_verdict_set,
    run_judge_requests,
    run_judged,
    suite_has_judged,
)
from pathjudge.scoring.scorecard import (
    GATE_METRICS,
    GateResult,
    Scorecard,
    check_thresholds,
    check_weights,
    evaluate_gates,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pathjudge._progress import Progress, ProgressHandle
    from pathjudge.config import ResolvedConfig
    from pathjudge.judge.session import JudgeSession
    from pathjudge.rubrics.suite import Suite, WeightKey
    from pathjudge.scoring.chunk import Line
    from pathjudge.scoring.judged import VerdictLike
    from pathjudge.scoring.scorecard import GateMetric, PartialScorecard

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "GradingEngine",
    "JudgeSource",
    "ScoreReport",
    "auto_jobs",
    "config_thresholds",
    "config_weights",
    "score",
]

REPORT_SCHEMA_VERSION = 1

JudgeSource = Literal["judge", "verdicts", "none", "fast"]


class GradingEngine(Protocol):
    """Grades runs elsewhere (a Ray cluster) into one merged :class:`PartialScorecard`.

    :func:`pathjudge.ray.score_files` is one, with its cluster bound:
    ``functools.partial(pathjudge.ray.score_files, address=..., workers=...)``. Scoring never
    imports an engine (the engine maps scoring's ``grade_chunk``); the caller hands it in, as
    ``pathjudge score --engine ray`` does (the ``ray`` extra; ``address`` joins a cluster, None a
    local runtime; ``workers`` caps the grading actors).

    On an engine, :func:`score`'s ``runs`` may be a glob, a folder, Parquet or an ``s3://`` /
    ``gs://`` URI, ``grades_out`` is a folder of shards plus ``manifest.json``, judged criteria come
    from ``verdicts`` only (the judge is not run there), and ``keep_grades`` and ``jobs`` do not
    apply.
    """

    def __call__(
        self,
        runs: str,
        suite: Suite,
        *,
        verdicts: Mapping[str, VerdictLike] | None = ...,
        fast: bool = ...,
        grades: str | None = ...,
        max_weak: int = ...,
        progress: Progress | None = ...,
    ) -> PartialScorecard: ...


def _grades_in(value: object) -> tuple[RunGrade, ...] | None:
    """Per-run grades as given, or read back from their JSON form (validated)."""
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise ValueError("expected a list of run grades")
    out: list[RunGrade] = []
    for index, item in enumerate(value):
        if isinstance(item, RunGrade):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise ValueError(f"run {index}: expected an object")
        try:
            out.append(RunGrade.from_dict(item))
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            raise ValueError(
                f"run {index}{': ' + where if where else ''}: {first['msg']}"
            ) from None
    return tuple(out)


def _grades_out(value: tuple[RunGrade, ...] | None) -> list[dict[str, Any]] | None:
    return None if value is None else [grade.to_dict() for grade in value]


if TYPE_CHECKING:
    GradeList = tuple[RunGrade, ...] | None
else:  # read and written by these two functions alone, so pydantic need not derive a schema from
    # RunGrade when this module is imported (RunGrade.from_dict builds one on first use)
    GradeList = Annotated[Any, PlainValidator(_grades_in), PlainSerializer(_grades_out)]


class ScoreReport(FrozenModel):
    """The result of scoring, and what ``pathjudge score --json`` writes.

    ``judge_note`` and ``warnings`` are for the caller to show; they are not part of the JSON report.
    """

    schema_version: Literal[1] = 1
    kind: Literal["pathjudge.score"] = "pathjudge.score"
    suite_file: str | None = Field(default=None, description="The suite file, as given.")
    runs_file: str | None = Field(default=None, description="The runs file, as given.")
    fast: bool = Field(description="Whether judged criteria were skipped (fast mode).")
    judge: JudgeSource = Field(
        description=(
            "Where judged verdicts came from: the live judge (and its cache), recorded verdicts only, "
            "none configured, or skipped (fast mode)."
        )
    )
    generated_at: str | None = Field(default=None, description="Only when the caller passes one.")
    scorecard: Scorecard
    gates: tuple[GateResult, ...] = ()
    passed: bool = Field(description="Whether every gate passed (True without gates).")
    runs: GradeList = Field(default=None, description="Per-run grades, when asked for.")
    judges: tuple[JudgeName, ...] = Field(
        default=(),
        exclude_if=lambda value: not value,  # reports without a judge stay byte-identical
        description="Who produced the judged verdicts: backend, model, criterion id and content "
        "hash, and how many samples each (empty when nothing was judged or the file does not say).",
    )
    judge_note: str | None = Field(
        default=None,
        exclude=True,
        description="One line on where judged verdicts came from (not written to JSON).",
    )
    warnings: tuple[str, ...] = Field(
        default=(), exclude=True, description="Warnings raised while scoring (not written to JSON)."
    )
    certifications: tuple[Certification, ...] = Field(
        default=(),
        exclude_if=lambda value: not value,  # reports that judge nothing stay byte-identical
        description="Each judged criterion's certification: certified (the certificate's date and "
        "bounds) or uncertified and why; every judged rate is shown with it.",
    )
    skipped_runs: int = Field(
        default=0,
        description="Runs left out because their task is not in the suite (skip_unknown_tasks).",
    )
    skipped_tasks: tuple[str, ...] = Field(
        default=(), description="The task ids of the skipped runs, sorted."
    )


def config_thresholds(config: ResolvedConfig) -> dict[GateMetric, float]:
    """The ``fail_under.*`` thresholds the project configuration sets (``{}`` when none is set),
    checked on their metrics' scales as ``--fail-under`` is (a ``fail_under.path`` of 0.9 is an error)."""
    from pathjudge.errors import InputError
    from pathjudge.scoring.scorecard import check_thresholds

    out: dict[GateMetric, float] = {}
    for metric in GATE_METRICS:
        key = f"fail_under.{metric}"
        value = config.value(key)
        if value is None:
            continue
        try:
            out.update(check_thresholds({metric: float(value)}, field=key))
        except InputError as exc:
            source = config.source(key)
            raise ConfigError(
                exc.message,
                file=source.removeprefix("file:") if source.startswith("file:") else None,
                field=key if source.startswith("file:") else f"{key} ({source})",
                hint=exc.hint,
            ) from None
    return out


def config_weights(config: ResolvedConfig) -> dict[WeightKey, float] | None:
    """Overall-score weights from the project configuration; None when every weight is the default.

    When any ``weights.*`` key is set, the three levels take their configured values (default 1 each)
    and each axis whose weight is set joins them.
    """

    levels: dict[str, WeightKey] = {
        f"weights.levels.{name}": name for name in ("success", "tool_calls", "trajectory")
    }
    axes = {f"weights.axes.{axis}": axis for axis in AXES}
    chosen = [key for key in (*levels, *axes) if config.source(key) != "default"]
    if not chosen:
        return None
    out: dict[WeightKey, float] = {name: float(config.value(key)) for key, name in levels.items()}
    for key, axis in axes.items():
        if key in chosen:
            out[axis] = float(config.value(key))
    return out


def score(
    runs: str | Path,
    suite: str | Path | Suite,
    *,
    fast: bool = False,
    verdicts: str | Path | Mapping[str, VerdictLike] | None = None,
    judge: JudgeSession | bool = True,
    config: ResolvedConfig | None = None,
    thresholds: Mapping[GateMetric, float] | Mapping[str, float] | None = None,
    weights: Mapping[WeightKey, float] | Mapping[str, float] | None = None,
    jobs: int | None = None,
    keep_grades: bool = False,
    grades_out: str | Path | None = None,
    max_weak: int | None = None,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
    engine: Literal["local"] | GradingEngine = "local",
    skip_unknown_tasks: bool = False,
    certifications: Sequence[Certification] | None = None,
) -> ScoreReport:
    """Score the runs JSONL ``runs`` against ``suite`` (a suite YAML path or a loaded suite).

    - ``fast``: assertions only; judged criteria are reported "not run".
    - ``verdicts``: recorded judge verdicts (a JSONL path, or a mapping of ``item_id`` to verdicts).
    - ``judge``: True (default) runs the configured judge on judged items the recorded verdicts miss,
      when it is available (else "not run", and the note says why); a
      :class:`~pathjudge.judge.session.JudgeSession` runs that judge; False never calls one.
    - ``config``: the project configuration (default: :func:`~pathjudge.config.resolve_config`): the
      judge, ``fail_under.*`` and ``weights.*``.
    - ``thresholds``: gates (``{"success": 1.0}``, the names and ranges of ``--fail-under``) over the
      configuration's ``fail_under.*``; an unknown metric or a value off its scale is an error.
    - ``weights``: overall-score weights (``--weights``' keys); default the suite's, else the config's.
    - ``jobs``: grading processes (no per-run grades kept); default the core count for a large file.
    - ``keep_grades``: put every run's :class:`RunGrade` in ``ScoreReport.runs``; ``grades_out``
      streams them to a JSONL file as they are made (a fresh file).
    - ``max_weak``: how many weak paths the scorecard lists (default: the scorecard's).
    - ``skip_unknown_tasks``: leave out (and count in ``ScoreReport.skipped_runs`` /
      ``skipped_tasks``) runs of tasks the suite lacks; by default such a run is an error.
    - ``engine``: ``"local"`` (this machine), or a :class:`GradingEngine` such as Ray Data (what
      changes on an engine is in its docstring); the report is the one ``engine="local"`` gives.
    - ``certifications``: the live judge's per judged criterion (default: all uncertified), as
      :func:`~pathjudge.scoring.certified.for_source` labels the verdicts' source.

    Raises :class:`~pathjudge.errors.PathjudgeError` for bad input (file, line, field); prints nothing.
    """
    runs_path = Path(runs)
    loaded, suite_file, base_dir = _load(suite)
    remote = None if isinstance(engine, str) else engine
    on_ray = remote is not None
    per_run = keep_grades or (grades_out is not None and not on_ray)
    jobs = _checked_jobs(runs_path, engine, jobs, per_run, keep_grades, skip_unknown_tasks)
    resolved, gates_at, weight_map = _settings(config, thresholds, weights, loaded)
    note_warning = _Warnings(warn)
    recorded, file_judges = _recorded_verdicts(verdicts) if not fast else (None, ())
    note, recorded, source = _judge_verdicts(
        runs_path,
        loaded,
        base_dir,
        recorded,
        _verdicts_label(verdicts),
        judge=False if fast or on_ray else judge,
        fast=fast,
        on_ray=on_ray,
        config=resolved,
        progress=progress,
        warn=note_warning,
        skip_unknown=skip_unknown_tasks,
    )
    card, kept, skipped = _grade_where(
        remote,
        runs,
        loaded,
        recorded,
        fast=fast,
        jobs=jobs,
        keep=keep_grades,
        grades_out=grades_out,
        weights=weight_map,
        max_weak=max_weak,
        skip_unknown=skip_unknown_tasks,
        progress=progress,
        warn=note_warning,
    )
    gates = evaluate_gates(card, gates_at)
    return ScoreReport(
        suite_file=suite_file,
        runs_file=str(runs),
        fast=fast,
        judge=source,
        judges=(*file_judges, *_live_judges(recorded)) if not fast else (),
        scorecard=card,
        gates=tuple(gates),
        passed=all(g.passed for g in gates),
        runs=tuple(kept) if keep_grades else None,
        judge_note=note,
        warnings=tuple(note_warning.said),
        skipped_runs=sum(skipped.values()),
        skipped_tasks=tuple(sorted(skipped)),
        certifications=labelled(certifications, loaded, source, note),
    )


def _grade_where(
    remote: GradingEngine | None,
    runs: str | Path,
    suite: Suite,
    recorded: Mapping[str, VerdictLike] | None,
    *,
    fast: bool,
    jobs: int,
    keep: bool,
    grades_out: str | Path | None,
    weights: Mapping[WeightKey, float] | None,
    max_weak: int | None,
    skip_unknown: bool,
    progress: Progress | None,
    warn: Callable[[str], None],
) -> tuple[Scorecard, list[RunGrade], dict[str, int]]:
    """Grade on the engine ``remote`` (:func:`_grade_on_engine`), or on this machine
    (:func:`_grade`): the scorecard, the kept grades and the runs skipped per unknown task."""
    if remote is not None:
        card, kept = _grade_on_engine(
            remote,
            str(runs),
            suite,
            recorded,
            fast=fast,
            grades_out=None if grades_out is None else str(grades_out),
            weights=weights,
            max_weak=max_weak,
            progress=progress,
            warn=warn,
        )
        return card, kept, {}
    return _grade(
        Path(runs),
        suite,
        recorded,
        fast=fast,
        jobs=jobs,
        keep=keep,
        grades_out=Path(grades_out) if grades_out is not None else None,
        weights=weights,
        max_weak=max_weak,
        skip_unknown=skip_unknown,
        progress=progress,
        warn=warn,
    )


class _Warnings:
    """Collects what ``score`` warns of (for the report) and hands each to ``warn`` as it comes."""

    def __init__(self, warn: Callable[[str], None] | None) -> None:
        self.warn = warn
        self.said: list[str] = []

    def __call__(self, text: str) -> None:
        self.said.append(text)
        if self.warn is not None:
            self.warn(text)


def _gates_at(
    config: ResolvedConfig, thresholds: Mapping[GateMetric, float] | Mapping[str, float] | None
) -> dict[GateMetric, float]:
    """The gates: the configuration's ``fail_under.*``, overridden by ``thresholds``."""
    return {**config_thresholds(config), **check_thresholds(thresholds or {}, field="thresholds")}


def _settings(
    config: ResolvedConfig | None,
    thresholds: Mapping[GateMetric, float] | Mapping[str, float] | None,
    weights: Mapping[WeightKey, float] | Mapping[str, float] | None,
    suite: Suite,
) -> tuple[ResolvedConfig, dict[GateMetric, float], dict[WeightKey, float] | None]:
    """The configuration (resolved when not given), the gates and the overall-score weights."""
    resolved = config if config is not None else resolve_config()
    return resolved, _gates_at(resolved, thresholds), _weights_of(weights, suite, resolved)


def _verdicts_label(verdicts: str | Path | Mapping[str, VerdictLike] | None) -> str:
    """How notes name the recorded verdicts: their file, or what they are."""
    return str(verdicts) if isinstance(verdicts, (str, Path)) else "the recorded verdicts"


def _load(suite: str | Path | Suite) -> tuple[Suite, str | None, Path | None]:
    """The suite (loaded from a path, or as given), its file (None when given loaded) and the folder
    its criteria files are relative to."""

    if isinstance(suite, SuiteModel):
        return suite, None, Path(suite.source).parent if suite.source else None
    return load_suite(suite), str(suite), Path(suite).parent


def _judge_verdicts(
    runs: Path,
    suite: Suite,
    base_dir: Path | None,
    recorded: dict[str, VerdictLike] | None,
    label: str,
    *,
    judge: JudgeSession | bool,
    fast: bool,
    on_ray: bool,
    config: ResolvedConfig,
    progress: Progress | None,
    warn: Callable[[str], None],
    skip_unknown: bool,
) -> tuple[str, dict[str, VerdictLike] | None, JudgeSource]:
    """``(note, verdicts, source)``: the recorded verdicts, and the judge run on the judged items they
    lack when ``judge`` is not False and the suite judges something; the note says where the judged
    criteria came from (or why they were not run)."""

    source: JudgeSource = "fast" if fast else ("verdicts" if recorded is not None else "none")
    note = {
        "fast": "judged criteria: not run (fast mode)",
        "none": "judged criteria: not run (no judge configured; pass --verdicts V.jsonl)",
        "verdicts": f"judged criteria: from {label}",
        "judge": "",
    }[source]
    if on_ray and source == "none" and suite_has_judged(suite):
        note = "judged criteria: not run (--engine ray takes verdicts from --verdicts V.jsonl)"
    if judge is False or not suite_has_judged(suite):
        return note, recorded, source
    from pathjudge.judge.session import JudgeSession

    session = (
        judge
        if isinstance(judge, JudgeSession)
        else JudgeSession.resolve(config=config, progress=progress)
    )
    judged = _judge_missing(
        runs, suite, base_dir, session, recorded, config, label, warn, skip_unknown=skip_unknown
    )
    return (note, recorded, source) if judged is None else judged


def _checked_jobs(
    runs: Path,
    engine: Literal["local"] | GradingEngine,
    jobs: int | None,
    per_run: bool,
    keep_grades: bool,
    skip_unknown_tasks: bool,
) -> int:
    """The worker processes to grade with (:func:`auto_jobs` by default), after refusing an unknown
    engine and the options that cannot go with it or with several processes."""
    if isinstance(engine, str) and engine != "local":
        raise InputError(
            f"unknown engine {engine!r}",
            field="engine",
            hint="use 'local', or an engine: functools.partial(pathjudge.ray.score_files, address=...)",
        )
    on_ray = not isinstance(engine, str)
    if on_ray and (keep_grades or (jobs is not None and jobs > 1)):
        raise InputError(
            "grading on Ray builds the scorecard and grade shards only",
            field="engine",
            hint="drop keep_grades/jobs (per-run grades: grades_out=FOLDER)",
        )
    if on_ray and skip_unknown_tasks:
        raise InputError(
            "skip_unknown_tasks does not work with a grading engine (Ray) yet",
            field="skip_unknown_tasks",
            hint="use engine='local', or add the missing tasks to the suite",
        )
    if on_ray:
        return 1  # unused: Ray's workers grade
    if jobs is None:
        return 1 if per_run else auto_jobs(runs)
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, got {jobs}", field="jobs")
    if jobs > 1 and per_run:
        raise InputError(
            "grading in several processes builds the scorecard only",
            field="jobs",
            hint="use jobs=1 to keep per-run grades",
        )
    return jobs


def _weights_of(
    weights: Mapping[WeightKey, float] | Mapping[str, float] | None,
    suite: Suite,
    config: ResolvedConfig,
) -> dict[WeightKey, float] | None:
    """The overall-score weights: those given (not all 0), else the suite's (None: the scorecard
    takes them from the suite), else the configuration's."""

    weight_map = check_weights(weights, field="weights") if weights is not None else None
    if weight_map is not None and not any(weight_map.values()):
        raise InputError(
            "every weight is 0, so the overall score is undefined",
            field="weights",
            hint="give at least one weight above 0, e.g. success=1,trajectory=0",
        )
    if weight_map is None and not suite.weights:
        weight_map = config_weights(config)
    return weight_map


def _recorded_verdicts(
    verdicts: str | Path | Mapping[str, VerdictLike] | None,
) -> tuple[dict[str, VerdictLike] | None, tuple[JudgeName, ...]]:
    """The recorded verdicts by item id (read from a JSONL path, or copied from a mapping) and the
    judges the file names; ``(None, ())`` without any."""

    if verdicts is None:
        return None, ()
    if isinstance(verdicts, (str, Path)):
        recorded_set = read_verdict_set(verdicts)
        judges = tuple(j for group in recorded_set.judges.values() for j in group)
        return dict(recorded_set.by_item()), judges
    return dict(verdicts), ()


def _live_judges(recorded: Mapping[str, VerdictLike] | None) -> tuple[JudgeName, ...]:
    """Judge identities of the records that carry one (the live judge's verdicts and failures)."""
    counts: dict[tuple[str, str, str, str], int] = {}
    for record in (recorded or {}).values():
        backend = getattr(record, "backend", None)
        model = getattr(record, "model", None)
        criterion = getattr(record, "criterion_id", None)
        digest = getattr(record, "criterion_hash", None)
        if not (
            isinstance(backend, str)
            and isinstance(model, str)
            and isinstance(criterion, str)
            and isinstance(digest, str)
        ):
            continue
        samples = getattr(record, "samples", 1) + getattr(record, "failed_samples", 0)
        key = (backend, model, criterion, digest)
        counts[key] = counts.get(key, 0) + int(samples)
    return tuple(
        JudgeName(backend=b, model=m, criterion=c, criterion_hash=h, samples=n)
        for (b, m, c, h), n in counts.items()
    )


def _judge_missing(
    runs: Path,
    suite: Suite,
    base_dir: Path | None,
    session: JudgeSession,
    recorded: dict[str, VerdictLike] | None,
    config: ResolvedConfig,
    label: str,
    warn: Callable[[str], None],
    *,
    skip_unknown: bool = False,
) -> tuple[str, dict[str, VerdictLike] | None, JudgeSource] | None:
    """Run ``session`` on the judged items ``recorded`` lacks; ``(note, verdicts, source)``, or None
    when there was nothing to judge."""

    why_not = session.unavailable()
    if why_not is not None:
        # no pass over the runs: nothing can be judged, so there is nothing to collect
        if recorded is not None:
            return (
                f"judged criteria: from {label}; any others not run ({why_not})",
                recorded,
                "verdicts",
            )
        return f"judged criteria: not run ({why_not})", recorded, "none"
    covered = recorded or {}
    agent_models: set[str] = set()
    missing: list[JudgeRequest] = []
    stream = read_runs(runs)
    known = {task.id for task in suite.tasks}
    for record in stream:
        if skip_unknown and record.task_id not in known:
            continue
        if record.agent.model:
            agent_models.add(record.agent.model)
        missing.extend(
            r
            for r in run_judge_requests(record, suite, file=runs, line=stream.line)
            if r.item_id not in covered
        )
    if not missing:
        return None
    # the configured agent model was checked already; the runs may have been made by another
    if session.model:
        for agent_model in sorted(agent_models):
            warning = twin_warning(session.model, agent_model)
            if warning and twin_warning(session.model, str(config.value("agent.model"))) is None:
                warn(f"runs in {runs} were made by {agent_model}: {warning}")
                break
    result = run_judged(missing, session, criteria=judged_criteria(missing, base_dir))
    note = f"judged criteria: {result.describe()}"
    if covered:
        note += f"; the others from {label}"
    if result.unfinished:
        warn(
            f"the judge budget ran out; {result.unfinished} judged item(s) are reported not run "
            "(everything judged is cached; rerun with a larger budget)"
        )
    return note, {**covered, **result.verdicts}, "judge"


def _plain_size(runs: Path) -> int | None:
    """The size of a plain runs file, the total of its progress; None for a compressed file or a
    stream (their lines are counted instead)."""
    try:
        return runs.stat().st_size if runs.suffix != ".gz" and runs.is_file() else None
    except OSError:
        return None


def _advancing(lines: Iterator[Line], bar: ProgressHandle, *, by_bytes: bool) -> Iterator[Line]:
    """``lines``, telling ``bar`` of each one read: its bytes, or one line."""
    advance = bar.advance
    for line in lines:
        advance(len(line[2]) if by_bytes else 1)
        yield line


_PARALLEL_BYTES = 8 * 1024 * 1024  # below this a worker pool costs more than it saves


def auto_jobs(runs: Path) -> int:
    """The core count for a large runs file, else 1 (a ``.gz`` counts as 8 times its size)."""

    try:
        size = runs.stat().st_size
    except OSError:
        return 1  # reading it reports the problem
    if runs.suffix == ".gz":
        size *= 8
    return default_jobs() if size >= _PARALLEL_BYTES else 1


def _grade_on_engine(
    engine: GradingEngine,
    runs: str,
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None,
    *,
    fast: bool,
    grades_out: str | None,
    weights: Mapping[WeightKey, float] | None,
    max_weak: int | None,
    progress: Progress | None,
    warn: Callable[[str], None],
) -> tuple[Scorecard, list[RunGrade]]:
    """:func:`_grade` on an engine (Ray Data: :func:`pathjudge.ray.score_files`): the same scorecard,
    the first bad record raised as one process raises it (after a warning with their number when
    there are more)."""

    partial = engine(
        runs,
        suite,
        verdicts=verdicts,
        fast=fast,
        grades=grades_out,
        progress=progress,
        **({} if max_weak is None else {"max_weak": max_weak}),
    )
    problem = partial.first_error()
    if problem is not None:
        if partial.error_total > 1:
            warn(
                f"{partial.error_total} bad records in all; the first (as one process reports it):"
            )
        raise problem
    if partial.runs == 0:
        raise RecordError(
            "has no run records",
            file=runs,
            hint="the files are empty; pass JSONL files with one record per line",
        )
    _warn_tool_names(suite, partial, warn)
    return partial.finish(suite, weights=weights), []


def _grade(
    runs: Path,
    suite: Suite,
    verdicts: Mapping[str, VerdictLike] | None,
    *,
    fast: bool,
    jobs: int,
    keep: bool,
    grades_out: Path | None,
    weights: Mapping[WeightKey, float] | None,
    max_weak: int | None,
    skip_unknown: bool = False,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[Scorecard, list[RunGrade], dict[str, int]]:
    """Grade every run of ``runs`` into the scorecard (the one place scoring calls the grading core).

    Returns the scorecard and, when ``keep``, the per-run grades; streams the grades to
    ``grades_out`` when given. The first bad record raises (naming its file and line). ``progress``
    is told the bytes graded of a plain file (lines of a compressed one); None costs nothing. A tool
    the suite names that no run calls and no reference uses is warned of once, through ``warn``.
    """
    import os

    from pathjudge.errors import InputError

    plans = SuitePlan(suite, skip_unknown=skip_unknown)
    weak = {} if max_weak is None else {"max_weak": max_weak}
    kept: list[RunGrade] = []
    appender = None
    grades_tmp: str | None = None
    if grades_out is not None and grades_out.suffix == ".gz":
        raise InputError(
            "--grades streams plain JSONL", field="--grades", hint="name it .jsonl, gzip it later"
        )
    if grades_out is not None:
        # streamed into a temp file beside it and renamed over it only when grading succeeded: a
        # failed command leaves an existing grades file as it was
        fd, grades_tmp = open_atomic_temp(grades_out)
        os.close(fd)
        appender = JsonlAppender(grades_tmp)
    keys = RunKeys()

    def streamed(graded: RunGrade, position: tuple[str, int]) -> None:
        # a repeated (task, epoch) is counted twice in every rate: flagged (see RunKeys.report)
        keys.on_grade(graded, position)
        if appender is not None:
            appender.write(graded)
        if keep:
            kept.append(graded)

    from pathjudge._progress import or_no_progress

    completed = False
    size = _plain_size(runs) if progress is not None else None
    try:
        with or_no_progress(progress)(f"grading {runs.name}", size) as bar:
            if jobs > 1:
                partial = score_file_parallel(
                    runs, plans, verdicts, fast=fast, jobs=jobs, progress=bar, **weak
                )
            else:
                lines = iter_lines(runs)
                partial = grade_chunk(
                    lines
                    if progress is None
                    else _advancing(lines, bar, by_bytes=size is not None),
                    plans,
                    verdicts,
                    fast=fast,
                    stop_at_error=True,
                    on_grade=streamed,
                    **weak,
                )
        completed = partial.first_error() is None
    finally:
        if appender is not None:
            appender.close()
        if grades_tmp is not None and grades_out is not None:
            if completed:
                os.replace(grades_tmp, grades_out)
            else:
                Path(grades_tmp).unlink(missing_ok=True)
    problem = partial.first_error()
    if problem is not None:
        raise problem
    keys.report()
    _check_some_graded(partial, runs, suite)
    _warn_tool_names(suite, partial, warn)
    return partial.finish(suite, weights=weights), kept, dict(partial.skipped)


def _check_some_graded(partial: PartialScorecard, runs: Path, suite: Suite) -> None:
    """A runs file with no run graded is an error: every run skipped (no task of the suite), or none
    at all."""
    from pathjudge.errors import InputError, RecordError

    if partial.runs == 0 and partial.skipped:
        raise InputError(
            f"none of the {sum(partial.skipped.values())} runs in {runs} is of a task in the "
            f"suite {suite.name}",
            field="--skip-unknown-tasks",
            hint="check that the runs and the suite belong together",
        )
    if partial.runs == 0:
        raise RecordError(
            "has no run records",
            file=runs,
            hint="the file is empty; pass a JSONL file with one record per line",
        )


def _warn_tool_names(
    suite: Suite, partial: PartialScorecard, warn: Callable[[str], None] | None
) -> None:
    """One warning per tool the suite names that no run called (a likely typo; see
    :func:`~pathjudge.rubrics.suite.tool_name_warnings`), once per command, not per run."""
    if warn is not None:
        from pathjudge.rubrics.suite import tool_name_warnings

        for text in tool_name_warnings(suite, partial.tools_called):
            warn(text)
