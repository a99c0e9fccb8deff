"""Docent's tools: ``search_docs`` over the Meridian corpus, its trap variants, and a distractor.

- ``search_docs(query)``: the ``k`` best pages for ``query`` from a swappable retriever; each hit is
  ``{"id", "title", "text"}``.
- flaky ``search_docs``: the same, except that its FIRST call in a run raises
  :class:`SearchUnavailableError` — an agent succeeds only if it retries (or otherwise recovers).
- ``search_web(query)``: a distractor that looks relevant (it searches "the web" for anything, Meridian
  included) but returns unofficial forum chatter that never contains the documented facts. A sound agent
  does not use it for documentation questions.

Tools are built per run (:func:`docent_tools`), so a flaky tool's "first call" is per run and concurrent
runs never share state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, assert_never, get_args

from pydantic import JsonValue

from pathjudge.agent.backends import ToolSpec
from pathjudge.agent.docent.corpus import CORPUS, Doc
from pathjudge.agent.docent.retrievers import Retriever, keyword_retriever
from pathjudge.agent.loop import Tool

__all__ = [
    "DOCENT_VARIANTS",
    "SEARCH_DOCS_SPEC",
    "SEARCH_WEB_SPEC",
    "DocentVariant",
    "SearchUnavailableError",
    "docent_tools",
    "make_search_docs",
    "make_search_web",
]

DocentVariant = Literal["standard", "flaky_search", "distractor", "ambiguous"]
"""standard: search_docs only · flaky_search: search_docs fails on its first call · distractor: adds
search_web · ambiguous: standard tools (the trap is in the request itself)."""
DOCENT_VARIANTS: tuple[DocentVariant, ...] = get_args(DocentVariant)

_QUERY_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to search for."}},
    "required": ["query"],
}

SEARCH_DOCS_SPEC = {
    "name": "search_docs",
    "description": "Search the official Meridian documentation; returns the best-matching pages. "
    "Use it before answering.",
    "input_schema": _QUERY_SCHEMA,
}
SEARCH_WEB_SPEC = {
    "name": "search_web",
    "description": "Search the public web for pages about any topic, Meridian included.",
    "input_schema": _QUERY_SCHEMA,
}


class SearchUnavailableError(RuntimeError):
    """The flaky search's first call: the search backend is temporarily unavailable."""


def make_search_docs(
    retriever: Retriever = keyword_retriever,
    *,
    docs: Sequence[Doc] = CORPUS,
    k: int = 2,
    fail_first: int = 0,
) -> Tool:
    """``search_docs`` over ``docs`` with ``retriever``; the first ``fail_first`` calls raise."""
    calls = 0

    def search_docs(query: str) -> list[dict[str, str]]:
        nonlocal calls
        calls += 1
        if calls <= fail_first:
            raise SearchUnavailableError("the docs search backend timed out; try the search again")
        return [doc.as_hit() for doc in retriever(query, docs, k)]

    return Tool(spec=ToolSpec.model_validate(SEARCH_DOCS_SPEC), fn=search_docs)


def make_search_web() -> Tool:
    """The distractor ``search_web``: unofficial chatter that echoes the query and states no facts."""

    def search_web(query: str) -> list[dict[str, str]]:
        topic = " ".join(query.split()) or "meridian"
        return [
            {
                "url": "https://forum.example.net/t/meridian-question",
                "title": f"Forum thread: {topic}",
                "snippet": f"Has anyone figured out {topic}? I think it changed recently, maybe check "
                "with support.",
            },
            {
                "url": "https://blog.example.org/databases-compared",
                "title": "Serverless databases compared (2023)",
                "snippet": "A rough comparison of several serverless databases; details may be out of date.",
            },
        ]

    return Tool(spec=ToolSpec.model_validate(SEARCH_WEB_SPEC), fn=search_web)


def docent_tools(
    variant: DocentVariant = "standard",
    retriever: Retriever = keyword_retriever,
    *,
    docs: Sequence[Doc] = CORPUS,
    k: int = 2,
) -> tuple[Tool, ...]:
    """Fresh tools for one run of the given variant (see the module docstring)."""
    if variant == "standard" or variant == "ambiguous":
        return (make_search_docs(retriever, docs=docs, k=k),)
    if variant == "flaky_search":
        return (make_search_docs(retriever, docs=docs, k=k, fail_first=1),)
    if variant == "distractor":
        return (make_search_docs(retriever, docs=docs, k=k), make_search_web())
    assert_never(variant)
