"""The ``bfcl`` argument-typing profile: the Berkeley Function Calling Leaderboard AST checker's rules.

This module holds the pure functions behind ``types: bfcl``: the BFCL type names of each language, the
conversion of Java and JavaScript literals (the model writes every Java/JS argument as a string of
source text, e.g. ``"new ArrayList<>(Arrays.asList(1, 2))"`` or ``"5L"``), and the check of one
parameter value against its list of possible answers.

The rules, as the official checker applies them to one parameter (``declared`` is the type named in
the function's documentation, ``items`` the declared type of array items, ``answers`` the possible
answers):

1. **Java / JavaScript:** the value must be a string; it is converted by ``declared`` (see
   :func:`convert_java` and :func:`convert_javascript`). A literal that does not parse as the declared
   type stays a string (and then usually fails the type check).
2. **Python:** an ``int`` given for a ``float`` parameter becomes a float -- at the top level only.
3. **Type check:** the value's type must be the declared type's (``integer`` is ``int``: ``5.0`` is no
   integer; ``bool`` is never a number). A value of the type of the first possible answer is also
   accepted: BFCL writes a variable name as a string answer for a non-string parameter (then the
   value is compared exactly, without string normalisation). For ``array``/``tuple`` (and Java
   ``Array``/``ArrayList``, JS ``array``) every item must have the declared item type (or the type of
   the first item of a listed answer). A listed ``""`` makes the item check pass, as in the checker.
4. **Value check**, when the value is not a variable:

   - a string: normalised (lower case; spaces and ``,./-_*^`` removed; ``'`` read as ``"``) and
     looked up among the normalised string answers;
   - a list: each string item normalised (one level deep, nothing deeper), compared with each
     answer (string items normalised, other items as they are) by Python equality, order-sensitive;
   - a dict: for some answer (a dict of ``key -> [acceptable values]``), every key of the value is
     an answer key, its value (normalised if a string, nothing deeper) is among that key's
     acceptable values, and every answer key whose list lacks ``""`` is present;
   - a list of dicts: as many dicts as in some answer, each matching the answer's dict at its
     position by the dict rule;
   - anything else: Python equality with some answer (``5 == 5.0``, ``True == 1``).

Agent output is untrusted: a literal longer than :data:`MAX_LITERAL` characters is not converted (it
stays text, so it fails a typed parameter), and the checker's 2-D array pattern, which backtracks
exponentially on some inputs, is matched by an equivalent linear-time scan. Python equality is used
where the checker uses it, so the quirks of the official checker are kept
(listed in the README section "Argument typing profiles"). :func:`check_param` returns the first
problem as ``(kind, reason, subpath)`` or ``None`` when the value is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, cast

from pathjudge.rubrics.assertions._normalize import NormalizeMode, normalize_string, render_value

__all__ = [
    "BFCL_TYPES",
    "BfclLanguage",
    "check_param",
    "convert_java",
    "convert_javascript",
    "python_kind",
    "unsupported_type",
]

BfclLanguage = Literal["python", "java", "javascript"]

MAX_LITERAL: Final = 4000
"""Java/JavaScript literals longer than this are left unconverted (a bound on the regex work)."""

_PY: Final[dict[str, type]] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_JAVA: Final[dict[str, type]] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "HashMap": dict,
    "String": str,
    "any": str,
}
# Declared in BFCL's type table, but its checker has no conversion for them: refused at import.
_JAVA_UNCONVERTED: Final = frozenset({"Set", "Hashtable", "Queue", "Stack"})
_JS: Final[dict[str, type]] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
BFCL_TYPES: Final[dict[BfclLanguage, tuple[str, ...]]] = {
    "python": tuple(_PY),
    "java": tuple(_JAVA),
    "javascript": tuple(_JS),
}
"""The declared type names the ``bfcl`` profile knows, per language."""

_TABLES: Final[dict[str, dict[str, type]]] = {"python": _PY, "java": _JAVA, "javascript": _JS}
_NESTED: Final[dict[str, frozenset[str]]] = {
    "python": frozenset({"array", "tuple"}),
    "java": frozenset({"Array", "ArrayList"}),
    "javascript": frozenset({"array"}),
}
_KIND_NAMES: Final[dict[type, str]] = {
    str: "string",
    int: "integer",
    float: "float",
    bool: "boolean",
    list: "array",
    dict: "dict",
    type(None): "null",
}

Problem = tuple[str, str, str]  # kind, reason, sub-path ("" = the parameter itself)


def python_kind(value: object) -> str:
    """The BFCL (Python) type name of a JSON value: ``integer``, ``float``, ``string``, ..."""
    return _KIND_NAMES.get(type(value), type(value).__name__)


def unsupported_type(declared: str, language: BfclLanguage) -> str | None:
    """Why ``declared`` cannot be graded in ``language`` (None when it can)."""
    if declared in _TABLES[language]:
        return None
    if language == "java" and declared in _JAVA_UNCONVERTED:
        return f"the BFCL checker has no conversion for Java {declared} literals"
    return f"unknown {language} BFCL type {declared!r}; known: {', '.join(_TABLES[language])}"


# --------------------------------------------------------------------------------------------------
# Literal conversion (Java, JavaScript)
# --------------------------------------------------------------------------------------------------

_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
ADD_BLOCK_PATTERN = r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}"
"""The checker's ``{{ add(..); }}`` pattern (DOTALL); :func:`add_block` finds the same group without
its cubic backtracking on long runs of spaces."""
_ADD_HEAD = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{")
_ADD = re.compile(r"add\((.+?)\)")
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_MAP = re.compile(r"new\s+HashMap<.*?>\s*+\(\)\s*+\{\s*+\{?\s*+(.*?)\s*+\}?\s*+\}", re.DOTALL)
PUT_PATTERN = r"put\(\"(.*?)\",\s*(.*?)\)"
"""The checker's ``put("key", value)`` pattern; :func:`find_puts` gives ``re.findall``'s result
without its cubic backtracking when no ``)`` closes the calls."""
_EMPTY_MAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)")


def _number(text: str) -> Any:
    """Python's own reading of a bare literal: int, else float, else the text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _java_value(text: str) -> Any:
    """A Java literal read without a declared type (HashMap values, untyped collections)."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(text[:-1])
    return _number(text)


def _java_element(text: str, items: str | None) -> Any:
    # ArrayList elements of a String or char list lose their first and last character (the quotes)
    if items in ("char", "String"):
        return text[1:-1]
    return convert_java(text, items) if items else _java_value(text)


def add_block(text: str) -> str | None:
    """Group 1 of ``re.search(ADD_BLOCK_PATTERN, text, re.DOTALL)`` (None: no match), in O(n) per
    candidate head: the body starts after the spaces that follow ``{{`` and ends at the first point
    (one character on at least) from which only spaces stand before ``}}``; when no such end exists,
    the engine gives back one space and the body is that single space if ``}}`` follows it."""
    skip: list[int] | None = None
    n = len(text)
    for head in _ADD_HEAD.finditer(text):
        if skip is None:
            skip = _skip_space(text)
        start = head.end()
        w = skip[start]

        def closes(e: int, skip: list[int] = skip) -> bool:
            q = skip[e] if e <= n else n
            return text.startswith("}}", q)

        for e in range(w + 1, n + 1):
            if closes(e):
                return text[w:e]
        if w > start and closes(w):
            return text[w - 1 : w]
    return None


def _java_arraylist(text: str, items: str | None) -> Any:
    found = _AS_LIST.search(text)
    if found:
        return [_java_element(part.strip(), items) for part in found.group(1).split(",")]
    body = add_block(text)
    if body is not None:
        return [_java_element(part.strip(), items) for part in _ADD.findall(body)]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, items: str | None) -> Any:
    found = _ARRAY.search(text)
    if not found:
        return text
    parts = [part.strip() for part in found.group(1).split(",") if part.strip()]
    # unlike ArrayList, Array items are converted by their declared type, so a String item keeps
    # its quotes (as the official converter does)
    return [convert_java(part, items) if items else _java_value(part) for part in parts]


def find_puts(body: str) -> list[tuple[str, str]]:
    """``re.findall(PUT_PATTERN, body)`` in O(n) per ``put("`` head: the key ends at the first
    ``",`` (on the same line) after which, past any spaces, a ``)`` closes the value on its line."""
    n = len(body)
    skip = _skip_space(body)
    close = [-1] * (n + 1)  # close[p]: the first ")" at or after p before a newline, else -1
    for p in range(n - 1, -1, -1):
        ch = body[p]
        close[p] = p if ch == ")" else (-1 if ch == "\n" else close[p + 1])
    out: list[tuple[str, str]] = []
    i = 0
    while True:
        head = body.find('put("', i)
        if head < 0:
            return out
        key_start = head + 5
        line_end = body.find("\n", key_start)
        line_end = n if line_end < 0 else line_end
        found: tuple[str, str, int] | None = None
        j = key_start
        while found is None:
            comma = body.find('",', j, line_end)
            if comma < 0:
                break
            value_start = skip[comma + 2]
            end = close[value_start] if value_start < n else -1
            if end >= 0:
                found = (body[key_start:comma], body[value_start:end], end + 1)
            j = comma + 1
        if found is None:
            i = head + 1
        else:
            out.append((found[0], found[1]))
            i = found[2]


def _java_hashmap(text: str) -> Any:
    found = _MAP.search(text)
    if found:
        body = found.group(1)
        out: dict[str, Any] = {}
        if body.strip():
            for key, value in find_puts(body):
                out[key] = _java_value(value.strip())
        return out
    if _EMPTY_MAP.search(text):
        return {}
    return text


def convert_java(text: str, declared: str, items: str | None = None) -> Any:
    """A Java literal (source text) as the BFCL checker reads it for the ``declared`` type.

    ``5`` → 5 (``byte``/``short``/``integer``), ``5L`` → 5 (``long``), ``2.5f`` → 2.5 (``float``),
    ``2.5`` → 2.5 (``double``), ``true`` → True, ``new int[]{1, 2}`` → [1, 2] (``Array``),
    ``new ArrayList<>(Arrays.asList("a"))`` → ["a"], ``new HashMap<String, String>() {{ put("k",
    "v"); }}`` → {"k": "v"}; ``String``, ``char`` and ``any`` stay the text as written. A literal
    that does not parse as the declared type is returned unchanged (a string).

    >>> convert_java("5L", "long"), convert_java("5", "long"), convert_java("new int[]{1, 2}", "Array", "integer")
    (5, '5', [1, 2])
    """
    if len(text) > MAX_LITERAL and declared in ("ArrayList", "Array", "HashMap"):
        return text
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text[:-1]) if _JAVA_FLOAT.match(text) else text
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if declared == "long":
        return int(text[:-1]) if _JAVA_LONG.match(text) else text
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "ArrayList":
        return _java_arraylist(text, items)
    if declared == "Array":
        return _java_array(text, items)
    if declared == "HashMap":
        return _java_hashmap(text)
    if declared in ("String", "any", "char"):
        return text
    raise ValueError(unsupported_type(declared, "java"))


_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
JS_2D_PATTERN = (
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
"""The checker's 2-D array pattern. Python's backtracking takes exponential time on some inputs, so
:func:`match_js_2d` finds the same match in linear time (a test compares the two on short texts)."""


def _skip_space(text: str) -> list[int]:
    """``out[p]``: the first index at or after ``p`` that is not whitespace (``len(text)`` if none)."""
    n = len(text)
    out = [n] * (n + 1)
    for p in range(n - 1, -1, -1):
        out[p] = out[p + 1] if text[p].isspace() else p
    return out


def _rows_end(text: str, skip: list[int], closer: str) -> list[int | None]:
    r"""``lazy[p]``: where a match ends when ``.*?\]\s*(,\s*\[.*?\]\s*)*<closer>`` starts at ``p``
    (None: no match), choosing as the backtracking engine would (lazy rows, greedy repetition).

    Right to left, each state in O(1): a row may end at the first ``]`` from which the rest matches,
    and ``.`` never crosses a newline."""
    n = len(text)
    lazy: list[int | None] = [None] * (n + 2)
    tail: list[int | None] = [None] * (n + 2)
    for p in range(n, -1, -1):
        # tail[p]: after a row's "]": spaces, then another ",\s*[" row (greedy) or the closer
        q = skip[p] if p <= n else n
        found: int | None = None
        if q < n and text[q] == ",":
            r = skip[q + 1]
            if r < n and text[r] == "[":
                found = lazy[r + 1]
        if found is None and q < n and text[q] == closer:
            found = q + 1
        tail[p] = found
        # lazy[p]: ".*?" then "]" then the tail; "." stops at a newline
        if p < n and text[p] != "\n":
            here = tail[p + 1] if text[p] == "]" else None
            lazy[p] = here if here is not None else lazy[p + 1]
    return lazy


_NEW_ARRAY = re.compile(r"new\s+Array\(")


def match_js_2d(code: str) -> int | None:
    """The end of ``re.match(JS_2D_PATTERN, code)`` (None when it does not match), in linear time."""
    skip = _skip_space(code)
    n = len(code)
    if n and code[0] == "[":
        p = skip[1]
        if p < n and code[p] == "[":
            end = _rows_end(code, skip, "]")[p + 1]
            if end is not None:
                return end
    head = _NEW_ARRAY.match(code)
    if head is not None:
        p = skip[head.end()]
        if p < n and code[p] == "[":
            return _rows_end(code, skip, ")")[p + 1]
    return None


_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER = re.compile(r"\[(.*?)\]")
_JS_OBJECT = re.compile(r"\{(.*?)\}")
_JS_PAIR = re.compile(r"([^:]++):\s*+(.*?)(?:,\s*(?=[^,]+:)|$)")


def _quoted(text: str) -> bool:
    return (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    )


def _js_value(text: str) -> Any:
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if _quoted(text):
        return text[1:-1]
    return _number(text)


def _js_array(code: str, items: str | None) -> Any:
    two_d = match_js_2d(code)
    if two_d is not None:
        rows: list[Any] = []
        for index, inner in enumerate(_JS_INNER.findall(code[:two_d])):
            inner = inner.strip()
            if index == 0 and inner.startswith("["):
                inner = inner[1:]
            rows.append([_js_value(part.strip()) for part in inner.split(",")])
        return rows
    one_d = _JS_1D.match(code)
    if not one_d:
        return code
    body = one_d.group(1) if one_d.group(1) is not None else one_d.group(2)
    body = (body or "").strip()
    parts = body.split(",") if body else []
    if not items:
        return [_js_value(part.strip()) for part in parts]
    out: list[Any] = []
    for part in parts:
        part = part.strip()
        nested = "String" if part.startswith(("'", '"')) else None
        out.append(convert_javascript(part, items, nested))
    return out


def _js_object(code: str) -> Any:
    if code == "{}":
        return {}
    found = _JS_OBJECT.match(code)
    if not found:
        return code
    out: dict[str, Any] = {}
    for key, value in _JS_PAIR.findall(found.group(1)):
        key = key.strip().strip("'\"")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key] = _js_collection(value, "array", None)
        elif value.startswith("{") and value.endswith("}"):
            out[key] = _js_collection(value, "dict", None)
        else:
            out[key] = _js_value(value.strip("'\""))
    return out


def _js_collection(code: str, kind: str, items: str | None) -> Any:
    code = code.strip()
    try:
        return _js_array(code, items) if kind == "array" else _js_object(code)
    except (ValueError, TypeError, AttributeError):
        return code  # the checker keeps the text when a collection does not parse


def convert_javascript(text: str, declared: str, items: str | None = None) -> Any:
    """A JavaScript literal (source text) as the BFCL checker reads it for the ``declared`` type.

    ``"'a'"`` → ``a`` (``String``: quotes removed), ``5`` → 5 (``integer``), ``2.5`` → 2.5
    (``float``), ``5n`` → 5 (``Bigint``), ``true`` → True (``Boolean``), ``[1, 2]`` or ``new
    Array(1, 2)`` → [1, 2] (``array``), ``{a: 1}`` → {"a": 1} (``dict``); ``any`` stays the text. A
    literal that does not parse as the declared type is returned unchanged.

    >>> convert_javascript("'a'", "String"), convert_javascript("[1, 2]", "array", "integer")
    ('a', [1, 2])
    """
    if len(text) > MAX_LITERAL and declared in ("array", "dict"):
        return text
    if declared == "String":
        return text[1:-1] if _quoted(text) else text
    if declared == "integer":
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if declared == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else text
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "dict":
        return _js_collection(text, "dict", items)
    if declared == "array":
        return _js_collection(text, "array", items)
    if declared == "any":
        return text
    raise ValueError(unsupported_type(declared, "javascript"))


_CONVERTERS: Final[dict[str, Callable[[str, str, str | None], Any]]] = {
    "java": convert_java,
    "javascript": convert_javascript,
}


# --------------------------------------------------------------------------------------------------
# The parameter check
# --------------------------------------------------------------------------------------------------


def _first_answer_type(answers: Sequence[Any]) -> type | None:
    for answer in answers:
        if not (isinstance(answer, str) and answer == ""):
            return type(answer)
    return None


def _type_ok(
    value: Any, answers: Sequence[Any], expected: type, nested: type | None
) -> tuple[bool, bool]:  # value is Any: Python-typed values after literal conversion
    """(valid, is_variable) by the checker's type rule (item types checked one level deep)."""
    answer_type = _first_answer_type(answers)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return True, variable
        for answer in answers:
            if not isinstance(answer, list):
                return True, variable  # e.g. "": the item check passes
            items = cast("list[Any]", value)
            if all(_type_ok(item, answer, nested, None)[0] for item in items):
                return True, variable
        return False, variable  # a failed item check is final, as in the checker
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, variable


def _norm(value: Any, mode: NormalizeMode) -> Any:
    return normalize_string(value, mode) if type(value) is str else value


def _acceptable(options: Any) -> list[Any]:
    """A dict answer's acceptable values for one key. BFCL writes a list; a bare string is read as
    the checker reads it, one character per acceptable value."""
    if isinstance(options, list):
        return options
    if isinstance(options, str):
        return list(options)
    return [options]


def _dict_problem(value: dict[str, Any], answer: Any, mode: NormalizeMode) -> Problem | None:
    if not isinstance(answer, dict):
        return ("wrong_value", f"expected an object like {render_value(answer)}", "")
    for key, item in value.items():
        if key not in answer:
            return ("unexpected", f"unexpected key (value {render_value(item)})", key)
        acceptable = _acceptable(answer[key])
        if _norm(item, mode) not in [_norm(option, mode) for option in acceptable]:
            return (
                "wrong_value",
                f"expected one of {render_value(acceptable)}, got {render_value(item)}",
                key,
            )
    for key, acceptable in answer.items():
        # a bare string answer "contains" "" (Python's substring test), so its key may be left out
        if key not in value and not (isinstance(acceptable, list | str) and "" in acceptable):
            return ("missing", f"missing (expected one of {render_value(acceptable)})", key)
    return None


def _first_problem(candidates: list[Problem | None]) -> Problem | None:
    """None if any candidate passed, else the last problem (the checker reports the last answer's)."""
    last: Problem | None = None
    for problem in candidates:
        if problem is None:
            return None
        last = problem
    return last


def check_param(
    value: Any,
    answers: Sequence[Any],
    declared: str,
    items: str | None,
    language: BfclLanguage = "python",
    normalize: NormalizeMode = "bfcl",
    top: bool = True,
) -> Problem | None:
    """The first problem of a present ``value`` against its possible ``answers`` (None: accepted).

    ``declared``/``items`` are the BFCL type names of the parameter and of its array items;
    ``normalize`` is the string rule (``bfcl`` is the checker's); ``top`` is False for a value nested
    inside another argument, where an int is not widened to a float. See the module docstring.
    """
    table = _TABLES[language]
    expected = table.get(declared)
    if expected is None:
        return ("schema", unsupported_type(declared, language) or declared, "")
    nested_name = items if declared in _NESTED[language] else None
    nested = table.get(nested_name) if nested_name else None
    if language != "python":
        if type(value) is not str:
            return (
                "wrong_type",
                f"expected a {language} literal written as a string, got {python_kind(value)} "
                f"{render_value(value)}",
                "",
            )
        value = _CONVERTERS[language](value, declared, nested_name)
    elif declared == "float" and type(value) is int and top:
        value = float(value)
    valid, variable = _type_ok(value, answers, expected, nested)
    if not valid:
        wanted = declared + (f" of {nested_name}" if nested is not None else "")
        return (
            "wrong_type",
            f"expected type {wanted}, got {python_kind(value)} {render_value(value)}",
            "",
        )
    if not variable:
        if expected is dict and isinstance(value, dict):
            return _first_problem(
                [_dict_problem(value, answer, normalize) for answer in answers if answer != ""]
            ) or (None if any(a != "" for a in answers) else _no_answer(value, answers))
        if expected is list and nested is dict and isinstance(value, list):
            return _list_of_dicts(value, answers, normalize)
        if expected is str:
            strings = [normalize_string(a, normalize) for a in answers if type(a) is str]
            if _norm(value, normalize) not in strings:
                return _no_answer(value, answers)
            return None
        if expected is list and isinstance(value, list):
            actual = [_norm(item, normalize) for item in value]
            options: list[Any] = [
                [_norm(item, normalize) for item in answer]
                if isinstance(answer, list | str)
                else answer
                for answer in answers
            ]
            if actual not in options:
                return _no_answer(value, answers)
            return None
    if value not in list(answers):
        return _no_answer(value, answers)
    return None


def _no_answer(value: Any, answers: Sequence[Any]) -> Problem:
    return (
        "wrong_value",
        f"expected one of {render_value(list(answers))} (bfcl), got {python_kind(value)} "
        f"{render_value(value)}",
        "",
    )


def _list_of_dicts(value: list[Any], answers: Sequence[Any], mode: NormalizeMode) -> Problem | None:
    problem: Problem = _no_answer(value, answers)
    for answer in answers:
        if not isinstance(answer, list | str):
            continue
        if len(value) != len(answer):
            problem = ("wrong_value", f"expected {len(answer)} objects, got {len(value)}", "")
            continue
        for index, item in enumerate(value):
            found = (
                _dict_problem(item, answer[index], mode)
                if isinstance(item, dict)
                else ("wrong_type", f"expected an object, got {python_kind(item)}", "")
            )
            if found is not None:
                kind, reason, sub = found
                problem = (kind, reason, f"[{index}]" + (f".{sub}" if sub else ""))
                break
        else:
            return None
    return problem
