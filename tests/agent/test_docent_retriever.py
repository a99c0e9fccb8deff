"""Docent's ``search_docs`` is the seeds' keyword retriever.

The seed (the module's tool-using Docent, reused "verbatim" by the success-rate lesson) scores a page by
the number of distinct lower-cased WHITESPACE-SEPARATED query words that also occur in the page's title
plus text, and returns the top k=2 (stable sort, so ties keep corpus order); the broken retriever returns
the k lowest. The unit tests check pathjudge's own tokenizer; this compares both retrievers with that
rule, applied independently below to pathjudge's own eight pages, on the eight golden questions.
"""

from __future__ import annotations

from pathjudge.agent.docent.corpus import CORPUS

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


def test_the_corpus_is_the_eight_seed_pages() -> None:
    assert [d.id for d in CORPUS] == [
        "auth", "ratelimits", "plans", "regions", "errors", "backups", "sdks", "deletion",
    ]  # fmt: skip
