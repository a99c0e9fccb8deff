"""JSON value helpers shared by the deterministic checks: kinds, equality, normalisation, canonical form.

Everything here is a pure function over JSON values (``None``, ``bool``, ``int``, ``float``, ``str``,
lists and string-keyed dicts). Two rules hold throughout:

- a boolean is never a number (``True != 1``), although Python says otherwise;
- an integer equals a float of the same value (``5 == 5.0``): JSON has one number type.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
import unicodedata
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Literal, TypeAlias, assert_never, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = [
    "JsonKind",
    "NormalizeMode",
    "NormalizeSpec",
    "TextNormalization",
    "canonical_equal",
    "canonical_json",
    "canonical_key",
    "casefold_text",
    "describe_normalization",
    "json_equal",
    "json_kind",
    "normalize_json",
    "normalize_string",
    "render_value",
    "text_normalizer",
]

JsonKind = Literal["null", "boolean", "number", "string", "array", "object"]

NormalizeMode = Literal["none", "casefold", "bfcl"]
"""How strings are compared.

- ``none``: exactly as written.
- ``casefold``: case-insensitive, surrounding whitespace stripped, inner runs of whitespace collapsed
  to one space (``"  Rate   LIMIT "`` equals ``"rate limit"``).
- ``bfcl``: the Berkeley Function Calling Leaderboard checker's rule: lower-case, drop every space and
  every one of the characters ``, . / - _ * ^``, and read ``'`` as ``"`` (so ``"April 1, 2024"`` equals
  ``"april 1 2024"`` and ``"2024-04-01"`` equals ``"20240401"``).
"""

_BFCL_DROP = str.maketrans(dict.fromkeys(" ,./-_*^"))
"""The characters the ``bfcl`` rule deletes (a ``str.translate`` table: no object per match)."""


_CHUNK = 1 << 13
_SPACE = re.compile(r"\s")


def collapse_whitespace(text: str) -> str:
    r"""``text`` with every run of whitespace made one space and none at either end.

    The same as substituting ``\s+`` with a space and stripping (``str.split`` and ``re``'s ``\s``
    share one definition of whitespace), at a third of the cost. A long text is cut at whitespace
    into pieces of about 8K characters, so the list of words that ``split`` builds stays that
    small: memory follows the text, not its number of words.
    """
    if len(text) <= _CHUNK:
        return " ".join(text.split())
    pieces: list[str] = []
    start = 0
    while start < len(text):
        cut = _SPACE.search(text, start + _CHUNK)
        end = cut.start() if cut else len(text)
        piece = " ".join(text[start:end].split())
        if piece:
            pieces.append(piece)
        start = end
    return " ".join(pieces)


class TextNormalization(BaseModel):
    """A declared text normalisation, composable: steps applied in this order, each off unless set.

    ``strip_accents`` (NFKD, combining marks dropped: ``"café"`` → ``"cafe"``), ``casefold``,
    ``remove`` (each of these characters is deleted: ``remove: ",$"``), ``punctuation: drop`` (every
    Unicode punctuation character is deleted), ``collapse_whitespace`` (runs of whitespace become one
    space, ends trimmed). The named presets of :data:`NormalizeMode` are shorthands: ``none`` is
    ``{}``, ``casefold`` is ``{casefold: true, collapse_whitespace: true}``, ``bfcl`` is the BFCL
    checker's rule (lower case, ``remove: " ,./-_*^"``, and ``'`` read as ``"``).

    >>> TextNormalization(casefold=True, remove=",$").apply("Total: $23,553.")
    'total: 23553.'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    casefold: bool = Field(default=False, description="Compare case-insensitively (str.casefold).")
    remove: str = Field(default="", description="Characters deleted before comparing.")
    strip_accents: bool = Field(
        default=False, description="Drop accents (NFKD decomposition, combining marks removed)."
    )
    collapse_whitespace: bool = Field(
        default=False, description="Runs of whitespace become one space; ends trimmed."
    )
    punctuation: Literal["keep", "drop"] = Field(
        default="keep", description="drop: delete every Unicode punctuation character."
    )

    @functools.cached_property
    def apply(self) -> Callable[[str], str]:
        """The normalisation as one function, built once per declaration."""
        steps: list[Callable[[str], str]] = []
        if self.strip_accents:
            steps.append(_strip_accents)
        if self.casefold:
            steps.append(str.casefold)
        if self.remove:
            table = str.maketrans(dict.fromkeys(self.remove))
            steps.append(lambda text: text.translate(table))
        if self.punctuation == "drop":
            steps.append(lambda text: text.translate(_punctuation_table()))
        if self.collapse_whitespace:
            steps.append(collapse_whitespace)
        if len(steps) == 1:
            return steps[0]

        def run(text: str) -> str:
            for step in steps:
                text = step(text)
            return text

        return run

    def describe(self) -> str:
        """``casefold, remove ",$"`` for reasons."""
        parts = [
            name
            for name, on in (
                ("strip_accents", self.strip_accents),
                ("casefold", self.casefold),
                ("punctuation dropped", self.punctuation == "drop"),
                ("whitespace collapsed", self.collapse_whitespace),
            )
            if on
        ]
        if self.remove:
            parts.append(f"remove {json.dumps(self.remove, ensure_ascii=False)}")
        return ", ".join(parts) or "exact"


class _AccentsStripped(dict[int, str]):
    """``table[code]``: the NFKD decomposition of one character, its combining marks dropped,
    computed on first use (a ``str.translate`` table)."""

    def __missing__(self, code: int) -> str:
        decomposed = unicodedata.normalize("NFKD", chr(code))
        kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
        self[code] = kept
        return kept


def _strip_accents(text: str) -> str:
    """NFKD with combining marks dropped, one character at a time.

    Decomposition maps each character on its own and canonical reordering moves only combining
    marks, which are all dropped, so translating character by character gives what decomposing the
    whole text does, in memory proportional to the result (the whole-text route held a one-character
    string per decomposed character: 1.5 GB for 3 MB of U+FDFA, which decomposes to 18 characters).
    """
    if text.isascii():
        return text  # nothing to strip
    return text.translate(_AccentsStripped())


@functools.cache
def _punctuation_table() -> dict[int, None]:
    """Every Unicode punctuation code point (categories P*), built on first use."""
    return {
        code: None
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)).startswith("P")
    }


NormalizeSpec: TypeAlias = NormalizeMode | TextNormalization
"""A named preset (``none``, ``casefold``, ``bfcl``) or a declared :class:`TextNormalization`."""


def text_normalizer(spec: NormalizeSpec) -> Callable[[str], str]:
    """The function that applies ``spec`` to a string (a preset or a declared normalisation)."""
    if isinstance(spec, TextNormalization):
        return spec.apply
    # each preset's rule as a plain function (what normalize_string(text, spec) does)
    if spec == "casefold":
        return casefold_text
    if spec == "none":
        return _unchanged
    return functools.partial(normalize_string, mode=spec)


def casefold_text(text: str) -> str:
    """The ``casefold`` preset: whitespace runs folded to one space, ends trimmed, case-folded."""
    return collapse_whitespace(text).casefold()


def _unchanged(text: str) -> str:
    return text


def describe_normalization(spec: NormalizeSpec) -> str:
    """A preset's name, or the declared steps."""
    return spec if isinstance(spec, str) else spec.describe()


_PLAIN_KINDS: dict[type, JsonKind] = {
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
    list: "array",
    tuple: "array",
    dict: "object",
}
"""The JSON type of a value of each plain Python type (a subclass goes through the tests below)."""


def json_kind(value: object) -> JsonKind:
    """The JSON type of ``value``; ints and floats are both ``number``, bools are ``boolean``."""
    plain = _PLAIN_KINDS.get(type(value))
    if plain is not None:
        return plain
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def normalize_string(text: str, mode: NormalizeMode) -> str:
    """``text`` under the string rule ``mode`` (see :data:`NormalizeMode`)."""
    if mode == "none":
        return text
    if mode == "casefold":
        return collapse_whitespace(text).casefold()
    if mode == "bfcl":
        # the quote is replaced after lower(): an apostrophe is case-ignorable, a double quote is
        # not, and that decides whether a capital sigma lowers to its final form
        return text.translate(_BFCL_DROP).lower().replace("'", '"')
    assert_never(mode)


def normalize_json(value: JsonValue, mode: NormalizeMode) -> JsonValue:
    """A copy of ``value`` with every string (at any depth, dict keys excepted) under rule ``mode``."""
    if mode == "none":
        return value
    if isinstance(value, str):
        return normalize_string(value, mode)
    if isinstance(value, list):
        return [normalize_json(item, mode) for item in value]
    if isinstance(value, dict):
        return {key: normalize_json(item, mode) for key, item in value.items()}
    return value


def json_equal(left: object, right: object) -> bool:
    """JSON equality: bools are not numbers, ``5 == 5.0``, lists are order-sensitive, dicts are not."""
    kind = type(left)
    if kind is type(right) and (kind is str or kind is int or kind is float):
        return left == right  # (what the tests below give two plain values of one such type)
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(
            json_equal(left[key], right[key]) for key in left
        )
    return left is None and right is None


def _canonical(value: JsonValue) -> JsonValue:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    return value


def canonical_json(value: JsonValue) -> str:
    """A canonical text of ``value`` for "same arguments" comparisons.

    Keys are sorted, separators are compact, and integral floats are written as integers; strings
    are kept exactly (the lenient argument profile's equality: ``"AA"``, ``"Aa"`` and ``"aa"`` are
    three different genotypes, ``" x"`` is not ``"x"``). Two argument dicts that differ only in key
    order or ``5`` vs ``5.0`` give the same text.

    >>> canonical_json({"b": "Rate Limit", "a": 5.0})
    '{"a":5,"b":"Rate Limit"}'
    """
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Tag:
    """A marker inside :func:`canonical_key` values; equal only to itself."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_TRUE = _Tag("true")
_FALSE = _Tag("false")
_OBJECT = _Tag("object")
_NON_FINITE = _Tag("non-finite")


def canonical_key(value: JsonValue) -> Hashable:
    """A hashable stand-in for :func:`canonical_json`: ``canonical_key(a) == canonical_key(b)``
    exactly when ``canonical_json(a) == canonical_json(b)``, without writing any JSON text.

    Strings and numbers stay as they are (``5.0 == 5`` already), lists become tuples, objects become
    a marked tuple of their items sorted by key, and booleans and non-finite floats become markers (so ``True`` never equals ``1``, as ``true`` never equals ``1``).
    For equality and hashing only; the value itself means nothing.
    """
    known: Any = value
    kind = type(known)  # the exact JSON types first (the common case), subclasses below
    if kind is str:
        return cast(str, known)
    if kind is dict:
        # the string and integer members done here, without a call each (the same keys as below)
        items: list[tuple[Any, Hashable]] = []
        for key, item in known.items():
            member = type(item)
            if member is str or member is int:
                items.append((key, item))
            else:
                items.append((key, canonical_key(item)))
        items.sort()  # the keys are distinct, so only they are compared
        return (_OBJECT, *items)
    if kind is int:
        return cast(int, known)
    if kind is list:
        return tuple([canonical_key(item) for item in known])
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return _TRUE if value else _FALSE
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        # Python already compares (and hashes) 5.0 equal to 5, as canonical_json writes both "5";
        # NaN alone is unequal to itself, so non-finite floats become marked texts.
        return value if math.isfinite(value) else (_NON_FINITE, repr(value))
    if isinstance(value, dict):
        return (_OBJECT, *sorted([(key, canonical_key(item)) for key, item in value.items()]))
    if isinstance(value, list):
        return tuple([canonical_key(item) for item in value])
    return value


def canonical_equal(left: JsonValue, right: JsonValue) -> bool:
    """``canonical_key(left) == canonical_key(right)``, without building the keys when a cheap
    difference already tells.

    Two objects with different keys differ; a member that is an ``int`` or a ``str`` on both sides is
    compared as it is (``canonical_key`` keeps both). Only when no such member differs are the other
    members' keys built and compared, so two calls that differ in a number or a string (the common
    case) never build a key.
    """
    if type(left) is not dict or type(right) is not dict:
        return bool(canonical_key(left) == canonical_key(right))
    known_left: Any = left  # exact dicts (a cast would build a generic alias per call)
    known_right: Any = right
    if known_left.keys() != known_right.keys():
        return False  # canonical_key keeps the keys as they are
    undecided: list[str] = []
    for key, a in known_left.items():
        b = known_right[key]
        kind = type(a)
        if (kind is int or kind is str) and type(b) is kind:
            if a != b:
                return False
        else:
            undecided.append(key)
    for key in undecided:
        if canonical_key(known_left[key]) != canonical_key(known_right[key]):
            return False
    return True


def render_value(value: object, limit: int = 60) -> str:
    """A short JSON rendering of ``value`` for reasons (cut to ``limit`` characters with ``…``).

    The text of ``json.dumps(value, ensure_ascii=False, sort_keys=True)``, through one encoder built
    once (``json.dumps`` builds a new one per call for these options), and a plain string straight
    through the encoder's string escaper (what the encoder does with one). A plain scalar is written
    as the encoder writes it (``repr`` of an int or a finite float, ``true``, ``false``, ``null``)
    without the encoder's per-call set-up, which costs more than the rest of this function.
    """
    kind = type(value)
    if kind is str:
        text = _encode_string(cast(str, value))
    elif kind is int:
        text = int.__repr__(cast(int, value))  # ValueError past the digit limit, as the encoder
    elif kind is bool:
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif kind is float and math.isfinite(cast(float, value)):
        text = float.__repr__(cast(float, value))
    else:
        try:
            text = _ENCODER.encode(value)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
_encode_string = json.encoder.encode_basestring
