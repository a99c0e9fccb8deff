"""Query overlap: a cheap quality proxy for search arguments, reported as a diagnostic that never gates.

For each call that carries the string argument (``query`` by default), the overlap is the share of
the query's content words that also occur among the question's content words:

    overlap(call) = |question words ∩ query words| / |query words|

Words are lower-cased and split on whitespace; the question also loses ``?`` and ``'``; stop words
are removed from both. A query with no content word scores 0. The run's value is the mean over those
calls. It is the "query quality" column of the Docent capstone (e.g. the query ``rate limit HTTP
status code`` for "What HTTP status code does Meridian return when you exceed the rate limit?"
scores 1.0).
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import JsonValue

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.base import CheckResult

__all__ = [
    "DEFAULT_STOPWORDS",
    "check_query_overlap",
    "content_words",
    "query_overlap",
    "question_text",
]

DEFAULT_STOPWORDS: frozenset[str] = frozenset(
    {
        "the", "a", "an", "of", "to", "is", "are", "do", "does", "how", "what", "which", "can",
        "you", "on", "in", "for", "per", "it", "that", "and", "when",
    }
)  # fmt: skip


def content_words(text: str, stopwords: Iterable[str] = DEFAULT_STOPWORDS) -> set[str]:
    """Lower-cased whitespace-split words of ``text`` without ``?``/``'`` and without stop words."""
    stop = set(stopwords)
    cleaned = text.lower().replace("?", "").replace("'", "")
    return {word for word in cleaned.split() if word not in stop}


def query_overlap(question: str, query: str, stopwords: Iterable[str] = DEFAULT_STOPWORDS) -> float:
    """Share of the query's content words found in the question (0.0 for an empty query).

    Note the question side strips ``?`` and ``'`` while the query side only lower-cases, as the
    capstone computes it.
    """
    stop = set(stopwords)
    question_words = content_words(question, stop)
    terms = {word for word in query.lower().split() if word not in stop}
    return len(question_words & terms) / len(terms) if terms else 0.0


def question_text(run: RunRecord) -> str | None:
    """The user's question from ``run.input``: the string itself, or the ``question``/``input``/
    ``content``/``prompt`` string of a mapping; None when there is none."""
    value = run.input
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("question", "input", "content", "prompt"):
            item = value.get(key)
            if isinstance(item, str):
                return item
    return None


def check_query_overlap(
    run: RunRecord,
    *,
    argument: str = "query",
    question: str | None = None,
    tools: Iterable[str] | None = None,
    stopwords: Iterable[str] = DEFAULT_STOPWORDS,
) -> CheckResult:
    """``arguments.query_overlap``: mean overlap over the calls (of ``tools``, or any tool) that pass
    a string ``argument``. Always ``gating=False``.

    Status is ``pass`` when the mean is above 0, ``fail`` at 0 (informational only: a diagnostic
    never fails a run), and ``not_run`` when there is no question text or no such call.
    """
    text = question if question is not None else question_text(run)
    wanted = set(tools) if tools is not None else None
    stop = set(stopwords)
    per_call: list[tuple[int, float]] = []
    for index, step in enumerate(run.steps):
        if wanted is not None and step.tool not in wanted:
            continue
        value = step.arguments.get(argument)
        if isinstance(value, str) and text is not None:
            per_call.append((index, query_overlap(text, value, stop)))
    if text is None or not per_call:
        missing = (
            "no question text in the run input"
            if text is None
            else f"no call with a string {argument!r}"
        )
        return CheckResult(
            check="arguments.query_overlap",
            axis="argument_correctness",
            status="not_run",
            reason=missing,
            gating=False,
        )
    mean = sum(score for _, score in per_call) / len(per_call)
    parts = ", ".join(f"call #{index + 1} {score:.2f}" for index, score in per_call)
    details: dict[str, JsonValue] = {
        "per_call": [{"index": index, "overlap": score} for index, score in per_call],
        "mean": mean,
    }
    return CheckResult(
        check="arguments.query_overlap",
        axis="argument_correctness",
        status="pass" if mean > 0 else "fail",
        score=mean,
        reason=f"mean query overlap {mean:.2f} over {len(per_call)} call(s): {parts} (diagnostic)",
        details=details,
        gating=False,
    )
