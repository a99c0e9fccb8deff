"""Docent: the Meridian corpus, the keyword and worst-match retrievers, trap variants, the offline policy."""

from __future__ import annotations

import asyncio

import pytest

from pathjudge.agent.backends import ScriptedBackend
from pathjudge.agent.docent import (
    CORPUS,
    DOC_IDS,
    REFUSAL,
    DocentPolicy,
    docent_tools,
    get_doc,
    keyword_retriever,
    run_docent,
    variant_for_task,
    worst_match_retriever,
)
from pathjudge.agent.docent.policy import content_words, stem
from pathjudge.agent.docent.retrievers import overlap, tokens
from pathjudge.agent.loop import call_tool
from pathjudge.agent.trajectory import RunRecord
from pathjudge.errors import SuiteError

GOLDEN = {
    "rate-429": (
        "What HTTP status code does Meridian return when you exceed the rate limit?",
        "429",
    ),
    "pro-rpm": ("How many requests per minute does the Pro plan allow?", "600"),
    "pro-cost": ("How much does the Pro plan cost per month?", "25"),
    "region": ("Can you change a database's region after it is created?", "cannot"),
    "scale-bkup": ("How long are backups retained on the Scale plan?", "90"),
    "sdk-env": (
        "Which environment variable does the Python SDK read for the API key?",
        "MERIDIAN_API_KEY",
    ),
    "free-cap": ("What is the per-minute request cap on the Free plan pricing tier?", "60"),
    "err-401": ("What does a 401 error mean?", "invalid"),
    "grace": ("How long is the grace period before a deleted database is purged?", "24"),
}
OOS = "Does Meridian support MongoDB-style aggregation pipelines?"


def docent(question: str, task_id: str = "t", **kwargs: object) -> RunRecord:
    policy = kwargs.pop("policy", DocentPolicy())
    return asyncio.run(
        run_docent(ScriptedBackend(policy), task_id=task_id, question=question, **kwargs)
    )  # type: ignore[arg-type]


def test_corpus_has_the_eight_pages_with_their_facts() -> None:
    assert DOC_IDS == (
        "auth",
        "ratelimits",
        "plans",
        "regions",
        "errors",
        "backups",
        "sdks",
        "deletion",
    )
    facts = {
        "ratelimits": ["60 requests", "600 requests", "429", "Retry-After", "per API key"],
        "plans": ["25 dollars", "199 dollars", "1 GB", "500 GB"],
        "backups": ["7 days", "30 days", "90 days", "03:00 UTC"],
        "sdks": ["MERIDIAN_API_KEY", "pip install meridian", "3 times"],
        "deletion": ["24-hour grace period", "admin permission"],
        "regions": ["us-east", "eu-west", "ap-south", "cannot be changed"],
        "errors": ["401", "403", "404"],
        "auth": ["bearer token", "Settings > API Keys"],
    }
    for doc_id, needles in facts.items():
        for needle in needles:
            assert needle in get_doc(doc_id).text, (doc_id, needle)
    with pytest.raises(KeyError, match="known: auth"):
        get_doc("nope")


def test_keyword_overlap_and_ties() -> None:
    assert tokens("Retry-After: the us-east region's") == {
        "retry-after",
        "the",
        "us-east",
        "region's",
    }
    # "rate limit http" hits ratelimits (rate, limit, http = 3: title 'Rate', 'limit', 'HTTP') and
    # errors (http, rate, limit = 3); the tie keeps corpus order, so ratelimits comes first.
    assert overlap("rate limit http", get_doc("ratelimits")) == 3
    assert overlap("rate limit http", get_doc("errors")) == 3
    assert [d.id for d in keyword_retriever("rate limit http", CORPUS, 2)] == [
        "ratelimits",
        "errors",
    ]
    # worst match: zero-overlap pages in corpus order
    assert [d.id for d in worst_match_retriever("rate limit http", CORPUS, 2)] == ["auth", "plans"]
    assert keyword_retriever("anything", [], 2) == ()
    assert keyword_retriever("anything", CORPUS, 0) == ()


def test_variants_by_task_id_and_metadata() -> None:
    assert variant_for_task("trap-flaky-search") == "flaky_search"
    assert variant_for_task("trap-distractor") == "distractor"
    assert variant_for_task("trap-ambiguous") == "ambiguous"
    assert variant_for_task("rate-429") == "standard"
    assert variant_for_task("x", {"docent_variant": "distractor"}) == "distractor"
    with pytest.raises(SuiteError, match="unknown docent_variant 'flakey'") as info:
        variant_for_task("x", {"docent_variant": "flakey"})
    assert info.value.exit_code == 2
    assert info.value.task_id == "x"
    assert [t.name for t in docent_tools("distractor")] == ["search_docs", "search_web"]
    assert [t.name for t in docent_tools("ambiguous")] == ["search_docs"]


def test_flaky_search_fails_only_its_first_call_per_run() -> None:
    (tool,) = docent_tools("flaky_search")
    first = asyncio.run(call_tool(tool.fn, {"query": "backups"}))
    second = asyncio.run(call_tool(tool.fn, {"query": "backups"}))
    assert first[:2] == (
        "SearchUnavailableError: the docs search backend timed out; try the search again",
        True,
    )
    assert second[1] is False
    assert next(h["id"] for h in second[0]) == "backups"
    (fresh,) = docent_tools("flaky_search")  # a new run gets a new tool that fails again
    assert asyncio.run(call_tool(fresh.fn, {"query": "backups"}))[1] is True


def test_distractor_never_states_the_facts() -> None:
    web = docent_tools("distractor")[1]
    hits, is_error, _ = asyncio.run(call_tool(web.fn, {"query": "free plan requests per minute"}))
    assert not is_error
    blob = str(hits)
    assert "free plan requests per minute" in blob  # it looks relevant...
    assert "60" not in blob
    assert "600" not in blob


def test_policy_helpers() -> None:
    assert content_words("What does a 401 error mean? What's an error?") == ["401", "error", "mean"]
    assert [stem(w) for w in ["codes", "code", "status", "retained", "class"]] == [
        "code",
        "code",
        "statu",
        "retai",
        "class",
    ]


@pytest.mark.parametrize("task_id", sorted(GOLDEN))
def test_scripted_docent_answers_every_golden_task_in_one_search(task_id: str) -> None:
    question, fact = GOLDEN[task_id]
    run = docent(question, task_id)
    assert len(run.steps) == 1
    assert run.steps[0].tool == "search_docs"
    assert fact.lower() in (run.final_answer or "").lower()
    assert run.stop_reason == "end_turn"


def test_scripted_docent_refuses_out_of_scope_and_retries_a_flaky_search() -> None:
    run = docent(OOS, "oos-mongo")
    assert (len(run.steps), run.final_answer) == (1, REFUSAL)
    persistent = docent(OOS, "oos-mongo", policy=DocentPolicy(searches_before_refusal=3))
    assert [s.arguments["query"] for s in persistent.steps] == [
        "meridian support mongodb-style aggregation pipelines",
        "support mongodb-style aggregation pipelines",
        "mongodb-style aggregation pipelines",
    ]
    flaky = docent("How long are backups retained on the Pro plan?", "trap-flaky-search")
    assert [(s.is_error, s.state["retries"]) for s in flaky.steps] == [(True, 0), (False, 1)]
    assert "30 days on Pro" in (flaky.final_answer or "")
    no_retry = docent(
        "How long are backups retained on the Pro plan?",
        "trap-flaky-search",
        policy=DocentPolicy(retries_on_error=0),
    )
    assert len(no_retry.steps) == 1
    assert "don't have that in the docs" in (no_retry.final_answer or "")


def test_distractor_variant_and_a_misselecting_policy() -> None:
    question = "How many requests per minute does the Free plan allow?"
    good = docent(question, "trap-distractor")
    assert good.tool_names == ("search_docs",)
    assert "60" in (good.final_answer or "")
    bad = docent(question, "trap-distractor", policy=DocentPolicy(use_distractor=True))
    assert bad.tool_names == ("search_web",)
    assert "60" not in (bad.final_answer or "")


def test_broken_retriever_collapses_success() -> None:
    # success = the reference fact is in the answer; the out-of-scope probe succeeds by refusing
    def successes(retriever: str) -> int:
        ok = sum(
            GOLDEN[t][1].lower()
            in (docent(GOLDEN[t][0], t, retriever=retriever).final_answer or "").lower()
            for t in GOLDEN
        )
        return ok + (docent(OOS, "oos-mongo", retriever=retriever).final_answer == REFUSAL)

    assert successes("keyword") == 10  # 9 factual + the refusal
    assert successes("worst_match") == 1  # only the refusal survives


def test_runs_are_reproducible_byte_for_byte_except_timing() -> None:
    a = docent(GOLDEN["region"][0], "region")
    b = docent(GOLDEN["region"][0], "region")
    strip = {"timing": True, "metadata": {"model_calls"}, "steps": {"__all__": {"latency_ms"}}}
    assert a.model_dump_json(exclude=strip) == b.model_dump_json(exclude=strip)  # type: ignore[arg-type]
    assert a.metadata["retriever"] == "keyword"
    assert a.agent.model == "scripted"
