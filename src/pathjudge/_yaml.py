"""Reading YAML that came from elsewhere: fast, with line numbers, and bounded.

Every YAML file pathjudge reads (suites, criteria) goes through :func:`load_yaml`:

- it parses with libyaml's ``CSafeLoader`` when PyYAML was built with it (several times faster than the
  pure-Python ``SafeLoader``, which is the fallback), composing the node tree first so every error can
  name the line;
- only the safe tags are constructed (no Python objects, never code);
- a key written twice in one mapping is an error (YAML would silently keep the last one);
- a number that is not finite (``.inf``, ``.nan``, ``1e400``) is an error naming its line;
- the node graph is walked once, iteratively and memoised, before anything is constructed: a mapping or
  sequence nested deeper than :data:`MAX_DEPTH`, an alias that refers to itself, or aliases that would
  expand to more than :data:`MAX_EXPANDED_NODES` nodes and ten times the nodes written (a "billion laughs" bomb: a few hundred bytes
  that expand to billions of values) is refused at once, so reading never hangs or exhausts memory.
  A document without an anchor (no ``&``) cannot hold an alias, so its nodes form a tree: it is
  checked by a plain walk and built directly (:func:`_construct_tree`), which reads a suite about
  twice as fast, with the same data and the same first error as the graph walk and PyYAML's own
  constructor (still used for anything but plain strings, numbers, booleans, nulls, lists and maps).

Errors are raised as the caller's :class:`~pathjudge.errors.InputError` subclass with file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pathjudge._io import read_utf8
from pathjudge.errors import InputError

__all__ = ["MAX_DEPTH", "MAX_EXPANDED_NODES", "dump_yaml", "load_yaml", "read_text"]

MAX_DEPTH = 100
"""The deepest nesting of mappings and sequences accepted (real suites nest well under 20)."""

MAX_EXPANDED_NODES = 100_000
"""The most nodes aliases may expand a document to, beyond ten times the nodes actually written."""

_Loader: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


_FLOAT_TAG = "tag:yaml.org,2002:float"


def _finite(text: str) -> bool:
    lowered = text.strip().lower().lstrip("+-")
    if lowered in (".inf", ".nan"):
        return False
    try:
        return math.isfinite(float(text.replace("_", "")))
    except ValueError:
        return True  # another float spelling (e.g. sexagesimal): finite by construction


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


@dataclass(frozen=True, slots=True)
class _Problems:
    """Where the checked nodes come from: each problem is the caller's ``error`` naming the file and
    the node's line."""

    file: str | None
    error: type[InputError]

    def at(
        self, node: yaml.Node, message: str, *, hint: str, field: str | None = None
    ) -> InputError:
        return self.error(message, file=self.file, line=_line(node), field=field, hint=hint)

    def not_finite(self, node: yaml.ScalarNode) -> InputError:
        return self.at(
            node,
            f"{node.value!r} is not a finite number",
            hint="write a finite number (.inf, .nan and values beyond 1e308 are refused)",
        )

    def too_deep(self, node: yaml.Node, *, expanded: bool = False) -> InputError:
        return self.at(
            node,
            f"nested more than {MAX_DEPTH} levels deep"
            + (" once aliases are expanded" if expanded else ""),
            hint="flatten the data; no pathjudge file needs this much nesting",
        )


def _check_keys(node: yaml.MappingNode, problems: _Problems) -> None:
    """Refuse a key that appears twice in one mapping (YAML would silently keep the last)."""
    seen: set[str] = set()
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
            if key.value in seen:
                raise problems.at(
                    key,
                    f"key {key.value!r} appears twice in one mapping",
                    field=str(key.value),
                    hint="remove one of them (YAML would silently keep only the last)",
                )
            seen.add(key.value)


def _check_graph(root: yaml.Node, problems: _Problems) -> None:
    """Duplicate keys, depth, alias cycles and alias expansion, in one iterative memoised pass."""
    size: dict[int, int] = {}  # id(node) -> expanded node count, once finished
    height: dict[int, int] = {}  # id(node) -> nesting levels under it, aliases expanded
    on_path: set[int] = set()
    checked_keys: set[int] = set()
    # (node, depth, children-pushed?)
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, expanded = stack.pop()
        ident = id(node)
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _FLOAT_TAG and not _finite(node.value):
                raise problems.not_finite(node)
            size[ident] = 1
            height[ident] = 0
            continue
        children: list[yaml.Node]
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = list(node.value)
        if expanded:
            on_path.discard(ident)
            total = 1 + sum(size[id(child)] for child in children)
            if total > max(MAX_EXPANDED_NODES, 10 * len(size)):
                raise problems.at(
                    node,
                    f"aliases expand this document to at least {total:,} values",
                    hint="this looks like an alias bomb; write the values out or use fewer aliases",
                )
            levels = 1 + max((height[id(child)] for child in children), default=0)
            if levels > MAX_DEPTH:
                raise problems.too_deep(node, expanded=True)
            size[ident] = total
            height[ident] = levels
            continue
        if ident in size:
            continue  # an alias of a node already measured: memoised, not walked again
        if ident in on_path:
            raise problems.at(
                node,
                "an alias refers to the node that contains it (a recursive structure)",
                hint="YAML data here must be a tree; remove the recursive alias",
            )
        if depth > MAX_DEPTH:
            raise problems.too_deep(node)
        if isinstance(node, yaml.MappingNode) and ident not in checked_keys:
            checked_keys.add(ident)
            _check_keys(node, problems)
        on_path.add(ident)
        stack.append((node, depth, True))
        for child in reversed(children):
            if id(child) not in size:
                stack.append((child, depth + 1, False))


def _check_tree(root: yaml.Node, problems: _Problems) -> None:
    """:func:`_check_graph` for a document without anchors, whose nodes form a tree.

    Without an anchor there is no alias, so no cycle and no expansion to measure: what is left is
    the non-finite floats, the depth and the duplicate keys, checked in the same order (depth first,
    in document order) so the first problem reported is the one :func:`_check_graph` reports.
    """
    scalar, mapping = yaml.ScalarNode, yaml.MappingNode
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if isinstance(node, scalar):
            if node.tag == _FLOAT_TAG and not _finite(node.value):
                raise problems.not_finite(node)
            continue
        if depth > MAX_DEPTH:
            raise problems.too_deep(node)
        depth += 1
        if isinstance(node, mapping):
            _check_keys(node, problems)
            for key, value in reversed(node.value):
                push((value, depth))
                push((key, depth))
        else:
            for child in reversed(node.value):
                push((child, depth))


_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_PLAIN_SCALAR_TAGS = frozenset(
    {"tag:yaml.org,2002:int", _FLOAT_TAG, "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
)
_SAFE = yaml.constructor.SafeConstructor
_STOCK = {
    _STR_TAG: _SAFE.construct_yaml_str,
    _SEQ_TAG: _SAFE.construct_yaml_seq,
    _MAP_TAG: _SAFE.construct_yaml_map,
    "tag:yaml.org,2002:int": _SAFE.construct_yaml_int,
    _FLOAT_TAG: _SAFE.construct_yaml_float,
    "tag:yaml.org,2002:bool": _SAFE.construct_yaml_bool,
    "tag:yaml.org,2002:null": _SAFE.construct_yaml_null,
}


class _NotPlain(Exception):
    """A node the fast construction leaves to PyYAML's own constructor."""


def _construct_tree(loader: Any, root: yaml.Node) -> Any:
    """The Python value of a tree of plain nodes (no anchors), as ``construct_document`` builds it.

    Strings, lists and dicts are built directly (as PyYAML's safe constructor builds them: a string
    is the scalar's text), ints, floats, booleans and nulls by PyYAML's constructors for those tags
    (plain functions of the node). Anything else (another tag, a merge key, a collection as a key, two keys that are equal
    as values, a constructor replaced with ``yaml.add_constructor``) raises :class:`_NotPlain`, and
    the caller constructs the whole document the usual way.
    """
    constructors = loader.yaml_constructors
    if any(constructors.get(tag) is not stock for tag, stock in _STOCK.items()):
        raise _NotPlain
    scalar, mapping = yaml.ScalarNode, yaml.MappingNode

    def leaf(node: yaml.Node) -> Any:
        tag = node.tag
        if tag == _STR_TAG:
            return node.value
        if tag in _PLAIN_SCALAR_TAGS:
            return constructors[tag](loader, node)
        raise _NotPlain

    out: list[Any] = [None]
    # (node, the dict or list its value goes into, its key or index there)
    stack: list[tuple[yaml.Node, Any, Any]] = [(root, out, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, into, where = pop()
        value: Any
        if isinstance(node, scalar):
            value = leaf(node)
        elif isinstance(node, mapping):
            if node.tag != _MAP_TAG:
                raise _NotPlain
            value = {}
            for key_node, item in node.value:
                if not isinstance(key_node, scalar) or key_node.tag not in _KEY_TAGS:
                    raise _NotPlain  # a merge key, a "=" key, a collection or another tag
                key = leaf(key_node)
                if key in value:
                    raise _NotPlain  # e.g. 1 and 0x1: the last one wins, as PyYAML decides
                if isinstance(item, scalar):
                    value[key] = leaf(item)
                else:
                    value[key] = None  # holds the key's place; the value is built below
                    push((item, value, key))
        else:
            if node.tag != _SEQ_TAG:
                raise _NotPlain
            value = []
            for index, item in enumerate(node.value):
                if isinstance(item, scalar):
                    value.append(leaf(item))
                else:
                    value.append(None)
                    push((item, value, index))
        into[where] = value
    return out[0]


_KEY_TAGS = frozenset({_STR_TAG, *_PLAIN_SCALAR_TAGS})


def load_yaml(
    text: str, *, file: str | Path | None, error: type[InputError]
) -> tuple[Any, yaml.Node | None]:
    """Parse one YAML document safely: ``(data, root node)``; ``(None, None)`` for an empty document.

    Raises ``error`` (file, line) for invalid YAML, a duplicate key, nesting deeper than
    :data:`MAX_DEPTH`, a recursive alias or an alias expansion past :data:`MAX_EXPANDED_NODES`.
    """
    where = str(file) if file is not None else None
    problems = _Problems(where, error)
    try:
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            if root is None:
                return None, None
            if "&" in text:  # an anchor, so maybe aliases: the full graph check
                _check_graph(root, problems)
                data = loader.construct_document(root)
            else:  # no anchor, no alias: a tree, checked and built in one pass each
                _check_tree(root, problems)
                try:
                    data = _construct_tree(loader, root)
                except Exception:  # PyYAML's own constructor decides, and words the error
                    data = loader.construct_document(root)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if "maximum nesting depth" in str(problem):
            problem = f"nested too deeply (more than {MAX_DEPTH} levels)"
        raise error(
            f"not valid YAML ({problem})",
            file=where,
            line=mark.line + 1 if mark is not None else None,
        ) from None
    except yaml.YAMLError as exc:
        raise error(f"not valid YAML ({exc})", file=where) from None
    except RecursionError:  # the pure-Python fallback composes recursively
        raise error(
            f"nested too deeply (more than {MAX_DEPTH} levels)",
            file=where,
            hint="flatten the data; no pathjudge file needs this much nesting",
        ) from None
    return data, root


def read_text(path: Path, *, error: type[InputError], what: str) -> str:
    """The UTF-8 text of ``path``; a missing, unreadable or non-UTF-8 file is one ``error`` with
    the file (and, for bad bytes, the line and column)."""

    return read_utf8(
        path,
        error=error,
        not_found=f"{what} not found",
        directory=f"is a directory, not a {what}",
        unreadable=f"{what} could not be read",
    )


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line or long strings as ``|`` / ``>`` blocks so long inputs stay readable."""


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else ">" if len(data) > 80 else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_BlockDumper.add_representer(str, _str_presenter)


def dump_yaml(data: Any) -> str:
    """``data`` as YAML for a person to read and edit: keys in their order, Unicode as is, lines
    near 100 characters, multi-line strings as ``|`` blocks and long ones as ``>`` blocks (only
    safe tags, so :func:`load_yaml` reads it back to the same data)."""
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
