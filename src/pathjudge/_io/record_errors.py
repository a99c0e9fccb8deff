"""Pydantic validation errors as one clear :class:`~pathjudge.errors.RecordError`: the field path
(:func:`format_loc`), the problem in the words of a one-line record, and a fix; a whole document
pathjudge wrote validated into its model (:func:`validate_document`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from pathjudge.errors import InputError, RecordError

M = TypeVar("M", bound=BaseModel)
E = TypeVar("E", bound=InputError)


def collect_or_raise(problem: E, errors: list[E] | None) -> None:
    """A reader's problem with one record: kept in ``errors`` to keep going, or, without that list,
    raised (as itself, not chained to what was being handled)."""
    if errors is None:
        raise problem from None
    errors.append(problem)


def format_loc(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as a field path: ``('steps', 0, 'tool')`` → ``steps[0].tool``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validate_document(
    model: type[M],
    value: object,
    *,
    file: str | Path | None,
    what: str,
    hint: str,
    error: type[InputError] = InputError,
) -> M:
    """``value`` (a document pathjudge wrote, parsed) validated as ``model``; the first problem is one
    ``error`` saying ``not a {what}: ...`` that names the file and the field, with ``hint``."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise error(
            f"not a {what}: {first['msg']}",
            file=file,
            field=format_loc(tuple(first["loc"])) or None,
            hint=hint,
        ) from None


_HINTS = {
    "missing": "add it",
    "extra_forbidden": "remove it, or move it under 'metadata'",
    "json_invalid": "each line must be one complete JSON object; the line may be truncated",
    "literal_error": "use one of the values listed",
}

_EXTRA_HINTS = {
    # the unknown-field hint speaks of the kind of file in hand
    "run": "remove it, or move it under 'metadata' (runs) or 'state' (steps)",
    "item": "an item line has 'item_id', 'inputs' and optionally 'split', 'group', 'slice' and "
    "'metadata' (put every text the criterion reads under 'inputs'; anything else under 'metadata')",
    "label": "remove it, or move it under 'metadata' (see the labels format in docs/reference/formats.md)",
    "verdict": "remove it, or move it under 'metadata' (see the verdicts format in docs/reference/formats.md)",
}


_SAME_KIND = {
    # a pydantic dataclass (the run records) reports what a model reports under other names
    "unexpected_keyword_argument": "extra_forbidden",
    "dataclass_type": "model_type",
}


def record_error_from_validation(
    exc: ValidationError, *, file: str | Path | None, line: int | None, what: str = "record"
) -> RecordError:
    """Turn a pydantic ``ValidationError`` into one clear :class:`RecordError` (never echoing the input)."""
    details = exc.errors(include_url=False, include_input=False)
    first = details[0]
    kind = str(first.get("type", ""))
    kind = _SAME_KIND.get(kind, kind)
    loc = format_loc(tuple(first.get("loc", ())))
    msg = str(first.get("msg", "invalid value"))
    if kind == "extra_forbidden":
        msg = f"unknown field in a {what}"
    elif kind == "json_invalid":
        ctx = first.get("ctx") or {}
        msg = f"not valid JSON ({_within_line(str(ctx.get('error', msg)))})"
        if "recursion limit" in msg:
            return RecordError(
                msg.replace("not valid JSON", "nested too deeply to read", 1),
                file=file,
                line=line,
                hint="a value nests more levels of arrays/objects than the JSON parser allows "
                "(about 200); flatten it, or store it as a string",
            )
    elif kind == "model_type" and not loc:
        msg = f"expected a JSON object for a {what}"
    if len(details) > 1:
        msg += (
            f" (and {len(details) - 1} more problem{'s' if len(details) > 2 else ''} on this line)"
        )
    hint = _EXTRA_HINTS.get(what) if kind == "extra_forbidden" else None
    return RecordError(msg, file=file, line=line, field=loc or None, hint=hint or _HINTS.get(kind))


_PARSER_SPOT = re.compile(r" at line (\d+) column (\d+)$")


def _within_line(why: str) -> str:
    """The JSON parser's position inside one record, in the words of a one-line record: ``at column
    N`` (the parser counts lines inside the record, so its "line 1" is the file line already named,
    and "line 2 column 0" is the line's end)."""
    found = _PARSER_SPOT.search(why)
    if found is None:
        return why
    spot = " at column " + found[2] if found[1] == "1" else " at the end of the line"
    return why[: found.start()] + spot
