"""Rebuild the bundled example runs (constructed, not collected from a live model).

    python examples/docent/make_runs.py

Every run is *constructed*: the queries, call counts and answers are shaped like the tables the seed
lessons publish (the Docent capstone's per-task table, the task-success lesson's two-part task, and the
path-score lesson's four support-agent runs); the search results are what pathjudge's own Docent
keyword retriever returns for each query. Each run says so in ``metadata.source``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathjudge._io import write_jsonl
from pathjudge.agent.docent import CORPUS, keyword_retriever
from pathjudge.agent.trajectory import AgentInfo, RunRecord, Step

HERE = Path(__file__).resolve().parent
CAPSTONE = {
    "kind": "constructed",
    "from": "shaped like the Docent capstone's published per-task table",
}
LESSON2 = {
    "kind": "constructed",
    "from": "the task-success lesson's two-part task (real and half-right answers)",
}
TRAPS = {"kind": "constructed", "from": "hand-written good behaviour on the trap tasks"}
SUPPORT = {
    "kind": "constructed",
    "from": "the path-score lesson's four recorded support-agent runs",
}
DOCENT = AgentInfo(name="docent", model="constructed", version="1")


def search(query: str, turn: int, *, error: str | None = None) -> Step:
    if error is not None:
        return Step(
            turn=turn, tool="search_docs", arguments={"query": query}, result=error, is_error=True
        )
    hits = [doc.as_hit() for doc in keyword_retriever(query, CORPUS, 2)]
    return Step(turn=turn, tool="search_docs", arguments={"query": query}, result=hits)


def docent_run(
    task_id: str,
    question: str,
    queries: list[Any],
    answer: str,
    source: dict[str, str],
    epoch: int = 0,
) -> RunRecord:
    steps = []
    for turn, query in enumerate(queries):
        steps.extend(query(turn) if callable(query) else [search(query, turn)])
    return RunRecord(
        run_id=f"{task_id}-e{epoch}",
        task_id=task_id,
        epoch=epoch,
        agent=DOCENT,
        input=question,
        steps=tuple(steps),
        final_answer=answer,
        stop_reason="end_turn",
        metadata={"source": dict(source)},
    )


def capstone_runs() -> list[RunRecord]:
    c = CAPSTONE
    return [
        docent_run(
            "rate-429",
            "What HTTP status code does Meridian return when you exceed the rate limit?",
            ["rate limit HTTP status code"],
            "When you exceed the rate limit in Meridian, the API returns **HTTP 429** (Too Many Requests), "
            "with a Retry-After header giving the seconds to wait.",
            c,
        ),
        docent_run(
            "pro-rpm",
            "How many requests per minute does the Pro plan allow?",
            ["Pro plan rate limit requests per minute"],
            "The Pro plan allows 600 requests per minute.",
            c,
        ),
        docent_run(
            "pro-cost",
            "How much does the Pro plan cost per month?",
            ["Pro plan cost per month pricing"],
            "The Pro plan costs 25 dollars per month and includes 50 GB of storage.",
            c,
        ),
        docent_run(
            "region",
            "Can you change a database's region after it is created?",
            ["change region after database creation", "region export re-import"],
            "No, you cannot change a database's region after it is created. According to the documentation, "
            "the region is fixed at creation time; to move data you must export and re-import it into a new "
            "database.",
            c,
        ),
        docent_run(
            "scale-bkup",
            "How long are backups retained on the Scale plan?",
            ["Scale plan backup retention"],
            "Automatic daily backups are retained for 90 days on the Scale plan.",
            c,
        ),
        docent_run(
            "sdk-env",
            "Which environment variable does the Python SDK read for the API key?",
            ["Python SDK environment variable API key"],
            "The Python SDK reads the MERIDIAN_API_KEY environment variable by default.",
            c,
        ),
        docent_run(
            "free-cap",
            "What is the per-minute request cap on the Free plan pricing tier?",
            ["Free plan pricing tier per-minute request cap"],
            "The Free plan allows **60 requests per minute**. Rate limits are applied per API key, not per "
            "account.",
            c,
        ),
        docent_run(
            "oos-mongo",
            "Does Meridian support MongoDB-style aggregation pipelines?",
            [
                "MongoDB aggregation pipelines",
                "aggregation pipeline query",
                "Meridian query capabilities features",
            ],
            "I don't have that in the docs. The search results don't contain information about whether Meridian "
            "supports MongoDB-style aggregation pipelines.",
            c,
        ),
    ]


def more_runs() -> list[RunRecord]:
    two_part = "What does the Free plan cost per month, and how much storage does it include?"
    return [
        docent_run(
            "error-401",
            "What does a 401 error mean?",
            ["401 error meaning"],
            "A 401 means the API key is missing or invalid.",
            LESSON2,
        ),
        docent_run(
            "grace-period",
            "How long is the grace period before a deleted database is purged?",
            ["deleted database grace period purged"],
            "There is a 24-hour grace period; after 24 hours the data and its backups are permanently purged.",
            LESSON2,
        ),
        docent_run(
            "free-storage",
            two_part,
            ["Free plan cost storage"],
            "Based on the documentation, the **Free plan costs $0 per month** and includes **1 GB of storage**.",
            LESSON2,
        ),
        docent_run(
            "free-storage",
            two_part,
            ["Free plan cost storage"],
            "The Free plan costs 0 dollars per month.",
            LESSON2,
            epoch=1,
        ),
        docent_run(
            "trap-flaky-search",
            "How many requests per minute does the Free plan allow?",
            [
                lambda t: [
                    search(
                        "Free plan requests per minute",
                        t,
                        error="the docs search backend timed out; try the search again",
                    )
                ],
                "Free plan requests per minute",
            ],
            "The Free plan allows 60 requests per minute.",
            TRAPS,
        ),
        docent_run(
            "trap-distractor",
            "In which regions can I create a Meridian database?",
            ["regions databases created"],
            "Meridian databases can be created in three regions: us-east, eu-west and ap-south.",
            TRAPS,
        ),
        docent_run(
            "trap-ambiguous",
            "What is the limit on the Pro plan?",
            ["Pro plan limit", "Pro plan storage"],
            "That depends on which limit you mean: the Pro plan allows 600 requests per minute, and it "
            "includes 50 GB of storage.",
            TRAPS,
        ),
        docent_run(
            "summary-rate-limiting",
            "Summarize how Meridian handles rate limiting",
            ["rate limiting 429 per API key"],
            "Meridian limits requests per minute by plan (60 on Free, 600 on Pro). Going over returns HTTP "
            "429 with a Retry-After header, and limits are applied per API key, not per account.",
            TRAPS,
        ),
    ]


def support_runs() -> list[RunRecord]:
    def step(text: str, turn: int) -> Step:
        tool, arg = text.split(":")
        key = "topic" if tool == "search_help" else "order_id"
        return Step(turn=turn, tool=tool, arguments={key: arg}, result={"ok": True})

    runs = {
        "A": (
            ["lookup_order:A17", "refund:A17", "send_message:A17"],
            "Order A17 has been refunded and the customer told.",
        ),
        "B": (
            [
                "lookup_order:A17",
                "lookup_order:A17",
                "search_help:refund",
                "refund:A17",
                "send_message:A17",
            ],
            "Order A17 has been refunded and the customer told.",
        ),
        "C": (
            ["refund:A17", "lookup_order:A17", "send_message:A17"],
            "Order A17 has been refunded and the customer told.",
        ),
        "D": (
            ["lookup_order:A17", "send_message:A17"],
            "Order A17 is on its way; nothing else to do.",
        ),
    }
    return [
        RunRecord(
            run_id=f"run-{name}",
            task_id="refund-a17",
            agent=AgentInfo(name="support-agent", model="constructed"),
            input="A customer asks for a refund on order A17.",
            steps=tuple(step(text, turn) for turn, text in enumerate(steps)),
            final_answer=answer,
            stop_reason="end_turn",
            metadata={"source": dict(SUPPORT), "lesson_run": f"Run {name}"},
        )
        for name, (steps, answer) in runs.items()
    ]


def main() -> None:
    capstone = capstone_runs()
    write_jsonl(HERE / "capstone-runs.jsonl", capstone)
    write_jsonl(HERE / "runs.jsonl", [*capstone, *more_runs()])
    write_jsonl(HERE / "support-runs.jsonl", support_runs())


if __name__ == "__main__":
    main()
