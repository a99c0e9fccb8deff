"""The result type every deterministic check returns, and the five axes it is filed under.

:class:`CheckResult` is immutable all the way down: its ``details`` are frozen JSON (a
:class:`FrozenDict` of :class:`FrozenList` s and scalars), so a result shared between runs (a cached
"no tool errors" result, say) can never be changed through one run's grade. ``dict(details)`` or
:func:`thaw` gives a mutable copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, Self, cast, get_args

from pathjudge._records import field_values

__all__ = [
    "AXES",
    "Axis",
    "CheckResult",
    "CheckStatus",
    "FrozenDict",
    "FrozenList",
    "describe_exception",
    "errored",
    "freeze",
    "pass_fail",
    "passing",
    "thaw",
]

Axis = Literal[
    "tool_selection",
    "argument_correctness",
    "step_efficiency",
    "error_recovery",
    "goal_completion",
]
AXES: tuple[Axis, ...] = get_args(Axis)

CheckStatus = Literal["pass", "fail", "not_run", "error"]
"""``not_run``: the check was skipped (fast mode, no judge); ``error``: the check itself broke."""

_STATUSES = frozenset(("pass", "fail", "not_run", "error"))
_AXES = frozenset(AXES)


def _immutable(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is immutable; copy it with dict()/list() first")


class _Frozen:
    """What :class:`FrozenDict` and :class:`FrozenList` share: pickled as their class over a plain
    copy of the contents (``_plain``), and copied (shallow or deep) as themselves."""

    __slots__ = ()
    _plain: type

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._plain(self),))

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: object) -> Self:
        return self


class FrozenDict(_Frozen, dict[str, Any]):
    """A ``dict`` that cannot be changed (it still compares, serialises and pickles as a dict)."""

    __slots__ = ()
    _plain = dict
    __setitem__ = __delitem__ = _immutable
    clear = pop = popitem = setdefault = update = __ior__ = _immutable


class FrozenList(_Frozen, list[Any]):
    """A ``list`` that cannot be changed (it still compares, serialises and pickles as a list)."""

    __slots__ = ()
    _plain = list
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _immutable
    append = extend = insert = pop = remove = clear = sort = reverse = _immutable


_SCALARS = frozenset((str, int, float, bool, type(None)))
_dict_set = dict.__setitem__
_list_set = list.__setitem__


def freeze(value: Any) -> Any:
    """A deep, immutable copy of JSON-like ``value`` (dicts and lists/tuples frozen; scalars kept)."""
    kind = type(value)
    if kind is dict:
        out = FrozenDict(value)
        for key, item in value.items():
            if type(key) is not str:
                return _freeze_mapping(value)
            if type(item) not in _SCALARS:
                _dict_set(out, key, freeze(item))
        return out
    if kind is list or kind is tuple:
        items = FrozenList(value)
        for index, item in enumerate(value):
            if type(item) not in _SCALARS:
                _list_set(items, index, freeze(item))
        return items
    if kind in _SCALARS or kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, Mapping):
        return _freeze_mapping(value)
    if isinstance(value, list | tuple):
        return FrozenList([freeze(item) for item in value])
    return value


def _freeze_mapping(value: Mapping[Any, Any]) -> FrozenDict:
    return FrozenDict({str(key): freeze(item) for key, item in value.items()})


def thaw(value: Any) -> Any:
    """A deep, mutable, plain copy of frozen JSON (plain dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True, init=False)
class CheckResult:
    """One check on one run: status, an optional 0..1 score, and a reason that reproduces it.

    - ``check``: dotted check id, e.g. ``tools.required`` or ``arguments.match``;
    - ``axis``: the axis this check counts toward;
    - ``status``: pass / fail / not_run / error (``error``: the check itself broke — undecided,
      never a failure of the agent);
    - ``score``: partial credit in [0, 1], when defined;
    - ``details``: structured evidence (frozen JSON);
    - ``gating``: False for diagnostics that never fail a run.
    """

    check: str
    axis: Axis
    status: CheckStatus
    score: float | None = None
    reason: str = ""
    details: Mapping[str, Any] = field(default_factory=FrozenDict)
    gating: bool = True

    def __init__(
        self,
        check: str,
        axis: Axis,
        status: CheckStatus,
        score: float | None = None,
        reason: str = "",
        details: Mapping[str, Any] | None = None,
        gating: bool = True,
    ) -> None:
        # validated, then the slots set directly (the hot path builds several results per run)
        if status not in _STATUSES:
            raise ValueError(f"check {check!r}: unknown status {status!r}")
        if axis not in _AXES:
            raise ValueError(f"check {check!r}: unknown axis {axis!r}")
        if score is not None and (type(score) is not float or not 0.0 <= score <= 1.0):
            if isinstance(score, bool) or not isinstance(score, int | float):
                raise ValueError(f"check {check!r}: score {score!r} is not a number")
            if not 0.0 <= score <= 1.0:
                raise ValueError(f"check {check!r}: score {score!r} is outside [0, 1]")
            score = float(score)
        _set_check(self, check)
        _set_axis(self, axis)
        _set_status(self, status)
        _set_score(self, score)
        _set_reason(self, reason)
        _set_details(
            self,
            _NO_DETAILS
            if details is None
            else (details if type(details) is FrozenDict else freeze(details)),
        )
        _set_gating(self, gating)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (the shape of the JSON report)."""
        return {**field_values(self), "details": thaw(self.details)}

    def model_dump(self, *, mode: str = "python") -> dict[str, Any]:
        """Same as :meth:`to_dict` (kept for callers written against the earlier Pydantic model)."""
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckResult:
        return cls(**cast(dict[str, Any], dict(data)))


_NO_DETAILS = FrozenDict()
_set_check = CheckResult.__dict__["check"].__set__
_set_axis = CheckResult.__dict__["axis"].__set__
_set_status = CheckResult.__dict__["status"].__set__
_set_score = CheckResult.__dict__["score"].__set__
_set_reason = CheckResult.__dict__["reason"].__set__
_set_details = CheckResult.__dict__["details"].__set__
_set_gating = CheckResult.__dict__["gating"].__set__


def describe_exception(exc: BaseException, limit: int = 500) -> str:
    """``Type: message`` of ``exc``, the message cut at ``limit`` characters; never raises (an
    exception whose ``__str__`` itself raises is described by its type alone)."""
    try:
        text = str(exc).strip()
    except Exception:
        text = ""
    if len(text) > limit:
        text = text[:limit] + "…"
    return type(exc).__name__ + (f": {text}" if text else "")


def errored(check: str, axis: Axis, exc: BaseException, *, gating: bool = True) -> CheckResult:
    """The ``error`` result of a check that raised ``exc`` (the check broke; the run is undecided)."""
    return CheckResult(
        check=check,
        axis=axis,
        status="error",
        score=None,
        reason=f"the check broke: {describe_exception(exc)}",
        details=FrozenDict({"exception": type(exc).__name__}),
        gating=gating,
    )


def passing(
    check: str,
    axis: Axis,
    reason: str,
    details: Mapping[str, Any] | None = None,
    *,
    gating: bool = True,
) -> CheckResult:
    """A ``pass`` result with the full score (1.0).

    >>> r = passing("steps.loop", "step_efficiency", "no loop", {"loops": []})
    >>> r.status, r.score, r.reason, dict(r.details), r.gating
    ('pass', 1.0, 'no loop', {'loops': []}, True)
    """
    return CheckResult(check, axis, "pass", 1.0, reason, details, gating)


def pass_fail(
    check: str, axis: Axis, ok: bool, reason: str, details: Mapping[str, Any] | None = None
) -> CheckResult:
    """A binary result: ``pass`` scoring 1.0 when ``ok``, else ``fail`` scoring 0.0.

    >>> passed, failed = (pass_fail("x", "tool_selection", ok, "") for ok in (True, False))
    >>> (passed.status, passed.score), (failed.status, failed.score)
    (('pass', 1.0), ('fail', 0.0))
    """
    return CheckResult(check, axis, "pass" if ok else "fail", 1.0 if ok else 0.0, reason, details)
