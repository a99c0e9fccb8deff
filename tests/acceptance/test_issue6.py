"""Issue 6 acceptance: Docent's ``search_docs`` is the seeds' keyword retriever.

The seed (the module's tool-using Docent, reused "verbatim" by the success-rate lesson) scores a page by
the number of distinct lower-cased WHITESPACE-SEPARATED query words that also occur in the page's title
plus text, and returns the top k=2 (stable sort, so ties keep corpus order); the broken retriever returns
the k lowest. The unit tests check pathjudge's own tokenizer; this compares both retrievers with that
rule, applied independently below to pathjudge's own eight pages, on the eight golden questions.
"""

from __future__ import annotations

import pytest

from pathjudge.agent.docent.corpus import CORPUS
from pathjudge.agent.docent.retrievers import keyword_retriever, worst_match_retriever

GOLDEN = {
    "rate-429": "What HTTP status code does Meridian return when you exceed the rate limit?",
    "pro-rpm": "How many requests per minute does the Pro plan allow?",
    "pro-cost": "How much does the Pro plan cost per month?",
    "region": "Can you change a database's region after it is created?",
    "scale-bkup": "How long are backups retained on the Scale plan?",
    "sdk-env": "Which environment variable does the Python SDK read for the API key?",
    "free-cap": "What is the per-minute request cap on the Free plan pricing tier?",
    "oos-mongo": "Does Meridian support MongoDB-style aggregation pipelines?",
}


def _seed_rule(query: str, *, worst: bool) -> list[str]:
    words = set(query.lower().split())
    scored = [(len(words & set(f"{d.title} {d.text}".lower().split())), d.id) for d in CORPUS]
    order = sorted(range(len(scored)), key=lambda i: scored[i][0], reverse=not worst)
    return [scored[i][1] for i in order[:2]]


def test_the_corpus_is_the_eight_seed_pages() -> None:
    assert [d.id for d in CORPUS] == [
        "auth", "ratelimits", "plans", "regions", "errors", "backups", "sdks", "deletion",
    ]  # fmt: skip


@pytest.mark.xfail(
    strict=True,
    reason=(
        "BUG (seed fidelity): search_docs tokenizes with a regex that strips punctuation, the seed "
        "splits on whitespace; top-2 differs on 3 of the 8 golden questions (pro-rpm, pro-cost: seed "
        "[ratelimits, backups], pathjudge [ratelimits, plans]; region: seed [regions, auth], pathjudge "
        "[auth, regions]) and on 26 of 80 keyword/worst-match lookups over the golden questions and "
        "the bundled runs' queries"
    ),
)
def test_keyword_and_worst_match_follow_the_seed_rule_on_the_golden_questions() -> None:
    got = {
        task: (
            [d.id for d in keyword_retriever(q, CORPUS, 2)],
            [d.id for d in worst_match_retriever(q, CORPUS, 2)],
        )
        for task, q in GOLDEN.items()
    }
    expected = {
        task: (_seed_rule(q, worst=False), _seed_rule(q, worst=True)) for task, q in GOLDEN.items()
    }
    assert got == expected
