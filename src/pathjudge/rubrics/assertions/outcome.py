"""Goal completion: success criteria, each a pure verifier over the final answer or the end state.

A criterion is a mapping discriminated by ``kind`` (YAML, a task's ``success:`` block)::

    success: {kind: contains_all, values: ["429"]}                 # every value, case-insensitive
    success: {kind: contains_any, values: ["cannot", "can't", "fixed"]}
    success: {kind: regex, pattern: "\\b60\\b", ignore_case: false}
    success: {kind: number, value: 25, abs: 0, rel: 0, extract: any}  # extract: whole | first | any
    success: {kind: json_schema, json_schema: {type: object, required: [id]}}
    success: {kind: refusal}                                       # expect: refuse (default) | answer
    success: {kind: refusal, phrases: ["ne peux pas"], scope_words: [docs]}  # own wording; narrower
    success: {kind: callable, function: "mypkg.checks:db_has_row", params: {table: users}, pass_at: 1.0}
    success:
      kind: all_of                                                 # multi-part: binary + partial credit
      parts:
        - {name: price, weight: 1, criterion: {kind: contains_any, values: ["0 dollars", "$0", "free"]}}
        - {name: storage, criterion: {kind: contains_any, values: ["1 gb", "1gb"]}}
    success:
      kind: any_of                                                 # alternatives: one is enough
      parts:
        - {name: refund, criterion: {kind: contains_all, values: ["refunded"]}}
        - {name: voucher, criterion: {kind: contains_all, values: ["voucher"]}}

Rules shared by the answer criteria (``contains_all``, ``contains_any``, ``regex``, ``number``,
``json_schema``):

- no final answer (None or blank) fails with the reason "no final answer";
- a final answer that is a refusal (:func:`is_refusal`: the built-in English refusal forms) fails with
  a reason that names the refusal's words, unless ``allow_refusal: true``;
- ``contains_*`` compare under ``normalize``: a named preset (default ``casefold``: case-insensitive,
  whitespace collapsed; ``bfcl`` also ignores spaces and ``,./-_*^``; ``none`` is exact) or a declared,
  composable normalisation ``{casefold: true, remove: ",$", strip_accents: true,
  collapse_whitespace: true, punctuation: drop}`` (see
  :class:`~pathjudge.rubrics.assertions._normalize.TextNormalization`), applied to the answer and to
  every value alike, e.g. so that ``"$23,553"`` contains ``"23553"`` without dots and spaces dropped.

``refusal`` with ``expect: refuse`` passes only when the answer refuses; with ``expect: answer`` it
passes only when there is an answer and it is not a refusal. A run with no final answer did not
refuse: it fails either way. What counts as a refusal: the built-in recogniser of the common English
forms ("Sorry, I can't help with that", "I'm unable to provide", "I won't", "I must decline", "I'm
sorry, but I ...", "That's outside what I can help with", "I can only help with ...", "I don't have
that in the docs", "I couldn't find any information about ...", "The documentation doesn't mention
..."), never an answer that merely holds "sorry" or "can't" (see
:mod:`~pathjudge.rubrics.assertions._refusal`); ``phrases`` add the agent's own wording
(case-insensitive substrings: another language, a house style), and ``scope_words``, when given,
count an answer as a refusal only if one of them occurs too. The reason of a failure names these
fields and the words that decided it. ``callable`` imports ``module:function`` on first use and calls it as
``function(run, **params)``; it may return a bool, a ``(bool, reason)`` pair, or a float in [0, 1]
(passing at ``pass_at``). It is the one criterion that needs no final answer (end-state checks). An
import failure or an exception inside it (any ``BaseException``: ``SystemExit`` and ``KeyboardInterrupt`` too) is a check
with status ``error`` whose reason names the callable.

A callable runs code, so a suite read from a file or from data (:func:`~pathjudge.rubrics.suite.load_suite`,
:func:`~pathjudge.rubrics.suite.parse_suite`) never runs one unless it is allowed
(``allow_callables``: everything, or a list of modules; see :func:`callable_allowed`). A callable that
is not allowed is never imported: its check is an ``error`` that says how to allow it. Criteria built
in Python code are the caller's own code and are allowed. ``all_of`` passes when every part passes (binary) and scores the weighted fraction of part
scores (partial credit): the result's ``status`` is binary, its ``score`` is the partial credit, and
``details`` carries both. ``any_of`` passes when at least one part passes (then the other parts may
fail or break); when none passes it fails, or is an ``error`` when some part could not be checked
(that part might have passed). Its partial credit is the best score among the passing parts, or,
when none passes, the best score among the parts that were checked (so an ``all_of`` part that met 2
of its 3 sub-goals gives 0.67). ``any_of`` parts take no ``weight``: only the best part counts.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal, TypeAlias, assert_never, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    ValidationError,
    field_validator,
)

from pathjudge._interrupt import stops_grading
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import SuiteError
from pathjudge.rubrics.assertions._normalize import (
    NormalizeSpec,
    TextNormalization,
    casefold_text,
    describe_normalization,
    render_value,
    text_normalizer,
)
from pathjudge.rubrics.assertions._refusal import refusal_words as builtin_refusal_words
from pathjudge.rubrics.assertions._regex import PatternTimeout, compile_pattern, search
from pathjudge.rubrics.assertions.arguments.schema import (
    _make_validator,
    _require_valid_schema,
    _schema_mismatches,
)
from pathjudge.rubrics.assertions.base import (
    CheckResult,
    CheckStatus,
    describe_exception,
    freeze,
)

__all__ = [
    "DEFAULT_REFUSAL_PHRASES",
    "DEFAULT_SCOPE_WORDS",
    "AllOfCriterion",
    "AnswerSource",
    "AnyOfCriterion",
    "CallableCriterion",
    "CallablePolicy",
    "ContainsAllCriterion",
    "ContainsAnyCriterion",
    "JsonSchemaCriterion",
    "NumberCriterion",
    "RefusalCriterion",
    "RegexCriterion",
    "SubGoal",
    "SuccessCriterion",
    "callable_allowed",
    "check_outcome",
    "extract_numbers",
    "is_refusal",
    "load_callable",
    "refusal_words",
]

DEFAULT_REFUSAL_PHRASES: tuple[str, ...] = ()
"""The phrases a ``refusal`` criterion adds to the built-in recogniser when it lists none: none.

The built-in recogniser (:mod:`pathjudge.rubrics.assertions._refusal`) knows the common English
forms of a refusal ("Sorry, I can't help with that", "I'm unable to provide", "I must decline",
"That's outside what I can help with", "I don't have that in the docs", "I couldn't find any
information about it"); a criterion's ``phrases`` add an agent's own wording (another language, a
house style), compared case-insensitively as substrings, curly apostrophes as straight."""

DEFAULT_SCOPE_WORDS: tuple[str, ...] = ()
"""The words a ``refusal`` criterion requires besides a refusal form when it lists none: none.

With ``scope_words``, an answer is a refusal only when one of them occurs too (case-insensitively),
e.g. ``[docs, documentation]`` to count only "not in the docs"-style refusals."""


def is_refusal(
    text: str | None,
    phrases: Sequence[str] = DEFAULT_REFUSAL_PHRASES,
    scope_words: Sequence[str] = DEFAULT_SCOPE_WORDS,
) -> bool:
    """True when ``text`` holds a built-in refusal form or one of ``phrases`` and, unless
    ``scope_words`` is empty, one of ``scope_words`` (see :func:`refusal_words`). None or blank text
    is not a refusal.

    >>> is_refusal("Sorry, I can't help with forging documents.")
    True
    >>> is_refusal("I don't have that in the docs.")
    True
    >>> is_refusal("No, you cannot change a database's region after it is created.")
    False
    >>> is_refusal("Je ne peux pas vous aider.", phrases=["ne peux pas"])
    True
    """
    return refusal_words(text, phrases, scope_words) is not None


def refusal_words(
    text: str | None,
    phrases: Sequence[str] = DEFAULT_REFUSAL_PHRASES,
    scope_words: Sequence[str] = DEFAULT_SCOPE_WORDS,
) -> str | None:
    """The words that make ``text`` a refusal (a built-in refusal form, else the first of
    ``phrases`` it contains), or None when it is none, when no word of a non-empty ``scope_words``
    occurs in it, or when it is None or blank."""
    if not text or text.isspace():
        return None
    lowered = ""
    if scope_words or phrases:
        lowered = text.lower()
        if "\u2019" in lowered or "\u2018" in lowered:
            lowered = lowered.replace("\u2019", "'").replace("\u2018", "'")
    if scope_words and not any(word in lowered for word in _lowered(scope_words)):
        return None
    found = builtin_refusal_words(text)
    if found is not None or not phrases:
        return found
    for phrase in _lowered(phrases):
        if phrase in lowered:
            return phrase
    return None


def _lowered(words: Sequence[str]) -> tuple[str, ...]:
    """``words`` lower-cased (curly apostrophes as straight), once per distinct tuple (each task's
    own lists)."""
    return _lowered_tuple(tuple(words))


@functools.lru_cache(maxsize=64)
def _lowered_tuple(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        word.lower().replace("\u2019", "'").replace("\u2018", "'") for word in words if word
    )


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def extract_numbers(text: str) -> list[float]:
    """Every number written in ``text``, in order: ``"$1,200.50 or 3e2"`` → ``[1200.5, 300.0]``.

    Digits glued to a preceding letter or dot (``v2``, ``.5``'s ``5``) are not numbers.
    """
    return [float(match.group().replace(",", "")) for match in _NUMBER.finditer(text)]


class _Criterion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


AnswerSource = Literal["final_answer", "any_reply", "all_replies"]
"""What an answer criterion, or ``refusal``, reads (``over:``).

- ``final_answer`` (default): the run's final answer (see :class:`~pathjudge.agent.trajectory.RunRecord`:
  None when the run ended on a tool call);
- ``any_reply``: passes when some single reply to the user passes (the first passing reply is
  reported; when none passes, the last reply's failure);
- ``all_replies``: every reply to the user joined with blank lines, read as one text (an answer
  spread over several messages of a multi-turn conversation).

A run with no reply at all fails with "no final answer" / "no reply".
"""


class _AnswerCriterion(_Criterion):
    allow_refusal: bool = Field(
        default=False, description="Accept a refusal as an answer (otherwise a refusal fails)."
    )
    over: AnswerSource = Field(
        default="final_answer",
        description="What is read: final_answer, any_reply (some reply passes), all_replies (joined).",
    )


class _ContainsCriterion(_AnswerCriterion):
    values: tuple[str, ...] = Field(min_length=1)
    normalize: NormalizeSpec = Field(
        default="casefold",
        description="A preset (none | casefold | bfcl) or a declared normalisation "
        "{casefold, remove, strip_accents, collapse_whitespace, punctuation}.",
    )

    @field_validator("normalize", mode="before")
    @classmethod
    def _one_clear_error(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            try:
                return TextNormalization.model_validate(value)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(part) for part in problem["loc"])
                raise ValueError(
                    f"normalize.{where}: {problem['msg']} (keys: casefold, remove, strip_accents, "
                    "collapse_whitespace, punctuation)"
                ) from None
        if isinstance(value, str) and value not in ("none", "casefold", "bfcl"):
            raise ValueError(
                f"unknown normalize preset {value!r}; use none, casefold, bfcl or a mapping "
                "{casefold, remove, strip_accents, collapse_whitespace, punctuation}"
            )
        return value

    @functools.cached_property
    def normalized_values(self) -> tuple[Callable[[str], str], tuple[str, ...]]:
        """The normaliser and the normalised values, built once per criterion."""
        apply = text_normalizer(self.normalize)
        return apply, tuple(apply(value) for value in self.values)

    @functools.cached_property
    def _pairs(self) -> tuple[Callable[[str], str], tuple[tuple[str, str], ...]]:
        """The normaliser and each value with its normalised form, built once per criterion.

        Under ``casefold``, when no normalised value holds whitespace, the normaliser is plain
        ``str.casefold``: folding whitespace runs changes no whitespace-free substring (case folding
        maps whitespace to itself and nothing else to whitespace), so the same values are found."""
        apply, wanted = self.normalized_values
        if apply is casefold_text and not any(char.isspace() for value in wanted for char in value):
            apply = str.casefold
        return apply, tuple(zip(self.values, wanted, strict=True))

    @functools.cached_property
    def _verdicts(self) -> dict[tuple[str, ...], _Verdict]:
        return {}

    @functools.cached_property
    def _results(self) -> dict[tuple[str, ...] | None, CheckResult]:
        return {}

    def outcome_of(self, answer: str | None) -> CheckResult | None:
        """:func:`check_outcome` of a run whose final answer is ``answer`` when the criterion reads
        the final answer, or ``None`` when the answer is a refusal that this criterion rejects (then
        the plain path builds the result, which names the refusal's words).

        Otherwise the result depends on which values the answer contains alone (or on there being no
        answer), so each distinct result is built once per criterion and shared (results are
        immutable); at most :data:`_VERDICTS_KEPT` are kept.
        """
        key: tuple[str, ...] | None
        if not answer or answer.isspace():  # the plain path's "not answer.strip()"
            key = None
        else:
            if not self.allow_refusal and is_refusal(answer):
                return None
            apply, pairs = self._pairs
            text = apply(answer)
            key = tuple([value for value, wanted in pairs if wanted in text])
        results = self._results
        known = results.get(key)
        if known is None:
            status, score, reason, details = (
                _fail("no final answer") if key is None else self.verdict_for(key)
            )
            known = CheckResult(
                check=f"outcome.{self.kind}",  # type: ignore[attr-defined]
                axis="goal_completion",
                status=status,
                score=score,
                reason=reason,
                details=details,
            )
            if len(results) >= _VERDICTS_KEPT:
                results.clear()
            results[key] = known
        return known

    def verdict_for(self, found: tuple[str, ...]) -> _Verdict:
        """The verdict on an answer that contains exactly the values ``found`` (in declaration order).

        It depends on ``found`` alone, so each distinct one is built once per criterion and shared
        (its details frozen); at most :data:`_VERDICTS_KEPT` are kept."""
        known = self._verdicts.get(found)
        if known is not None:
            return known
        missing = [v for v in self.values if v not in found]
        if isinstance(self, ContainsAllCriterion):
            ok = not missing
            reason = f"the answer contains {len(found)} of {len(self.values)} required values"
            if missing:
                reason += f"; missing: {', '.join(render_value(v) for v in missing)}"
        else:
            ok = bool(found)
            reason = (
                f"the answer contains {', '.join(render_value(v) for v in found)}"
                if found
                else f"the answer contains none of {', '.join(render_value(v) for v in self.values)}"
            )
        how = describe_normalization(self.normalize)
        status, score, text, details = _binary(
            ok, reason + f" ({how} comparison)", found=list(found)
        )
        verdict: _Verdict = (status, score, text, freeze(details))
        if len(self._verdicts) >= _VERDICTS_KEPT:
            self._verdicts.clear()
        self._verdicts[found] = verdict
        return verdict


_VERDICTS_KEPT = 64
"""The most distinct verdicts a contains criterion keeps (one per subset of its values found)."""


class ContainsAllCriterion(_ContainsCriterion):
    """The answer contains every one of ``values``."""

    kind: Literal["contains_all"] = "contains_all"


class ContainsAnyCriterion(_ContainsCriterion):
    """The answer contains at least one of ``values``."""

    kind: Literal["contains_any"] = "contains_any"


class RegexCriterion(_AnswerCriterion):
    """``pattern`` is found in the answer (``re`` syntax, searched with a time limit: see
    :mod:`~pathjudge.rubrics.assertions._regex`; a search that times out is an ``error``)."""

    kind: Literal["regex"] = "regex"
    pattern: str
    ignore_case: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            compile_pattern(value)
        except ValueError as exc:
            raise ValueError(f"pattern {value!r} does not compile: {exc}") from None
        return value


class NumberCriterion(_AnswerCriterion):
    """A number in the answer is within ``max(abs, rel·|value|)`` of ``value``.

    ``extract``: ``whole`` (the whole answer is one number), ``first`` (the first number written),
    ``any`` (any number written).
    """

    kind: Literal["number"] = "number"
    value: float
    abs: float = Field(default=0.0, ge=0.0)
    rel: float = Field(default=0.0, ge=0.0)
    extract: Literal["whole", "first", "any"] = "any"


class JsonSchemaCriterion(_AnswerCriterion):
    """The answer (optionally inside one fenced code block) parses as JSON and validates."""

    kind: Literal["json_schema"] = "json_schema"
    json_schema: dict[str, JsonValue]

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, JsonValue]) -> dict[str, JsonValue]:
        _require_valid_schema(value)
        return value


class RefusalCriterion(_Criterion):
    """``expect: refuse``: the answer must refuse; ``expect: answer``: it must not."""

    kind: Literal["refusal"] = "refusal"
    expect: Literal["refuse", "answer"] = "refuse"
    phrases: tuple[str, ...] = Field(
        default=DEFAULT_REFUSAL_PHRASES,
        description="The agent's own refusal wording (another language, a house style), added to "
        "the built-in English recogniser; case-insensitive substrings.",
    )
    scope_words: tuple[str, ...] = Field(
        default=DEFAULT_SCOPE_WORDS,
        description="When given, an answer counts as a refusal only if one of these words occurs "
        "too (case-insensitive), e.g. [docs] for 'not in the docs' refusals only.",
    )
    over: AnswerSource = Field(
        default="final_answer",
        description="What is read: final_answer, any_reply (some reply passes), all_replies (joined).",
    )


_CALLABLE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


CallablePolicy: TypeAlias = bool | tuple[str, ...]
"""Which callables may run: all (``True``), none (``False``), or those of the listed modules."""


def callable_allowed(spec: str, policy: CallablePolicy) -> bool:
    """Whether ``policy`` allows the callable ``module:function``.

    A listed module allows itself and every module under it: ``("mypkg",)`` allows
    ``mypkg.checks:f``; ``("mypkg.checks",)`` does not allow ``mypkg:f`` or ``mypkg_evil:f``.

    >>> callable_allowed("mypkg.checks:f", ("mypkg",)), callable_allowed("pydoc:pipepager", False)
    (True, False)
    """
    if isinstance(policy, bool):
        return policy
    module = spec.partition(":")[0]
    return any(module == name or module.startswith(name + ".") for name in policy)


class CallableCriterion(_Criterion):
    """A user function ``module:function`` called as ``function(run, **params)``.

    It runs only when allowed (see the module docstring): a suite read from data marks each callable
    with its permission; one that is not allowed is never imported.
    """

    kind: Literal["callable"] = "callable"
    function: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    pass_at: float = Field(
        default=1.0, ge=0.0, le=1.0, description="A float result passes at or above this."
    )

    @field_validator("function")
    @classmethod
    def _spec(cls, value: str) -> str:
        if not _CALLABLE.match(value):
            raise ValueError(
                f"callable must be written 'module:function' (e.g. 'mypkg.checks:db_has_row'), got {value!r}"
            )
        return value

    _permitted: bool = PrivateAttr(default=True)

    @property
    def permitted(self) -> bool:
        """Whether this callable may run (False when it came from data that did not allow it)."""
        return self._permitted

    def resolve(self) -> Callable[..., Any]:
        """Import the function now (raises :class:`~pathjudge.errors.SuiteError` naming it)."""
        if not self._permitted:
            raise SuiteError(not_allowed_message(self.function), field="success.function")
        return load_callable(self.function)


def not_allowed_message(spec: str) -> str:
    """Why a callable did not run, and the three ways to allow it."""
    module = spec.partition(":")[0]
    return (
        f"callable {spec!r} was not run: a callable executes Python code, and callables from a "
        "suite file are off unless allowed; if you trust this suite, rerun with --allow-callables, "
        f"or set allow_callables = true (or allow_callables = [{module.split('.')[0]!r}] for its "
        "modules only) in pathjudge.toml"
    )


class SubGoal(_Criterion):
    """One part of a multi-part task."""

    name: str = Field(min_length=1)
    weight: float = Field(default=1.0, gt=0.0)
    criterion: SuccessCriterion


class _PartsCriterion(_Criterion):
    """A criterion made of named sub-goals (``all_of``, ``any_of``): the names must be unique."""

    kind: str  # each kind of criterion narrows it (declared here so that it stays the first field)
    parts: tuple[SubGoal, ...] = Field(min_length=1)

    @field_validator("parts")
    @classmethod
    def _unique_names(cls, value: tuple[SubGoal, ...]) -> tuple[SubGoal, ...]:
        names = [part.name for part in value]
        dupes = sorted({name for name in names if names.count(name) > 1})
        if dupes:
            raise ValueError(f"sub-goal names must be unique; repeated: {', '.join(dupes)}")
        return value


class AllOfCriterion(_PartsCriterion):
    """Every part must pass (binary); the score is the weighted fraction of part scores."""

    kind: Literal["all_of"] = "all_of"


class AnyOfCriterion(_PartsCriterion):
    """At least one part must pass (binary); the score is the best part's score."""

    kind: Literal["any_of"] = "any_of"

    @field_validator("parts")
    @classmethod
    def _unweighted(cls, value: tuple[SubGoal, ...]) -> tuple[SubGoal, ...]:
        weighted = [part.name for part in value if "weight" in part.model_fields_set]
        if weighted:
            raise ValueError(
                f"any_of part {weighted[0]!r} sets a weight, which any_of does not use (the best "
                "part counts); remove it, or use all_of for weighted parts"
            )
        return value


SuccessCriterion: TypeAlias = Annotated[
    ContainsAllCriterion
    | ContainsAnyCriterion
    | RegexCriterion
    | NumberCriterion
    | JsonSchemaCriterion
    | RefusalCriterion
    | CallableCriterion
    | AllOfCriterion
    | AnyOfCriterion,
    Field(discriminator="kind"),
]
SubGoal.model_rebuild()
AllOfCriterion.model_rebuild()
AnyOfCriterion.model_rebuild()


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``module:function`` (dotted attributes allowed after the colon).

    Raises :class:`~pathjudge.errors.SuiteError` naming the callable and what went wrong.
    """
    module_name, _, attr_path = spec.partition(":")
    if not module_name or not attr_path:
        raise SuiteError(
            f"success callable {spec!r} is not of the form 'module:function'",
            field="success.function",
        )
    try:
        target: Any = importlib.import_module(module_name)
    except (Exception, SystemExit, KeyboardInterrupt) as exc:
        if stops_grading(exc):
            raise
        raise SuiteError(
            f"cannot import module {module_name!r} of success callable {spec!r}: "
            f"{type(exc).__name__}: {exc}",
            field="success.function",
            hint="check the module name and that it is importable (on sys.path / installed)",
        ) from exc
    for attr in attr_path.split("."):
        if not hasattr(target, attr):
            raise SuiteError(
                f"success callable {spec!r}: {module_name} has no attribute {attr_path!r}",
                field="success.function",
                hint="check the function name after the colon",
            )
        target = getattr(target, attr)
    if not callable(target):
        raise SuiteError(
            f"success callable {spec!r} is a {type(target).__name__}, not a function",
            field="success.function",
        )
    return target  # type: ignore[no-any-return]


_Verdict = tuple[CheckStatus, float | None, str, dict[str, JsonValue]]


def _fail(reason: str, **details: JsonValue) -> _Verdict:
    return ("fail", 0.0, reason, dict(details))


def _binary(ok: bool, reason: str, **details: JsonValue) -> _Verdict:
    return ("pass" if ok else "fail", 1.0 if ok else 0.0, reason, dict(details))


_FENCE = re.compile(r"^```[\w-]*\s*\n(.*?)\n?```$", re.DOTALL)


def _answer_verdict(answer: str, criterion: _AnswerCriterion) -> _Verdict:
    if isinstance(criterion, ContainsAllCriterion | ContainsAnyCriterion):
        apply, wanted = criterion.normalized_values
        text = apply(answer)
        return criterion.verdict_for(
            tuple([v for v, n in zip(criterion.values, wanted, strict=True) if n in text])
        )
    if isinstance(criterion, RegexCriterion):
        try:
            match = search(criterion.pattern, answer, ignore_case=criterion.ignore_case)
        except PatternTimeout as exc:
            return ("error", None, str(exc), {"pattern": criterion.pattern})
        if match is not None:
            return _binary(True, f"/{criterion.pattern}/ found: {render_value(match)}")
        return _binary(False, f"/{criterion.pattern}/ not found in the answer")
    if isinstance(criterion, NumberCriterion):
        tolerance = max(criterion.abs, criterion.rel * abs(criterion.value))
        target = f"{criterion.value:g} ± {tolerance:g}"
        if criterion.extract == "whole":
            try:
                numbers = [float(answer.strip().replace(",", ""))]
            except ValueError:
                return _fail(f"the answer is not a single number (expected {target})")
        else:
            numbers = extract_numbers(answer)
            if criterion.extract == "first":
                numbers = numbers[:1]
        if not numbers:
            return _fail(f"no number in the answer (expected {target})")
        hits = [x for x in numbers if abs(x - criterion.value) <= tolerance]
        shown = ", ".join(f"{x:g}" for x in numbers[:8])
        if hits:
            return _binary(True, f"found {hits[0]:g}, within {target}", numbers=list(numbers))
        return _binary(
            False,
            f"{criterion.extract} number(s) {shown} not within {target}",
            numbers=list(numbers),
        )
    if isinstance(criterion, JsonSchemaCriterion):
        text = answer.strip()
        fenced = _FENCE.match(text)
        if fenced:
            text = fenced.group(1)
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            return _fail(
                f"the answer is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            )
        problems = _schema_mismatches(_make_validator(criterion.json_schema), document)
        if problems:
            listed = "; ".join(p.render() for p in problems[:5])
            return _fail(f"the answer JSON does not validate: {listed}")
        return _binary(True, "the answer is JSON that validates against the schema")
    raise TypeError(f"not an answer criterion: {type(criterion).__name__}")


def _one_answer(answer: str | None, criterion: _AnswerCriterion, missing: str) -> _Verdict:
    if answer is None or not answer.strip():
        return _fail(missing)
    if not criterion.allow_refusal:
        refusal = refusal_words(answer)
        if refusal is not None:
            return _fail(
                f"the answer is a refusal but this task expects an answer: it says "
                f"{render_value(refusal, 80)} (allow_refusal: true accepts a refusal)"
            )
    return _answer_verdict(answer, criterion)


def _over_replies(
    run: RunRecord, over: AnswerSource, one: Callable[[str | None], _Verdict]
) -> _Verdict:
    """``one`` (the verdict on one text, None = no text) applied as ``over`` says."""
    texts = [reply.text for reply in run.replies if reply.text.strip()]
    if over == "all_replies":
        status, score, reason, details = one("\n\n".join(texts) if texts else None)
        return status, score, f"over {len(texts)} replies joined: {reason}", details
    if over == "any_reply":
        last: _Verdict = one(None)
        for index, text in enumerate(texts):
            last = one(text)
            if last[0] == "pass":
                status, score, reason, details = last
                return status, score, f"reply {index + 1} of {len(texts)}: {reason}", details
        if texts:
            status, score, reason, details = last
            return (
                status,
                score,
                f"none of {len(texts)} replies passes; the last: {reason}",
                details,
            )
        return last
    raise ValueError(f"not a reply source: {over}")


def _verdict(run: RunRecord, criterion: SuccessCriterion) -> _Verdict:
    answer = run.final_answer if run.final_answer and run.final_answer.strip() else None
    if isinstance(
        criterion,
        ContainsAllCriterion
        | ContainsAnyCriterion
        | RegexCriterion
        | NumberCriterion
        | JsonSchemaCriterion,
    ):
        if criterion.over != "final_answer":
            answer_criterion = criterion
            return _over_replies(
                run,
                criterion.over,
                lambda text: _one_answer(text, answer_criterion, "no reply to the user"),
            )
        return _one_answer(answer, criterion, "no final answer")
    if isinstance(criterion, RefusalCriterion):
        if criterion.over != "final_answer":
            refusal = criterion
            return _over_replies(
                run, criterion.over, lambda text: _refusal(text, refusal, "no reply to the user")
            )
        return _refusal(answer, criterion, "no final answer")
    if isinstance(criterion, CallableCriterion):
        return _call(run, criterion)
    if isinstance(criterion, AllOfCriterion):
        return _all_of(run, criterion)
    if isinstance(criterion, AnyOfCriterion):
        return _any_of(run, criterion)
    assert_never(criterion)


def _refusal(answer: str | None, criterion: RefusalCriterion, missing: str) -> _Verdict:
    if answer is None or not answer.strip():
        return _fail(f"{missing} (expected the agent to {criterion.expect})")
    words = refusal_words(answer, criterion.phrases, criterion.scope_words)
    if criterion.expect == "refuse":
        if words is not None:
            return _binary(True, f"the answer refuses: it says {render_value(words, 80)}")
        return _fail(_no_refusal_found(answer, criterion))
    if words is None:
        return _binary(True, "the answer does not refuse")
    hint = (
        "scope_words decide which refusals count"
        if criterion.scope_words
        else "scope_words: [...] counts only a refusal that names one of them"
    )
    return _fail(f"expected an answer, got a refusal: it says {render_value(words, 80)} ({hint})")


def _no_refusal_found(answer: str, criterion: RefusalCriterion) -> str:
    """Why ``answer`` is no refusal under ``criterion``, naming the fields that decide it (the answer
    itself is quoted once, by the run's failure summary)."""
    if criterion.scope_words:
        words = refusal_words(answer, criterion.phrases)
        if words is not None:
            listed = ", ".join(render_value(w, 40) for w in criterion.scope_words[:5])
            return (
                f"expected a refusal: the answer says {render_value(words, 80)} but names none of "
                f"the criterion's scope_words ({listed})"
            )
    among = "the built-in refusal forms"
    if criterion.phrases:
        listed = ", ".join(render_value(p, 40) for p in criterion.phrases[:5])
        more = f", +{len(criterion.phrases) - 5} more" if len(criterion.phrases) > 5 else ""
        among += f" nor the criterion's phrases ({listed}{more})"
    return (
        f"expected a refusal, but the answer holds none of {among}; if the agent refuses in other "
        "words, list them under the criterion's phrases:"
    )


def _call(run: RunRecord, criterion: CallableCriterion) -> _Verdict:
    name = criterion.function
    if not criterion.permitted:
        return ("error", None, not_allowed_message(name), {"callable": name, "allowed": False})
    try:
        function = load_callable(name)
    except SuiteError as exc:
        return ("error", None, exc.message, {"callable": name})
    try:
        result = function(run, **criterion.params)
    except BaseException as exc:  # user code must not stop grading, whatever it raises
        if stops_grading(exc):  # but a Ctrl-C does
            raise
        return ("error", None, f"{name} raised {describe_exception(exc)}", {"callable": name})
    if isinstance(result, bool):
        return _binary(result, f"{name} returned {result}", callable=name)
    if (
        isinstance(result, tuple)
        and len(result) == 2
        and isinstance(result[0], bool)
        and isinstance(result[1], str)
    ):
        said = result[1] if len(result[1]) <= 500 else result[1][:500] + "…"
        return _binary(result[0], f"{name}: {said}", callable=name)
    if isinstance(result, int | float) and 0.0 <= result <= 1.0:
        score = float(result)
        ok = score >= criterion.pass_at
        return (
            "pass" if ok else "fail",
            score,
            f"{name} scored {score:g} ({'at or above' if ok else 'below'} pass_at {criterion.pass_at:g})",
            {"callable": name},
        )
    try:
        shown = render_value(repr(result))
    except BaseException:  # a user object whose __repr__ raises
        shown = f"a {type(result).__name__}"
    return (
        "error",
        None,
        f"{name} returned {shown}; expected a bool, a (bool, reason) pair or a float in [0, 1]",
        {"callable": name},
    )


def _scored_parts(
    run: RunRecord, criterion: _PartsCriterion
) -> Iterator[tuple[SubGoal, CheckStatus, float, str]]:
    """Each part of ``criterion`` with its status, its score (the part's own, else 1.0 for a pass
    and 0.0 otherwise) and its reason."""
    for part in criterion.parts:
        status, score, reason, _ = _verdict(run, part.criterion)
        value = score if score is not None else (1.0 if status == "pass" else 0.0)
        yield part, status, value, reason


def _all_of(run: RunRecord, criterion: AllOfCriterion) -> _Verdict:
    total = sum(part.weight for part in criterion.parts)
    earned = 0.0
    met: list[str] = []
    unmet: list[str] = []
    errored: list[str] = []
    parts: list[JsonValue] = []
    for part, status, value, reason in _scored_parts(run, criterion):
        if status == "error":
            errored.append(f"{part.name} ({reason})")
            value = 0.0
        elif status == "pass":
            met.append(part.name)
        else:
            unmet.append(f"{part.name} ({reason})")
        earned += part.weight * value
        parts.append(
            {
                "name": part.name,
                "status": status,
                "score": value,
                "weight": part.weight,
                "reason": reason,
            }
        )
    partial = earned / total
    binary = 1.0 if not unmet and not errored else 0.0
    reason = f"{len(met)} of {len(criterion.parts)} sub-goals met"
    if met:
        reason += f" ({', '.join(met)})"
    if unmet:
        reason += f"; unmet: {'; '.join(unmet)}"
    if errored:
        reason += f"; could not check: {'; '.join(errored)}"
    reason += f"; binary {binary:.2f}, partial {partial:.2f}"
    details: dict[str, JsonValue] = {"binary": binary, "partial": partial, "parts": parts}
    if errored:
        return ("error", None, reason, details)
    return ("pass" if binary == 1.0 else "fail", partial, reason, details)


def _any_of(run: RunRecord, criterion: AnyOfCriterion) -> _Verdict:
    met: list[tuple[str, float]] = []
    unmet: list[tuple[str, float, str]] = []
    errored: list[str] = []
    parts: list[JsonValue] = []
    for part, status, value, reason in _scored_parts(run, criterion):
        if status == "error":
            errored.append(f"{part.name} ({reason})")
        elif status == "pass":
            met.append((part.name, value))
        else:
            unmet.append((part.name, value, reason))
        parts.append(
            {
                "name": part.name,
                "status": status,
                "score": None if status == "error" else value,
                "reason": reason,
            }
        )
    n = len(criterion.parts)
    details: dict[str, JsonValue] = {"parts": parts}
    if met:
        best = max(met, key=lambda item: item[1])
        reason = f"{len(met)} of {n} alternatives met ({', '.join(name for name, _ in met)})"
        reason += f"; best {best[0]} scores {best[1]:.2f}"
        details["best"] = best[0]
        return ("pass", best[1], reason, details)
    reason = f"none of {n} alternatives met"
    if unmet:
        reason += ": " + "; ".join(f"{name} ({why})" for name, _, why in unmet)
    if errored:
        reason += f"; could not check: {'; '.join(errored)}"
        return ("error", None, reason, details)
    best_unmet = max(unmet, key=lambda item: item[1])
    details["best"] = best_unmet[0]
    return ("fail", best_unmet[1], reason + f"; best partial {best_unmet[1]:.2f}", details)


def check_outcome(run: RunRecord, criterion: SuccessCriterion) -> CheckResult:
    """Apply a success criterion to a run: ``outcome.<kind>`` on the ``goal_completion`` axis.

    The status is binary (``pass``/``fail``), or ``error`` when a callable could not be imported,
    raised, or returned something else than documented; the score is 1/0, the callable's float, or
    the partial credit of ``all_of`` / ``any_of``.
    """
    kind = type(criterion)
    if kind is ContainsAllCriterion or kind is ContainsAnyCriterion:
        contains = cast(_ContainsCriterion, criterion)
        if contains.over == "final_answer":
            shared = contains.outcome_of(run.final_answer)
            if shared is not None:
                return shared
    return _checked_outcome(run, criterion)


def _checked_outcome(run: RunRecord, criterion: SuccessCriterion) -> CheckResult:
    """:func:`check_outcome` without the shared results of the contains criteria (the plain path)."""
    status, score, reason, details = _verdict(run, criterion)
    return CheckResult(
        check=f"outcome.{criterion.kind}",
        axis="goal_completion",
        status=status,
        score=score,
        reason=reason,
        details=details,
    )
