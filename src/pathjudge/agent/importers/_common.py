"""Shared pieces of the importers: reading documents, parsing arguments, provenance, error location.

Nothing here knows a transcript format. Each format module turns one parsed document into a
:class:`~pathjudge.agent.trajectory.RunRecord` with a pure ``from_<format>`` function and uses these
helpers to read files and to report problems as one :class:`~pathjudge.errors.ImportFormatError` that
names the file, the line (JSONL) or the JSON path (``[2].traj[5].tool_calls[0]``) and how to fix it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol, TypeAlias

from pydantic import ValidationError

from pathjudge import _json as strict_json
from pathjudge._io import DEFAULT_MAX_LINE_BYTES, LineErrors, collect_or_raise, format_loc
from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Step, Usage
from pathjudge.errors import ImportFormatError, InputError, PathjudgeError

__all__ = [
    "DEFAULT_ERROR_PREFIXES",
    "IDENTITY_KEYS",
    "JSONL_SUFFIXES",
    "Converter",
    "Document",
    "Json",
    "RunParts",
    "StepDraft",
    "Unmapped",
    "as_dict",
    "as_list",
    "build_record",
    "call_id_text",
    "check_recognised",
    "content_text",
    "decision_text",
    "error_at",
    "file_stem",
    "guess_format",
    "identity",
    "import_transcripts",
    "iter_documents",
    "join_path",
    "last_with_role",
    "load_json",
    "one_run",
    "parse_arguments",
    "prefixed_error",
    "present",
    "require_str",
    "run_documents",
    "source_metadata",
    "split_transcripts",
    "suggest_format",
    "take_metadata",
    "text_parts",
    "tool_calls",
    "usage_from",
]

Json: TypeAlias = Any
"""A value parsed from JSON (dict, list, str, int, float, bool or None)."""

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz")

DEFAULT_ERROR_PREFIXES: tuple[str, ...] = ("Error:",)
"""For formats without an error flag on tool results: the text an error result starts with by default
(tau-bench's convention); see :func:`prefixed_error`."""


@dataclass(frozen=True, slots=True)
class Document:
    """One transcript-sized piece of an input file with where it came from.

    ``line`` is the 1-based line for JSONL input (None for a JSON document); ``index`` is the position of
    the piece in the file (0-based, counting non-blank JSONL lines or top-level list items).
    """

    value: Json
    index: int
    line: int | None
    path: str = ""
    """JSON path of ``value`` inside the file, e.g. ``[2]`` for the third item of a top-level list."""


def join_path(base: str, part: str | int) -> str:
    """Extend a JSON path: ``join_path("[2]", "traj")`` → ``[2].traj``; ints become ``[n]``."""
    if isinstance(part, int):
        return f"{base}[{part}]"
    return f"{base}.{part}" if base else part


def error_at(
    message: str,
    *,
    where: str | None = None,
    hint: str | None = None,
) -> ImportFormatError:
    """An :class:`ImportFormatError` for a problem at JSON path ``where`` (file and line added later)."""
    return ImportFormatError(message, field=where or None, hint=hint)


def _relocate(exc: PathjudgeError, *, file: str, doc: Document) -> ImportFormatError:
    """Copy ``exc`` into an :class:`ImportFormatError` carrying the file and the document's line/path."""
    fld = exc.field
    if doc.path:
        if not fld:
            fld = doc.path
        else:
            fld = f"{doc.path}{fld}" if fld.startswith("[") else f"{doc.path}.{fld}"
    return ImportFormatError(
        exc.message, file=file, line=doc.line, field=fld, task_id=exc.task_id, hint=exc.hint
    )


def as_dict(value: Json, where: str, what: str) -> dict[str, Json]:
    """``value`` if it is a JSON object, else an error naming ``what`` was expected at ``where``."""
    if not isinstance(value, dict):
        raise error_at(
            f"expected a JSON object ({what}), got {_kind(value)}",
            where=where,
        )
    return value


def as_list(value: Json, where: str, what: str) -> list[Json]:
    """``value`` if it is a JSON array, else an error naming ``what`` was expected at ``where``."""
    if not isinstance(value, list):
        raise error_at(f"expected a JSON array ({what}), got {_kind(value)}", where=where)
    return value


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def parse_arguments(raw: Json) -> tuple[dict[str, Json], str | None, str | None]:
    """Parse tool-call arguments into ``(arguments, raw_arguments, arguments_error)``.

    A JSON object (already parsed, or as a JSON string) gives ``(object, None, None)``. An empty or
    missing value gives ``({}, None, None)`` (a call without arguments). Anything else is kept verbatim as
    text in ``raw_arguments`` with the reason in ``arguments_error`` and ``{}`` as arguments, so a
    malformed call is flagged, never dropped.
    """
    if raw is None:
        return {}, None, None
    if isinstance(raw, dict):
        return dict(raw), None, None
    if not isinstance(raw, str):
        return (
            {},
            json.dumps(raw, ensure_ascii=False),
            f"arguments are {_kind(raw)}, not a JSON object",
        )
    if not raw.strip():
        return {}, None, None
    try:
        parsed = strict_json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, raw, f"invalid JSON: {exc.msg} at column {exc.colno}"
    if not isinstance(parsed, dict):
        return {}, raw, f"arguments are {_kind(parsed)}, not a JSON object"
    return parsed, None, None


def text_parts(content: Json, *, text_keys: tuple[str, ...] = ("text",)) -> str | None:
    """The text of a message content: a string as is; a list of parts → their text joined by newlines.

    Parts are dicts whose first present key of ``text_keys`` is a string. Returns None when there is no
    text at all (not even an empty string).
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for part in content:
        if isinstance(part, dict):
            for key in text_keys:
                value = part.get(key)
                if isinstance(value, str):
                    texts.append(value)
                    break
        elif isinstance(part, str):
            texts.append(part)
    return "\n".join(texts) if texts else None


def content_text(content: Json, *, part_types: tuple[str, ...] = ("text",)) -> Json:
    """Message content as text when it is text, else verbatim.

    A string or None is returned as is. A list whose parts are all objects with a ``type`` in
    ``part_types`` becomes their :func:`text_parts` (an empty list gives None). Any other content
    (images, mixed parts) is returned unchanged.
    """
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in part_types for p in content
    ):
        return text_parts(content)
    return content


class Unmapped:
    """Collects the parts of a transcript that have no field in the schema, so nothing is dropped.

    Each entry is ``{"at": <JSON path>, "value": <the original value>}``; the list lands in
    ``metadata["unmapped"]`` (omitted when empty).
    """

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[dict[str, Json]] = []

    def add(self, where: str, value: Json) -> None:
        self.entries.append({"at": where, "value": value})

    def extra_keys(self, obj: dict[str, Json], known: frozenset[str], where: str) -> None:
        """Record every key of ``obj`` not in ``known``."""
        for key, value in obj.items():
            if key not in known:
                self.add(join_path(where, key), value)

    def into(self, metadata: dict[str, Json]) -> dict[str, Json]:
        if self.entries:
            metadata["unmapped"] = self.entries
        return metadata


def present(obj: Mapping[str, Json], keys: Iterable[str]) -> dict[str, Json]:
    """The entries of ``obj`` under ``keys`` that are there and not null, in the order of ``keys``."""
    return {key: obj[key] for key in keys if obj.get(key) is not None}


def source_metadata(
    fmt: str, *, file: str | None, index: int | None = None, line: int | None = None
) -> dict[str, Json]:
    """``metadata["source"]``: the format, the file, and the position of the record in it."""
    source: dict[str, Json] = {"format": fmt}
    if file is not None:
        source["file"] = file
    if index is not None:
        source["index"] = index
    if line is not None:
        source["line"] = line
    return source


def build_record(**fields: Any) -> RunRecord:
    """Construct a :class:`RunRecord`, turning a validation failure into an :class:`ImportFormatError`."""
    try:
        return RunRecord(**fields)
    except ValidationError as exc:
        loc, msg = _first_problem(exc)
        raise error_at(
            f"the transcript does not give a valid run ({msg})",
            where=loc or None,
            hint="check the transcript against the format's documentation",
        ) from None


def _first_problem(exc: ValidationError) -> tuple[str, str]:
    """The field path and the message of the first problem pydantic found (never the input)."""
    first = exc.errors(include_url=False, include_input=False)[0]
    return format_loc(tuple(first.get("loc", ()))), str(first.get("msg", "invalid value"))


def take_metadata(
    transcript: dict[str, Json], metadata: dict[str, Json], unmapped: Unmapped
) -> None:
    """Copy the transcript's own ``metadata`` object into ``metadata``.

    Its ``source`` and ``unmapped`` keys are dropped (the importer sets those); a ``metadata`` that is
    not an object goes to ``unmapped``; a missing or null one adds nothing.
    """
    extra = transcript.get("metadata")
    if isinstance(extra, dict):
        metadata.update({k: v for k, v in extra.items() if k not in ("source", "unmapped")})
    elif extra is not None:
        unmapped.add("metadata", extra)


def load_json(text: str, *, file: str | Path, line: int | None, hint: str) -> Json:
    """``text`` parsed as strict JSON, or one :class:`ImportFormatError` naming the file, the line
    (``line``; None: the line of the whole file where the JSON breaks) and the column."""
    try:
        return strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(
            f"not valid JSON ({exc.msg} at column {exc.colno})",
            file=file,
            line=exc.lineno if line is None else line,
            hint=hint,
        ) from None


def _read_text(path: Path) -> str:
    from pathjudge._io import read_utf8

    return read_utf8(
        path,
        error=ImportFormatError,
        not_found="file not found",
        directory="is a directory, not a transcript file",
        unreadable="could not be read",
        gunzip=path.name.lower().endswith(".gz"),
    )


def _is_jsonl(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in JSONL_SUFFIXES)


def _iter_jsonl_values(
    path: Path, errors: list[InputError] | None, max_line_bytes: int
) -> Iterator[Document]:
    from pathjudge._io import ReadFailure, _lines, _open_read  # as for runs files

    try:
        handle = _open_read(path)
    except FileNotFoundError:
        raise ImportFormatError("file not found", file=path, hint="check the path") from None
    except IsADirectoryError:
        raise ImportFormatError("is a directory, not a transcript file", file=path) from None
    try:
        yield from _jsonl_documents(handle, path, errors, max_line_bytes, _lines)
    except ReadFailure as exc:
        raise LineErrors(ImportFormatError, path).broken(exc.line, exc.why) from None


def _jsonl_documents(
    handle: IO[bytes],
    path: Path,
    errors: list[InputError] | None,
    max_line_bytes: int,
    lines: Callable[[IO[bytes], int], Iterator[tuple[int, bytes | None, int]]],
) -> Iterator[Document]:
    index = 0
    say = LineErrors(ImportFormatError, path)
    with handle:
        for number, raw, length in lines(handle, max_line_bytes):
            problem: ImportFormatError
            if raw is None:
                problem = say.too_long(number, length, max_line_bytes, hint="split the transcript")
            elif not raw.strip():
                continue
            else:
                try:
                    value = load_json(
                        raw.decode("utf-8"),
                        file=path,
                        line=number,
                        hint="each line must be one complete JSON value; the line may be truncated",
                    )
                except UnicodeDecodeError as exc:
                    problem = say.not_utf8(number, raw, exc)
                except ImportFormatError as exc:
                    problem = exc
                else:
                    yield Document(value, index, number)
                    index += 1
                    continue
            collect_or_raise(problem, errors)
            index += 1


def split_transcripts(
    value: Json, *, item_keys: tuple[str, ...] = ("role",)
) -> list[tuple[str, Json]]:
    """Split a whole JSON document into ``[(json_path, transcript), ...]`` for :func:`iter_documents`.

    An object is one transcript. A list whose first item is an object with one of ``item_keys`` (a
    message or item) is one transcript; any other list is a list of transcripts. An empty top-level
    list raises :class:`ImportFormatError`.
    """
    if isinstance(value, dict):
        return [("", value)]
    items = as_list(value, "", "a transcript or a list of transcripts")
    if not items:
        raise error_at("has no transcripts", hint="the top-level list is empty")
    first = items[0]
    if isinstance(first, dict) and any(key in first for key in item_keys):
        return [("", items)]
    return [(f"[{i}]", item) for i, item in enumerate(items)]


def iter_documents(
    path: str | Path,
    split: Callable[[Json], list[tuple[str, Json]]],
    *,
    errors: list[InputError] | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[Document]:
    """The transcripts in a file: one per JSONL line (streamed), or ``split`` of a whole JSON document.

    ``split`` turns a parsed JSON document into ``[(json_path, transcript), ...]`` (a format decides
    whether a top-level list is one transcript or many). JSONL files (``.jsonl``, ``.ndjson``,
    ``.jsonl.gz``) are streamed; each line is one transcript. Any other file is read whole as one JSON
    document (gunzipped first when its name ends in ``.gz``). Empty input (an empty file or only blank
    lines) raises an :class:`ImportFormatError`.
    """
    path = Path(path)
    if _is_jsonl(path):
        seen = False
        for doc in _iter_jsonl_values(path, errors, max_line_bytes):
            seen = True
            yield doc
        if not seen and not errors:
            raise ImportFormatError(
                "has no transcripts",
                file=path,
                hint="the file is empty; pass one transcript per line",
            )
        return
    text = _read_text(path)
    if not text.strip():
        raise ImportFormatError(
            "has no transcripts", file=path, hint="the file is empty; pass a JSON transcript"
        )
    value = load_json(
        text, file=path, line=None, hint="the file may be truncated; name JSON Lines files *.jsonl"
    )
    try:
        pieces = split(value)
    except PathjudgeError as exc:
        raise _relocate(exc, file=str(path), doc=Document(None, 0, None)) from None
    for index, (where, piece) in enumerate(pieces):
        yield Document(piece, index, None, where)


def run_documents(
    path: str | Path,
    fmt: str,
    docs: Iterator[Document],
    convert: Callable[[Document, dict[str, Json]], RunRecord],
    *,
    errors: list[InputError] | None,
) -> Iterator[RunRecord]:
    """Convert each document with ``convert(doc, source)``, locating any error at the file and line.

    ``source`` is the ``metadata["source"]`` provenance for that document. A run in which ``fmt``
    recognised nothing is a failure too (see :func:`check_recognised`); a failure's hint names the right
    ``--from`` when the document looks like another format. With ``errors`` given, a document that
    fails is recorded there and skipped; otherwise the first failure raises.
    """
    file = str(path)
    for doc in docs:
        source = source_metadata(
            fmt, file=file, index=doc.index if doc.line is None else None, line=doc.line
        )
        try:
            record = convert(doc, source)
            check_recognised(record, doc.value, fmt)
        except PathjudgeError as exc:
            problem = suggest_format(_relocate(exc, file=file, doc=doc), doc.value, fmt)
            collect_or_raise(problem, errors)
            continue
        yield record


_TYPE_MARKERS: dict[str, str] = {
    # a "type" value only one transcript format uses → that format
    "tool_use": "anthropic",
    "tool_result": "anthropic",
    "thinking": "anthropic",
    "redacted_thinking": "anthropic",
    "server_tool_use": "anthropic",
    "mcp_tool_use": "anthropic",
    "mcp_tool_result": "anthropic",
    "function_call": "openai-responses",
    "function_call_output": "openai-responses",
    "mcp_call": "openai-responses",
    "mcp_list_tools": "openai-responses",
    "input_text": "openai-responses",
    "output_text": "openai-responses",
}
_KEY_MARKERS: dict[str, str] = {
    # a key only one format uses → that format
    "tool_calls": "openai-chat",
    "tool_call_id": "openai-chat",
    "resourceSpans": "otel",
    "scopeSpans": "otel",
    "source_call_id": "atif",
    "function_name": "atif",
    "final_metrics": "atif",
    "traceId": "otel",
    "spanId": "otel",
    "trace_id": "otel",
    "span_id": "otel",
}
_SNIFF_DEPTH = 6
_SNIFF_OBJECTS = 500


def guess_format(value: Json) -> str | None:
    """The import format whose distinctive keys or block types ``value`` holds most, or None.

    Looks at most ``_SNIFF_OBJECTS`` objects down to depth ``_SNIFF_DEPTH`` for markers such as
    Anthropic ``tool_use`` blocks, chat ``tool_calls``, Responses ``function_call`` items and OTel
    ``traceId`` keys; an object whose ``schema_version`` starts with ``ATIF-`` is ATIF. A value with
    no marker (e.g. plain text messages, valid in several formats) gives
    None. Ties go to the format listed first in the marker tables.
    """
    if isinstance(value, dict) and str(value.get("schema_version", "")).startswith("ATIF-"):
        return "atif"  # ATIF names itself (and shares call keys with OpenAI chat)
    counts: dict[str, int] = {}
    seen = 0
    stack: list[tuple[Json, int]] = [(value, 0)]
    while stack and seen < _SNIFF_OBJECTS:
        node, depth = stack.pop()
        if isinstance(node, list):
            if depth < _SNIFF_DEPTH:
                stack.extend((item, depth + 1) for item in reversed(node[:_SNIFF_OBJECTS]))
            continue
        if not isinstance(node, dict):
            continue
        seen += 1
        kind = node.get("type")
        if isinstance(kind, str) and kind in _TYPE_MARKERS:
            counts[_TYPE_MARKERS[kind]] = counts.get(_TYPE_MARKERS[kind], 0) + 1
        for key in node:
            if key in _KEY_MARKERS:
                counts[_KEY_MARKERS[key]] = counts.get(_KEY_MARKERS[key], 0) + 1
        if depth < _SNIFF_DEPTH:
            stack.extend(
                (item, depth + 1) for item in node.values() if isinstance(item, dict | list)
            )
    order = [*dict.fromkeys([*_TYPE_MARKERS.values(), *_KEY_MARKERS.values()])]
    best = max(order, key=lambda fmt: counts.get(fmt, 0))
    return best if counts.get(best, 0) else None


def suggest_format(problem: ImportFormatError, value: Json, fmt: str) -> ImportFormatError:
    """``problem`` with its hint naming the right ``--from`` when ``value`` looks like another format.

    Unchanged when :func:`guess_format` finds no format or finds ``fmt`` itself.
    """
    guess = guess_format(value)
    if guess is None or guess == fmt:
        return problem
    return ImportFormatError(
        problem.message,
        file=problem.file,
        line=problem.line,
        field=problem.field,
        task_id=problem.task_id,
        hint=f"this looks like {_article(guess)} {guess} transcript, not {fmt}: "
        f"import it with --from {guess}",
    )


def check_recognised(record: RunRecord, value: Json, fmt: str) -> None:
    """Raise :class:`ImportFormatError` when ``fmt`` recognised nothing in the transcript ``value``.

    That is: the run has no tool calls and either ``value`` carries another format's markers (see
    :func:`guess_format`), or nothing at all was mapped (no input, no final answer) while the
    transcript's content landed in ``metadata["unmapped"]`` (empty values there do not count). An
    empty transcript passes.
    """
    if record.steps:
        return
    guess = guess_format(value)
    if guess is not None and guess != fmt:
        raise error_at(
            f"is not {_article(fmt)} {fmt} transcript: no {fmt} tool call found",
            hint=f"import it with --from {guess}",
        )
    unmapped = record.metadata.get("unmapped")
    if (
        record.input is None
        and record.final_answer is None
        and isinstance(unmapped, list)
        and any(isinstance(e, dict) and e.get("value") not in (None, "", [], {}) for e in unmapped)
    ):
        raise error_at(
            f"nothing in it is recognisable as {fmt} (no message with its roles or keys)",
            hint=f"check --from; the formats are: {_format_names()}",
        )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _format_names() -> str:
    from pathjudge.agent.importers import FORMATS

    return ", ".join(sorted(FORMATS))


IDENTITY_KEYS = frozenset({"run_id", "task_id", "epoch", "trial"})
"""Keys of a transcript object that :func:`identity` consumes."""


def identity(doc: Document, obj: Json, *, stem: str, task_id: str | None) -> tuple[str, str, int]:
    """``(run_id, task_id, epoch)`` for a document.

    ``task_id`` (the caller's override) wins; else the object's ``task_id``; else ``<file stem>#<index>``.
    ``run_id`` is the object's ``run_id``, else ``<file stem>#<index>``. ``epoch`` is the object's
    ``epoch`` or ``trial`` (tau-bench), else 0.
    """
    fields = obj if isinstance(obj, dict) else {}
    fallback = f"{stem}#{doc.index}"
    run_id = _id_text(fields.get("run_id"), "run_id") or fallback
    task = task_id or _id_text(fields.get("task_id"), "task_id") or fallback
    epoch_value = fields.get("epoch", fields.get("trial", 0))
    if isinstance(epoch_value, bool) or not isinstance(epoch_value, int) or epoch_value < 0:
        key = "epoch" if "epoch" in fields else "trial"
        raise error_at(
            f"expected a non-negative integer, got {_kind(epoch_value)}",
            where=key,
            hint="epochs and trials are numbered 0, 1, 2, ...",
        )
    return run_id, task, epoch_value


def _id_text(value: Json, key: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise error_at(f"expected a string or integer id, got {_kind(value)}", where=key)
    return str(value) or None


class Converter(Protocol):
    """A format's ``from_<format>`` with its options bound: one parsed transcript to a run."""

    def __call__(
        self,
        transcript: Json,
        /,
        *,
        task_id: str,
        run_id: str,
        epoch: int,
        source: dict[str, Json],
    ) -> RunRecord: ...


def import_transcripts(
    path: str | Path,
    fmt: str,
    split: Callable[[Json], list[tuple[str, Json]]],
    convert: Converter,
    *,
    task_id: str | None,
    errors: list[InputError] | None,
) -> Iterator[RunRecord]:
    """Stream the runs of a transcript file: :func:`iter_documents`, :func:`identity`, then ``convert``.

    ``task_id`` overrides every run's task id (see :func:`identity` for the defaults). With ``errors``
    given, a transcript that fails is recorded there and skipped. Empty input raises
    :class:`ImportFormatError`.
    """
    stem = file_stem(path)

    def one(doc: Document, source: dict[str, Json]) -> RunRecord:
        run, task, epoch = identity(doc, doc.value, stem=stem, task_id=task_id)
        return convert(doc.value, task_id=task, run_id=run, epoch=epoch, source=source)

    return run_documents(path, fmt, iter_documents(path, split, errors=errors), one, errors=errors)


def one_run(build: Callable[[], RunRecord], errors: list[InputError] | None) -> Iterator[RunRecord]:
    """The run ``build()`` makes, as a stream of one; ``build`` runs when the stream is first read.

    With ``errors`` given, an :class:`InputError` that ``build`` raises is recorded there and nothing
    is yielded; otherwise it is raised.
    """
    try:
        record = build()
    except InputError as exc:
        if errors is None:
            raise
        errors.append(exc)
        return
    yield record


@dataclass(slots=True)
class StepDraft:
    """A tool call being assembled while a transcript is walked; :meth:`build` makes the frozen Step."""

    tool: str
    turn: int
    where: str
    call_id: str | None = None
    decision: str | None = None
    raw_arguments: Json = None
    result: Json = None
    is_error: bool = False
    has_result: bool = False
    latency_ms: float | None = None
    state: dict[str, Json] = field(default_factory=dict)

    @classmethod
    def from_call(
        cls,
        call: dict[str, Json],
        where: str,
        *,
        turn: int,
        decision: str | None,
        name_key: str = "name",
        id_key: str = "id",
        arguments_key: str = "arguments",
    ) -> StepDraft:
        """The draft of a call object: the tool under ``name_key`` (a non-empty string), the call id
        under ``id_key`` (see :func:`call_id_text`) and the raw arguments under ``arguments_key``."""
        return cls(
            tool=require_str(call, name_key, where),
            turn=turn,
            where=where,
            call_id=call_id_text(call.get(id_key)),
            decision=decision,
            raw_arguments=call.get(arguments_key),
        )

    def set_result(self, result: Json, *, is_error: bool) -> None:
        self.result = result
        self.is_error = is_error
        self.has_result = True

    def set_text_result(self, result: Json, error_prefixes: tuple[str, ...]) -> None:
        """For formats without an error flag: the result is an error when its text starts with one
        of ``error_prefixes`` (see :func:`prefixed_error`)."""
        self.set_result(result, is_error=prefixed_error(result, error_prefixes))

    def build(self) -> Step:
        arguments, raw, problem = parse_arguments(self.raw_arguments)
        state = dict(self.state)
        if not self.has_result:
            state["result_missing"] = True
        try:
            return Step(
                decision=self.decision,
                turn=self.turn,
                call_id=self.call_id,
                tool=self.tool,
                arguments=arguments,
                arguments_error=problem,
                raw_arguments=raw,
                result=self.result,
                is_error=self.is_error,
                latency_ms=self.latency_ms,
                state=state,
            )
        except ValidationError as exc:
            loc, msg = _first_problem(exc)
            raise error_at(
                f"not a valid tool call ({loc}: {msg})",
                where=self.where,
            ) from None


def call_id_text(value: Json) -> str | None:
    """A call id as text: a non-empty string as is, an integer as its digits, anything else None."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def require_str(obj: dict[str, Json], key: str, where: str) -> str:
    """``obj[key]`` as a non-empty string, or an error naming the field."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise error_at(
            f"expected a non-empty string, got {_kind(value) if value != '' else 'an empty string'}",
            where=join_path(where, key),
        )
    return value


@dataclass(slots=True)
class RunParts:
    """What a converter gathers while it walks one transcript; :meth:`record` makes the run.

    ``steps`` are the tool calls in order, ``by_call_id`` the ones that carry a call id, in order (for
    pairing a result with its call); ``unmapped`` collects what has no field in the schema.
    """

    unmapped: Unmapped = field(default_factory=Unmapped)
    metadata: dict[str, Json] = field(default_factory=dict)
    steps: list[StepDraft] = field(default_factory=list)
    by_call_id: dict[str, list[StepDraft]] = field(default_factory=dict)
    replies: list[Reply] = field(default_factory=list)
    input: Json = None
    final_answer: str | None = None
    stop_reason: str | None = None
    model: str | None = None
    usage: Usage = field(default_factory=Usage)

    def add_step(self, draft: StepDraft) -> None:
        """Append a tool call; one with a call id can later be paired with its result."""
        self.steps.append(draft)
        if draft.call_id is not None:
            self.by_call_id.setdefault(draft.call_id, []).append(draft)

    def awaiting_result(self, call_id: Json) -> StepDraft | None:
        """The first call with this id that has no result yet, else None (unknown id, or all
        answered). Calls that repeat an id are answered in the order they were made; an id may be
        a string or an integer (``7`` and ``"7"`` are one id)."""
        key = call_id_text(call_id)
        drafts = self.by_call_id.get(key, []) if key is not None else []
        return next((d for d in drafts if not d.has_result), None)

    def take_rest(self, transcript: dict[str, Json], known: frozenset[str]) -> None:
        """The transcript object's own ``metadata`` (see :func:`take_metadata`); each of its keys
        neither in ``known`` nor in :data:`IDENTITY_KEYS` is unmapped."""
        take_metadata(transcript, self.metadata, self.unmapped)
        self.unmapped.extra_keys(transcript, known | IDENTITY_KEYS, "")

    def add_reply(self, text: str, *, after_steps: int | None = None) -> None:
        """A reply to the user, after the steps so far (or ``after_steps``)."""
        after = len(self.steps) if after_steps is None else after_steps
        self.replies.append(Reply(text=text, after_steps=after))

    def record(
        self,
        agent: AgentInfo,
        *,
        run_id: str,
        task_id: str,
        epoch: int,
        source: dict[str, Json] | None,
        **fields: Any,
    ) -> RunRecord:
        """The run: ``source`` and the ``unmapped`` entries go into ``metadata``, each draft a step.

        ``fields`` are further :class:`RunRecord` fields (``timing``). No drafts give a run with no
        steps.
        """
        if source is not None:
            self.metadata["source"] = source
        self.unmapped.into(self.metadata)
        return build_record(
            steps=tuple(d.build() for d in self.steps),
            metadata=self.metadata,
            run_id=run_id,
            task_id=task_id,
            epoch=epoch,
            agent=agent,
            input=self.input,
            final_answer=self.final_answer,
            replies=tuple(self.replies),
            stop_reason=self.stop_reason,
            usage=self.usage,
            **fields,
        )


def tool_calls(message: dict[str, Json], where: str) -> list[tuple[str, Json]]:
    """The entries of the ``tool_calls`` list of ``message`` at ``where`` with their JSON paths
    (none when it is missing, null or empty)."""
    calls_where = join_path(where, "tool_calls")
    calls = as_list(message.get("tool_calls") or [], calls_where, "tool calls")
    return [(join_path(calls_where, j), call) for j, call in enumerate(calls)]


def decision_text(*parts: Json) -> str | None:
    """The parts that are non-empty strings joined by blank lines (a call's decision); None if none."""
    said = [part for part in parts if isinstance(part, str) and part]
    return "\n\n".join(said) if said else None


def prefixed_error(result: Json, prefixes: tuple[str, ...]) -> bool:
    """For formats without an error flag: a text result that starts with one of ``prefixes``."""
    return isinstance(result, str) and result.startswith(prefixes)


def last_with_role(messages: list[Json], role: str) -> int:
    """The index of the last message with this ``role``; -1 when there is none."""
    return max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == role),
        default=-1,
    )


def usage_from(
    raw: Json,
    where: str,
    unmapped: Unmapped,
    *,
    names: dict[str, str],
    cached_in: tuple[str, str] | None = None,
) -> Usage:
    """Map a usage object to :class:`Usage`; ``names`` maps its keys to Usage fields.

    ``cached_in`` = ``(details_key, cached_key)`` for OpenAI-style usage where cached prompt tokens are
    included in the input count: they are moved to ``cache_read_input_tokens``. Keys not mapped go to
    ``unmapped``. A missing usage gives zero usage.
    """
    if raw is None:
        return Usage()
    obj = as_dict(raw, where, "token usage")
    counts: dict[str, int] = {}
    for key, value in obj.items():
        target = names.get(key)
        if target is not None and isinstance(value, int) and not isinstance(value, bool):
            counts[target] = counts.get(target, 0) + value
        elif cached_in is not None and key == cached_in[0] and isinstance(value, dict):
            cached = value.get(cached_in[1])
            if isinstance(cached, int) and not isinstance(cached, bool):
                counts["cache_read_input_tokens"] = cached
            rest = {k: v for k, v in value.items() if k != cached_in[1]}
            if any(v not in (0, None) for v in rest.values()):
                unmapped.add(join_path(where, key), rest)
        elif value is not None and key != "total_tokens":  # a total is derived, not data
            unmapped.add(join_path(where, key), value)
    if cached_in is not None and "cache_read_input_tokens" in counts:
        counts["input_tokens"] = max(
            counts.get("input_tokens", 0) - counts["cache_read_input_tokens"], 0
        )
    try:
        return Usage(**counts)
    except ValidationError:
        raise error_at("token counts must be non-negative integers", where=where) from None


def file_stem(path: str | Path) -> str:
    """The file name without ``.gz`` / ``.json`` / ``.jsonl`` / ``.ndjson``: the default id prefix."""
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or "run"
