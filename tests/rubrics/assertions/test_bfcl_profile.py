"""The ``bfcl`` typing profile on the real BFCL v4 data, Java and JavaScript included.

Each rule of the official AST checker is pinned by a mutation of a real ground-truth call, with the
verdict the official checker gives (cross-checked against it while writing these cases). Every
ground-truth call passes, except five the official checker itself can never pass; those are pinned
too, with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pathjudge.errors import ImportFormatError
from pathjudge.rubrics.assertions._bfcl import convert_java, convert_javascript
from pathjudge.rubrics.assertions.arguments import (
    CallExpectation,
    OneOfMatcher,
    expectations_from_bfcl,
    match_call,
    match_value,
    parse_matcher,
)


def _example(folder: str, name: str) -> ModuleType:
    """Load ``examples/<folder>/<name>.py`` under a unique module name (examples share file names)."""
    path = Path(__file__).resolve().parents[3] / "examples" / folder / f"{name}.py"
    sys.path.insert(0, str(path.parent))  # for the example's own sibling imports
    spec = importlib.util.spec_from_file_location(f"example_{folder}_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


render = _example("bfcl", "literals").render
ground_truth_calls = _example("bfcl", "make_runs").ground_truth_calls

LANGUAGE = {"simple_java": "java", "simple_javascript": "javascript"}
CATEGORIES = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "simple_java",
    "simple_javascript",
]
# Ground-truth calls that the official checker fails however they are written (it agrees: these
# verdicts were produced by it). pathjudge fails them too, for the same reason.
UNPASSABLE = {
    "live_simple_106-63-0": "auto_loan_payment_start",  # answer list is empty: nothing is acceptable
    "live_simple_112-68-0": "acc_routing_start",  # likewise
    "simple_java_36": "parts",  # ArrayList<any> items stay text: "42" is never 42
    "simple_java_64": "meta.format",  # a bare-string dict answer is read one character at a time
    "simple_java_65": "params",  # ArrayList<any>: "true" is never True
}
DROP = object()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _entries(shared_data: Path, category: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    root = shared_data / "bfcl_v4"
    answers = {a["id"]: a for a in _lines(root / "possible_answer" / f"BFCL_v4_{category}.json")}
    return [(q, answers[q["id"]]) for q in _lines(root / f"BFCL_v4_{category}.json")]


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_ground_truth_call_passes(shared_data: Path, category: str) -> None:
    language = LANGUAGE.get(category, "python")
    failed: dict[str, str] = {}
    calls = 0
    for question, answer in _entries(shared_data, category):
        expectations = expectations_from_bfcl(
            answer["ground_truth"], question["function"], language=language
        )
        assert all(e.types == "bfcl" and e.language == language for e in expectations)
        built = ground_truth_calls(answer["ground_truth"], question["function"], language)
        for call, expected in zip(built, expectations, strict=True):
            calls += 1
            result = match_call(call["tool"], call["arguments"], expected)
            if not result.ok:
                failed[answer["id"]] = result.mismatches[0].path
    assert calls >= 50
    assert failed == {k: v for k, v in UNPASSABLE.items() if _category(k) == category}


def _category(entry_id: str) -> str:
    return entry_id.split("-", 1)[0].rsplit("_", 1)[0]


def _case(
    shared_data: Path, category: str, entry_id: str
) -> tuple[dict[str, Any], CallExpectation]:
    language = LANGUAGE.get(category, "python")
    for question, answer in _entries(shared_data, category):
        if answer["id"] == entry_id:
            (expected,) = expectations_from_bfcl(
                answer["ground_truth"], question["function"], language=language
            )
            (call,) = ground_truth_calls(answer["ground_truth"], question["function"], language)
            return call["arguments"], expected
    raise AssertionError(f"{entry_id} not found")


# (category, entry, parameter, value given (DROP: left out), official verdict, rule)
RULES: list[tuple[str, str, str, Any, bool, str]] = [
    ("simple_python", "simple_python_14", "x_value", 0, True, "int for a float: top level"),
    ("simple_python", "simple_python_13", "interval", [1.0, 3.0], True, "float list as listed"),
    ("simple_python", "simple_python_13", "interval", [1, 3], False, "int inside a float list"),
    ("simple_python", "simple_python_13", "interval", [1.0, 3], False, "one int item is enough"),
    ("simple_python", "simple_python_0", "base", 10.0, False, "whole float for an integer"),
    ("simple_python", "simple_python_0", "base", True, False, "a bool is no integer"),
    ("simple_python", "simple_python_0", "base", "10", False, "a numeric string is no integer"),
    ("simple_python", "simple_python_89", "conditions",
     {"department": "Science"}, False, "dict: a key of the answer left out"),
    ("simple_python", "simple_python_89", "conditions",
     {"department": "science", "school": "bluebird-hs"}, True, "dict values: strings normalised"),
    ("simple_python", "simple_python_89", "conditions",
     {"department": "Science", "school": "Bluebird HS", "x": 1}, False, "dict: an extra key"),
    ("simple_python", "simple_python_89", "conditions",
     {"department": ["Science"], "school": "Bluebird HS"}, False, "dict values compare one level"),
    ("live_simple", "live_simple_40-17-0", "body",
     {"airConJobMode": "AIR_CLEAN", "windStrength": "HIGH", "monitoringEnabled": True,
      "airCleanOperationMode": "POWER_ON"}, True, "dict: keys whose list holds '' may be left out"),
    ("live_simple", "live_simple_40-17-0", "body",
     {"airConJobMode": "AIR_CLEAN", "windStrength": "HIGH", "monitoringEnabled": 1,
      "airCleanOperationMode": "POWER_ON"}, True, "dict values use Python equality (1 == True)"),
    ("live_simple", "live_simple_40-17-0", "body",
     {"airConJobMode": "AIR_CLEAN", "windStrength": "HIGH", "monitoringEnabled": "True",
      "airCleanOperationMode": "POWER_ON"}, False, "non-strings compare exactly"),
    ("simple_python", "simple_python_37", "stops",
     ["santa-barbara", "MONTEREY"], True, "list items: strings normalised one level deep"),
    ("simple_python", "simple_python_37", "stops",
     ["Monterey", "Santa Barbara"], True, "another listed order"),
    ("simple_python", "simple_python_37", "stops",
     [["Santa Barbara"], "Monterey"], False, "strings deeper than one level are not normalised"),
    ("live_simple", "live_simple_4-3-0", "unit", "", True, "explicit '' for an optional enum"),
    ("live_simple", "live_simple_4-3-0", "unit", DROP, True, "'' listed: may be left out"),
    ("live_simple", "live_simple_4-3-0", "unit", "kelvin", False, "a value outside the list"),
    ("simple_java", "simple_java_25", "id", "42L", True, "Java long literal"),
    ("simple_java", "simple_java_25", "id", "42", False, "a long needs its L suffix"),
    ("simple_java", "simple_java_25", "id", 42, False, "Java arguments are source text"),
    ("simple_java", "simple_java_61", "decay", "0.5", True, "Java double"),
    ("simple_java", "simple_java_61", "decay", "0.5f", False, "a float literal for a double"),
    ("simple_java", "simple_java_18", "pageNo", "3", True, "Java integer"),
    ("simple_java", "simple_java_1", "useShortName", "true", True, "Java boolean"),
    ("simple_java", "simple_java_1", "useShortName", "True", False, "Java booleans are lower case"),
    ("simple_java", "simple_java_1", "params",
     'new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}',
     True, "Java HashMap literal"),
    ("simple_java", "simple_java_1", "params",
     'new HashMap<String, Object>() {{ put("limit", "50"); put("schemaFilter", "public"); }}',
     False, "a HashMap value keeps its literal type"),
    ("simple_java", "simple_java_27", "nums", "new int[]{2, 7, 11, 15}", True, "Java Array"),
    ("simple_java", "simple_java_27", "nums", "new int[]{2, 7, 11}", False, "Array: one short"),
    ("simple_java", "simple_java_22", "ids",
     "new ArrayList<>(Arrays.asList(101L, 202L, 303L))", True, "ArrayList<long>"),
    ("simple_java", "simple_java_22", "ids",
     "new ArrayList<>(Arrays.asList(101, 202, 303))", False, "ArrayList<long> items need L"),
    ("simple_java", "simple_java_2", "source",
     "select * from employee where status = 'active'", True, "Java String: normalised"),
    ("simple_javascript", "simple_javascript_0", "isComplete", "true", True, "JS Boolean"),
    ("simple_javascript", "simple_javascript_0", "inputField", "'userInputField'", True,
     "JS String: quotes removed"),
    ("simple_javascript", "simple_javascript_3", "coordinates", "[60, 30]", True,
     "JS array of float: items converted by the item type"),
    ("simple_javascript", "simple_javascript_3", "coordinates", "[60, 'x']", False,
     "JS array item that is not a float"),
    ("simple_javascript", "simple_javascript_6", "limit", "4", True, "JS float from '4'"),
    ("simple_javascript", "simple_javascript_6", "limit", "4.0f", False, "not a JS number"),
    ("simple_javascript", "simple_javascript_17", "priorityLevel", "3.0", False,
     "JS integer: no decimal point"),
    ("simple_javascript", "simple_javascript_24", "array", "new Array(3, 1, 2, 1, 4, 3)", True,
     "JS new Array(...)"),
    ("simple_javascript", "simple_javascript_5", "store",
     "{initialState: initialStateObject, reducers: reducersMap, middlewares: ['loggerMiddleware'],"
     " enhancers: [\"applyMiddleware('myMiddleWare')\"]}", True, "JS object literal"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("category", "entry_id", "param", "value", "verdict", "rule"),
    RULES,
    ids=[f"{r[1]}-{r[2]}-{r[5]}" for r in RULES],
)
def test_official_rule(
    shared_data: Path,
    category: str,
    entry_id: str,
    param: str,
    value: Any,
    verdict: bool,
    rule: str,
) -> None:
    base, expected = _case(shared_data, category, entry_id)
    call = {k: v for k, v in base.items() if k != param}
    if value is not DROP:
        call[param] = value
    result = match_call(expected.tool, call, expected)
    assert result.ok is verdict, f"{rule}: {result.reason}"
    if not verdict:
        assert result.mismatches
        assert result.mismatches[0].path.startswith(param)


def test_required_parameter_with_empty_answer_must_be_given() -> None:
    functions = [
        {
            "name": "f",
            "parameters": {
                "type": "dict",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "required": ["a"],
            },
        }
    ]
    (expected,) = expectations_from_bfcl([{"f": {"a": ["x", ""], "b": ["", "y"]}}], functions)
    assert match_call("f", {"a": "x"}, expected).ok
    missing = match_call("f", {"b": "y"}, expected)
    assert [(m.path, m.kind) for m in missing.mismatches] == [("a", "missing")]
    # a parameter the answer lists but the function does not document may only be left out
    (undoc,) = expectations_from_bfcl([{"f": {"a": ["x"], "z": ["", 1]}}], functions)
    assert match_call("f", {"a": "x"}, undoc).ok
    assert not match_call("f", {"a": "x", "z": 1}, undoc).ok


def test_lenient_and_bfcl_profiles_side_by_side() -> None:
    floats = parse_matcher({"$one_of": [[1.0, 3.0]]})
    assert match_value(floats, [1, 3]) == []  # lenient: 1 == 1.0 anywhere
    assert match_value(floats, [1, 3], types="bfcl")  # bfcl: an int inside a float list fails
    whole = parse_matcher(10)
    assert match_value(whole, 10.0) == []
    assert match_value(whole, 10.0, types="bfcl")[0].kind == "wrong_type"
    top = parse_matcher(2.5 * 2)  # 5.0
    assert match_value(top, 5, types="bfcl") == []  # int for a float at the top level
    assert match_value(parse_matcher([5.0]), [5], types="bfcl")  # ... but not inside a list
    deep = parse_matcher({"$eq": [["New York"]], "$normalize": "bfcl"})
    assert match_value(deep, [["new york"]]) == []  # lenient: strings at any depth
    assert match_value(deep, [["new york"]], types="bfcl")  # bfcl: one level deep only
    assert match_value(parse_matcher({"$type": "integer"}), 2.0) == []
    assert match_value(parse_matcher({"$type": "integer"}), 2.0, types="bfcl")


def test_profile_declarations_are_validated() -> None:
    with pytest.raises(ValueError, match="only apply with types: bfcl"):
        CallExpectation(tool="f", args={"a": {"$one_of": [1], "$declared": "long"}})
    with pytest.raises(ValueError, match="language 'java' only applies with types: bfcl"):
        CallExpectation(tool="f", language="java")
    with pytest.raises(ValueError, match="unknown python BFCL type 'HashMap'"):
        CallExpectation(
            tool="f", types="bfcl", args={"a": {"$one_of": [1], "$declared": "HashMap"}}
        )
    with pytest.raises(ValueError, match=r"\$declared takes a BFCL type name"):
        parse_matcher({"$one_of": [1], "$declared": "Long"})
    with pytest.raises(ValueError, match="non-empty list"):
        parse_matcher({"$one_of": []})
    never = parse_matcher({"$one_of": [], "$declared": "string"})
    assert isinstance(never, OneOfMatcher)
    assert never.values == ()
    functions = [{"name": "f", "parameters": {"properties": {"s": {"type": "Set"}}}}]
    with pytest.raises(ImportFormatError, match="no conversion for Java Set"):
        expectations_from_bfcl([{"f": {"s": ["x"]}}], functions, language="java")
    with pytest.raises(ImportFormatError, match="cannot read java literals"):
        expectations_from_bfcl([{"f": {}}], [{"name": "f"}], types="lenient", language="java")


def test_literal_conversion() -> None:
    assert convert_java("-7", "short") == -7
    assert convert_java("2.5f", "float") == 2.5
    assert convert_java("2.5", "float") == "2.5"  # a float literal needs f
    assert convert_java("1e3", "double") == 1000.0
    assert convert_java(
        'new ArrayList<String>() {{ add("a"); add("b"); }}', "ArrayList", "String"
    ) == ["a", "b"]
    assert convert_java("new ArrayList<>()", "ArrayList") == []
    assert convert_java('new String[]{"a"}', "Array", "String") == [
        '"a"'
    ]  # the checker keeps quotes
    assert convert_java("new HashMap<>()", "HashMap") == {}
    assert convert_java("x", "HashMap") == "x"
    assert convert_javascript("12n", "Bigint") == 12
    assert convert_javascript("[[1, 2], [3]]", "array", "array") == [[1, 2], [3]]
    assert convert_javascript("{}", "dict") == {}
    assert convert_javascript("{a: [1, 'b']}", "dict") == {"a": [1, "b"]}
    assert render([1, 2], "Array", "integer", "java") == "new int[]{1, 2}"


def test_suite_and_task_level_profile_reach_every_expectation() -> None:
    from pathjudge.rubrics.suite import parse_suite

    suite = parse_suite(
        {
            "name": "s",
            "defaults": {"types": "bfcl"},
            "tasks": [
                {
                    "id": "py",
                    "arguments": [{"tool": "f", "args": {"x": {"$one_of": [[1.0, 2.0]]}}}],
                    "references": [{"steps": [{"tool": "f", "args": {"x": 1.5}}]}],
                },
                {
                    "id": "java",
                    "language": "java",
                    "arguments": [
                        {"tool": "g", "args": {"n": {"$one_of": [5], "$declared": "long"}}}
                    ],
                },
                {
                    "id": "own",
                    "arguments": [{"tool": "h", "types": "lenient", "args": {"x": [1.0]}}],
                },
            ],
        }
    )
    (py_args,) = suite.task("py").arguments
    (step,) = suite.task("py").references[0].steps
    assert (py_args.types, step.types) == ("bfcl", "bfcl")
    assert not match_call("f", {"x": [1, 2]}, py_args).ok
    assert match_call("f", {"x": 1}, step).ok is False  # 1 for 1.5: a value, not a type, problem
    (java,) = suite.task("java").arguments
    assert (java.types, java.language) == ("bfcl", "java")
    assert match_call("g", {"n": "5L"}, java).ok
    (own,) = suite.task("own").arguments
    assert own.types == "lenient"
    assert match_call("h", {"x": [1]}, own).ok


def test_linear_scans_equal_the_checker_patterns() -> None:
    import random
    import re

    from pathjudge.rubrics.assertions import _bfcl as b

    rnd = random.Random(12)
    two_d, block, put, adds, empty_map, as_list, array, hashmap = (
        re.compile(b.JS_2D_PATTERN),
        re.compile(b.ADD_BLOCK_PATTERN, re.DOTALL),
        re.compile(b.PUT_PATTERN),
        re.compile(b.ADD_PATTERN),
        re.compile(b.EMPTY_MAP_PATTERN),
        re.compile(b.AS_LIST_PATTERN),
        re.compile(b.ARRAY_PATTERN),
        re.compile(b.MAP_PATTERN, re.DOTALL),
    )
    pieces = [
        "[", "]", ",", " ", "\n", "a", "1", "(", ")", "{", "}", "}}", '",', 'put("', "add(1)",
        "add(", "))", ">", "<", "()", "new HashMap<", "new ArrayList<>(Arrays.asList(",
        "new int[]{", "new ", "\t",
    ]  # fmt: skip
    heads = [
        "",
        "[[",
        "[ [",
        "new Array([",
        "new ArrayList<>() {{",
        "x new ArrayList<Integer>(){{ ",
        "new HashMap<>() {{",
        "new HashMap<String, int> () {",
    ]
    for _ in range(6000):
        text = rnd.choice(heads) + "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 14)))
        found = two_d.match(text)
        assert b.match_js_2d(text) == (found.end() if found else None), text
        found = block.search(text)
        assert b.add_block(text) == (found.group(1) if found else None), text
        assert b.find_puts(text) == put.findall(text), text
        assert b.find_adds(text) == adds.findall(text), text
        assert b.empty_map(text) == (empty_map.search(text) is not None), text
        for pattern, head, closer, least in (
            (as_list, b._AS_LIST_HEAD, "))", 1),
            (array, b._ARRAY_HEAD, "}", 0),
        ):
            found = pattern.search(text)
            assert b.first_closed(text, head, closer, least) == (found.group(1) if found else None)
        found = hashmap.search(text)
        assert b.map_body(text) == (found.group(1) if found else None), text
    pair = re.compile(b.JS_PAIR_PATTERN)
    pieces = [":", ",", " ", "\n", "a", "'", "[", "]", "{", "}", ", ", ": ", "\t", "a:1,"]
    for _ in range(6000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 16)))
        assert b.find_pairs(text) == pair.findall(text), text


def test_hostile_literals_never_hang() -> None:
    # each of these takes the checker's own regular expressions minutes or more (exponential or
    # cubic backtracking); run in a child process so a regression fails instead of hanging the suite
    import subprocess

    script = """
from pathjudge.rubrics.assertions._bfcl import convert_java as j, convert_javascript as js
js("[[1]" + ",[1]" * 990 + " x", "array", "integer")
js("[[" + "],[" * 1300, "array")
j("new HashMap<>() {" + " " * 3900 + "x", "HashMap")
j("new ArrayList<>() {{" + " " * 3900 + "x", "ArrayList", "integer")
j("new HashMap<>() {{ " + 'put("a", ' * 440 + "}}", "HashMap")
j("new HashMap<>() {{ " + 'put("a", 1); ' * 300 + "}}", "HashMap")
js("{" + "a:1," * 990 + "b", "dict")
js("x" * 100000, "array")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr


def test_literals_made_of_repeated_heads_never_hang() -> None:
    # the checker's patterns retry the body at every head and every later position: a 4,000-character
    # literal of nested HashMap heads took 2.5 s a call (cubic); read in one pass, all of these take
    # milliseconds, so a minute is a hang guard, not a speed claim
    import subprocess

    script = """
from pathjudge.rubrics.assertions._bfcl import convert_java as j, convert_javascript as js
for _ in range(30):
    j("new HashMap<>() {{" * 222, "HashMap")
    j("new HashMap<" + ">() {" * 795, "HashMap")
    j("new ArrayList<>(Arrays.asList(" * 130, "ArrayList")
    j("new int[] {" * 360, "Array")
    js("{" + "a" * 3990 + "}", "dict")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


# Hostile literals: heads repeated without their closers, closers without heads, separators without
# values. Each is read at two sizes; the work (Python lines run and calls into C, counted by a
# tracer, never timed) and the memory must grow at most in proportion.
_FRAGMENTS = [
    "new HashMap<>() {{", "new HashMap<", ">() {", 'put("a", b', 'put("a",\n', "new ArrayList<>(",
    "Arrays.asList(", "new ArrayList<>() {{", "add(", "add(1)", "new int[] {", "}", "}}", ")",
    "))", ",", " ", "\n", ":", "a", "'", "[", "[1]", "],[", "new Array(", "{",
]  # fmt: skip
_READERS = [
    ("java", "HashMap", None),
    ("java", "ArrayList", "integer"),
    ("java", "ArrayList", "String"),
    ("java", "Array", "integer"),
    ("javascript", "dict", None),
    ("javascript", "array", None),
    ("javascript", "array", "integer"),
]


def _work(read: Any, *args: Any) -> int:
    steps = 0

    def count(frame: Any, event: str, arg: Any) -> Any:
        nonlocal steps
        steps += 1
        return count

    def calls(frame: Any, event: str, arg: Any) -> None:
        nonlocal steps
        steps += event == "c_call"

    sys.settrace(count)
    sys.setprofile(calls)
    try:
        read(*args)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return steps


def _peak(read: Any, *args: Any) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        read(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(("language", "declared", "items"), _READERS)
def test_literal_reading_work_and_memory_grow_linearly_with_the_literal(
    language: str, declared: str, items: str | None
) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    read = convert_java if language == "java" else convert_javascript

    @settings(max_examples=40, deadline=None, database=None)
    @given(
        head=st.sampled_from(["", "[[", "{", "new HashMap<>() {{ ", "new ArrayList<>() {{"]),
        unit=st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=3).map("".join),
        tail=st.sampled_from(["", "}}", "]]", "\n", ")"]),
    )
    def check(head: str, unit: str, tail: str) -> None:
        count = 900 // len(unit)
        small, large = (head + unit * k + tail for k in (count, 4 * count))
        work = [_work(read, text, declared, items) for text in (small, large)]
        assert work[1] <= 4.5 * work[0] + 300, (small[:80], work)
        peak = [_peak(read, text, declared, items) for text in (small, large)]
        assert peak[1] <= 4.5 * peak[0] + 64_000, (small[:80], peak)

    check()
