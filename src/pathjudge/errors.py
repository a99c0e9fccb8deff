"""The one exception hierarchy of pathjudge.

Every error carries structured context (file, line, field, task id) and renders as one sentence that
says what was wrong and how to fix it. The CLI prints ``str(error)`` without a traceback and exits with
``error.exit_code`` (2 for anything the user can fix).

::

    PathjudgeError                  base; .message, .file, .line, .field, .task_id, .hint, .exit_code
    ├── InputError                  bad user input (exit 2)
    │   ├── RecordError             a JSONL record that does not parse or validate
    │   ├── ImportFormatError       a transcript/trace that an importer cannot read
    │   ├── SuiteError              a suite YAML that does not validate, or runs that do not fit it
    │   ├── CriterionError          a judged-criterion YAML that does not validate
    │   ├── LabelsError             human labels / recorded verdicts that do not fit together
    │   ├── ConfigError             project configuration (pyproject.toml / pathjudge.toml)
    │   ├── CertificateError        a judge certificate that is tampered, void or required and absent
    │   └── RemoteImportError       a session/trace that could not be fetched from a remote API
    ├── MissingExtraError           an optional extra is not installed (exit 2; names the pip command)
    ├── JudgeError                  the judge could not run (backend unreachable, bad credentials)
    │   ├── BudgetExceededError     the token/cost budget ran out; work done so far is kept
    │   └── JudgeFailuresError      the run finished but some items ended in a judge failure (exit 1)
    └── AgentError                  the agent under test could not run (backend, tool wiring)

Errors never include secrets: messages are built from our own context, never from request headers.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AgentError",
    "BudgetExceededError",
    "CertificateError",
    "ConfigError",
    "CriterionError",
    "ImportFormatError",
    "InputError",
    "JudgeError",
    "JudgeFailuresError",
    "LabelsError",
    "MissingExtraError",
    "PathjudgeError",
    "RecordError",
    "RemoteImportError",
    "SuiteError",
]


class PathjudgeError(Exception):
    """Base class. ``str(err)`` is the one-sentence, user-facing message with its location."""

    exit_code: int = 1

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        task_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        self.task_id = task_id
        self.hint = hint
        super().__init__(self.render())

    @property
    def location(self) -> str:
        """``file:line`` (or whichever part is known), empty when nothing is known."""
        if self.file is None:
            return f"line {self.line}" if self.line is not None else ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def render(self) -> str:
        parts: list[str] = []
        if self.location:
            parts.append(f"{self.location}:")
        if self.task_id is not None:
            parts.append(f"task {self.task_id!r}:")
        if self.field:
            parts.append(f"field '{self.field}':")
        parts.append(self.message.rstrip("."))
        text = " ".join(parts)
        if self.hint:
            text += f" — {self.hint.rstrip('.')}"
        return text + "."

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[object, ...]:
        # pickles with its fields (a worker process sends its errors back to the parent)
        return (_rebuild, (type(self), dict(self.__dict__), self.args))


def _rebuild(
    cls: type[PathjudgeError], state: dict[str, object], args: tuple[object, ...]
) -> PathjudgeError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    error.args = args
    return error


class InputError(PathjudgeError):
    """Input the user can fix: a file, a flag, a value."""

    exit_code = 2


class RecordError(InputError):
    """A JSONL record (run, label, verdict, item) that does not parse or validate."""


class ImportFormatError(InputError):
    """A transcript or trace export that an importer cannot read."""


class SuiteError(InputError):
    """A suite file that does not validate, or runs that do not fit the suite."""


class CriterionError(InputError):
    """A judged-criterion rubric that does not validate."""


class LabelsError(InputError):
    """Human labels or recorded verdicts that are malformed or do not fit together."""


class ConfigError(InputError):
    """Project configuration (``[tool.pathjudge]`` or ``pathjudge.toml``) that does not validate."""


class CertificateError(InputError):
    """A judge certificate that is malformed or tampered with, or that does not hold for the judge
    that runs (void), where a certified judge is required; also a refused reuse of a test split."""


class MissingExtraError(PathjudgeError):
    """An optional dependency group is not installed."""

    exit_code = 2

    def __init__(self, extra: str, module: str, purpose: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(
            f"{purpose} needs the optional module '{module}', which is not installed",
            hint=f"run: pip install 'pathjudge[{extra}]'",
        )


class JudgeError(PathjudgeError):
    """The judge could not run at all (as opposed to one item failing, which is a JudgeFailure record)."""

    exit_code = 2


class BudgetExceededError(JudgeError):
    """The configured token or cost budget is spent; everything judged before it is kept in the cache."""


class JudgeFailuresError(JudgeError):
    """The judge ran, but some items ended in a judge failure (verdict ``error``): exit 1.

    Every verdict and failure is written and cached; ``summary`` is the run's one-line summary.
    """

    exit_code = 1

    def __init__(self, message: str, *, summary: str = "", **context: object) -> None:
        self.summary = summary
        super().__init__(message, **context)  # type: ignore[arg-type]


class AgentError(PathjudgeError):
    """The agent under test could not be run."""

    exit_code = 2


class RemoteImportError(InputError):
    """A session or trace could not be fetched from a remote API for import (bad id, key, or URL)."""
