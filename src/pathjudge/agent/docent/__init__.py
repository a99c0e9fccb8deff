"""Docent, the reference agent under test: a Meridian docs assistant with one search tool.

Docent answers questions about the fictional Meridian serverless database by calling ``search_docs``
(keyword overlap, top ``k=2``) and answering only from what it returns, refusing with "I don't have that
in the docs." otherwise. The retriever is swappable (``keyword`` or the broken ``worst_match``), and three
trap variants test failure modes (see :mod:`pathjudge.agent.docent.tools`):

- ``flaky_search`` (task ``trap-flaky-search``): ``search_docs`` errors on its first call;
- ``distractor`` (task ``trap-distractor``): a relevant-looking ``search_web`` tool is also offered;
- ``ambiguous`` (task ``trap-ambiguous``): the request itself is ambiguous; the tools are standard.

A task picks its variant with ``metadata: {docent_variant: ...}`` in the suite, else by its id (the three
trap ids above), else ``standard``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pydantic import JsonValue

from pathjudge.agent.backends import ModelBackend
from pathjudge.agent.docent.corpus import CORPUS, DOC_IDS, Doc, get_doc
from pathjudge.agent.docent.policy import REFUSAL, DocentPolicy
from pathjudge.agent.docent.retrievers import (
    RETRIEVER_NAMES,
    RetrieverName,
    get_retriever,
    keyword_retriever,
    worst_match_retriever,
)
from pathjudge.agent.docent.tools import DOCENT_VARIANTS, DocentVariant, docent_tools
from pathjudge.agent.loop import run_agent
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import SuiteError

__all__ = [
    "CORPUS",
    "DOCENT_NAME",
    "DOCENT_VARIANTS",
    "DOCENT_VERSION",
    "DOC_IDS",
    "REFUSAL",
    "RETRIEVER_NAMES",
    "SYSTEM_PROMPT",
    "TRAP_TASK_VARIANTS",
    "Doc",
    "DocentPolicy",
    "DocentVariant",
    "RetrieverName",
    "docent_tools",
    "get_doc",
    "get_retriever",
    "keyword_retriever",
    "run_docent",
    "variant_for_task",
    "worst_match_retriever",
]

DOCENT_NAME = "docent"
DOCENT_VERSION = "1"

SYSTEM_PROMPT = (
    "You are Docent, the assistant for the Meridian database documentation. Look things up with the "
    "search_docs tool and answer only from the pages it returns. If those pages do not contain the "
    f'answer, reply "{REFUSAL}" If a tool fails, you may try it again once.'
)

TRAP_TASK_VARIANTS: dict[str, DocentVariant] = {
    "trap-flaky-search": "flaky_search",
    "trap-distractor": "distractor",
    "trap-ambiguous": "ambiguous",
}
"""Suite task ids that select a trap variant when the task's metadata names none."""


def variant_for_task(task_id: str, metadata: Mapping[str, Any] | None = None) -> DocentVariant:
    """The Docent variant for a task: ``metadata['docent_variant']``, else by trap id, else 'standard'.

    Raises :class:`~pathjudge.errors.SuiteError` when the metadata names an unknown variant.
    """
    named = (metadata or {}).get("docent_variant")
    if named is not None:
        if named not in DOCENT_VARIANTS:
            raise SuiteError(
                f"unknown docent_variant {named!r}",
                task_id=task_id,
                field="metadata.docent_variant",
                hint=f"use one of: {', '.join(DOCENT_VARIANTS)}",
            )
        return cast(DocentVariant, named)
    return TRAP_TASK_VARIANTS.get(task_id, "standard")


async def run_docent(
    backend: ModelBackend,
    *,
    task_id: str,
    question: str,
    epoch: int = 0,
    retriever: RetrieverName = "keyword",
    variant: DocentVariant | None = None,
    task_metadata: Mapping[str, Any] | None = None,
    max_steps: int = 4,
    max_tokens: int = 400,
    task_input: JsonValue = None,
) -> RunRecord:
    """Run Docent once on one task and return the recorded run.

    ``variant`` defaults to :func:`variant_for_task`. The run's metadata records the variant and the
    retriever, so a run file says which agent configuration produced it.
    """
    chosen = variant or variant_for_task(task_id, task_metadata)
    return await run_agent(
        backend,
        task_id=task_id,
        question=question,
        tools=docent_tools(chosen, get_retriever(retriever)),
        system=SYSTEM_PROMPT,
        max_steps=max_steps,
        max_tokens=max_tokens,
        epoch=epoch,
        agent_name=DOCENT_NAME,
        agent_version=DOCENT_VERSION,
        task_input=task_input,
        metadata={
            "source": "pathjudge.agent.loop",
            "docent_variant": chosen,
            "retriever": retriever,
        },
    )
