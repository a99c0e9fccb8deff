"""Scale-out on Ray Data: grade millions of runs from local files or object storage.

Two entry points (``pip install 'pathjudge[ray]'``):

- :func:`score_files` grades runs JSONL files — a local path, a glob, or an ``s3://`` / ``gs://`` URI (any
  filesystem pyarrow reaches). Each file is cut at line starts into byte ranges; a Ray Data
  ``map_batches`` grades every range on a worker into a partial scorecard; the driver merges them in file
  order. A bad record is reported with its file and line exactly as in one process (the earliest one,
  the same error a single-process run stops at); none is skipped silently.
- :func:`score_dataset` grades a Ray ``Dataset`` of run records — ``ray.data.read_parquet`` over the
  layout of :mod:`pathjudge._parquet`, or ``read_json`` where the runs have a uniform shape.

Both return the :class:`~pathjudge.report.json_report.ScoreReport` the single-process ``score`` writes,
byte for byte. ``address`` picks the runtime: ``None`` starts a local one (or reuses an initialised
one), ``"auto"`` joins the cluster this machine belongs to, ``"ray://HOST:PORT"`` connects a Ray Client.
Workers need pathjudge installed (the cluster image, or ``runtime_env={"pip": ["pathjudge[ray]"]}``).
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import json
import os
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pathjudge.errors import InputError, MissingExtraError, PathjudgeError, RecordError

if TYPE_CHECKING:
    from pathjudge.report.json_report import ScoreReport
    from pathjudge.rubrics.suite import Suite, WeightKey
    from pathjudge.scoring.judged import VerdictLike
    from pathjudge.scoring.scorecard import GateMetric, ScorecardBuilder

__all__ = ["expand_runs", "grade_dataset", "read_grades_manifest", "score_dataset", "score_files"]

#: Progress callback: (bytes or rows done, total) — the CLI draws a bar with it.
Progress = Callable[[int, int], None]

_URI_SCHEMES = ("s3://", "gs://", "gcs://", "hdfs://", "abfs://", "file://")
_MIN_RANGE = 1 << 20  # 1 MiB: smaller ranges cost more in scheduling than they save
_MAX_RANGE = 64 << 20  # 64 MiB: bounds a worker's read and its share of a straggler
_BAD_KEPT = 20  # bad records kept per range (all are counted)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("ray", "ray", "grading on Ray Data") from None
    return ray


def init_runtime(address: str | None = None, *, workers: int | None = None) -> int:
    """Start or join a Ray runtime; returns the CPUs it offers. ``None``: a local runtime (reused if
    one is initialised), with ``workers`` CPUs when given; ``"auto"`` or ``"ray://HOST:PORT"``: join."""
    ray = _ray()
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if address is None:
            if workers is not None:
                options["num_cpus"] = workers
        else:
            options["address"] = address
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InputError(
                f"could not start or reach the Ray runtime ({type(exc).__name__}: {exc})",
                field="--address",
                hint="pass --address auto on a cluster node, ray://HOST:10001 for a remote cluster, "
                "or no --address for a local runtime",
            ) from None
        import logging

        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False  # ours is drawn by the face, over bytes
        logging.getLogger("ray.data").setLevel(logging.WARNING)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# -- files ------------------------------------------------------------------------------------------


def _is_uri(path: str) -> bool:
    return path.startswith(_URI_SCHEMES)


def _filesystem(path: str) -> tuple[Any, str]:
    """(pyarrow filesystem, path within it) for a URI; (None, path) for a local path."""
    if not _is_uri(path) or path.startswith("file://"):
        return None, path.removeprefix("file://")
    from pyarrow import fs

    filesystem, inner = fs.FileSystem.from_uri(path)
    return filesystem, str(inner)


def expand_runs(spec: str | Sequence[str]) -> list[str]:
    """The files ``spec`` names, sorted: a local file, a local glob, a local folder (its ``*.jsonl``),
    or a URI, itself possibly a glob (``s3://bucket/runs/*.jsonl``). No match is an InputError."""
    specs = [spec] if isinstance(spec, str) else list(spec)
    found: list[str] = []
    for item in specs:
        if _is_uri(item) and not item.startswith("file://"):
            from pyarrow import fs

            filesystem, inner = fs.FileSystem.from_uri(item)
            scheme = item.split("://", 1)[0]
            if any(ch in inner for ch in "*?["):
                base = inner[: min(inner.find(ch) for ch in "*?[" if ch in inner)].rsplit("/", 1)[0]
                infos = filesystem.get_file_info(fs.FileSelector(base, recursive=True))
                matches = [
                    f"{scheme}://{info.path}"
                    for info in infos
                    if info.type == fs.FileType.File and fnmatch.fnmatch(info.path, inner)
                ]
            else:
                info = filesystem.get_file_info(inner)
                if info.type == fs.FileType.Directory:
                    infos = filesystem.get_file_info(fs.FileSelector(inner, recursive=False))
                    matches = [
                        f"{scheme}://{i.path}"
                        for i in infos
                        if i.type == fs.FileType.File and i.path.endswith((".jsonl", ".parquet"))
                    ]
                else:
                    matches = [item] if info.type == fs.FileType.File else []
        else:
            local = item.removeprefix("file://")
            if any(ch in local for ch in "*?["):
                matches = [p for p in glob.glob(local, recursive=True) if os.path.isfile(p)]
            elif os.path.isdir(local):
                matches = [
                    str(p)
                    for p in Path(local).iterdir()
                    if p.is_file() and p.suffix in (".jsonl", ".parquet")
                ]
            else:
                matches = [local] if os.path.isfile(local) else []
        if not matches:
            raise RecordError(
                "no runs file matches",
                file=item,
                hint="check the path, glob or URI (s3://bucket/prefix/*.jsonl)",
            )
        found.extend(sorted(matches))
    return found


def _size(path: str) -> int:
    filesystem, inner = _filesystem(path)
    if filesystem is None:
        return os.path.getsize(inner)
    size: int = filesystem.get_file_info(inner).size
    return size


def _open(path: str) -> Any:
    filesystem, inner = _filesystem(path)
    if filesystem is None:
        return open(inner, "rb")
    return filesystem.open_input_file(inner)


def _next_line_start(handle: Any, offset: int, size: int) -> int:
    """The first line start at or after ``offset`` (``size`` when none)."""
    if offset <= 0:
        return 0
    handle.seek(offset - 1)
    position = offset - 1
    while position < size:
        block = handle.read(1 << 16)
        if not block:
            break
        found: int = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)
    return size


@dataclass(frozen=True)
class _Range:
    file: int
    index: int
    path: str
    start: int
    end: int


def _plan_ranges(files: Sequence[str], parts: int) -> list[_Range]:
    sizes = [_size(path) for path in files]
    total = sum(sizes)
    target = min(_MAX_RANGE, max(_MIN_RANGE, total // max(1, parts)))
    ranges: list[_Range] = []
    for number, (path, size) in enumerate(zip(files, sizes, strict=True)):
        cuts = [0]
        if size > target:
            with _open(path) as handle:
                for k in range(1, -(-size // target)):
                    start = _next_line_start(handle, k * target, size)
                    if cuts[-1] < start < size:
                        cuts.append(start)
        cuts.append(size)
        for index, (start, end) in enumerate(itertools.pairwise(cuts)):
            ranges.append(_Range(number, index, path, start, end))
    return ranges


def _lines(handle: Any, start: int, end: int, limit: int) -> Iterator[tuple[bytes | None, int]]:
    """The lines starting in ``[start, end)`` (which begins at a line start): ``(raw, length)``, raw
    None for a line over ``limit`` bytes (skipped, its length reported)."""
    handle.seek(start)
    position = start
    buffer = b""
    while position < end:
        newline = buffer.find(b"\n")
        if newline < 0:
            block = handle.read(1 << 20)
            if not block:
                if buffer:
                    yield (buffer if len(buffer) <= limit else None), len(buffer)
                return
            buffer += block
            if len(buffer) > limit + (1 << 20) and buffer.find(b"\n") < 0:
                # an over-long line: skip to its end without holding it
                length = len(buffer)
                buffer = b""
                while True:
                    block = handle.read(1 << 20)
                    if not block:
                        yield None, length
                        return
                    newline = block.find(b"\n")
                    if newline >= 0:
                        length += newline + 1
                        buffer = block[newline + 1 :]
                        yield None, length
                        position += length
                        break
                    length += len(block)
            continue
        raw = buffer[: newline + 1]
        buffer = buffer[newline + 1 :]
        position += len(raw)
        yield (raw if len(raw) <= limit else None), len(raw)


# -- workers ----------------------------------------------------------------------------------------


def _problem(error: PathjudgeError, line: int) -> tuple[Any, ...]:
    return (type(error), error.message, error.file, line, error.field, error.task_id, error.hint)


class _Partial:
    """What a worker sends back for one range or block (pickled)."""

    def __init__(self, builder: ScorecardBuilder) -> None:
        self.builder = builder
        self.count = 0
        self.lines = 0
        self.bad: list[tuple[Any, ...]] = []
        self.bad_total = 0
        self.shard: dict[str, Any] | None = None

    def problem(self, error: PathjudgeError, line: int) -> None:
        self.bad_total += 1
        if len(self.bad) < _BAD_KEPT:
            self.bad.append(_problem(error, line))


class _Grader:
    """A Ray actor: grades whole byte ranges of runs JSONL files into partial scorecards."""

    def __init__(
        self,
        suite: Suite,
        verdicts: Mapping[str, VerdictLike] | None,
        fast: bool,
        grades: str | None,
    ) -> None:
        from pathjudge.agent.io import DEFAULT_MAX_LINE_BYTES

        self.suite = suite
        self.verdicts = verdicts
        self.fast = fast
        self.grades = grades
        self.limit = DEFAULT_MAX_LINE_BYTES
        self.plans: dict[str, Any] = {}

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        out = []
        for i in range(len(batch["path"])):
            part = self.grade(
                str(batch["path"][i]),
                int(batch["start"][i]),
                int(batch["end"][i]),
                int(batch["file"][i]),
                int(batch["index"][i]),
            )
            out.append(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
        return {
            "file": np.asarray(batch["file"]),
            "index": np.asarray(batch["index"]),
            "size": np.asarray(batch["end"]) - np.asarray(batch["start"]),
            "partial": np.array(out, dtype=object),
        }

    def grade(self, path: str, start: int, end: int, file: int, index: int) -> _Partial:
        from pathjudge.agent.io import record_error_from_validation
        from pathjudge.agent.trajectory import RunRecord
        from pathjudge.scoring.grade import grade_run_lean, plan_task
        from pathjudge.scoring.scorecard import ScorecardBuilder

        part = _Partial(ScorecardBuilder(self.suite))
        validate = RunRecord.model_validate_json
        writer = _ShardWriter(self.grades, file, index) if self.grades else None
        with _open(path) as handle:
            for raw, length in _lines(handle, start, end, self.limit):
                part.lines += 1
                local = part.lines
                if raw is None:
                    part.problem(
                        RecordError(
                            f"line is {length / 1e6:.1f} MB, over the limit of {self.limit / 1e6:.1f} MB per record",
                            hint="split the record, or raise max_line_bytes if it is genuine",
                        ),
                        local,
                    )
                    continue
                if raw.isspace():
                    continue
                try:
                    run = validate(raw)
                except ValidationError as exc:
                    try:
                        raw.decode("utf-8")
                    except UnicodeDecodeError as bad:
                        error: PathjudgeError = RecordError(
                            f"not valid UTF-8 (byte 0x{raw[bad.start]:02x} at column {bad.start + 1})",
                            hint="re-encode the file as UTF-8",
                        )
                    else:
                        error = record_error_from_validation(exc, file=None, line=None, what="run")
                    part.problem(error, local)
                    continue
                plan = self.plans.get(run.task_id)
                if plan is None:
                    try:
                        plan = self.plans[run.task_id] = plan_task(self.suite.task(run.task_id))
                    except PathjudgeError as error:
                        part.problem(error, local)
                        continue
                lean = grade_run_lean(run, plan, verdicts=self.verdicts, fast=self.fast)
                part.builder.add(lean)
                part.count += 1
                if writer is not None:
                    writer.write(lean.to_model().model_dump_json())
        if writer is not None:
            part.shard = writer.close(path)
        return part


class _ShardWriter:
    """Per-run grades of one range as a JSONL shard ``part-FFFFF-RRRRR.jsonl`` under the grades folder."""

    def __init__(self, folder: str, file: int, index: int) -> None:
        self.name = f"part-{file:05d}-{index:05d}.jsonl"
        self.target = f"{folder.rstrip('/')}/{self.name}"
        filesystem, inner = _filesystem(self.target)
        self.handle = (
            open(inner + ".tmp", "wb")  # noqa: SIM115 - closed in close()
            if filesystem is None
            else filesystem.open_output_stream(inner)
        )
        self.filesystem = filesystem
        self.inner = inner
        self.runs = 0

    def write(self, line: str) -> None:
        self.handle.write(line.encode("utf-8") + b"\n")
        self.runs += 1

    def close(self, source: str) -> dict[str, Any]:
        self.handle.close()
        if self.filesystem is None:
            os.replace(self.inner + ".tmp", self.inner)
        return {"path": self.name, "runs": self.runs, "source": source}


# -- the driver -------------------------------------------------------------------------------------


def _merge_in_order(
    partials: Iterator[tuple[tuple[int, int], int, _Partial]],
    order: Sequence[tuple[int, int]],
    into: ScorecardBuilder,
    progress: Progress | None,
    total: int,
) -> list[tuple[tuple[int, int], _Partial]]:
    """Merge partials into ``into`` in ``order`` as they arrive: a reorder buffer holds the ones that
    came early, so the weak-path list stays in run order and the sums add up in file order. Returns
    every partial's bookkeeping (builders dropped) in ``order``."""
    waiting: dict[tuple[int, int], _Partial] = {}
    done: list[tuple[tuple[int, int], _Partial]] = []
    expected = iter(order)
    next_key = next(expected, None)
    seen = 0
    for key, size, part in partials:
        waiting[key] = part
        seen += size
        if progress is not None:
            progress(seen, total)
        while next_key is not None and next_key in waiting:
            ready = waiting.pop(next_key)
            into.merge(ready.builder)
            ready.builder = None  # type: ignore[assignment]
            done.append((next_key, ready))
            next_key = next(expected, None)
    if next_key is not None or waiting:  # pragma: no cover - Ray returned fewer rows than ranges
        raise RuntimeError("a grading task's result never came back from Ray; rerun")
    return done


def _raise_first_bad(
    files: Sequence[str], done: Sequence[tuple[tuple[int, int], _Partial]]
) -> None:
    """Raise the earliest bad record with its absolute file and line (as one process would)."""
    before: dict[int, int] = {}
    first: tuple[Any, ...] | None = None
    where = ""
    total_bad = 0
    for (file, _index), part in done:
        offset = before.get(file, 0)
        before[file] = offset + part.lines
        total_bad += part.bad_total
        if first is None and part.bad:
            kind, message, _file, local, field, task_id, hint = part.bad[0]
            first = (kind, message, offset + local, field, task_id, hint)
            where = files[file]
    if first is None:
        return
    kind, message, line, field, task_id, hint = first
    if total_bad > 1:
        more = f"{total_bad - 1} more bad record(s) follow"
        hint = f"{hint}; {more}" if hint else more
    raise kind(message, file=where, line=line, field=field, task_id=task_id, hint=hint)


def score_files(
    runs: str | Sequence[str],
    suite: Suite,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
    weights: Mapping[WeightKey, float] | None = None,
    address: str | None = None,
    workers: int | None = None,
    grades: str | None = None,
    progress: Progress | None = None,
) -> ScorecardBuilder:
    """Grade runs JSONL files on Ray into one scorecard builder (see the module docstring).

    ``workers``: grading actors (default: the runtime's CPUs). ``grades``: a folder (or URI) that gets one
    JSONL shard of per-run grades per range plus ``manifest.json``, which ``pathjudge report`` reads.
    """
    from pathjudge.scoring.scorecard import ScorecardBuilder

    files = expand_runs(runs)
    parquet = [f for f in files if f.endswith(".parquet")]
    cpus = init_runtime(address, workers=workers)
    ray = _ray()
    if parquet:
        if len(parquet) != len(files):
            raise InputError(
                "the runs mix Parquet and JSONL files",
                file=parquet[0],
                hint="grade each format in its own run",
            )
        if grades is not None:
            raise InputError(
                "--grades shards are written from JSONL runs only",
                field="--grades",
                hint="convert the Parquet runs to JSONL, or drop --grades",
            )
        ds = ray.data.read_parquet(files, include_paths=True)
        return grade_dataset(
            ds,
            suite,
            verdicts=verdicts,
            fast=fast,
            weights=weights,
            workers=workers,
            progress=progress,
        )
    actors = max(1, workers or cpus)
    ranges = _plan_ranges(files, actors * 4)
    total = sum(r.end - r.start for r in ranges)
    if grades is not None:
        _prepare_grades(grades)
    items = [
        {"file": r.file, "index": r.index, "path": r.path, "start": r.start, "end": r.end}
        for r in ranges
    ]
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    graded = ds.map_batches(
        _Grader,
        fn_constructor_kwargs={
            "suite": suite,
            "verdicts": verdicts,
            "fast": fast,
            "grades": grades,
        },
        batch_size=1,
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=min(actors, len(items))),
        num_cpus=1,
    )

    def arrivals() -> Iterator[tuple[tuple[int, int], int, _Partial]]:
        for row in graded.iter_rows():
            yield (
                (int(row["file"]), int(row["index"])),
                int(row["size"]),
                pickle.loads(row["partial"]),
            )

    builder = ScorecardBuilder(suite, weights=weights)
    order = [(r.file, r.index) for r in ranges]
    done = _merge_in_order(arrivals(), order, builder, progress, total)
    _raise_first_bad(files, done)
    if builder.runs == 0:
        raise RecordError(
            "has no run records",
            file=files[0] if len(files) == 1 else runs if isinstance(runs, str) else files[0],
            hint="the file is empty; pass a JSONL file with one record per line",
        )
    if grades is not None:
        _write_manifest(grades, [part.shard for _, part in done if part.shard], builder.runs)
    return builder


MANIFEST = "manifest.json"


def _prepare_grades(folder: str) -> None:
    filesystem, inner = _filesystem(folder)
    if filesystem is None:
        path = Path(inner)
        if path.exists() and not path.is_dir():
            raise InputError(
                "--grades with --engine ray is a folder of shards, and this is a file",
                file=inner,
                hint="pass a folder (it gets part-*.jsonl shards and manifest.json)",
            )
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("part-*.jsonl"):  # a fresh set: grades of this run only
            old.unlink()
        (path / MANIFEST).unlink(missing_ok=True)
    else:
        filesystem.create_dir(inner, recursive=True)


def _write_manifest(folder: str, shards: list[dict[str, Any]], runs: int) -> None:
    manifest = {
        "kind": "pathjudge.grades",
        "schema_version": 1,
        "format": "jsonl",
        "runs": runs,
        "shards": shards,
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    filesystem, inner = _filesystem(f"{folder.rstrip('/')}/{MANIFEST}")
    if filesystem is None:
        from pathjudge.report._write import write_text_atomic

        write_text_atomic(Path(inner), text)
    else:
        with filesystem.open_output_stream(inner) as out:
            out.write(text.encode("utf-8"))


def read_grades_manifest(folder: str | Path) -> Iterator[Any]:
    """Stream the per-run grades of a shard folder written by ``--engine ray --grades`` (in run order)."""
    from pathjudge.scoring.grade import RunGrade

    base = str(folder)
    if base.endswith(MANIFEST):
        base = base[: -len(MANIFEST)].rstrip("/") or "."
    manifest_path = f"{base.rstrip('/')}/{MANIFEST}"
    try:
        with _open(manifest_path) as handle:
            manifest = json.loads(handle.read())
    except (OSError, ValueError) as exc:
        raise RecordError(
            f"is not a readable grades manifest ({type(exc).__name__})",
            file=manifest_path,
            hint="pass the folder that pathjudge score --engine ray --grades wrote",
        ) from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "pathjudge.grades":
        raise RecordError("is not a pathjudge grades manifest", file=manifest_path)
    for shard in manifest.get("shards", []):
        path = f"{base.rstrip('/')}/{shard['path']}"
        with _open(path) as handle:
            for number, raw in enumerate(handle.read().splitlines(), 1):
                if not raw.strip():
                    continue
                try:
                    yield RunGrade.model_validate_json(raw)
                except ValidationError:
                    raise RecordError("is not a run grade", file=path, line=number) from None


# -- datasets ---------------------------------------------------------------------------------------


class _RowGrader:
    """A Ray actor: grades blocks of run rows (Parquet layout or plain JSON rows)."""

    def __init__(
        self, suite: Suite, verdicts: Mapping[str, VerdictLike] | None, fast: bool
    ) -> None:
        self.suite = suite
        self.verdicts = verdicts
        self.fast = fast
        self.plans: dict[str, Any] = {}

    def __call__(self, batch: Any) -> dict[str, Any]:
        import numpy as np

        from pathjudge._parquet import record_from_row
        from pathjudge.agent.io import record_error_from_validation
        from pathjudge.scoring.grade import grade_run_lean, plan_task
        from pathjudge.scoring.scorecard import ScorecardBuilder

        part = _Partial(ScorecardBuilder(self.suite))
        rows = batch.to_pylist()
        for row in rows:
            part.lines += 1
            source = row.get("path") or "<dataset>"
            try:
                run = record_from_row(row)
                plan = self.plans.get(run.task_id)
                if plan is None:
                    plan = self.plans[run.task_id] = plan_task(self.suite.task(run.task_id))
            except ValidationError as exc:
                error: PathjudgeError = record_error_from_validation(
                    exc, file=None, line=None, what="run"
                )
                part.problem(_placed(error, source, row), 0)
                continue
            except ValueError as exc:
                part.problem(
                    _placed(RecordError(f"a JSON-text column does not parse ({exc})"), source, row),
                    0,
                )
                continue
            except PathjudgeError as error:
                part.problem(_placed(error, source, row), 0)
                continue
            part.builder.add(grade_run_lean(run, plan, verdicts=self.verdicts, fast=self.fast))
            part.count += 1
        return {
            "rows": np.asarray([len(rows)]),
            "partial": np.array(
                [pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)], dtype=object
            ),
        }


def _placed(error: PathjudgeError, source: str, row: Mapping[str, Any]) -> PathjudgeError:
    run_id = row.get("run_id")
    where = f" (run_id {run_id!r})" if isinstance(run_id, str) else ""
    return type(error)(
        error.message + where,
        file=source,
        field=error.field,
        task_id=error.task_id,
        hint=error.hint,
    )


def score_dataset(
    ds: Any,
    suite: Suite,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
    weights: Mapping[WeightKey, float] | None = None,
    thresholds: Mapping[GateMetric, float] | None = None,
    workers: int | None = None,
    suite_file: str | None = None,
    runs_file: str | None = None,
    progress: Progress | None = None,
) -> ScoreReport:
    """Grade a Ray ``Dataset`` of run records into the :class:`ScoreReport` one process gives.

    Rows follow the Parquet layout of :mod:`pathjudge._parquet` (JSON-text columns) or carry the JSON
    values themselves (``read_json``). The dataset's order is kept (``preserve_order``), so the report
    is byte-identical to the single-process report on the same runs in the same order. A bad record
    raises the first one's error, naming its file (``include_paths=True``) and run id.
    """
    builder = grade_dataset(
        ds, suite, verdicts=verdicts, fast=fast, weights=weights, workers=workers, progress=progress
    )
    return _report(builder, thresholds, fast=fast, suite_file=suite_file, runs_file=runs_file)


def grade_dataset(
    ds: Any,
    suite: Suite,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
    weights: Mapping[WeightKey, float] | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> ScorecardBuilder:
    """:func:`score_dataset` up to the merged scorecard builder (no report)."""
    from pathjudge.scoring.scorecard import ScorecardBuilder

    ray = _ray()
    cpus = init_runtime(None)
    ctx = ray.data.DataContext.get_current()
    kept = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = True
    try:
        total = ds.count() if progress is not None else 0
        graded = ds.map_batches(
            _RowGrader,
            fn_constructor_kwargs={"suite": suite, "verdicts": verdicts, "fast": fast},
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(min_size=1, max_size=max(1, workers or cpus)),
            num_cpus=1,
        )
        builder = ScorecardBuilder(suite, weights=weights)
        seen = 0
        first: tuple[Any, ...] | None = None
        bad_total = 0
        for row in graded.iter_rows():
            part: _Partial = pickle.loads(row["partial"])
            builder.merge(part.builder)
            bad_total += part.bad_total
            if first is None and part.bad:
                first = part.bad[0]
            seen += int(row["rows"])
            if progress is not None:
                progress(seen, total)
    finally:
        ctx.execution_options.preserve_order = kept
    if first is not None:
        kind, message, file, _line, field, task_id, hint = first
        more = f"{bad_total - 1} more bad record(s) follow" if bad_total > 1 else None
        raise kind(message, file=file, field=field, task_id=task_id, hint=_join(hint, more))
    if builder.runs == 0:
        raise RecordError("the dataset has no run records", hint="check the dataset's source")
    return builder


def _join(hint: str | None, more: str | None) -> str | None:
    if hint and more:
        return f"{hint}; {more}"
    return hint or more


def _report(
    builder: ScorecardBuilder,
    thresholds: Mapping[GateMetric, float] | None,
    *,
    fast: bool,
    suite_file: str | None,
    runs_file: str | None,
    judge: str | None = None,
) -> ScoreReport:
    from pathjudge.report.json_report import ScoreReport
    from pathjudge.scoring.scorecard import evaluate_gates

    card = builder.build()
    gates = evaluate_gates(card, dict(thresholds or {}))
    return ScoreReport(
        suite_file=suite_file,
        runs_file=runs_file,
        fast=fast,
        judge=judge or ("fast" if fast else "none"),
        scorecard=card,
        gates=tuple(gates),
        passed=all(g.passed for g in gates),
    )
