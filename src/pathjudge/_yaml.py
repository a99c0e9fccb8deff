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

Errors are raised as the caller's :class:`~pathjudge.errors.InputError` subclass with file and line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from pathjudge.errors import InputError

__all__ = ["MAX_DEPTH", "MAX_EXPANDED_NODES", "load_yaml", "read_text"]

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


def _check_graph(root: yaml.Node, file: str | None, error: type[InputError]) -> None:
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
                raise error(
                    f"{node.value!r} is not a finite number",
                    file=file,
                    line=_line(node),
                    hint="write a finite number (.inf, .nan and values beyond 1e308 are refused)",
                )
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
                raise error(
                    f"aliases expand this document to at least {total:,} values",
                    file=file,
                    line=_line(node),
                    hint="this looks like an alias bomb; write the values out or use fewer aliases",
                )
            levels = 1 + max((height[id(child)] for child in children), default=0)
            if levels > MAX_DEPTH:
                raise error(
                    f"nested more than {MAX_DEPTH} levels deep once aliases are expanded",
                    file=file,
                    line=_line(node),
                    hint="flatten the data; no pathjudge file needs this much nesting",
                )
            size[ident] = total
            height[ident] = levels
            continue
        if ident in size:
            continue  # an alias of a node already measured: memoised, not walked again
        if ident in on_path:
            raise error(
                "an alias refers to the node that contains it (a recursive structure)",
                file=file,
                line=_line(node),
                hint="YAML data here must be a tree; remove the recursive alias",
            )
        if depth > MAX_DEPTH:
            raise error(
                f"nested more than {MAX_DEPTH} levels deep",
                file=file,
                line=_line(node),
                hint="flatten the data; no pathjudge file needs this much nesting",
            )
        if isinstance(node, yaml.MappingNode) and ident not in checked_keys:
            checked_keys.add(ident)
            seen: set[str] = set()
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise error(
                            f"key {key.value!r} appears twice in one mapping",
                            file=file,
                            line=_line(key),
                            field=str(key.value),
                            hint="remove one of them (YAML would silently keep only the last)",
                        )
                    seen.add(key.value)
        on_path.add(ident)
        stack.append((node, depth, True))
        for child in reversed(children):
            if id(child) not in size:
                stack.append((child, depth + 1, False))


def load_yaml(
    text: str, *, file: str | Path | None, error: type[InputError]
) -> tuple[Any, yaml.Node | None]:
    """Parse one YAML document safely: ``(data, root node)``; ``(None, None)`` for an empty document.

    Raises ``error`` (file, line) for invalid YAML, a duplicate key, nesting deeper than
    :data:`MAX_DEPTH`, a recursive alias or an alias expansion past :data:`MAX_EXPANDED_NODES`.
    """
    where = str(file) if file is not None else None
    try:
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            if root is None:
                return None, None
            _check_graph(root, where, error)
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
    from pathjudge._io import read_utf8

    return read_utf8(
        path,
        error=error,
        not_found=f"{what} not found",
        directory=f"is a directory, not a {what}",
        unreadable=f"{what} could not be read",
    )
