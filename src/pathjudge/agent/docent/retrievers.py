"""Swappable retrievers for ``search_docs``: keyword overlap (the real one) and worst-match (broken).

Both score a page by keyword overlap: the number of distinct query tokens that also occur in the page's
title or text (lower-cased; a token is a run of letters, digits and underscores, with inner hyphens or
apostrophes kept, so ``retry-after`` and ``us-east`` are one token each). ``keyword`` returns the ``k``
best pages, ``worst_match`` the ``k`` worst — a stand-in for a retrieval regression such as a bad
embedding swap. Ties keep corpus order (the sort is stable), so both are deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias, assert_never, get_args

from pathjudge.agent.docent.corpus import Doc

__all__ = [
    "RETRIEVER_NAMES",
    "Retriever",
    "RetrieverName",
    "get_retriever",
    "keyword_retriever",
    "overlap",
    "tokens",
    "worst_match_retriever",
]

Retriever: TypeAlias = Callable[[str, Sequence[Doc], int], tuple[Doc, ...]]
"""``(query, docs, k) -> pages``: any function of this shape can stand in for the keyword retriever."""

RetrieverName = Literal["keyword", "worst_match"]
RETRIEVER_NAMES: tuple[RetrieverName, ...] = get_args(RetrieverName)

_TOKEN = re.compile(r"[a-z0-9_]+(?:[-'][a-z0-9_]+)*")


def tokens(text: str) -> set[str]:
    """The distinct lower-cased tokens of ``text`` (empty text → empty set)."""
    return set(_TOKEN.findall(text.lower()))


def overlap(query: str, doc: Doc) -> int:
    """How many distinct query tokens occur in the page's title or text."""
    return len(tokens(query) & tokens(f"{doc.title} {doc.text}"))


def keyword_retriever(query: str, docs: Sequence[Doc], k: int = 2) -> tuple[Doc, ...]:
    """The ``k`` pages with the highest keyword overlap (ties in corpus order). Empty docs → ``()``."""
    return tuple(sorted(docs, key=lambda doc: overlap(query, doc), reverse=True)[: max(k, 0)])


def worst_match_retriever(query: str, docs: Sequence[Doc], k: int = 2) -> tuple[Doc, ...]:
    """Deliberately broken: the ``k`` pages with the LOWEST overlap (ties in corpus order)."""
    return tuple(sorted(docs, key=lambda doc: overlap(query, doc))[: max(k, 0)])


def get_retriever(name: RetrieverName) -> Retriever:
    """The retriever called ``name`` ('keyword' or 'worst_match')."""
    if name == "keyword":
        return keyword_retriever
    if name == "worst_match":
        return worst_match_retriever
    assert_never(name)
