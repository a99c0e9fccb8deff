"""The ``bfcl`` argument-typing profile: the Berkeley Function Calling Leaderboard AST checker's rules.

This module holds the pure functions behind ``types: bfcl``: the BFCL type names of each language, the
conversion of Java and JavaScript literals (the model writes every Java/JS argument as a string of
source text, e.g. ``"new ArrayList<>(Arrays.asList(1, 2))"`` or ``"5L"``), the check of one
parameter value against its list of possible answers (the ``$one_of`` rule, with its ``$declared`` and
``$items`` types, inferred from the first answer when absent: :func:`one_of_types`), and the profile's
typing of the other matchers (:func:`typed_equal` for ``$eq``, :func:`type_name_holds` for ``$type``).
Every BFCL rule is here; :mod:`~pathjudge.rubrics.assertions.arguments.checks` applies them, and
:mod:`~pathjudge.rubrics.assertions.arguments.bfcl_import` reads BFCL's data into expectations.

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
stays text, so it fails a typed parameter), and every checker pattern whose backtracking grows
faster than the literal (the 2-D array pattern is exponential on some inputs, the ``HashMap`` one
cubic on nested heads) is matched by a one-pass scan that finds what the pattern finds (a test
compares each scan with its pattern on random texts), so reading a literal is linear in time and
memory. Python equality is used
where the checker uses it, so the quirks of the official checker are kept
(listed under "Argument typing profiles" in docs/reference/suites.md). :func:`check_param` returns the first
problem as ``(kind, reason, subpath)`` or ``None`` when the value is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, cast

from pathjudge.rubrics.assertions._normalize import (
    NormalizeMode,
    json_kind,
    normalize_string,
    render_value,
)

__all__ = [
    "BFCL_TYPES",
    "BfclLanguage",
    "check_param",
    "convert_java",
    "convert_javascript",
    "eq_mismatch_kind",
    "inferred_type",
    "one_of_types",
    "python_kind",
    "type_name_holds",
    "typed_equal",
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
AS_LIST_PATTERN = r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)"
"""The checker's ``Arrays.asList(..)`` pattern; :func:`first_closed` finds its group in one pass."""
_AS_LIST_HEAD = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\(")
ADD_BLOCK_PATTERN = r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}"
"""The checker's ``{{ add(..); }}`` pattern (DOTALL); :func:`add_block` finds the same group without
its cubic backtracking on long runs of spaces."""
_ADD_HEAD = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{")
ADD_PATTERN = r"add\((.+?)\)"
"""The checker's ``add(..)`` pattern; :func:`find_adds` gives ``re.findall``'s result in one pass."""
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
ARRAY_PATTERN = r"new\s+\w+\[\]\s*\{(.*?)\}"
"""The checker's ``new int[]{..}`` pattern; :func:`first_closed` finds its group in one pass."""
_ARRAY_HEAD = re.compile(r"new\s+\w+\[\]\s*\{")
MAP_PATTERN = r"new\s+HashMap<.*?>\s*+\(\)\s*+\{\s*+\{?\s*+(.*?)\s*+\}?\s*+\}"
"""The checker's ``HashMap`` pattern (DOTALL); :func:`map_body` finds its group in one pass (the
pattern itself backtracks cubically on nested ``new HashMap<>() {{`` heads: 2.5 s for 4,000
characters)."""
_MAP_HEAD = re.compile(r"new\s+HashMap<")
_MAP_OPEN = re.compile(r">\s*+\(\)\s*+\{")
PUT_PATTERN = r"put\(\"(.*?)\",\s*(.*?)\)"
"""The checker's ``put("key", value)`` pattern; :func:`find_puts` gives ``re.findall``'s result
without its cubic backtracking when no ``)`` closes the calls."""
EMPTY_MAP_PATTERN = r"new\s+HashMap<.*?>\s*\(\)"
"""The checker's empty ``HashMap`` pattern; :func:`empty_map` says whether it is found, in one pass."""
_EMPTY_MAP_TAIL = re.compile(r">\s*\(\)")
_SPACES = re.compile(r"\s*")


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


def _after_spaces(text: str, pos: int) -> int:
    """The first index at or after ``pos`` that is not whitespace (``len(text)`` if none)."""
    found = _SPACES.match(text, pos)
    return found.end() if found else pos


def _line_end(text: str, pos: int) -> int:
    """The index of the first newline at or after ``pos`` (``len(text)`` if none)."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


# Each checker pattern below opens with a head (``new\s+HashMap<``, ``add(``, ...) that cannot
# overlap another head, then takes the shortest body that some closer ends. The engine retries the
# body at every head and, for each, at every position up to the end of the line (or the text):
# quadratic or cubic on a literal made of many heads. One pass gives the same answer, because a head
# whose body finds no closer tells that no later head ending within its reach finds one either.


def first_closed(text: str, heads: re.Pattern[str], closer: str, least: int) -> str | None:
    """Group 1 of ``re.search("<heads>(.*?)<closer>", text)`` (``least=1``: ``(.+?)``), or None.

    The group runs from the end of the first head that has a ``closer`` on the line where it ends,
    at least ``least`` characters on, to that closer (``.`` never crosses a newline). A head that
    ends on a line where an earlier head found no closer finds none either: it is skipped unread.
    """
    dead_until = -1
    for head in heads.finditer(text):
        start = head.end()
        if start <= dead_until:
            continue
        line_end = _line_end(text, start)
        end = text.find(closer, start + least, line_end)
        if end >= 0:
            return text[start:end]
        dead_until = line_end
    return None


def find_adds(body: str) -> list[str]:
    """``re.findall(ADD_PATTERN, body)`` in one pass: each ``add(`` takes what stands before the
    first ``)`` on its line (one character at least); when there is none, no later ``add(`` on
    that line has one."""
    out: list[str] = []
    pos = 0
    line_end = -1
    while (head := body.find("add(", pos)) >= 0:
        start = head + 4
        if start > line_end:
            line_end = _line_end(body, start)
        end = body.find(")", start + 1, line_end)
        if end < 0:
            pos = line_end
            continue
        out.append(body[start:end])
        pos = end + 1
    return out


def add_block(text: str) -> str | None:
    """Group 1 of ``re.search(ADD_BLOCK_PATTERN, text, re.DOTALL)`` (None: no match), in one pass.

    The body starts after the spaces that follow the first head's ``{{`` and ends (one character
    on at least) where only spaces stand before the first ``}}`` after it; when there is none, the
    engine gives back one space and the body is that single space if ``}}`` follows it. A later
    head can only reach a ``}}`` that the first one reaches, so the first head decides.
    """
    head = _ADD_HEAD.search(text)
    if head is None:
        return None
    start = _after_spaces(text, head.end())
    close = text.find("}}", start + 1)
    if close >= 0:
        return text[start : start + 1 + len(text[start + 1 : close].rstrip())]
    if start > head.end() and text.startswith("}}", start):
        return text[start - 1 : start]
    return None


def _java_arraylist(text: str, items: str | None) -> Any:
    found = first_closed(text, _AS_LIST_HEAD, "))", 1)
    if found is not None:
        return [_java_element(part.strip(), items) for part in found.split(",")]
    body = add_block(text)
    if body is not None:
        return [_java_element(part.strip(), items) for part in find_adds(body)]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, items: str | None) -> Any:
    found = first_closed(text, _ARRAY_HEAD, "}", 0)
    if found is None:
        return text
    parts = [part.strip() for part in found.split(",") if part.strip()]
    # unlike ArrayList, Array items are converted by their declared type, so a String item keeps
    # its quotes (as the official converter does)
    return [convert_java(part, items) if items else _java_value(part) for part in parts]


def find_puts(body: str) -> list[tuple[str, str]]:
    """``re.findall(PUT_PATTERN, body)`` in one pass: the key ends at the first ``",`` (on the
    same line) after which, past any spaces, a ``)`` closes the value on its line."""
    n = len(body)
    close = [-1] * (n + 1)  # close[p]: the first ")" at or after p before a newline, else -1
    for p in range(n - 1, -1, -1):
        ch = body[p]
        close[p] = p if ch == ")" else (-1 if ch == "\n" else close[p + 1])
    good = [n] * (n + 1)  # good[p]: the first '",' at or after p whose value a ")" closes
    for p in range(n - 1, -1, -1):
        good[p] = good[p + 1]
        if body.startswith('",', p) and close[_after_spaces(body, p + 2)] >= 0:
            good[p] = p
    out: list[tuple[str, str]] = []
    i = 0
    line_end = -1
    while (head := body.find('put("', i)) >= 0:
        key_start = head + 5
        if key_start > line_end:
            line_end = _line_end(body, key_start)
        comma = good[key_start]
        if comma + 2 > line_end:
            i = line_end  # no later put(" on this line finds a closed value either
            continue
        value_start = _after_spaces(body, comma + 2)
        end = close[value_start]
        out.append((body[key_start:comma], body[value_start:end]))
        i = end + 1
    return out


def map_body(text: str) -> str | None:
    """Group 1 of ``re.search(MAP_PATTERN, text, re.DOTALL)`` (None: no match), in one pass.

    The first ``new HashMap<`` head decides (the lazy ``.*?`` lets it reach every ``>`` a later
    head reaches): its first ``>`` followed by ``()`` and ``{``, an optional second ``{``, then
    the body up to the spaces before the first ``}``.
    """
    head = _MAP_HEAD.search(text)
    opened = _MAP_OPEN.search(text, head.end()) if head else None
    if opened is None:
        return None
    start = _after_spaces(text, opened.end())
    if text.startswith("{", start):
        start = _after_spaces(text, start + 1)
    close = text.find("}", start)
    return None if close < 0 else text[start:close].rstrip()


def empty_map(text: str) -> bool:
    """Whether ``re.search(EMPTY_MAP_PATTERN, text)`` matches, in one pass: some head has, on the
    line where it ends, a ``>`` that spaces and ``()`` follow."""
    tail: re.Match[str] | None = None
    dead_until = -1
    for head in _MAP_HEAD.finditer(text):
        start = head.end()
        if start <= dead_until:
            continue
        if tail is None or tail.start() < start:
            tail = _EMPTY_MAP_TAIL.search(text, start)  # the first tail at or after this head
            if tail is None:
                return False
        line_end = _line_end(text, start)
        if tail.start() < line_end:
            return True
        dead_until = line_end
    return False


def _java_hashmap(text: str) -> Any:
    body = map_body(text)
    if body is not None:
        out: dict[str, Any] = {}
        if body.strip():
            for key, value in find_puts(body):
                out[key] = _java_value(value.strip())
        return out
    if empty_map(text):
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
JS_PAIR_PATTERN = r"([^:]++):\s*+(.*?)(?:,\s*(?=[^,]+:)|$)"
"""The checker's ``key: value`` pattern; :func:`find_pairs` gives ``re.findall``'s result in one
pass (the engine retries the key at every character: quadratic on text without a ``:``)."""


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


def _value_ends(body: str) -> list[int]:
    """``ends[p]``: the first place at or after ``p`` where a ``key: value`` pair's value may end:
    a ``,`` after which a ``:`` comes before the next ``,`` (one character on at least), or the end
    of the text (before a final newline)."""
    n = len(body)
    ends = [n] * (n + 1)
    found = n
    next_comma = n
    for p in range(n - 1, -1, -1):
        ch = body[p]
        if ch == ",":
            if body.find(":", p + 2, next_comma) >= 0:
                found = p
            next_comma = p
        elif p == n - 1 and ch == "\n":
            found = p
        ends[p] = found
    return ends


def find_pairs(body: str) -> list[tuple[str, str]]:
    """``re.findall(JS_PAIR_PATTERN, body)`` in one pass.

    A pair's key runs from where the last pair ended to the next ``:`` (one character at least),
    its value from past the spaces after it to the first place it may end (see :func:`_value_ends`)
    on that line. When none is on that line, no start before the ``:`` finds one either: the next
    try starts after it. After a ``,``, the spaces go with the pair unless the ``:`` follows them
    directly with no other ``:`` before the next ``,`` (the engine then gives one space back).
    """
    n = len(body)
    ends = _value_ends(body)
    out: list[tuple[str, str]] = []
    pos = 0
    line_end = -1
    while (colon := body.find(":", pos)) >= 0:
        value_start = _after_spaces(body, colon + 1)
        if value_start > line_end:
            line_end = _line_end(body, value_start)
        end = ends[value_start]
        if colon == pos or end > line_end:
            pos = colon + 1
            continue
        out.append((body[pos:colon], body[value_start:end]))
        if end == n or body[end] != ",":
            pos = end  # the end of the text, or before its final newline
            continue
        next_comma = body.find(",", end + 1)
        after = _after_spaces(body, end + 1)
        more = body.find(":", after + 1, n if next_comma < 0 else next_comma) >= 0
        pos = after if more else after - 1
    return out


def _js_object(code: str) -> Any:
    if code == "{}":
        return {}
    found = _JS_OBJECT.match(code)
    if not found:
        return code
    out: dict[str, Any] = {}
    for key, value in find_pairs(found.group(1)):
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


# --------------------------------------------------------------------------------------------------
# The profile's rules for the other matchers ($eq, $type) and for a $one_of without $declared
# --------------------------------------------------------------------------------------------------


def typed_equal(value: object, expected: object, mode: NormalizeMode, level: int) -> bool:
    """Typed equality of the ``bfcl`` profile (strings under ``mode`` down to level 1).

    ``level`` is the depth inside the argument (0: the argument itself, where an int equals a float).
    """
    if level == 0 and type(expected) is float and type(value) is int:
        return float(value) == expected
    if type(value) is not type(expected):
        return False
    if isinstance(value, str):
        assert isinstance(expected, str)
        if level <= 1:
            return normalize_string(value, mode) == normalize_string(expected, mode)
        return value == expected  # deeper strings compare exactly
    if isinstance(value, list):
        assert isinstance(expected, list)
        return len(value) == len(expected) and all(
            typed_equal(a, b, mode, level + 1) for a, b in zip(value, expected, strict=True)
        )
    if isinstance(value, dict):
        assert isinstance(expected, dict)
        return value.keys() == expected.keys() and all(
            typed_equal(value[key], expected[key], mode, level + 1) for key in value
        )
    return value == expected


def eq_mismatch_kind(
    value: object, expected: object, level: int
) -> Literal["wrong_value", "wrong_type"]:
    """The kind of a failed typed equality: a wrong value when the types agree (or an int stands for
    a float at the top level), else a wrong type."""
    return (
        "wrong_value"
        if python_kind(value) == python_kind(expected)
        or (level == 0 and type(expected) is float and type(value) is int)
        else "wrong_type"
    )


def type_name_holds(value: object, name: str) -> bool:
    """``$type`` under the ``bfcl`` profile: ``integer`` is a Python ``int`` (``2.0`` is no integer,
    ``bool`` never is); the other names are JSON types."""
    return type(value) is int if name == "integer" else json_kind(value) == name


def inferred_type(values: Sequence[Any]) -> tuple[str | None, str | None]:
    """The BFCL type names (declared, items) of the first value that is not ``""``."""
    for value in values:
        if isinstance(value, str) and value == "":
            continue
        kind = python_kind(value)
        if kind == "array":
            first = value[0] if isinstance(value, list) and value else None
            return "array", (python_kind(first) if first is not None else None)
        return (kind if kind in BFCL_TYPES["python"] else None), None
    return None, None


def one_of_types(
    answers: Sequence[Any], declared: str | None, items: str | None, language: BfclLanguage
) -> tuple[str | None, str | None, BfclLanguage]:
    """The (declared, items, language) the checker's rule applies to a ``$one_of``: as given, or, with
    no ``$declared``, the Python types of the first listed answer (see :func:`inferred_type`). A
    declared type of None means none can be inferred: the value must equal an answer by
    :func:`typed_equal`."""
    if declared is None:
        declared, inferred_items = inferred_type(answers)
        return declared, items or inferred_items, "python"
    return declared, items, language
