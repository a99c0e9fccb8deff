"""Small builders for runs used by the assertion tests."""

from __future__ import annotations

from typing import Any

from pathjudge.agent.trajectory import RunRecord, Step


def step(tool: str, turn: int, error: bool = False, **arguments: Any) -> Step:
    return Step(tool=tool, turn=turn, arguments=arguments, is_error=error)


def run_of(*steps: Step, answer: str | None = "ok", question: str | None = None) -> RunRecord:
    return RunRecord(run_id="r1", task_id="t1", steps=steps, final_answer=answer, input=question)


def searches(*queries: str, answer: str | None = "ok", question: str | None = None) -> RunRecord:
    """One search_docs call per query, each in its own turn."""
    return run_of(
        *(step("search_docs", i, query=q) for i, q in enumerate(queries)),
        answer=answer,
        question=question,
    )


# --- user callables for the `callable` success criterion (imported by dotted name in the tests) ---


def answer_mentions(run: RunRecord, word: str) -> tuple[bool, str]:
    ok = word in (run.final_answer or "")
    return ok, f"{word!r} {'in' if ok else 'not in'} the answer"


def used_tools(run: RunRecord) -> bool:
    return bool(run.steps)


def fraction_half(run: RunRecord) -> float:
    return 0.5


def returns_text(run: RunRecord) -> str:
    return "yes"


def explodes(run: RunRecord) -> bool:
    raise RuntimeError("database unreachable")


NOT_CALLABLE = 3
