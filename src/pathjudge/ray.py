"""Scale-out on Ray Data: grade millions of runs from local files or object storage.

Two entry points (``pip install 'pathjudge[ray]'``):

- :func:`score_files` grades runs JSONL files — a local path, a glob, a folder, or an ``s3://`` /
  ``gs://`` URI (any filesystem pyarrow reaches); a ``.jsonl.gz`` is one range, read as a single
  process reads it (:func:`pathjudge.scoring.chunk.read_lines`). Each file is cut at line starts into byte ranges; a
  parallel pass counts each range's newlines (so every line keeps its number); one Ray task per range
  runs :func:`~pathjudge.scoring.chunk.grade_chunk` on it (as many at once as there are workers), and
  the driver merges the :class:`~pathjudge.scoring.scorecard.PartialScorecard` s in any order. Bad
  records stay in the partial with their file and line; ``first_error()`` is the one a single process
  stops at. None is skipped silently.
- :func:`score_dataset` grades a Ray ``Dataset`` of run records — ``ray.data.read_parquet`` over the
  layout of :mod:`pathjudge._parquet`, or ``read_json`` where the runs have a uniform shape.

Finished, both give the :class:`~pathjudge.scoring.pipeline.ScoreReport` the single-process ``score``
writes, byte for byte. ``address`` picks the runtime: ``None`` starts a local one (or reuses an initialised
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
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pathjudge._progress import Progress, or_no_progress
from pathjudge.errors import InputError, MissingExtraError, PathjudgeError, RecordError

if TYPE_CHECKING:
    from pathjudge.rubrics.suite import Suite, WeightKey
    from pathjudge.scoring.chunk import Line
    from pathjudge.scoring.judged import VerdictLike
    from pathjudge.scoring.pipeline import ScoreReport
    from pathjudge.scoring.scorecard import GateMetric, PartialScorecard, Scorecard

__all__ = [
    "expand_runs",
    "grade_dataset",
    "grades_sources",
    "read_grades_file",
    "read_grades_manifest",
    "runtime_scope",
    "score_dataset",
    "score_files",
    "shutdown_runtime",
]


_URI_SCHEMES = ("s3://", "gs://", "gcs://", "hdfs://", "abfs://", "file://")
_MIN_RANGE = 1 << 20  # 1 MiB: smaller ranges cost more in scheduling than they save
_MAX_RANGE = 64 << 20  # 64 MiB: bounds a worker's read and its share of a straggler
_RUNS_SUFFIXES = (".jsonl", ".jsonl.gz", ".parquet")
"""The runs files a folder holds (a ``.jsonl.gz`` is read whole, decompressed, by one task)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("ray", "ray", "grading on Ray Data") from None
    return ray


_STARTED: list[bool] = []
"""Holds True while a runtime this module started (a local one, no address) is up."""


def init_runtime(address: str | None = None, *, workers: int | None = None) -> int:
    """Start or join a Ray runtime; returns the CPUs it offers. ``None``: a local runtime (reused if
    one is initialised), with ``workers`` CPUs when given; ``"auto"`` or ``"ray://HOST:PORT"``: join."""
    ray = _ray()
    if not ray.is_initialized():
        _STARTED.clear()
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
        if address is None:
            _STARTED.append(True)
        import logging

        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False  # ours is drawn by the face, over bytes
        logging.getLogger("ray.data").setLevel(logging.WARNING)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def shutdown_runtime() -> None:
    """Stop the local runtime :func:`init_runtime` started, if it is still up (a joined cluster
    and a runtime the caller started are left alone). The CLI calls it once its results are in:
    Ray's own exit hook would do the same, after a half-second pause for log lines this module
    never forwards (``log_to_driver=False``)."""
    if not _STARTED:
        return
    _STARTED.clear()
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()


@contextmanager
def runtime_scope() -> Iterator[None]:
    """Within it, a local runtime that :func:`init_runtime` starts is stopped on the way out
    (:func:`shutdown_runtime`); a runtime already up on entry, or a joined cluster, is left as is.
    The CLI grades inside one, so its runtime is gone as soon as the results are in."""
    ray = _ray()
    up = ray.is_initialized()
    try:
        yield
    finally:
        if not up:
            shutdown_runtime()


# -- files ------------------------------------------------------------------------------------------


def _pyarrow_fs() -> Any:
    try:
        from pyarrow import fs
    except ImportError:
        raise MissingExtraError("ray", "pyarrow", "reading runs from object storage") from None
    return fs


def _is_uri(path: str) -> bool:
    return path.startswith(_URI_SCHEMES)


def _is_local(path: str) -> bool:
    """A path on this machine's file system (a plain path or a ``file://`` URI)."""
    return not _is_uri(path) or path.startswith("file://")


def _filesystem(path: str) -> tuple[Any, str]:
    """(pyarrow filesystem, path within it) for a URI; (None, path) for a local path."""
    if _is_local(path):
        return None, path.removeprefix("file://")
    fs = _pyarrow_fs()
    filesystem, inner = fs.FileSystem.from_uri(path)
    return filesystem, str(inner)


def _match_uri(item: str) -> list[str]:
    """The files a URI names: itself, the runs files of its folder, or its glob's matches."""
    fs = _pyarrow_fs()
    filesystem, inner = fs.FileSystem.from_uri(item)
    scheme = item.split("://", 1)[0]
    if any(ch in inner for ch in "*?["):
        base = inner[: min(inner.find(ch) for ch in "*?[" if ch in inner)].rsplit("/", 1)[0]
        infos = filesystem.get_file_info(fs.FileSelector(base, recursive=True))
        return [
            f"{scheme}://{info.path}"
            for info in infos
            if info.type == fs.FileType.File and fnmatch.fnmatch(info.path, inner)
        ]
    info = filesystem.get_file_info(inner)
    if info.type == fs.FileType.Directory:
        infos = filesystem.get_file_info(fs.FileSelector(inner, recursive=False))
        return [
            f"{scheme}://{i.path}"
            for i in infos
            if i.type == fs.FileType.File and i.path.endswith(_RUNS_SUFFIXES)
        ]
    return [item] if info.type == fs.FileType.File else []


def expand_runs(spec: str | Sequence[str]) -> list[str]:
    """The files ``spec`` names, sorted: a local file, a local glob, a local folder (its ``*.jsonl``,
    ``*.jsonl.gz`` and ``*.parquet``),
    or a URI, itself possibly a glob (``s3://bucket/runs/*.jsonl``). No match is an InputError."""
    specs = [spec] if isinstance(spec, str) else list(spec)
    found: list[str] = []
    for item in specs:
        if _is_uri(item) and not item.startswith("file://"):
            try:
                matches = _match_uri(item)
            except (OSError, ValueError) as exc:  # unknown scheme, no credentials, no bucket
                raise RecordError(
                    f"could not be listed ({type(exc).__name__}: {exc})",
                    file=item,
                    hint="check the URI and the storage credentials in the environment",
                ) from None
        else:
            local = item.removeprefix("file://")
            if any(ch in local for ch in "*?["):
                matches = [p for p in glob.glob(local, recursive=True) if os.path.isfile(p)]
            elif os.path.isdir(local):
                matches = [
                    str(p)
                    for p in Path(local).iterdir()
                    if p.is_file() and p.name.endswith(_RUNS_SUFFIXES)
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


def _open(path: str, *, inside: str | None = None) -> Any:
    """A binary handle on ``path``: a local file through :func:`pathjudge._io.open_input`'s checks
    (a regular file, inside ``inside`` when given), an object through its filesystem."""
    filesystem, inner = _filesystem(path)
    if filesystem is None:
        from pathjudge._io import open_input

        return open_input(inner, inside=inside)
    return filesystem.open_input_file(inner)


def _gzipped(path: str) -> bool:
    from pathjudge._io import is_gzip_name

    return is_gzip_name(path)


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
        if size > target and not _gzipped(path):  # a gzip stream is read whole, from its start
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


def _range_lines(path: str, start: int, end: int, first_line: int) -> Iterator[Line]:
    """The lines of ``path`` starting in ``[start, end)`` as ``(source, line, raw)`` for
    :func:`~pathjudge.scoring.chunk.grade_chunk`; an over-long line comes truncated (still too long)."""
    from pathjudge.scoring.chunk import MAX_LINE_BYTES, read_lines

    if _gzipped(path):  # decompressed and checked as one process reads it
        from pathjudge._io import gunzipped

        with gunzipped(_open(path)) as stream:
            yield from read_lines(stream, path, first_line=first_line)
        return
    number = first_line - 1
    with _open(path) as handle:
        for raw, _length in _lines(handle, start, end, MAX_LINE_BYTES):
            number += 1
            yield path, number, raw if raw is not None else b"x" * (MAX_LINE_BYTES + 1)


def _newlines(path: str, start: int, end: int) -> int:
    """The number of newlines in bytes ``[start, end)`` of ``path``."""
    from pathjudge._io import count_newlines

    with _open(path) as handle:
        handle.seek(start)
        return count_newlines(handle, end - start)


@dataclass(frozen=True)
class _Setup:
    """What every grading task needs besides its range (put in the object store once per run)."""

    suite: Suite
    verdicts: Mapping[str, VerdictLike] | None
    fast: bool
    grades: str | None
    max_weak: int


def _grade_range(setup: list[Any], item: dict[str, Any]) -> tuple[int, int, int, bytes]:
    """Ray task: grade one byte range of a runs JSONL file with
    :func:`~pathjudge.scoring.chunk.grade_chunk`; ``(file, index, size, pickled (partial, shard))``.

    ``setup`` holds the object-store reference of the run's :class:`_Setup` (inside a list, so
    Ray passes the reference rather than a fresh copy): a worker process fetches it and plans the
    suite once per run, and its plan's caches stay warm from one range to the next.
    """
    from pathjudge.scoring.chunk import grade_chunk

    config, plans = _setup(setup[0])
    path = str(item["path"])
    file, index = int(item["file"]), int(item["index"])
    start, end = int(item["start"]), int(item["end"])
    writer = _ShardWriter(config.grades, file, index) if config.grades else None
    broken: list[RecordError] = []

    def lines() -> Iterator[Line]:
        try:
            yield from _range_lines(path, start, end, int(item["first_line"]))
        except RecordError as exc:  # a truncated or fake .gz: kept with its line, as one process
            broken.append(exc)

    partial = grade_chunk(
        lines(),
        plans,
        config.verdicts,
        fast=config.fast,
        max_weak=config.max_weak,
        on_grade=None if writer is None else writer.grade,
    )
    for exc in broken:
        partial.add_error(exc, (path, exc.line or 0))
    shard = writer.close(path) if writer is not None else None
    return (
        file,
        index,
        end - start,
        pickle.dumps((partial, shard), protocol=pickle.HIGHEST_PROTOCOL),
    )


_SETUPS: dict[str, tuple[_Setup, Any]] = {}
"""In a worker process: the setup of the run it grades for, with its suite plan (one run's)."""


def _setup(ref: Any) -> tuple[_Setup, Any]:
    from pathjudge.rubrics.checks import SuitePlan

    key = ref.hex()
    found = _SETUPS.get(key)
    if found is None:
        config = _ray().get(ref)
        found = (config, SuitePlan(config.suite))
        _SETUPS.clear()  # a worker grades for one run at a time: keep only the latest
        _SETUPS[key] = found
    return found


class _ShardWriter:
    """Per-run grades of one range as a JSONL shard ``part-FFFFF-RRRRR.jsonl`` under the grades folder."""

    def __init__(self, folder: str, file: int, index: int) -> None:
        self.name = _shard_name(file, index)
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

    def grade(self, grade: Any, _position: object) -> None:
        self.handle.write(bytes(grade.to_json()) + b"\n")  # as JsonlAppender writes a grade
        self.runs += 1

    def close(self, source: str) -> dict[str, Any]:
        self.handle.close()
        if self.filesystem is None:
            os.replace(self.inner + ".tmp", self.inner)
        return {"path": self.name, "runs": self.runs, "source": source}


# -- the driver -------------------------------------------------------------------------------------


def _first_lines(ray: Any, items: list[dict[str, Any]]) -> None:
    """Fill each range's ``first_line``: newlines counted per range (here for local files, in Ray
    tasks for object storage), summed per file in order."""
    if all(item["index"] == 0 for item in items):  # one range per file: no counting needed
        for item in items:
            item["first_line"] = 1
        return
    if all(_is_local(item["path"]) for item in items):
        # local files: one pass here reads at disk speed, far cheaper than scheduling a Ray job
        # (its task start-up alone costs seconds); object storage is counted where it is read
        counted: Iterable[Mapping[str, Any]] = [
            {**item, "lines": _newlines(item["path"], item["start"], item["end"])} for item in items
        ]
    else:
        count = ray.remote(num_cpus=1)(_newlines)
        refs = [count.remote(item["path"], item["start"], item["end"]) for item in items]
        counted = [
            {**item, "lines": lines} for item, lines in zip(items, ray.get(refs), strict=True)
        ]
    lines = {(int(row["file"]), int(row["index"])): int(row["lines"]) for row in counted}
    running: dict[int, int] = {}
    for item in items:  # items are in (file, index) order
        item["first_line"] = running.get(item["file"], 0) + 1
        running[item["file"]] = running.get(item["file"], 0) + lines[(item["file"], item["index"])]


def score_files(
    runs: str | Sequence[str],
    suite: Suite,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
    address: str | None = None,
    workers: int | None = None,
    grades: str | None = None,
    max_weak: int = 1000,
    progress: Progress | None = None,
) -> PartialScorecard:
    """Grade runs JSONL (or Parquet) files on Ray into one merged :class:`PartialScorecard`.

    ``partial.first_error()`` is the bad record a single process would stop at (with its file and
    line), ``partial.finish(suite)`` the scorecard. ``workers``: grading tasks at once (default: the runtime's
    CPUs). ``grades``: a folder (or URI) that gets one JSONL shard of per-run grades per range plus
    ``manifest.json``, which ``pathjudge report --grades`` reads.
    """
    from pathjudge.scoring.scorecard import PartialScorecard

    files = expand_runs(runs)
    parquet = [f for f in files if f.endswith(".parquet")]
    cpus = init_runtime(address, workers=workers)
    ray = _ray()
    actors = max(1, workers or cpus)
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
            workers=actors,
            max_weak=max_weak,
            progress=progress,
        )
    ranges = _plan_ranges(files, actors * 4)
    total = sum(r.end - r.start for r in ranges)
    staging = _prepare_grades(grades, files, ranges) if grades is not None else None
    items = [
        {"file": r.file, "index": r.index, "path": r.path, "start": r.start, "end": r.end}
        for r in ranges
    ]
    merged = PartialScorecard(max_weak=max_weak)
    shards: list[tuple[tuple[int, int], dict[str, Any]]] = []
    seen = 0
    try:
        _first_lines(ray, items)
        setup = ray.put(_Setup(suite, verdicts, fast, staging, max_weak))
        with or_no_progress(progress)("grading on Ray (bytes)", total) as bar:
            for file, index, size, blob in _map_ranges(ray, setup, items, actors):
                partial, shard = pickle.loads(blob)  # partials merge in any order
                merged.merge(partial)
                if shard is not None:
                    shards.append(((file, index), shard))
                seen += size
                bar.advance(size)
        if seen < total:  # pragma: no cover - Ray returned fewer rows than ranges
            raise RuntimeError("a grading task's result never came back from Ray; rerun")
        if grades is not None and staging is not None and merged.first_error() is None:
            ordered = [shard for _, shard in sorted(shards, key=lambda s: s[0])]
            _publish_grades(grades, staging, ordered, merged.runs)
    finally:  # a failed run (bad records, an error, Ctrl-C) leaves the earlier grades in place
        if grades is not None and staging is not None:
            _discard_staging(grades, staging)
    return merged


def _map_ranges(
    ray: Any, setup: Any, items: list[dict[str, Any]], workers: int
) -> Iterator[tuple[int, int, int, bytes]]:
    """Grade every range as a Ray task, at most ``workers`` at a time, yielding as each finishes.

    Plain tasks, not a Ray Data pipeline: the ranges are already planned and read by the tasks
    themselves, so Ray Data would only add its executor loop in the driver and its stats,
    autoscaling and location actors (each a process importing Ray Data), which cost about a
    sixth of all CPU on a 2-core machine. A task that raises raises here; on the way out (an
    error, Ctrl-C) the tasks still in flight are cancelled.
    """
    grade = ray.remote(num_cpus=1)(_grade_range)
    queue = iter(items)
    pending: dict[Any, dict[str, Any]] = {}

    def submit() -> None:
        item = next(queue, None)
        if item is not None:
            pending[grade.remote([setup], item)] = item

    try:
        for _ in range(max(1, min(workers, len(items)))):
            submit()
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                del pending[ref]
                submit()  # the next range starts before this one's result is merged
                yield ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref)


MANIFEST = "manifest.json"
_MAX_MANIFEST_BYTES = 64 << 20
"""The largest manifest read (a million shards list in well under this)."""
_SHARD_NAME = re.compile(r"part-[0-9]+-[0-9]+\.jsonl")
"""The shards :func:`score_files` writes; only these are ever removed from a grades folder."""
_GRADES_HINT = "pass the JSONL of score --grades, or the folder of score --engine ray --grades"


def _shard_name(file: int, index: int) -> str:
    return f"part-{file:05d}-{index:05d}.jsonl"


def _prepare_grades(folder: str, files: Sequence[str], ranges: Sequence[_Range]) -> str:
    """Where this run's shards are written: for a local folder, a fresh hidden staging folder
    inside it (:func:`_publish_grades` moves the shards into place once every range is graded;
    a failed run leaves the folder's earlier grades as they were); for object storage, the folder.

    A shard or the manifest that would be one of the runs files is refused first.
    """
    filesystem, inner = _filesystem(folder)
    if filesystem is not None:
        filesystem.create_dir(inner, recursive=True)
        return folder
    from pathjudge._io import ensure_not_input

    path = Path(inner)
    if path.exists() and not path.is_dir():
        raise InputError(
            "--grades with --engine ray is a folder of shards, and this is a file",
            file=inner,
            field="--grades",
            hint="pass a folder (it gets part-*.jsonl shards and manifest.json)",
        )
    local = [f.removeprefix("file://") for f in files if _is_local(f)]
    for name in [MANIFEST, *sorted({_shard_name(r.file, r.index) for r in ranges})]:
        ensure_not_input(path / name, local, option="--grades")
    path.mkdir(parents=True, exist_ok=True)
    import tempfile

    return tempfile.mkdtemp(prefix=".pathjudge-staging-", dir=path)


def _discard_staging(folder: str, staging: str) -> None:
    """Remove a run's staging folder (and the shards in it); object storage has none."""
    if staging != folder:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)


def _publish_grades(folder: str, staging: str, shards: list[dict[str, Any]], runs: int) -> None:
    """Put a finished run's shards in place and write the manifest that lists them (last, and
    atomically); then remove the shards of the run before that this run did not rewrite."""
    if staging == folder:  # object storage: the shards are in place
        _write_manifest(folder, shards, runs)
        return
    base = Path(_filesystem(folder)[1])
    earlier = _listed_shards(base)
    for shard in shards:
        os.replace(Path(staging) / shard["path"], base / shard["path"])
    _write_manifest(folder, shards, runs)
    _discard_staging(folder, staging)
    kept = {shard["path"] for shard in shards}
    for name in earlier - kept:
        (base / name).unlink(missing_ok=True)


def _listed_shards(base: Path) -> set[str]:
    """The shard names the folder's current manifest lists (none when it has no readable one)."""
    try:
        listed = _read_manifest(str(base))[1]
    except (InputError, OSError):
        return set()
    return {name for name in listed if _SHARD_NAME.fullmatch(name)}


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
        from pathjudge._io import write_text_atomic

        write_text_atomic(Path(inner), text)
    else:
        with filesystem.open_output_stream(inner) as out:
            out.write(text.encode("utf-8"))


def _read_manifest(folder: str | Path) -> tuple[str, list[str]]:
    """``(base, shard names)`` of a grades folder's manifest, every problem one :class:`RecordError`
    naming the manifest, its line and its field.

    The manifest is read bounded and parsed strictly (:func:`pathjudge._io.json_value`); a shard is
    a plain ``.jsonl`` file name beside it: a name with a path separator, a NUL byte or a leading
    dot is refused.
    """
    from pathjudge._io import json_value, read_input

    base = str(folder)
    if base.endswith(MANIFEST):
        base = base[: -len(MANIFEST)].rstrip("/") or "."
    base = base.rstrip("/") or "/"
    manifest_path = f"{base}/{MANIFEST}" if base != "/" else f"/{MANIFEST}"
    hint = "pass the folder that pathjudge score --engine ray --grades wrote"
    filesystem, inner = _filesystem(manifest_path)
    if filesystem is None:
        raw = read_input(
            inner,
            limit=_MAX_MANIFEST_BYTES,
            what="grades manifest",
            not_found="no grades manifest here (file not found)",
        )
    else:
        try:
            with filesystem.open_input_file(inner) as handle:
                raw = handle.read(_MAX_MANIFEST_BYTES + 1)
        except OSError as exc:
            raise RecordError(
                f"is not a readable grades manifest ({type(exc).__name__})",
                file=manifest_path,
                hint=hint,
            ) from None
        if len(raw) > _MAX_MANIFEST_BYTES:
            raise RecordError("is too large for a grades manifest", file=manifest_path, hint=hint)
    manifest = json_value(raw, file=manifest_path, hint=hint)
    if not isinstance(manifest, dict) or manifest.get("kind") != "pathjudge.grades":
        raise RecordError(
            "is not a pathjudge grades manifest", file=manifest_path, field="kind", hint=hint
        )
    shards = manifest.get("shards")
    if not isinstance(shards, list):
        raise RecordError("lists no shards", file=manifest_path, field="shards", hint=hint)
    names: list[str] = []
    for number, shard in enumerate(shards):
        name = shard.get("path") if isinstance(shard, dict) else None
        if (
            not isinstance(name, str)
            or not name.endswith(".jsonl")
            or name.startswith(".")
            or any(ch in name for ch in "/\\\0")
        ):
            raise RecordError(
                f"shard {number} is not a plain .jsonl file name",
                file=manifest_path,
                line=_line_of_key(raw, number),
                field=f"shards[{number}].path",
                hint="shards are files beside manifest.json, e.g. part-00000-00000.jsonl",
            )
        names.append(name)
    return base, names


def _line_of_key(raw: bytes, number: int) -> int | None:
    """The line of the ``number``-th ``"path"`` key of a manifest (as :func:`_write_manifest`
    writes it, one key a line), or None when the text is laid out otherwise."""
    position = -1
    for _ in range(number + 1):
        position = raw.find(b'"path"', position + 1)
        if position < 0:
            return None
    return raw.count(b"\n", 0, position) + 1


def read_grades_manifest(folder: str | Path) -> Iterator[Any]:
    """Stream the per-run grades of a shard folder written by ``--engine ray --grades`` (in run order).

    Shards are read from the manifest's folder only: a shard name with a path separator is refused,
    and so is a local shard that resolves outside the folder (a symlink) or is not a regular file (a
    FIFO would wait for ever). Every line is checked as :func:`read_grades_file` checks it.
    """
    base, names = _read_manifest(folder)
    inside = None if not _is_local(base) else _filesystem(base)[1]
    for name in names:
        yield from _read_grades(f"{base.rstrip('/')}/{name}", inside=inside)


def grades_sources(source: str | Path) -> list[str]:
    """The local files ``report --grades SOURCE`` reads: the file itself, or a shard folder's
    manifest and the shards it lists (none for object storage), for the output check."""
    text = str(source)
    if not _is_local(text):
        return []
    local = _filesystem(text)[1]
    if os.path.isdir(local) or local.endswith(MANIFEST):
        base, names = _read_manifest(local)
        return [f"{base}/{MANIFEST}", *(f"{base}/{name}" for name in names)]
    return [local]


def read_grades_file(path: str) -> Iterator[Any]:
    """Stream the per-run grades of one JSONL file (a shard, or the file ``score --grades`` writes),
    local or a URI; a line that is not a grade is a :class:`RecordError` naming file, line and field:
    invalid JSON, nesting past 200 levels, NaN or Infinity, a field a grade does not have."""
    return _read_grades(path)


def _read_grades(path: str, *, inside: str | None = None) -> Iterator[Any]:
    from pathjudge._io import json_value
    from pathjudge.scoring.chunk import MAX_LINE_BYTES

    try:
        handle = _open(path, inside=inside)
    except FileNotFoundError:  # object storage
        raise RecordError("file not found", file=path, hint="check the path") from None
    with handle:
        for number, (raw, length) in enumerate(_lines(handle, 0, 1 << 62, MAX_LINE_BYTES), 1):
            if raw is None:
                raise RecordError(
                    f"line is {length / 1e6:.1f} MB, over the limit of "
                    f"{MAX_LINE_BYTES / 1e6:.1f} MB per record",
                    file=path,
                    line=number,
                    hint=_GRADES_HINT,
                )
            if raw.strip():
                yield _grade(
                    json_value(raw, file=path, line=number, hint=_GRADES_HINT), path, number
                )


def _grade(value: Any, path: str, number: int) -> Any:
    from pathjudge._io import record_error_from_validation
    from pathjudge.scoring.grade import RunGrade

    if not isinstance(value, dict):
        raise RecordError(
            "expected a JSON object for a grade", file=path, line=number, hint=_GRADES_HINT
        )
    try:
        return RunGrade.from_dict(value)
    except ValidationError as exc:
        raise record_error_from_validation(exc, file=path, line=number, what="grade") from None
    except (ValueError, TypeError, AttributeError, KeyError):
        raise RecordError("is not a run grade", file=path, line=number, hint=_GRADES_HINT) from None


# -- datasets ---------------------------------------------------------------------------------------


class _RowGrader:
    """A Ray actor: grades blocks of run rows (Parquet layout or plain JSON rows)."""

    def __init__(
        self, suite: Suite, verdicts: Mapping[str, VerdictLike] | None, fast: bool, max_weak: int
    ) -> None:
        from pathjudge.rubrics.checks import SuitePlan

        self.plans = SuitePlan(suite)
        self.verdicts = verdicts
        self.fast = fast
        self.max_weak = max_weak

    def __call__(self, batch: Any) -> dict[str, Any]:
        import numpy as np

        from pathjudge._io import record_error_from_validation
        from pathjudge._parquet import record_from_row
        from pathjudge.scoring.chunk import grade_records_chunk

        rows = batch.to_pylist()
        good = []
        errors: list[tuple[PathjudgeError, tuple[str, int]]] = []
        for row in rows:
            source = row.get("path") or "<dataset>"
            try:
                good.append((source, 0, record_from_row(row)))
            except ValidationError as exc:
                error: PathjudgeError = record_error_from_validation(
                    exc, file=None, line=None, what="run"
                )
                errors.append((_placed(error, source, row), (source, 0)))
            except ValueError as exc:
                error = RecordError(f"a JSON-text column does not parse ({exc})")
                errors.append((_placed(error, source, row), (source, 0)))
        partial = grade_records_chunk(
            good, self.plans, self.verdicts, fast=self.fast, max_weak=self.max_weak
        )
        for error, position in errors:
            partial.add_error(error, position)
        return {
            "rows": np.asarray([len(rows)]),
            "partial": np.array(
                [pickle.dumps(partial, protocol=pickle.HIGHEST_PROTOCOL)], dtype=object
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
    partial = grade_dataset(
        ds, suite, verdicts=verdicts, fast=fast, workers=workers, progress=progress
    )
    problem = partial.first_error()
    if problem is not None:
        raise problem
    if partial.runs == 0:
        raise RecordError("the dataset has no run records", hint="check the dataset's source")
    return _report(
        partial.finish(suite, weights=weights),
        thresholds,
        fast=fast,
        suite_file=suite_file,
        runs_file=runs_file,
    )


def grade_dataset(
    ds: Any,
    suite: Suite,
    *,
    verdicts: Mapping[str, VerdictLike] | None = None,
    fast: bool = False,
    workers: int | None = None,
    max_weak: int = 1000,
    progress: Progress | None = None,
) -> PartialScorecard:
    """:func:`score_dataset` up to the merged :class:`PartialScorecard` (bad records kept in it)."""
    from pathjudge.scoring.scorecard import PartialScorecard

    ray = _ray()
    cpus = init_runtime(None)
    ctx = ray.data.DataContext.get_current()
    kept = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = True
    try:
        total = ds.count() if progress is not None else None
        graded = ds.map_batches(
            _RowGrader,
            fn_constructor_kwargs={
                "suite": suite,
                "verdicts": verdicts,
                "fast": fast,
                "max_weak": max_weak,
            },
            batch_format="pyarrow",
            # one actor first: a dataset's own read tasks may need a CPU that a full pool of
            # actors would hold (a fused Parquet read was seen to wait for ever)
            compute=ray.data.ActorPoolStrategy(min_size=1, max_size=max(1, workers or cpus)),
            num_cpus=1,
        )
        merged = PartialScorecard(max_weak=max_weak)
        with or_no_progress(progress)("grading on Ray (runs)", total) as bar:
            for row in graded.iter_rows():  # in dataset order: runs of equal position keep it
                merged.merge(pickle.loads(row["partial"]))
                bar.advance(int(row["rows"]))
    finally:
        ctx.execution_options.preserve_order = kept
    return merged


def _join(hint: str | None, more: str | None) -> str | None:
    if hint and more:
        return f"{hint}; {more}"
    return hint or more


def _report(
    card: Scorecard,
    thresholds: Mapping[GateMetric, float] | None,
    *,
    fast: bool,
    suite_file: str | None,
    runs_file: str | None,
    judge: str | None = None,
) -> ScoreReport:
    from pathjudge.scoring.pipeline import ScoreReport
    from pathjudge.scoring.scorecard import evaluate_gates

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
