"""Runs built from a suite itself, to grade the suite with: null agents and the reference replayed.

A suite is sound when no agent that does no work passes it and the runs it describes as right do pass.
This module builds those runs; :mod:`pathjudge.scoring.audit` grades them. Every run is a function of
the suite and a seed: the same suite and seed give the same runs.

Null agents (:data:`NULL_AGENTS`), one run per task each:

- ``do_nothing``: no call, an empty answer;
- ``refuse``: no call, a refusal the built-in recogniser reads as one (:data:`REFUSAL_REPLY`); not
  applicable to a task that expects a refusal (``kind: out_of_scope`` or ``success: {kind: refusal}``);
- ``echo``: no call, the task's input as the answer; not applicable to a task without an input;
- ``random_tools``: one to three calls of tools the suite names, drawn with a seeded generator, with
  arguments of the right types (the tool's declared JSON schema where the suite has one, else the types
  of the values the suite expects), an empty result each, and an empty answer.

The reference replayed (:func:`reference_replays`): per reference path of a task, a run that makes the
reference's calls (in an order the path allows), each with arguments that meet the step's matchers and
the task's argument expectations for that tool, and a result that holds the step's ``result_contains``
(and the task's ``surface`` ids, on the last call), then gives the expected answer: a text that meets the
task's success criterion. Values are taken from the suite (``$eq``, ``$one_of``, ``$approx``, literal
values); where a matcher only constrains (``$regex``, ``$type``, a JSON schema) a value is made up and
kept only when the matcher accepts it. What could not be made (a regex no simple guess meets, a
``callable`` criterion) is listed in :attr:`Replay.unmade`: such a replay that fails proves nothing.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import JsonValue

from pathjudge.agent.trajectory import AgentInfo, Reply, RunRecord, Step
from pathjudge.rubrics.assertions.arguments import (
    AllOfMatcher,
    AnyMatcher,
    AnyOfMatcher,
    ApproxMatcher,
    CallExpectation,
    EqMatcher,
    ItemsMatcher,
    KeysMatcher,
    Matcher,
    ObjectMatcher,
    OneOfMatcher,
    RegexMatcher,
    TypeMatcher,
    match_value,
    validate_arguments,
)
from pathjudge.rubrics.assertions.outcome import (
    AllOfCriterion,
    AnyOfCriterion,
    CallableCriterion,
    ContainsAllCriterion,
    ContainsAnyCriterion,
    JsonSchemaCriterion,
    NumberCriterion,
    RefusalCriterion,
    RegexCriterion,
    SuccessCriterion,
    check_outcome,
)
from pathjudge.rubrics.path.spec import (
    ReferencePath,
    ReferenceStep,
    _step_label,
    _topology,
    compile_reference,
)
from pathjudge.rubrics.suite import Suite, Task

__all__ = [
    "NULL_AGENTS",
    "REFUSAL_REPLY",
    "NullAgent",
    "Replay",
    "expects_refusal",
    "null_run",
    "reference_replays",
    "tool_types",
]

NullAgent = Literal["do_nothing", "refuse", "echo", "random_tools"]
NULL_AGENTS: tuple[NullAgent, ...] = get_args(NullAgent)

REFUSAL_REPLY = "I'm sorry, but I can't help with that request."
"""What the ``refuse`` agent says: a plain refusal the built-in recogniser reads as one."""

_AGENT = "pathjudge-audit"
_WORDS = ("alpha", "bravo", "delta", "kilo", "lima", "oscar", "tango", "zulu")
_TYPES = ("string", "integer", "number", "boolean", "array", "object")

ToolTypes = Mapping[str, Mapping[str, tuple[str, ...]]]
"""Tool name → argument name → the JSON types the suite declares or expects for it."""


def expects_refusal(task: Task) -> bool:
    """Whether a refusal is the task's right answer (``kind: out_of_scope``, or a top-level
    ``refusal`` criterion that expects one)."""
    criterion = task.success
    return task.kind == "out_of_scope" or (
        isinstance(criterion, RefusalCriterion) and criterion.expect == "refuse"
    )


def _run(task: Task, name: str, steps: Sequence[Step], answer: str) -> RunRecord:
    """A finished run of ``task`` that makes ``steps`` and then answers ``answer``."""
    return RunRecord(
        run_id=f"{task.id}~{name}",
        task_id=task.id,
        agent=AgentInfo(name=_AGENT, version=name),
        input=task.input,
        steps=tuple(steps),
        final_answer=answer,
        replies=(Reply(text=answer, after_steps=len(steps)),),
        stop_reason="end_turn",
        metadata={"audit": name},
    )


def _input_text(value: JsonValue) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def null_run(task: Task, agent: NullAgent, types: ToolTypes, seed: int = 0) -> RunRecord | None:
    """The run of null agent ``agent`` on ``task`` (see the module docstring), or ``None`` when it
    does not apply. ``types`` is :func:`tool_types` of the suite; ``seed`` feeds ``random_tools``."""
    if agent == "do_nothing":
        return _run(task, agent, (), "")
    if agent == "refuse":
        return None if expects_refusal(task) else _run(task, agent, (), REFUSAL_REPLY)
    if agent == "echo":
        text = _input_text(task.input)
        return None if not text else _run(task, agent, (), text)
    if not types:
        return None
    rng = random.Random(f"{seed}:{task.id}")
    names = sorted(types)
    steps = []
    for turn in range(rng.randint(1, 3)):
        tool = rng.choice(names)
        arguments = {arg: _random_value(kinds, rng) for arg, kinds in sorted(types[tool].items())}
        steps.append(Step(turn=turn, call_id=f"audit-{turn}", tool=tool, arguments=arguments))
    return _run(task, agent, steps, "")


def _random_value(kinds: tuple[str, ...], rng: random.Random) -> JsonValue:
    kind = rng.choice(kinds) if kinds else "string"
    if kind == "integer":
        return rng.randint(-999, 999)
    if kind == "number":
        return round(rng.uniform(-999.0, 999.0), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [rng.choice(_WORDS)]
    if kind == "object":
        return {rng.choice(_WORDS): rng.choice(_WORDS)}
    if kind == "null":
        return None
    return f"{rng.choice(_WORDS)}-{rng.randint(0, 999)}"


# --------------------------------------------------------------------------------------------------
# The types of each tool's arguments


def tool_types(suite: Suite) -> dict[str, dict[str, tuple[str, ...]]]:
    """Per tool the suite names (references, argument expectations, required tools): its arguments
    and their JSON types, from a declared JSON schema where there is one, else from the values and
    matchers the suite expects. Sorted, so a seeded draw is stable."""
    found: dict[str, dict[str, set[str]]] = {}
    for task in suite.tasks:
        expectations: list[CallExpectation] = list(task.arguments)
        expectations += [step for ref in task.references for step in ref.steps]
        for expectation in expectations:
            args = found.setdefault(expectation.tool, {})
            schema = _properties(expectation.json_schema)
            for name, prop in schema.items():
                args.setdefault(name, set()).update(_schema_types(prop))
            for name, matcher in expectation.args.items():
                if name not in schema:
                    args.setdefault(name, set()).update(_matcher_types(matcher))
        for tool in task.tools.required if task.tools is not None else ():
            found.setdefault(tool, {})
    return {
        tool: {arg: tuple(sorted(kinds or {"string"})) for arg, kinds in sorted(args.items())}
        for tool, args in sorted(found.items())
    }


def _properties(schema: Mapping[str, JsonValue] | None) -> dict[str, Mapping[str, JsonValue]]:
    props = schema.get("properties") if schema is not None else None
    if not isinstance(props, dict):
        return {}
    return {name: prop for name, prop in props.items() if isinstance(prop, dict)}


def _schema_types(prop: Mapping[str, JsonValue]) -> set[str]:
    declared = prop.get("type")
    names = declared if isinstance(declared, list) else [declared]
    kinds = {name for name in names if isinstance(name, str) and name in (*_TYPES, "null")}
    if not kinds and isinstance(prop.get("enum"), list):
        kinds = {_kind(value) for value in prop["enum"]}  # type: ignore[union-attr]
    return kinds or {"string"}


def _kind(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else "string"


def _matcher_types(matcher: Matcher) -> set[str]:
    if isinstance(matcher, EqMatcher):
        return {_kind(matcher.value)}
    if isinstance(matcher, OneOfMatcher):
        return {_kind(v) for v in matcher.values if v != ""} or {"string"}
    if isinstance(matcher, ApproxMatcher):
        return {"number"}
    if isinstance(matcher, TypeMatcher):
        return set(matcher.types)
    if isinstance(matcher, KeysMatcher | ObjectMatcher):
        return {"object"}
    if isinstance(matcher, ItemsMatcher):
        return {"array"}
    if isinstance(matcher, AllOfMatcher | AnyOfMatcher):
        return set().union(*(_matcher_types(part) for part in matcher.parts))
    return {"string"}


# --------------------------------------------------------------------------------------------------
# The reference replayed


@dataclass(frozen=True, slots=True)
class Replay:
    """One reference path of a task replayed as a run; ``unmade``: the values that could not be made
    to meet their matcher or criterion (a replay that fails with some proves nothing);
    ``impossible``: the arguments whose matcher accepts no value at all (an empty ``$one_of``)."""

    reference: str
    run: RunRecord
    unmade: tuple[str, ...]
    impossible: tuple[str, ...] = ()


def reference_replays(task: Task, arguments: Mapping[str, CallExpectation]) -> tuple[Replay, ...]:
    """One :class:`Replay` per reference path of ``task`` (none without references).

    ``arguments``: the task's argument expectations by tool (``TaskPlan.arguments``); every replayed
    call of a tool must meet them as well as its reference step.
    """
    answer, unmade_answer = _expected_answer(task)
    replays = []
    for index, reference in enumerate(task.references):
        name = reference.name or f"reference {index + 1}"
        unmade: list[str] = []
        impossible: list[str] = []
        steps = []
        order = _replay_order(reference)
        for turn, position in enumerate(order):
            step = reference.steps[position]
            label = _step_label(step, position)
            made, missing = _arguments_for(step, arguments.get(step.tool), turn + 1)
            unmade += [f"{name} step {label} argument {arg}" for arg in missing]
            impossible += [
                f"step {label} argument {arg} ($one_of lists no value)"
                for arg, m in step.args.items()
                if isinstance(m, OneOfMatcher) and not m.values
            ]
            result = list(step.result_contains)
            if turn == len(order) - 1:
                result += task.surface
            steps.append(
                Step(
                    turn=turn,
                    call_id=f"audit-{turn}",
                    tool=step.tool,
                    arguments=made,
                    result=" ".join(result) if result else "ok",
                )
            )
        if unmade_answer:
            unmade.append(f"answer ({unmade_answer})")
        run = _run(task, f"reference-{index + 1}", steps, answer)
        replays.append(Replay(name, run, tuple(unmade), tuple(impossible)))
    return tuple(replays)


def _replay_order(reference: ReferencePath) -> list[int]:
    if reference.mode == "partial_order":
        order, _ = _topology(compile_reference(reference))
        return order
    return list(range(len(reference.steps)))


def _arguments_for(
    step: ReferenceStep, task_expectation: CallExpectation | None, number: int
) -> tuple[dict[str, JsonValue], list[str]]:
    """Arguments meeting the step's matchers and the task's expectation of the tool, and the names
    of those no value was found for. A made-up text tries ``"<text> <number>"`` first, so that two
    replayed calls that the suite leaves free are not repeats of each other."""
    expectations = [e for e in (step, task_expectation) if e is not None]
    made: dict[str, JsonValue] = {}
    missing: list[str] = []
    names = dict.fromkeys(name for e in expectations for name in e.args)
    for e in expectations:
        names.update(dict.fromkeys(_required(e)))
    for name in names:
        matchers = [(e, e.args[name]) for e in expectations if name in e.args]
        omittable = bool(matchers) and all(_omittable(m) for _, m in matchers)
        if omittable and not any(name in _required(e) for e in expectations):
            continue
        candidates = [c for e, m in matchers for c in _value_candidates(m, e)]
        made_up = {c for _, m in matchers for c in _guessed_texts(m)} | {"x"}
        written = any(not isinstance(c, str) or c not in made_up for c in candidates) or any(
            isinstance(m, OneOfMatcher) and not m.values for _, m in matchers
        )  # an empty $one_of accepts nothing: the suite's own doing, not a value left unmade
        rendered = any(e.types == "bfcl" and e.language != "python" for e, _ in matchers)
        for e in expectations:
            prop = _properties(e.json_schema).get(name)
            if prop is not None:
                candidates += _schema_candidates(prop)
        candidates.append("x")
        candidates = [
            *(c for c in candidates if not isinstance(c, str) or c not in made_up),
            *(f"{c} {number}" for c in candidates if isinstance(c, str) and c in made_up),
            *(c for c in candidates if isinstance(c, str) and c in made_up),
        ]
        chosen = next((c for c in candidates if _meets(c, name, matchers, expectations)), None)
        if chosen is None:
            chosen = candidates[0]
            if rendered or not written:  # made up or rendered: its failing proves nothing
                missing.append(name)
        made[name] = chosen
    return made, missing


def _required(expectation: CallExpectation) -> tuple[str, ...]:
    """The arguments the expectation's JSON schema requires."""
    schema = expectation.json_schema or {}
    required = schema.get("required")
    return tuple(r for r in required if isinstance(r, str)) if isinstance(required, list) else ()


def _omittable(matcher: Matcher) -> bool:
    """Whether the argument may be left out: an optional matcher, or a BFCL ``$one_of`` whose
    every value is ``""`` (BFCL's "may be omitted")."""
    if isinstance(matcher, OneOfMatcher) and all(v == "" for v in matcher.values):
        return True
    return matcher.optional


def _meets(
    value: JsonValue,
    name: str,
    matchers: Sequence[tuple[CallExpectation, Matcher]],
    expectations: Sequence[CallExpectation],
) -> bool:
    if any(match_value(m, value, name, types=e.types, language=e.language) for e, m in matchers):
        return False
    for e in expectations:
        prop = _properties(e.json_schema).get(name)
        if prop is not None and validate_arguments({name: value}, {"properties": {name: prop}}):
            return False
    return True


def _value_candidates(matcher: Matcher, expectation: CallExpectation) -> Iterator[JsonValue]:
    """Values that may meet ``matcher``: the values the suite wrote (and, under the ``bfcl``
    profile, the forms a model sends them in), then made-up ones."""
    if isinstance(matcher, OneOfMatcher) and expectation.types == "bfcl":
        for value in matcher.values:
            if value != "":
                yield from _bfcl_forms(value, expectation.language)
    else:
        yield from _plain_candidates(matcher)


def _bfcl_forms(value: JsonValue, language: str) -> list[JsonValue]:
    """A BFCL possible answer as a model sends it: nested options reduced to their first choice
    (``{"k": ["a", "b"]}`` → ``{"k": "a"}``), and in Java or JavaScript written as source text."""
    forms = [value, _first_choices(value)]
    if language != "python":
        forms = [text for form in forms for text in _source_texts(form)]
    return list({json.dumps(f, sort_keys=True): f for f in forms}.values())


def _first_choices(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        for key, options in value.items():
            choice = options[0] if isinstance(options, list) and options else options
            if choice != "":
                out[key] = _first_choices(choice)
        return out
    if isinstance(value, list):
        return [_first_choices(item) for item in value]
    return value


def _source_texts(value: JsonValue) -> list[JsonValue]:
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, int):
        return [str(value), f"{value}L"]
    if isinstance(value, float):
        return [repr(value), f"{value}f"]
    if isinstance(value, str):
        return [value, json.dumps(value)]
    return [json.dumps(value), json.dumps(value).replace('"', "'")]


def _plain_candidates(matcher: Matcher) -> Iterator[JsonValue]:
    if isinstance(matcher, EqMatcher | ApproxMatcher):
        yield matcher.value
    elif isinstance(matcher, OneOfMatcher):
        yield from (v for v in matcher.values if v != "")
    elif isinstance(matcher, RegexMatcher):
        yield from _regex_guesses(matcher.pattern)
    elif isinstance(matcher, TypeMatcher):
        yield from (_plain_value(kind) for kind in matcher.types)
    elif isinstance(matcher, KeysMatcher | ObjectMatcher):
        yield {
            key: next(_plain_candidates(sub), "x")
            for key, sub in matcher.fields.items()
            if not sub.optional
        }
    elif isinstance(matcher, ItemsMatcher):
        yield [next(_plain_candidates(sub), "x") for sub in matcher.items]
    elif isinstance(matcher, AllOfMatcher | AnyOfMatcher):
        for part in matcher.parts:
            yield from _plain_candidates(part)
    elif isinstance(matcher, AnyMatcher):
        yield "x"


def _guessed_texts(matcher: Matcher) -> set[str]:
    """The texts :func:`_value_candidates` makes up for ``matcher`` (not values the suite wrote)."""
    if isinstance(matcher, RegexMatcher):
        return set(_regex_guesses(matcher.pattern))
    if isinstance(matcher, AllOfMatcher | AnyOfMatcher):
        return set().union(*(_guessed_texts(part) for part in matcher.parts))
    return {"x"} if isinstance(matcher, TypeMatcher | AnyMatcher) else set()


def _plain_value(kind: str) -> JsonValue:
    values: dict[str, JsonValue] = {
        "string": "x",
        "integer": 1,
        "number": 1.5,
        "boolean": True,
        "array": [],
        "object": {},
        "null": None,
    }
    return values.get(kind, "x")


def _schema_candidates(prop: Mapping[str, JsonValue]) -> list[JsonValue]:
    if "const" in prop:
        return [prop["const"]]
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return list(enum)
    return [_plain_value(kind) for kind in sorted(_schema_types(prop))]


_SYNTAX = re.compile(r"\(\?[a-zA-Z]+\)|\(\?[:=!]|\\[bBAZ]|\\[sd]|[\^$()?*+{}\[\].]|\\")


def _regex_guesses(pattern: str) -> list[str]:
    """Texts that may match ``pattern``: each ``|`` alternative with its syntax stripped, then a few
    plain words (best effort; the caller keeps one only when the pattern matches it)."""
    pieces = [_SYNTAX.sub("", part).strip() for part in pattern.split("|")]
    return [p for p in pieces if p] + ["x", "example", "0"]


def _expected_answer(task: Task) -> tuple[str, str | None]:
    """A text meeting the task's success criterion, and why none was found (None when found)."""
    criterion = task.success
    if criterion is None:
        return (REFUSAL_REPLY if task.kind == "out_of_scope" else "Done."), None
    candidates = _answer_candidates(criterion)
    for text in candidates:
        if _answer_meets(task, criterion, text):
            return text, None
    return (candidates[0] if candidates else ""), f"no text found that meets {criterion.kind}"


def _answer_meets(task: Task, criterion: SuccessCriterion, text: str) -> bool:
    probe = _run(task, "probe", (), text)
    return check_outcome(probe, criterion).status == "pass"


def _answer_candidates(criterion: SuccessCriterion) -> list[str]:
    if isinstance(criterion, ContainsAllCriterion):
        return ["\n".join(criterion.values)]
    if isinstance(criterion, ContainsAnyCriterion):
        return list(criterion.values)
    if isinstance(criterion, RegexCriterion):
        return _regex_guesses(criterion.pattern)
    if isinstance(criterion, NumberCriterion):
        value = criterion.value
        return [str(int(value)) if value.is_integer() else repr(value)]
    if isinstance(criterion, JsonSchemaCriterion):
        return [json.dumps(_schema_instance(criterion.json_schema))]
    if isinstance(criterion, RefusalCriterion):
        if criterion.expect == "answer":
            return ["Here is the answer."]
        words = [f"{REFUSAL_REPLY} It is not in the {w}." for w in criterion.scope_words]
        return [REFUSAL_REPLY, *words, *criterion.phrases]
    if isinstance(criterion, AllOfCriterion):
        return ["\n".join(_part_answer(part.criterion) for part in criterion.parts)]
    if isinstance(criterion, AnyOfCriterion):
        return [text for part in criterion.parts for text in _answer_candidates(part.criterion)]
    if isinstance(criterion, CallableCriterion):
        return []
    return []


def _part_answer(criterion: SuccessCriterion) -> str:
    candidates = _answer_candidates(criterion)
    return candidates[0] if candidates else ""


def _schema_instance(schema: Mapping[str, Any]) -> JsonValue:
    candidates = _schema_candidates(schema)
    value = candidates[0] if candidates else None
    if value == {}:
        return {
            name: _schema_instance(prop)
            for name, prop in _properties(schema).items()
            if name in (schema.get("required") or ())
        }
    return value
