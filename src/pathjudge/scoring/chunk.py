"""Grading as a pure function over chunks of lines, and a local process pool that maps it.

:func:`grade_chunk` grades any chunk of runs-file lines into a :class:`PartialScorecard`; partials
merge associatively and commutatively, so any engine may map it over any split of the input and
reduce the partials in any order — one process, :func:`score_file_parallel`'s
``concurrent.futures`` pool, or a distributed engine — and :meth:`PartialScorecard.finish` gives the
same scorecard, byte for byte. A line is ``(source, line_no, raw)``: ``source`` names the file in
error messages, ``line_no`` is its 1-based line, ``raw`` the line's bytes (or text).

Bad records are never dropped: each becomes an error in the partial, at its ``source:line``
(:meth:`PartialScorecard.first_error`); the caller decides whether to raise (the CLI raises the
first, as it always has). Memory is flat: a partial keeps sums, a bounded weak-path list and a
bounded error list, never per-run grades; ``on_grade`` receives each grade as it is made, to stream
it somewhere.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from pydantic import ValidationError

from pathjudge._heap import frozen_heap
from pathjudge._interrupt import watching_interrupts
from pathjudge._io import (
    DEFAULT_MAX_LINE_BYTES,
    UTF8_BOM,
    LineErrors,
    count_newlines,
    describe_read_failure,
    line_problem,
    open_records,
    record_error_from_validation,
)
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import PathjudgeError, RecordError
from pathjudge.rubrics.checks import SuitePlan
from pathjudge.rubrics.suite import Suite, unreferenced_tools
from pathjudge.scoring.grade import RunGrade, grade_run
from pathjudge.scoring.judged import VerdictLike
from pathjudge.scoring.scorecard import PartialScorecard, Position

if TYPE_CHECKING:  # the pool is imported when used: --jobs 1 never starts one
    from concurrent.futures import Future, ProcessPoolExecutor

    from pathjudge._progress import ProgressHandle

__all__ = [
    "MAX_LINE_BYTES",
    "Line",
    "default_jobs",
    "grade_chunk",
    "grade_records_chunk",
    "iter_lines",
    "read_lines",
    "score_file_parallel",
]

Line = tuple[str, int, str | bytes]
"""One line of a runs file: (source, 1-based line number, the raw line)."""

MAX_LINE_BYTES = DEFAULT_MAX_LINE_BYTES
"""A record longer than this is an error (it is never held whole in memory); the same limit as every
other JSONL reader (:data:`pathjudge._io.DEFAULT_MAX_LINE_BYTES`)."""

OnGrade = Callable[[RunGrade, Position], None]

_validate_run = RunRecord.__pydantic_validator__.validate_json
"""``RunRecord.model_validate_json`` without its Python wrapper (one call per line)."""


def parse_run(source: str, line_no: int, raw: str | bytes) -> RunRecord | RecordError | None:
    """One runs-file line as a :class:`RunRecord`; a :class:`RecordError` naming ``source:line_no``
    when it is not one; ``None`` for a blank line."""
    if line_no == 1 and raw[:1] in (b"\xef", "\ufeff"):  # a byte-order mark starting the file
        raw = raw.removeprefix(UTF8_BOM) if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
    if not raw or raw.isspace():
        return None
    try:
        record = _validate_run(raw)
    except ValidationError as exc:
        if isinstance(raw, bytes):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as bad:
                return LineErrors(RecordError, source).not_utf8(line_no, raw, bad)
        return record_error_from_validation(exc, file=source, line=line_no, what="run")
    # what pydantic lets through: NaN / Infinity / 1e400 (and invalid UTF-8 inside a string, on an
    # older pydantic)
    problem = line_problem(
        raw if isinstance(raw, bytes) else raw.encode("utf-8"),
        file=source,
        line=line_no,
        record=record,
    )
    return record if problem is None else problem


def grade_chunk(
    lines: Iterable[Line],
    suite: Suite | SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    max_weak: int = 1000,
    stop_at_error: bool = False,
    on_grade: OnGrade | None = None,
) -> PartialScorecard:
    """Grade a chunk of runs-file lines into a :class:`PartialScorecard` (a pure function).

    Each non-blank line is validated as a run and graded against its task (see
    :func:`~pathjudge.scoring.grade.grade_run`); a line that is not a valid run, or names a task the
    suite lacks, is kept as an error at its ``source:line`` and grading goes on (``stop_at_error``:
    stop reading at the first). ``on_grade(grade, (source, line))`` sees every grade in line order.
    Picklable arguments in, a picklable partial out: safe to map in worker processes.
    """
    return _grade_all(_parsed(lines), suite, verdicts, fast, max_weak, stop_at_error, on_grade)


def grade_records_chunk(
    records: Iterable[tuple[str, int, RunRecord]],
    suite: Suite | SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    max_weak: int = 1000,
    stop_at_error: bool = False,
    on_grade: OnGrade | None = None,
) -> PartialScorecard:
    """:func:`grade_chunk` over runs already parsed: ``(source, line_no, run)`` triples."""
    return _grade_all(records, suite, verdicts, fast, max_weak, stop_at_error, on_grade)


def _parsed(lines: Iterable[Line]) -> Iterator[tuple[str, int, RunRecord | RecordError]]:
    """Each non-blank line as its run, or as the error that says why it is not one."""
    for source, line_no, raw in lines:
        if len(raw) > MAX_LINE_BYTES:
            found: RunRecord | RecordError | None = _too_long(source, line_no, len(raw))
        else:
            found = parse_run(source, line_no, raw)
        if found is not None:
            yield source, line_no, found


def _grade_all(
    found: Iterable[tuple[str, int, RunRecord | RecordError]],
    suite: Suite | SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
    max_weak: int,
    stop_at_error: bool,
    on_grade: OnGrade | None,
) -> PartialScorecard:
    """Grade each run into one partial; a record error is kept at its line (see :func:`grade_chunk`)."""
    plans = suite if isinstance(suite, SuitePlan) else SuitePlan(suite)
    partial = PartialScorecard(max_weak=max_weak)
    tools = bool(unreferenced_tools(plans.suite))  # names to look for among the runs' calls
    with watching_interrupts():  # a Ctrl-C stops the grading; an interrupt a check raises does not
        for source, line_no, run in found:
            if isinstance(run, RecordError):
                partial.add_error(run, (source, line_no))
                graded = False
            else:
                graded = _grade_one(
                    run, plans, partial, (source, line_no), verdicts, fast, on_grade, tools
                )
            if not graded and stop_at_error:
                break
    return partial


def _grade_one(
    run: RunRecord,
    plans: SuitePlan,
    partial: PartialScorecard,
    position: Position,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
    on_grade: OnGrade | None,
    tools: bool = False,
) -> bool:
    if plans.skip_unknown and run.task_id not in plans:
        partial.skip(run.task_id)
        return True
    try:
        plan = plans.plan(run.task_id, file=position[0] or None, line=position[1] or None)
    except PathjudgeError as exc:  # a task the suite lacks
        partial.add_error(exc, position)
        return False
    grade = grade_run(run, plan, verdicts=verdicts, fast=fast)
    partial.add(grade, position)
    if tools:
        partial.note_tools(run)
    if on_grade is not None:
        on_grade(grade, position)
    return True


def _too_long(source: str, line_no: int, length: int) -> RecordError:
    limit = f"the limit of {MAX_LINE_BYTES / 1e6:.1f} MB per record"
    return RecordError(
        # a line the reader cut at the limit + 1 byte: its true length is unknown, only that it is over
        f"line is over {limit}"
        if length == MAX_LINE_BYTES + 1
        else f"line is {length / 1e6:.1f} MB, over {limit}",
        file=source,
        line=line_no,
        hint="split the record",
    )


# --------------------------------------------------------------------------------------------------
# Reading a runs file as lines


_READ_BUFFER = 1 << 16


def _open(path: Path) -> IO[bytes]:
    # the input checks and the .gz rule every reader shares; a buffer of many lines: one read per
    # 64 KB, not one per line (runs are kilobytes each)
    return open_records(path, buffering=_READ_BUFFER)


def iter_lines(
    path: str | Path, *, start: int = 0, end: int | None = None, first_line: int = 1
) -> Iterator[Line]:
    """The lines of a runs JSONL (gzip when it ends in ``.gz``) as :data:`Line` s.

    ``start``/``end``: a byte range of a plain file that starts at a line start (``first_line`` is
    the number of its first line). A line over :data:`MAX_LINE_BYTES` is yielded as a truncated
    placeholder whose length :func:`grade_chunk` reports as too long, never held whole.
    """
    with _open(Path(path)) as handle:
        yield from read_lines(handle, str(path), start=start, end=end, first_line=first_line)


def read_lines(
    handle: IO[bytes],
    source: str,
    *,
    start: int = 0,
    end: int | None = None,
    first_line: int = 1,
) -> Iterator[Line]:
    """:func:`iter_lines` over an open binary handle (a runs file, or its gzip stream: any engine
    reads runs this way); a broken stream (a truncated or fake ``.gz``) is a :class:`RecordError`
    naming ``source`` and the line it stopped at."""
    number = first_line - 1
    try:
        if start:
            handle.seek(start)
        position = start
        while end is None or position < end:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            position += len(raw)
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while True:  # skip the rest of the over-long line
                    rest = handle.readline(1 << 20)
                    position += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
            yield source, number, raw
    except (OSError, EOFError, zlib.error) as exc:
        # a truncated or fake .gz names the line it stopped at, like every other reader
        raise RecordError(
            describe_read_failure(exc),
            file=source,
            line=number + 1,
            hint="recompress or re-export the file; every line before this one was read",
        ) from None


# --------------------------------------------------------------------------------------------------
# A local process pool


def default_jobs() -> int:
    """The number of CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _split(path: Path, parts: int) -> Iterator[tuple[int, int, int]]:
    """``(start, end, first_line)`` byte ranges of about equal size, each starting at a line start,
    with the number of its first line. Yielded one by one: a range is yielded before its newlines
    are counted (the next range's first line needs them), so the first workers start grading while
    the rest of the file is still being counted."""

    size = path.stat().st_size
    offsets = [0]
    with path.open("rb") as handle:
        for k in range(1, max(1, parts)):
            handle.seek(max(offsets[-1], size * k // parts))
            handle.readline()
            position = handle.tell()
            if offsets[-1] < position < size:
                offsets.append(position)
        line = 1
        handle.seek(0)
        for start, end in zip(offsets, [*offsets[1:], size], strict=True):
            yield start, end, line
            if end < size:  # the last range's count is never needed
                line += count_newlines(handle, end - start)


def _grade_range(
    path: str,
    start: int,
    end: int,
    first_line: int,
    plans: SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
    max_weak: int,
) -> PartialScorecard:
    """Worker: :func:`grade_chunk` over the lines in bytes ``[start, end)`` of ``path``."""
    return grade_chunk(
        iter_lines(path, start=start, end=end, first_line=first_line),
        plans,
        verdicts,
        fast=fast,
        max_weak=max_weak,
    )


def _grade_lines(
    lines: list[Line],
    plans: SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
    max_weak: int,
) -> PartialScorecard:
    """Worker: :func:`grade_chunk` over lines the parent read (a compressed file)."""
    return grade_chunk(lines, plans, verdicts, fast=fast, max_weak=max_weak)


def _pool(jobs: int) -> ProcessPoolExecutor:
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    if sys.platform == "linux":
        # fork starts a worker in milliseconds; grading code holds no threads or locks
        return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    return ProcessPoolExecutor(max_workers=jobs)  # pragma: no cover


def score_file_parallel(
    path: str | Path,
    suite: Suite | SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None = None,
    *,
    fast: bool = False,
    jobs: int | None = None,
    max_weak: int = 1000,
    chunk_lines: int = 20_000,
    progress: ProgressHandle | None = None,
) -> PartialScorecard:
    """Grade a runs JSONL (plain or ``.gz``) in ``jobs`` worker processes (default: the core count)
    into one merged :class:`PartialScorecard`, by mapping :func:`grade_chunk` with a
    ``concurrent.futures`` process pool.

    A plain file is split into byte ranges at line starts (each worker reads its own range); a
    compressed one, or a stream that cannot seek (a pipe, ``<(zcat runs.jsonl.gz)``), is read here and
    sent in chunks of ``chunk_lines`` lines, a few chunks in flight
    per worker (flat memory). Partials are merged as they finish, in any order: the result is the
    same as grading in one process. Bad records are in the partial (see
    :meth:`~PartialScorecard.first_error`); no run record at all raises :class:`RecordError`.
    ``progress`` is told the bytes of each byte range graded (the lines of each chunk of a stream).
    """
    from concurrent.futures.process import BrokenProcessPool

    target = Path(path)
    if not target.exists():
        raise RecordError("file not found", file=target, hint="check the path")
    if target.is_dir():
        raise RecordError("is a directory, not a JSONL file", file=target)
    workers = max(1, jobs if jobs is not None else default_jobs())
    plans = suite if isinstance(suite, SuitePlan) else SuitePlan(suite)
    try:
        total = _map_chunks(
            target, str(path), plans, verdicts, fast, workers, max_weak, chunk_lines, progress
        )
    except BrokenProcessPool as exc:
        raise PathjudgeError(
            f"a grading worker process died ({exc})",
            file=target,
            hint="it may have run out of memory; rerun with fewer --jobs, or --jobs 1",
        ) from None
    if total.runs == 0 and not total.errors:
        raise RecordError(
            "has no run records",
            file=target,
            hint="the file is empty; pass a JSONL file with one record per line",
        )
    return total


def _map_chunks(
    target: Path,
    path: str,
    plans: SuitePlan,
    verdicts: Mapping[str, VerdictLike] | None,
    fast: bool,
    workers: int,
    max_weak: int,
    chunk_lines: int,
    progress: ProgressHandle | None = None,
) -> PartialScorecard:
    from concurrent.futures import FIRST_COMPLETED, wait

    total = PartialScorecard(max_weak=max_weak)
    sizes: dict[Future[PartialScorecard], int] = {}  # what each finished future tells progress

    def merge(done: set[Future[PartialScorecard]]) -> None:
        for future in done:
            total.merge(future.result())
            if progress is not None:
                progress.advance(sizes.pop(future, 0))

    # the workers fork with the heap parked outside the collector (see frozen_heap)
    with frozen_heap(), _pool(workers) as pool:
        pending: set[Future[PartialScorecard]] = set()
        if target.suffix != ".gz" and target.is_file():
            for start, end, first in _split(target, workers * 2):
                future = pool.submit(
                    _grade_range, path, start, end, first, plans, verdicts, fast, max_weak
                )
                sizes[future] = end - start
                pending.add(future)
        else:
            batch: list[Line] = []
            for line in iter_lines(target):
                batch.append(line)
                if len(batch) >= chunk_lines:
                    future = pool.submit(_grade_lines, batch, plans, verdicts, fast, max_weak)
                    sizes[future] = len(batch)
                    pending.add(future)
                    batch = []
                    while len(pending) >= 2 * workers:  # a bounded number in flight
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        merge(done)
            if batch:
                future = pool.submit(_grade_lines, batch, plans, verdicts, fast, max_weak)
                sizes[future] = len(batch)
                pending.add(future)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            merge(done)
    return total
