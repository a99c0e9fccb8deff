"""Single-criterion judged rubrics: one question per judge call, versioned and content-hashed.

A criterion is a small YAML file::

    id: answer-correct
    version: 1
    title: Answer correct vs reference
    criterion: Does the answer state the same facts as the reference answer for this question?
    inputs: [question, answer, reference]     # the named inputs every item must supply
    pass_means: The answer contains the reference facts and contradicts none of them.
    fail_means: The answer misses a reference fact, or states something that contradicts it.
    unsure_means: (optional) when 'unsure' is right
    reference: (optional) a fixed reference answer shown to the judge
    examples:                                  # optional few-shot examples
      - inputs: {question: ..., answer: ..., reference: ...}
        verdict: pass
        reasoning: ...

:attr:`Criterion.content_hash` hashes the canonical JSON of every field, so any edit (even to an example)
changes the verdict cache key. Loading errors are :class:`~pathjudge.errors.CriterionError` naming the
file, the YAML line and the field.

The built-in library (``rubrics/criteria/*.yaml``): ``answer-correct``, ``summary-faithful``,
``summary-covers-points``, ``refusal-appropriate``, ``step-faithful``, ``answer-grounded``,
``claims-backed``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, ValidationInfo, field_validator

from pathjudge._io import format_loc, read_utf8
from pathjudge._records import FrozenModel
from pathjudge._yaml import load_yaml
from pathjudge.errors import CriterionError, InputError

__all__ = [
    "BUILTIN_CRITERIA",
    "MAX_CRITERION_BYTES",
    "Criterion",
    "CriterionExample",
    "builtin_criteria",
    "get_criterion",
    "input_text",
    "is_criterion_path",
    "load_criterion",
    "parse_criterion",
    "suite_criterion",
    "suite_criterion_problem",
]

BUILTIN_CRITERIA: tuple[str, ...] = (
    "answer-correct",
    "answer-grounded",
    "claims-backed",
    "refusal-appropriate",
    "step-faithful",
    "summary-covers-points",
    "summary-faithful",
)

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class CriterionExample(FrozenModel):
    """A few-shot example: inputs, the right verdict, and why."""

    inputs: dict[str, str] = Field(description="Values for the criterion's inputs.")
    verdict: Literal["pass", "fail", "unsure"] = Field(
        description="The correct verdict for these inputs."
    )
    reasoning: str = Field(min_length=1, description="Why that verdict is right.")


class Criterion(FrozenModel):
    """One judged criterion (see the module docstring for the YAML shape)."""

    id: str = Field(
        pattern=r"^[a-z0-9][a-z0-9_.-]*$", description="Stable id, e.g. 'answer-correct'."
    )
    version: str = Field(min_length=1, description="Declared version; bump it on meaningful edits.")
    title: str | None = Field(default=None, description="Short human title.")
    criterion: str = Field(min_length=1, description="The one question the judge answers.")
    inputs: tuple[str, ...] = Field(
        min_length=1, description="Named inputs every item must supply."
    )
    pass_means: str = Field(min_length=1, description="What a 'pass' means.")
    fail_means: str = Field(min_length=1, description="What a 'fail' means.")
    unsure_means: str | None = Field(default=None, description="When 'unsure' is the right answer.")
    reference: str | None = Field(
        default=None, description="A fixed reference answer shown to the judge."
    )
    examples: tuple[CriterionExample, ...] = Field(default=(), description="Few-shot examples.")

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return str(value)
        return value

    @field_validator("inputs")
    @classmethod
    def _input_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if not _NAME.match(name):
                raise ValueError(
                    f"input name {name!r} must be lower_snake_case (letters, digits, _)"
                )
        if len(set(value)) != len(value):
            raise ValueError("input names must be unique")
        return value

    @field_validator("examples")
    @classmethod
    def _examples_fit(
        cls, value: tuple[CriterionExample, ...], info: ValidationInfo
    ) -> tuple[CriterionExample, ...]:
        wanted = set(info.data.get("inputs") or ())
        if not wanted:
            return value
        for index, example in enumerate(value):
            got = set(example.inputs)
            if got != wanted:
                missing = sorted(wanted - got)
                extra = sorted(got - wanted)
                raise ValueError(
                    f"examples[{index}].inputs must have exactly the inputs {sorted(wanted)}"
                    + (f"; missing {missing}" if missing else "")
                    + (f"; unknown {extra}" if extra else "")
                )
        return value

    @property
    def content_hash(self) -> str:
        """``sha256:`` + 24 hex digits of the canonical JSON of every field: any edit changes it."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]

    def check_inputs(self, inputs: Mapping[str, object], *, item_id: str | None = None) -> None:
        """Raise :class:`InputError` if ``inputs`` lacks a required input or has a non-string value.

        Extra inputs are an error too (a typo'd name would otherwise be silently ignored).
        """
        missing = [name for name in self.inputs if name not in inputs]
        unknown = sorted(set(inputs) - set(self.inputs))
        where = f"item {item_id!r}" if item_id is not None else "item"
        if missing:
            raise InputError(
                f"{where} lacks input(s) {missing} needed by criterion {self.id!r}",
                field="inputs",
                hint=f"supply all of {list(self.inputs)}",
            )
        if unknown:
            raise InputError(
                f"{where} has input(s) {unknown} that criterion {self.id!r} does not use",
                field="inputs",
                hint=f"use exactly {list(self.inputs)}",
            )
        for name in self.inputs:
            if not isinstance(inputs[name], str):
                raise InputError(
                    f"{where} input {name!r} must be a string, got {type(inputs[name]).__name__}",
                    field=f"inputs.{name}",
                    hint="serialise structured values (e.g. as JSON) before judging",
                )


def input_text(value: object) -> str:
    """An input value as the text a criterion takes: a string as is, anything else as sorted-key JSON."""
    return (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    )


def _node_line(root: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based YAML line of the node at ``loc`` (or of its deepest existing ancestor)."""
    if root is None:
        return None
    node: yaml.Node = root
    line = node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if getattr(key, "value", None) == part:
                    node = value
                    line = key.start_mark.line + 1
                    break
            else:
                return line
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


_SHAPE = "a criterion is a YAML mapping with id, version, criterion, inputs, pass_means, fail_means"


def parse_criterion(text: str, *, source: str | Path = "<criterion>") -> Criterion:
    """Parse and validate one criterion from YAML text; errors name ``source``, line and field.

    A document with none of a criterion's fields is not a criterion at all: it is refused in words
    that quote nothing of it (a wrong path must not print the file it names).
    """
    data, root = load_yaml(text, file=source, error=CriterionError)
    if not isinstance(data, dict):
        raise CriterionError(
            "a criterion must be a YAML mapping with id, version, criterion, inputs, pass_means, fail_means",
            file=source,
            line=1,
        )
    if not any(isinstance(key, str) and key in Criterion.model_fields for key in data):
        raise CriterionError(
            "is not a criterion file: none of its keys is a criterion field",
            file=source,
            hint=f"{_SHAPE}; check the path",
        )
    try:
        return Criterion.model_validate(data)
    except ValidationError as exc:
        problems = exc.errors(include_url=False, include_input=False)
        # An unknown key is usually a typo of a missing one: report it first, at its own line.
        problems.sort(key=lambda p: p.get("type") != "extra_forbidden")
        first = problems[0]
        loc = tuple(first.get("loc", ()))
        kind = str(first.get("type", ""))
        msg = str(first.get("msg", "invalid value"))
        if kind == "extra_forbidden":
            msg = "unknown field in a criterion"
        if len(problems) > 1:
            msg += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
        hint = {
            "missing": "add it",
            "extra_forbidden": "allowed fields: " + ", ".join(Criterion.model_fields),
            "literal_error": "use one of the values listed",
        }.get(kind)
        raise CriterionError(
            msg, file=source, line=_node_line(root, loc), field=format_loc(loc) or None, hint=hint
        ) from None


MAX_CRITERION_BYTES = 4 * 1024 * 1024
"""The largest criterion file read (the built-ins are a few KB; many few-shot examples fit)."""

_SUFFIXES = (".yaml", ".yml")


def load_criterion(path: str | Path, *, inside: str | Path | None = None) -> Criterion:
    """Load one criterion YAML file: a regular file (never a FIFO or a device) of at most
    :data:`MAX_CRITERION_BYTES`, inside the folder ``inside`` when given (symlinks followed)."""
    path = Path(path)
    text = read_utf8(
        path,
        error=CriterionError,
        not_found="criterion file not found",
        directory="is a directory, not a criterion file",
        unreadable="criterion file could not be read",
        limit=MAX_CRITERION_BYTES,
        inside=inside,
    )
    return parse_criterion(text, source=path)


def is_criterion_path(ref: str) -> bool:
    """Whether a criterion reference names a file (a path, or a ``.yaml``/``.yml`` name) rather
    than an id."""
    return "/" in ref or "\\" in ref or ref.endswith(_SUFFIXES)


def suite_criterion_problem(ref: str) -> str | None:
    """Why ``ref`` cannot be a suite's judged criterion, or None: a suite names a built-in id or a
    relative ``.yaml``/``.yml`` path inside its own folder (no absolute path, no ``..``)."""
    if any(ord(ch) < 0x20 or ch == "\x7f" for ch in ref):
        return "a criterion reference may not hold control characters"
    if not is_criterion_path(ref):
        return None
    path = Path(ref.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        return (
            "a suite's criterion file must be a relative path inside the suite's folder "
            "(no absolute path, no '..')"
        )
    if not ref.endswith(_SUFFIXES):
        return "a criterion file is a .yaml or .yml file"
    return None


def suite_criterion(ref: str, folder: str | Path) -> Criterion:
    """The criterion a suite names: a built-in id, or a ``.yaml`` file inside ``folder`` (the
    suite's folder), checked as :func:`load_criterion` checks it with ``inside=folder``.

    A suite is data from elsewhere: a reference that reaches outside its folder (an absolute path,
    ``..``, a symlink out) is refused, and no error quotes a file that is not a criterion.
    """
    library = builtin_criteria()
    if ref in library:
        return library[ref]
    problem = suite_criterion_problem(ref)
    if problem is not None:
        raise CriterionError(problem, field="criterion", hint=_REFERENCE_HINT)
    if not is_criterion_path(ref):
        raise CriterionError(f"unknown criterion {ref!r}", field="criterion", hint=_REFERENCE_HINT)
    return load_criterion(Path(folder) / ref, inside=folder)


_REFERENCE_HINT = (
    "use a built-in id (" + ", ".join(BUILTIN_CRITERIA) + ") or a criterion .yaml file inside the "
    "suite's folder, by its path relative to that folder"
)


@cache
def builtin_criteria() -> dict[str, Criterion]:
    """The built-in library, by id (loaded once from the package's ``criteria/*.yaml``)."""
    folder = resources.files("pathjudge.rubrics").joinpath("criteria")
    found: dict[str, Criterion] = {}
    for name in BUILTIN_CRITERIA:
        entry = folder.joinpath(f"{name}.yaml")
        found[name] = parse_criterion(
            entry.read_text(encoding="utf-8"), source=f"pathjudge:criteria/{name}.yaml"
        )
    return found


def get_criterion(ref: str | Path) -> Criterion:
    """A built-in criterion by id, or a criterion YAML file by path.

    An unknown id that is not an existing file raises :class:`CriterionError` listing the built-ins.
    """
    text = str(ref)
    library = builtin_criteria()
    if text in library:
        return library[text]
    path = Path(text)
    if path.suffix in {".yaml", ".yml"} or path.exists():
        return load_criterion(path)
    raise CriterionError(
        f"unknown criterion {text!r}",
        field="criterion",
        hint="use a built-in id ("
        + ", ".join(BUILTIN_CRITERIA)
        + ") or a path to a criterion YAML file",
    )
