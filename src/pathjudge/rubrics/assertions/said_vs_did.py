"""Said vs did: the claims an agent makes to the user, held against what its tools sent and returned.

Each reply (and the final answer, when it is not the last reply) is read for claims
(:mod:`.claims`): amounts, ids and codes, dates, counts and completed actions. Each claim must be
backed by the run's tool activity *before* the message (the calls issued before it, their arguments
and results; the task input and the spec's ``known`` values count from the start):

- an amount by a number some call sent or some result returned, compared in cents by absolute value
  (``209 == 209.00 == "$209"``, a refund of ``-6594`` backs ``$6,594``; a whole amount also matches a
  number that rounds to it), or by the sum of one numeric field over a list of records in one result
  (the prices of a reservation's flights back its total);
- an id by the same token (case-insensitive) in an argument or result, or a ``_``/``-`` part of one;
- a date by the same day written anywhere in the tool data (any format :mod:`.claims` reads);
- a count by an equal number, or the length of a list or mapping, in the tool data; only a count of
  a noun the tools' data name (a key such as ``passengers`` for ``one passenger``) is checked;
- an action by a successful call (not an errored result) of a tool that does it (:data:`BACKED_BY`):
  what a tool does is declared in the spec's ``tools``, else read from its name
  (:func:`default_actions`: ``cancel_reservation`` cancels); a participle that a tool returned as a
  status value (``"status": "cancelled"``) is a restatement and backed too.

A run with no claim is ``not_run``. Each unbacked claim is named with its sentence and the nearest
evidence (the closest number, id or date and the call it came from, or the calls of tools that do
the action).
"""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions._regex import builtin_pattern
from pathjudge.rubrics.assertions.base import CheckResult, passing
from pathjudge.rubrics.assertions.claims import (
    _DATE,
    _TOKEN,
    CLAIM_KINDS,
    Claim,
    ClaimKind,
    extract_claims,
    parse_date,
    split_parts,
)
from pathjudge.rubrics.scope import matches_any

__all__ = [
    "BACKED_BY",
    "TOOL_ACTIONS",
    "CompiledSaidVsDid",
    "Evidence",
    "SaidVsDidSpec",
    "ToolAction",
    "ToolDoes",
    "check_said_vs_did",
    "compile_said_vs_did",
    "default_actions",
]

ToolAction = Literal[
    "cancel", "refund", "book", "update", "send", "transfer", "delete", "create", "pay"
]
TOOL_ACTIONS: tuple[ToolAction, ...] = (
    "cancel",
    "refund",
    "book",
    "update",
    "send",
    "transfer",
    "delete",
    "create",
    "pay",
)

BACKED_BY: dict[str, frozenset[str]] = {
    "cancel": frozenset({"cancel"}),
    "refund": frozenset({"refund", "cancel", "update"}),  # a cancellation or a change refunds
    "book": frozenset({"book", "create"}),
    "update": frozenset({"update"}),
    "send": frozenset({"send"}),
    "transfer": frozenset({"transfer"}),
    "delete": frozenset({"delete", "cancel", "update"}),  # removing a bag is a change
    "create": frozenset({"create", "book", "update"}),  # adding a bag is a change
    "pay": frozenset({"pay", "book", "update"}),  # a booking or a change charges
}
"""For each claimed action, the tool actions a successful call of which backs it."""

_NAME_WORDS: dict[str, ToolAction] = {
    "cancel": "cancel",
    "refund": "refund",
    "book": "book",
    "reserve": "book",
    "update": "update",
    "modify": "update",
    "change": "update",
    "edit": "update",
    "set": "update",
    "upgrade": "update",
    "downgrade": "update",
    "reschedule": "update",
    "reset": "update",
    "send": "send",
    "email": "send",
    "notify": "send",
    "message": "send",
    "reply": "send",
    "forward": "send",
    "transfer": "transfer",
    "delete": "delete",
    "remove": "delete",
    "create": "create",
    "add": "create",
    "register": "create",
    "schedule": "create",
    "new": "create",
    "place": "create",
    "pay": "pay",
    "charge": "pay",
    "purchase": "pay",
    "buy": "pay",
    "checkout": "pay",
}
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_KEY_WORDS = re.compile(r"[a-z]{3,}")


def default_actions(tool: str) -> frozenset[ToolAction]:
    """What a tool does, read from the words of its name (``cancel_reservation``: cancel;
    ``AddAlarm``: create; ``get_user_details``: nothing).

    >>> sorted(default_actions("update_reservation_flights"))
    ['update']
    >>> sorted(default_actions("SendEmail"))
    ['send']
    """
    words = (word.lower() for word in _CAMEL.findall(tool))
    return frozenset(_NAME_WORDS[w] for w in words if w in _NAME_WORDS)


class ToolDoes(BaseModel):
    """What a tool does (``tools: {cancel_reservation: {does: cancel}}``); replaces its name's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    does: tuple[ToolAction, ...] = Field(
        description="The actions a successful call of the tool performs ([] : none)."
    )

    @field_validator("does", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value


class SaidVsDidSpec(BaseModel):
    """The said-vs-did check of a task (``said_vs_did:``; ``{}`` enables it with its defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claims: tuple[ClaimKind, ...] = Field(
        default=CLAIM_KINDS,
        description="The kinds of claim checked: amount, id, date, count, action (default all).",
    )
    over: Literal["replies", "final_answer"] = Field(
        default="replies",
        description="replies: every message to the user and the final answer; final_answer: it only.",
    )
    tools: dict[str, ToolDoes] = Field(
        default_factory=dict,
        description="What tools do, by name or glob pattern (default: read from each tool's name).",
    )
    known: tuple[str, ...] = Field(
        default=(),
        description="Values backed without a tool call (policy fees, a support number): any text "
        "whose numbers, ids and dates then count as known.",
    )
    gating: bool = Field(
        default=True, description="Whether an unbacked claim fails the run (false: reported only)."
    )


@dataclass(frozen=True, slots=True)
class CompiledSaidVsDid:
    """A spec compiled once per task: the kinds checked, the known values, the action resolver."""

    spec: SaidVsDidSpec
    kinds: frozenset[ClaimKind]
    known: tuple[str, ...]
    patterns: tuple[tuple[str, frozenset[ToolAction]], ...]
    _cache: dict[str, frozenset[ToolAction]] = field(default_factory=dict, compare=False)

    def actions(self, tool: str) -> frozenset[ToolAction]:
        """What a tool does: the first declared pattern that matches it, else its name's words."""
        found = self._cache.get(tool)
        if found is None:
            found = next(
                (does for pattern, does in self.patterns if matches_any(tool, (pattern,))),
                None,
            )
            if found is None:
                found = default_actions(tool)
            if len(self._cache) < 4096:
                self._cache[tool] = found
        return found


def compile_said_vs_did(spec: SaidVsDidSpec) -> CompiledSaidVsDid:
    """Compile a spec once for grading many runs."""
    patterns = tuple((name, frozenset(does.does)) for name, does in spec.tools.items())
    return CompiledSaidVsDid(spec, frozenset(spec.claims), spec.known, patterns)


# --------------------------------------------------------------------------------------------------
# Evidence: what the run's tools sent and returned, each value with the first call that had it

_KNOWN = -1  # the task input and the spec's known values: there from the start


class Evidence:
    """Every number, id token, date, list length and key word of a run's tool data, each with the
    index of the first call that sent or returned it (:data:`_KNOWN` for the input and known values).

    Building it is linear in the size of the tool data; a lookup is a dictionary read.
    """

    def __init__(self) -> None:
        self.cents: dict[int, int] = {}
        self.whole: dict[int, int] = {}
        self.tokens: dict[str, int] = {}
        self.dates: dict[tuple[int, int, int], int] = {}
        self.days: dict[tuple[int, int], int] = {}
        self.sizes: dict[int, int] = {}
        self.statuses: dict[str, int] = {}
        self.words: set[str] = set()
        self.acts: dict[str, int] = {}
        self.collections: dict[str, tuple[list[int], list[int]]] = {}

    @staticmethod
    def _put(table: dict[Any, int], key: Any, index: int) -> None:
        if key not in table:
            table[key] = index

    def number(self, value: float, index: int) -> None:
        value = abs(value)
        if value != value or value > 1e15:  # NaN or beyond cents
            return
        self._put(self.cents, round(value * 100), index)
        self._put(self.whole, int(value + 0.5), index)

    def text(self, text: str, index: int) -> None:
        """The numbers, tokens and dates written in a string."""
        if len(text) <= 40:
            self._put(self.statuses, text.strip().casefold(), index)
        for match in builtin_pattern(_DATE).finditer(text):
            for year, month, day in parse_date(match):
                self._put(self.dates, (year, month, day), index)
                self._put(self.days, (month, day), index)
        for match in _TOKEN.finditer(text):
            token = match.group(0).casefold()
            self._put(self.tokens, token, index)
            for part in split_parts(token):
                self._put(self.tokens, part, index)
        for match in _NUMBERS.finditer(text):
            try:
                self.number(float(match.group(0).replace(",", "")), index)
            except ValueError:
                continue

    def value(self, value: Any, index: int) -> None:
        """A JSON value sent or returned by call ``index`` (a string holding JSON is read as JSON)."""
        stack = [_decoded(value)]
        while stack:
            item = stack.pop()
            if isinstance(item, bool) or item is None:
                continue
            if isinstance(item, int | float):
                self.number(item, index)
            elif isinstance(item, str):
                self.text(item, index)
            elif isinstance(item, Mapping):
                self._put(self.sizes, len(item), index)
                for key, child in item.items():
                    words = [_stem(word) for word in _KEY_WORDS.findall(str(key).lower())]
                    self.words.update(words)
                    if isinstance(child, list | Mapping):
                        self._collection(words, len(child), index)
                    self.text(str(key), index)
                    stack.append(child)
            elif isinstance(item, list | tuple):
                self._put(self.sizes, len(item), index)
                self._sums(item, index)
                stack.extend(item)

    def _collection(self, words: list[str], size: int, index: int) -> None:
        """A list or mapping under a key: for each word of the key, the largest size seen by each
        call (a staircase of ``(first call, size)`` rising in both)."""
        for word in words:
            calls, sizes = self.collections.setdefault(word, ([], []))
            if not sizes or size > sizes[-1]:
                if calls and calls[-1] == index:
                    sizes[-1] = size
                else:
                    calls.append(index)
                    sizes.append(size)

    def largest(self, word: str, calls: int) -> int | None:
        """The largest list or mapping under a key with ``word`` in the first ``calls`` calls."""
        found = self.collections.get(word)
        if found is None:
            return None
        position = bisect_left(found[0], calls)
        return found[1][position - 1] if position else None

    def _sums(self, items: Sequence[Any], index: int) -> None:
        """The total of each numeric field over a list of two or more records."""
        if len(items) < 2 or not all(isinstance(item, Mapping) for item in items):
            return
        totals: dict[str, float] = {}
        for item in items:
            for key, child in item.items():
                if isinstance(child, int | float) and not isinstance(child, bool):
                    totals[key] = totals.get(key, 0.0) + child
        for total in totals.values():
            self.number(total, index)


_NUMBERS = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3}){1,5}|\d{1,15})(?:\.\d{1,6})?(?![\d])")


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        stripped = value.lstrip()[:1]
        if stripped in ("{", "["):
            try:
                return json.loads(value)
            except (ValueError, RecursionError):
                return value
    return value


def build_evidence(run: RunRecord, compiled: CompiledSaidVsDid) -> Evidence:
    """The evidence of a run: the input and known values, then each call's arguments and result."""
    evidence = Evidence()
    evidence.value(run.input, _KNOWN)
    for known in compiled.known:
        evidence.text(known, _KNOWN)
    for index, step in enumerate(run.steps):
        evidence.value(step.arguments, index)
        if step.raw_arguments is not None:
            evidence.text(step.raw_arguments, index)
        evidence.value(step.result, index)
        if not step.is_error:
            does = compiled.actions(step.tool)
            for claimed, backers in BACKED_BY.items():
                if not backers.isdisjoint(does):
                    evidence._put(evidence.acts, claimed, index)
            if "create" in evidence.acts and "delete" in evidence.acts:
                evidence._put(evidence.acts, "update", index)  # a replacement: removed and re-added
    return evidence


# --------------------------------------------------------------------------------------------------
# The check


@dataclass(frozen=True, slots=True)
class _Unbacked:
    claim: Claim
    message: int  # 1-based reply number; 0: the final answer
    nearest: str


def _messages(run: RunRecord, over: str) -> Iterator[tuple[int, str, int]]:
    """``(message number, text, calls before it)``: the replies (1-based), then the final answer
    (0) when it is not the last reply's text; with ``over: final_answer`` the final answer alone."""
    final = run.final_answer
    if over == "replies":
        for number, reply in enumerate(run.replies, start=1):
            yield number, reply.text, reply.after_steps
        if final and (not run.replies or run.replies[-1].text != final):
            yield 0, final, len(run.steps)
    elif final:
        yield 0, final, len(run.steps)


def _known_before(table: Mapping[Any, int], key: Any, calls: int) -> bool:
    first = table.get(key)
    return first is not None and first < calls


def _backed(claim: Claim, calls: int, evidence: Evidence) -> bool | None:
    """Whether ``claim`` is backed by the first ``calls`` calls; None: not a claim to check."""
    kind, value = claim.kind, claim.value
    if kind == "amount":
        assert isinstance(value, int)
        whole = value % 100 == 0 and _known_before(evidence.whole, value // 100, calls)
        return whole or _known_before(evidence.cents, value, calls)
    if kind == "id":
        return _known_before(evidence.tokens, value, calls)
    if kind == "date":
        assert isinstance(value, tuple)
        return any(
            _known_before(evidence.dates, (y, m, d), calls)
            if y
            else _known_before(evidence.days, (m, d), calls)
            for y, m, d in value
        )
    if kind == "count":
        return _count_backed(claim, calls, evidence)
    assert kind == "action"
    if _known_before(evidence.statuses, claim.noun, calls):
        return True
    return _known_before(evidence.acts, value, calls)


def _count_backed(claim: Claim, calls: int, evidence: Evidence) -> bool | None:
    """A count of a noun that names a list in the tool data is backed when some such list is at
    least as long (a count of part of a list: "two upcoming flights" of five); of a noun that names
    another key, when the same number is in the tool data; of anything else, not checked (None)."""
    n = claim.value
    assert isinstance(n, int)
    stems = [_stem(word) for word in claim.noun.split()]
    largest = [
        size for size in (evidence.largest(stem, calls) for stem in stems) if size is not None
    ]
    if largest:
        return n <= max(largest) or _known_before(evidence.cents, n * 100, calls)
    if not any(stem in evidence.words for stem in stems):
        return None  # a count of something the tools' data never name
    return _known_before(evidence.sizes, n, calls) or _known_before(evidence.cents, n * 100, calls)


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def check_said_vs_did(run: RunRecord, plan: CompiledSaidVsDid) -> CheckResult:
    """``outcome.said_vs_did``: every claim of the run's messages backed by its tool activity
    (score: the share backed). No message, or no claim of the kinds checked: ``not_run``."""
    evidence: Evidence | None = None
    total = 0
    unbacked: list[_Unbacked] = []
    messages = 0
    for number, text, calls in _messages(run, plan.spec.over):
        messages += 1
        seen: set[tuple[str, object, str]] = set()
        for claim in extract_claims(text):
            key = (claim.kind, claim.value, claim.noun)
            if claim.kind not in plan.kinds or key in seen:
                continue  # a claim repeated in one message is one claim
            seen.add(key)
            if evidence is None:
                evidence = build_evidence(run, plan)
            calls = min(calls, len(run.steps))
            found = _backed(claim, calls, evidence)
            if found is None:
                continue
            total += 1
            if not found:
                near = _nearest(claim, calls, evidence, run, plan) if len(unbacked) < 5 else ""
                unbacked.append(_Unbacked(claim, number, near))
    return _result(total, messages, unbacked, plan.spec.gating)


def _call(run: RunRecord, index: int) -> str:
    return (
        "the task input or known values"
        if index == _KNOWN
        else f"call #{index + 1} {run.steps[index].tool}"
    )


def _nearest(
    claim: Claim, calls: int, evidence: Evidence, run: RunRecord, plan: CompiledSaidVsDid
) -> str:
    """The closest evidence to an unbacked claim, and where it came from ('' when there is none)."""
    kind, value = claim.kind, claim.value
    if kind in ("amount", "count"):
        assert isinstance(value, int)
        target = value if kind == "amount" else value * 100
        seen = [(k, i) for k, i in evidence.cents.items() if i < calls]
        if not seen:
            return "no number in the tool data before it"
        key, index = min(seen, key=lambda item: (abs(item[0] - target), item[0]))
        return f"nearest number {_money(key)} ({_call(run, index)})"
    if kind == "id":
        seen_ids = [token for token, i in evidence.tokens.items() if i < calls and len(token) >= 3]
        close = difflib.get_close_matches(str(value), seen_ids[:5000], n=1, cutoff=0.5)
        if not close:
            return "no similar id in the tool data before it"
        return f"nearest id {close[0]!r} ({_call(run, evidence.tokens[close[0]])})"
    if kind == "date":
        assert isinstance(value, tuple)
        return _nearest_date(value[0], calls, evidence, run)
    return _nearest_action(str(value), calls, run, plan)


def _money(cents: int) -> str:
    return f"{cents // 100}" if cents % 100 == 0 else f"{cents / 100:.2f}"


def _nearest_date(
    claimed: tuple[int, int, int], calls: int, evidence: Evidence, run: RunRecord
) -> str:
    def ordinal(day: tuple[int, int, int]) -> int | None:
        try:
            return date(day[0] or 2000, day[1], day[2]).toordinal()
        except ValueError:
            return None

    target = ordinal(claimed)
    seen: list[tuple[tuple[int, int, int], int, int]] = []
    for day, index in evidence.dates.items():
        at = ordinal((day[0] or claimed[0], day[1], day[2])) if index < calls else None
        if at is not None:
            seen.append((day, index, at))
    if target is None or not seen:
        return "no date in the tool data before it"
    day, index, _ = min(seen, key=lambda item: abs(item[2] - target))
    return f"nearest date {day[0]:04d}-{day[1]:02d}-{day[2]:02d} ({_call(run, index)})"


def _nearest_action(action: str, calls: int, run: RunRecord, plan: CompiledSaidVsDid) -> str:
    backers = BACKED_BY[action]
    doers = [
        (i, step)
        for i, step in enumerate(run.steps[:calls])
        if not backers.isdisjoint(plan.actions(step.tool))
    ]
    if doers:
        listed = ", ".join(
            f"call #{i + 1} {step.tool}" + (" returned an error" if step.is_error else "")
            for i, step in doers[:3]
        )
        return f"tools that would do it: {listed}"
    later = [
        i
        for i, step in enumerate(run.steps)
        if i >= calls and not step.is_error and not backers.isdisjoint(plan.actions(step.tool))
    ]
    if later:
        return f"no call that does it before the message (call #{later[0] + 1} {run.steps[later[0]].tool} came later)"
    return f"no successful call of a tool that does {action!r} (declare one in said_vs_did.tools)"


def _result(total: int, messages: int, unbacked: list[_Unbacked], gating: bool) -> CheckResult:
    if not total:
        return CheckResult(
            check="outcome.said_vs_did",
            axis="goal_completion",
            status="not_run",
            reason=f"no claim about tool activity in {messages} message{'s' if messages != 1 else ''}",
            gating=gating,
        )
    backed = total - len(unbacked)
    if not unbacked:
        return passing(
            check="outcome.said_vs_did",
            axis="goal_completion",
            reason=f"all {total} claims about tool activity are backed by the run's tool calls and results",
            details={"claims": total, "unbacked": []},
            gating=gating,
        )
    listed = "; ".join(_describe(item) for item in unbacked[:3])
    more = f"; and {len(unbacked) - 3} more" if len(unbacked) > 3 else ""
    return CheckResult(
        check="outcome.said_vs_did",
        axis="goal_completion",
        status="fail",
        score=backed / total,
        reason=f"{len(unbacked)} of {total} claims about tool activity are not backed: {listed}{more}",
        details={
            "claims": total,
            "unbacked": [
                {
                    "kind": item.claim.kind,
                    "claim": item.claim.text,
                    "message": item.message,
                    "sentence": item.claim.sentence,
                    "nearest": item.nearest,
                }
                for item in unbacked[:20]
            ],
        },
        gating=gating,
    )


def _describe(item: _Unbacked) -> str:
    where = "the final answer" if item.message == 0 else f"reply {item.message}"
    text = item.claim.sentence
    return f"{item.claim.kind} {item.claim.text!r} in {where} ({text!r}): {item.nearest}"
