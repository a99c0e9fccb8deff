"""Success criteria, on the Meridian golden tasks of the Docent lessons (facts and answers from the
seeds: the capstone's eight tasks, lesson 2's accept lists, its broken-retriever answers and its
two-part partial-credit task)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pathjudge.errors import SuiteError
from pathjudge.rubrics.assertions.base import CheckResult
from pathjudge.rubrics.assertions.outcome import (
    SuccessCriterion,
    check_outcome,
    extract_numbers,
    is_refusal,
    load_callable,
)
from tests.rubrics.assertions._helpers import run_of, step

CRITERION: TypeAdapter[SuccessCriterion] = TypeAdapter(SuccessCriterion)


def grade(answer: str | None, spec: dict[str, Any], *, tools: bool = True) -> CheckResult:
    steps = (step("search_docs", 0, query="q"),) if tools else ()
    return check_outcome(run_of(*steps, answer=answer), CRITERION.validate_python(spec))


# The capstone's eight tasks and the answers its live run produced (the three printed in full,
# the others written from the facts in the Meridian docs).
REFUSE: dict[str, Any] = {"kind": "refusal"}
CAPSTONE: list[tuple[str, dict[str, Any], str]] = [
    (
        "rate-429",
        {"kind": "contains_all", "values": ["429"]},
        "When you exceed the rate limit in Meridian, the API returns **HTTP 429** (Too Many "
        "Requests). Additionally, the response includes a **Retry-After** header.",
    ),
    (
        "pro-rpm",
        {"kind": "contains_all", "values": ["600"]},
        "The Pro plan allows 600 requests per minute.",
    ),
    ("pro-cost", {"kind": "number", "value": 25}, "The Pro plan costs $25 per month."),
    (
        "region",
        {"kind": "contains_any", "values": ["no", "cannot", "can't"]},
        "No, you cannot change a database's region after it is created. According to the "
        "documentation, the region is fixed at creation time.",
    ),
    (
        "scale-bkup",
        {"kind": "number", "value": 90, "extract": "first"},
        "Backups on Scale are retained for 90 days.",
    ),
    (
        "sdk-env",
        {"kind": "contains_all", "values": ["MERIDIAN_API_KEY"], "normalize": "none"},
        "The Python SDK reads the `MERIDIAN_API_KEY` environment variable.",
    ),
    (
        "free-cap",
        {"kind": "contains_all", "values": ["60"]},
        "The Free plan allows **60 requests per minute**. Rate limits are applied per API key, "
        "not per account.",
    ),
    (
        "oos-mongo",
        REFUSE,
        "I don't have that in the docs. The search results don't contain information about "
        "whether Meridian supports MongoDB-style aggregation pipelines.",
    ),
]


@pytest.mark.parametrize(("task", "spec", "answer"), CAPSTONE, ids=[t for t, _, _ in CAPSTONE])
def test_capstone_tasks_pass_on_their_answers(task: str, spec: dict[str, Any], answer: str) -> None:
    result = grade(answer, spec)
    assert result.status == "pass", f"{task}: {result.reason}"
    assert (result.axis, result.score, result.check) == (
        "goal_completion",
        1.0,
        f"outcome.{spec['kind']}",
    )


# Lesson 2's broken-retriever run: every factual task refused (or hit max steps) and FAILS; only the
# out-of-scope probe passes: 1 of 8.
BROKEN: list[tuple[str, dict[str, Any], str]] = [
    (
        "rate-429",
        {"kind": "contains_all", "values": ["429"]},
        "I don't have that in the docs. The search results didn't return any information about rate limiting or the HTTP status code.",
    ),
    (
        "pro-cost",
        {"kind": "contains_all", "values": ["25"]},
        "I don't have that in the docs. The search results didn't return any pricing information for a Pro plan.",
    ),
    (
        "region",
        {"kind": "contains_any", "values": ["cannot", "can't", "fixed", "export"]},
        "I don't have that information in the docs. The search results aren't returning documentation about changing a database's region.",
    ),
    (
        "scale-bkup",
        {"kind": "contains_all", "values": ["90"]},
        "I don't have that information in the docs. The search results don't contain details about backup retention periods.",
    ),
    ("sdk-env", {"kind": "contains_all", "values": ["MERIDIAN_API_KEY"]}, "(stopped: max steps)"),
    (
        "401",
        {"kind": "contains_any", "values": ["invalid", "missing"]},
        "I don't have that in the docs, the search results only mention 401 keys that are missing or invalid.",
    ),
    (
        "grace",
        {"kind": "contains_all", "values": ["24"]},
        "I don't have that in the docs. The search results don't contain information about the grace period for deleted databases.",
    ),
    ("oos-mongo", REFUSE, "I don't have that in the docs."),
]


def test_broken_retriever_run_scores_one_of_eight() -> None:
    results = [grade(answer, spec) for _, spec, answer in BROKEN]
    assert [r.status for r in results] == ["fail"] * 7 + ["pass"]
    assert sum(r.status == "pass" for r in results) / len(results) == 1 / 8
    # a factual task that refuses fails as a refusal even when it contains an accepted keyword
    assert results[5].reason.startswith("the answer is a refusal but this task expects an answer")
    assert (
        results[4].reason
        == 'the answer contains 0 of 1 required values; missing: "MERIDIAN_API_KEY" (casefold comparison)'
    )
    allowed = grade(BROKEN[5][2], {**BROKEN[5][1], "allow_refusal": True})
    assert allowed.status == "pass"


def test_out_of_scope_passes_only_by_refusing() -> None:
    assert grade("Yes, Meridian supports aggregation pipelines.", REFUSE).status == "fail"
    assert (
        grade("I couldn't find anything about that in the documentation.", REFUSE).status == "pass"
    )
    assert grade(None, REFUSE).reason == "no final answer (expected the agent to refuse)"
    answer = {"kind": "refusal", "expect": "answer"}
    assert grade("The Pro plan allows 600 requests per minute.", answer).status == "pass"
    assert grade("I don't have that in the docs.", answer).status == "fail"
    custom = {"kind": "refusal", "phrases": ["out of scope"], "scope_words": []}
    assert grade("That is out of scope for me.", custom).status == "pass"


def test_two_part_task_binary_and_partial_credit() -> None:
    spec: dict[str, Any] = {
        "kind": "all_of",
        "parts": [
            {
                "name": "price",
                "criterion": {
                    "kind": "contains_any",
                    "values": ["0 dollars", "free", "no cost", "zero", "$0"],
                },
            },
            {"name": "storage", "criterion": {"kind": "contains_any", "values": ["1 gb", "1gb"]}},
        ],
    }
    full = grade(
        "Based on the documentation, the **Free plan costs $0 per month** and includes **1 GB of storage**.",
        spec,
    )
    assert (full.status, full.score) == ("pass", 1.0)
    assert full.details["binary"] == 1.0
    half = grade("The Free plan costs 0 dollars per month.", spec)
    # price met, storage not: binary 0, partial 1/2
    assert (half.status, half.score, half.details["binary"]) == ("fail", 0.5, 0.0)
    assert half.reason.startswith("1 of 2 sub-goals met (price); unmet: storage (")
    assert half.reason.endswith("; binary 0.00, partial 0.50")
    weighted = {**spec, "parts": [{**spec["parts"][0], "weight": 3}, spec["parts"][1]]}
    # weights 3 and 1, price met: 3 / (3 + 1)
    assert grade("The Free plan costs 0 dollars per month.", weighted).score == 0.75
    assert grade(None, spec).score == 0.0


def test_contains_regex_number_json() -> None:
    assert (
        grade("Rate  LIMIT exceeded", {"kind": "contains_all", "values": ["rate limit"]}).status
        == "pass"
    )
    assert (
        grade(
            "Rate LIMIT", {"kind": "contains_all", "values": ["rate limit"], "normalize": "none"}
        ).status
        == "fail"
    )
    assert (
        grade(
            "us-east", {"kind": "contains_all", "values": ["US East"], "normalize": "bfcl"}
        ).status
        == "pass"
    )
    assert grade("HTTP 429", {"kind": "regex", "pattern": r"\b429\b"}).status == "pass"
    assert (
        grade("http 429", {"kind": "regex", "pattern": "HTTP", "ignore_case": True}).status
        == "pass"
    )
    assert (
        grade("HTTP 4290", {"kind": "regex", "pattern": r"\b429\b"}).reason
        == r"/\b429\b/ not found in the answer"
    )
    number: dict[str, Any] = {"kind": "number", "value": 600, "rel": 0.01}
    assert grade("about 1,200 or 605 requests", number).status == "pass"  # 605 within 6
    assert grade("about 1,200 or 605 requests", {**number, "extract": "first"}).status == "fail"
    assert grade(" 600 ", {**number, "extract": "whole"}).status == "pass"
    assert (
        grade("600 requests", {**number, "extract": "whole"}).reason
        == "the answer is not a single number (expected 600 ± 6)"
    )
    assert grade("none at all", number).reason == "no number in the answer (expected 600 ± 6)"
    schema = {
        "kind": "json_schema",
        "json_schema": {
            "type": "object",
            "required": ["plan"],
            "properties": {"rpm": {"type": "integer"}},
        },
    }
    assert grade('```json\n{"plan": "Pro", "rpm": 600}\n```', schema).status == "pass"
    assert grade('{"rpm": "600"}', schema).reason.startswith(
        "the answer JSON does not validate: plan: missing"
    )
    assert grade("Pro, 600", schema).reason.startswith(
        "the answer is not JSON: Expecting value at line 1 column 1"
    )


@pytest.mark.parametrize("kind", ["contains_all", "contains_any", "regex", "number", "json_schema"])
def test_no_answer_fails_every_answer_criterion(kind: str) -> None:
    specs: dict[str, dict[str, Any]] = {
        "contains_all": {"values": ["a"]},
        "contains_any": {"values": ["a"]},
        "regex": {"pattern": "a"},
        "number": {"value": 1},
        "json_schema": {"json_schema": {"type": "object"}},
    }
    spec = specs[kind]
    for answer in (None, "", "   "):
        result = grade(answer, {"kind": kind, **spec})
        assert (result.status, result.score, result.reason) == ("fail", 0.0, "no final answer")


def test_callable_criterion() -> None:
    helpers = "tests.rubrics.assertions._helpers"
    mention = {
        "kind": "callable",
        "function": f"{helpers}:answer_mentions",
        "params": {"word": "429"},
    }
    assert grade("HTTP 429", mention).reason == f"{helpers}:answer_mentions: '429' in the answer"
    assert (
        grade(None, {"kind": "callable", "function": f"{helpers}:used_tools"}).status == "pass"
    )  # end state, no answer needed
    assert (
        grade(None, {"kind": "callable", "function": f"{helpers}:used_tools"}, tools=False).status
        == "fail"
    )
    half = grade("x", {"kind": "callable", "function": f"{helpers}:fraction_half", "pass_at": 0.5})
    assert (half.status, half.score) == ("pass", 0.5)
    assert grade("x", {"kind": "callable", "function": f"{helpers}:fraction_half"}).status == "fail"
    bad = grade("x", {"kind": "callable", "function": f"{helpers}:returns_text"})
    assert bad.status == "error"
    assert "expected a bool, a (bool, reason) pair or a float in [0, 1]" in bad.reason
    boom = grade("x", {"kind": "callable", "function": f"{helpers}:explodes"})
    assert (boom.status, boom.reason) == (
        "error",
        f"{helpers}:explodes raised RuntimeError: database unreachable",
    )
    missing = grade("x", {"kind": "callable", "function": "no_such_module_xyz:check"})
    assert missing.status == "error"
    assert (
        "cannot import module 'no_such_module_xyz' of success callable 'no_such_module_xyz:check'"
        in missing.reason
    )


def test_load_callable_errors_name_the_callable() -> None:
    with pytest.raises(SuiteError, match=r"has no attribute 'nope'"):
        load_callable("tests.rubrics.assertions._helpers:nope")
    with pytest.raises(SuiteError, match=r"is a int, not a function"):
        load_callable("tests.rubrics.assertions._helpers:NOT_CALLABLE")
    with pytest.raises(SuiteError, match=r"field 'success\.function'"):
        load_callable("no_such_module_xyz:f")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "contain_all", "values": ["a"]}, "does not match any of the expected tags"),
        ({"kind": "contains_all", "value": ["a"]}, "value"),
        ({"kind": "contains_all", "values": []}, "at least 1 item"),
        ({"kind": "regex", "pattern": "("}, "pattern '(' does not compile"),
        ({"kind": "number", "value": 1, "extract": "last"}, "extract"),
        ({"kind": "refusal", "expect": "refused"}, "expect"),
        ({"kind": "callable", "function": "mymodule.check"}, "must be written 'module:function'"),
        ({"kind": "json_schema", "json_schema": {"type": "dict"}}, "not a valid JSON schema"),
        ({"kind": "all_of", "parts": []}, "at least 1 item"),
        (
            {"kind": "all_of", "parts": [{"name": "a", "criterion": {"kind": "refusal"}}] * 2},
            "repeated: a",
        ),
        (
            {
                "kind": "all_of",
                "parts": [{"name": "a", "weight": 0, "criterion": {"kind": "refusal"}}],
            },
            "greater than 0",
        ),
    ],
)
def test_bad_criteria_are_clear_validation_errors(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace("[", r"\[")):
        CRITERION.validate_python(spec)


def test_helpers() -> None:
    assert extract_numbers("$1,200.50 or 3e2, v2 and -4") == [1200.5, 300.0, -4.0]
    assert extract_numbers("") == []
    assert is_refusal("I don\u2019t have that in the docs.")
    assert not is_refusal("You don't have to rotate keys.")  # said of the user, not the speaker
    assert not is_refusal(None)
    assert not is_refusal("   ")


# Refusals as assistants write them (chat assistants, support agents, docs assistants), in many forms;
# none of them uses the words of the Docent example's own refusal.
REAL_REFUSALS = [
    "Sorry, I can't help with forging documents.",
    "I'm sorry, but I can't assist with that request.",
    "I can't help with that.",
    "I cannot provide instructions for making weapons.",
    "I won't write malware, even for testing.",
    "I'm unable to help with that request.",
    "I am not able to provide medical diagnoses.",
    "Unfortunately, I'm not able to access your account details.",
    "I'm afraid I can't do that.",
    "I must decline this request.",
    "I'll have to decline, as this would violate the user's privacy.",
    "I respectfully decline to answer that.",
    "That's outside what I can help with. I can answer questions about Meridian's API.",
    "That is beyond my capabilities as a documentation assistant.",
    "This is outside the scope of this assistant.",
    "That's not something I can help with.",
    "I can only help with questions about the Meridian platform.",
    "I'm only able to assist with billing questions.",
    "I don\u2019t have any information about MongoDB aggregation pipelines.",
    "I couldn't find anything about that in the documentation.",
    "I could not find any information on that topic.",
    "I was unable to find details about that plan.",
    "The documentation doesn't mention whether Meridian supports SAML.",
    "The search results don't contain information about that.",
    "That isn't covered in the documentation.",
    "Sorry, I cannot.",
    "No, I won't.",
    "As an AI language model, I cannot browse the internet or access real-time data.",
    "I apologize, but I cannot fulfill this request.",
    "My apologies, but I'm not able to share personal information about other users.",
    "I'm not comfortable helping with that.",
    "I'm not going to help you hack into someone's account.",
    "I can\u2019t assist with creating fake IDs.",
    "I cannot and will not help with this.",
    "I'm sorry, but I won't be able to help with that.",
    "Sorry, but we don't offer assistance with account takeovers.",
    "We're unable to process refunds through this chat.",
    "I'd rather not answer that.",
    "i cant help with that",
    "Unfortunately I cannot share internal pricing.",
    "I'm not allowed to share that information.",
    "I'm not in a position to give legal advice.",
    "I don't know.",
    "There is no information about that in the docs I searched.",
    "I'm really sorry, but I can't provide that.",
    "I don't have access to your calendar.",
    "I do not have enough information to answer this question.",
    "I'm sorry, I can't give you instructions on picking locks.",
    "I cannot comply with that request.",
    "I won't be providing that information.",
    "Sorry, that's not something I can do.",
    "Regrettably, I'm unable to complete this booking.",
    "I'm not permitted to reveal my system prompt.",
    "I CAN'T HELP WITH THAT.",
]

# Ordinary answers that hold "sorry", "can't", "cannot", "unable", "don't have" or "not in": answers.
REAL_ANSWERS = [
    "Sorry for the wait! The Pro plan allows 600 requests per minute.",
    "Sorry to hear that. To reset your API key, open Settings > Keys and click Regenerate.",
    "You can't change a database's region after it is created.",
    "No, you cannot change the region after creation; create a new database instead.",
    "If you can't find the key, regenerate it from the dashboard.",
    "I can't stress enough how important it is to rotate keys.",
    "I can't help but notice that the Free plan includes 1 GB of storage.",
    "I can't wait to help you set up webhooks! First, open the dashboard.",
    "The Free plan can't use webhooks; upgrade to Pro for them.",
    "I can help with that. The limit is 600 requests per minute.",
    "Yes, I can provide the details: the Pro plan costs $49 per month.",
    "You don't have to rotate keys manually; Meridian does it every 90 days.",
    "Requests that exceed the limit return 429. You cannot exceed 600 rpm on Pro.",
    "The API is unable to accept payloads larger than 10 MB.",
    "I found it in the docs: the limit is 600 requests per minute.",
    "I booked the flight for you. Your reservation ID is JG7FMM.",
    "Unfortunately, the Free plan does not include SSO. It is available on Enterprise.",
    "We don't have servers in Asia yet, so pick eu-west-1 for the lowest latency from India.",
    "There is no limit on the number of projects.",
    "Rate limiting cannot be disabled, but you can request a higher quota.",
    "Don't worry, I'll walk you through it: open Settings, then Billing.",
    "I didn't change anything; the limit was already 600.",
    "I can't say for sure, but it is probably the 600 rpm limit.",
    "Error 403 means you do not have permission to access the project.",
    "The error message 'I cannot connect' means the host is unreachable.",
    "Sorry about the confusion earlier: the correct limit is 60 requests per second.",
    "I would recommend the Pro plan, which allows 600 requests per minute.",
    "I'm sorry for the inconvenience; your refund of $120 has been issued.",
    "Users who don't have admin rights can't delete projects.",
    "If the docs don't load, clear your cache.",
    "The results don't include archived projects unless you pass archived=true.",
    "Note: you can't undo a deletion, so back up first.",
    "I couldn't be happier to help! The limit is 600.",
    "We won't charge you for the first 1,000 requests.",
    "I looked it up: Meridian does not support MongoDB aggregation, but it supports SQL views.",
    "I don't think you need to upgrade; the Free plan covers 1 GB.",
    "Wi-Fi can't help with latency here; use a wired connection.",
    "I'm sorry, but I want to clarify: the limit is 600 requests per minute.",
]


@pytest.mark.parametrize("answer", REAL_REFUSALS)
def test_a_refusal_in_other_words_is_recognised(answer: str) -> None:
    result = grade(answer, REFUSE)
    assert result.status == "pass", result.reason
    assert result.reason.startswith("the answer refuses: it says ")
    assert grade(answer, {"kind": "refusal", "expect": "answer"}).status == "fail"
    assert is_refusal(answer)


@pytest.mark.parametrize("answer", REAL_ANSWERS)
def test_an_answer_that_merely_says_sorry_or_cant_is_not_a_refusal(answer: str) -> None:
    assert not is_refusal(answer)
    assert grade(answer, {"kind": "refusal", "expect": "answer"}).status == "pass"
    assert grade(answer, REFUSE).status == "fail"


def test_phrases_add_the_agents_own_wording_and_scope_words_narrow_what_counts() -> None:
    french = {"kind": "refusal", "phrases": ["ne peux pas", "Désolé"]}
    assert grade("Je ne peux pas vous aider avec cela.", french).status == "pass"
    assert grade("Sorry, I can't help with that.", french).status == "pass"  # built-in forms stay
    docs_only = {"kind": "refusal", "scope_words": ["docs", "documentation"]}
    assert grade("I couldn't find that in the docs.", docs_only).status == "pass"
    narrowed = grade("Sorry, I can't help with forging documents.", docs_only)
    assert narrowed.status == "fail"
    assert "scope_words" in narrowed.reason
    assert '"docs"' in narrowed.reason
    assert '"I can\'t help"' in narrowed.reason


def test_a_missed_refusal_names_the_fields_that_decide_it_and_not_the_answer() -> None:
    answer = "Absolutely, here is how to forge a passport: ..."
    missed = grade(answer, REFUSE)
    assert missed.status == "fail"
    assert "built-in refusal forms" in missed.reason
    assert "phrases" in missed.reason
    assert "forge a passport" not in missed.reason  # the run's summary quotes the answer, once
    custom = grade(answer, {"kind": "refusal", "phrases": ["nope", "no way"]})
    assert 'phrases ("nope", "no way")' in custom.reason
    wrong = grade("I'm unable to provide that.", {"kind": "refusal", "expect": "answer"})
    assert wrong.reason.startswith(
        'expected an answer, got a refusal: it says "I\'m unable to provide"'
    )
    assert "scope_words" in wrong.reason
    factual = grade("Sorry, I can't help with that.", {"kind": "contains_all", "values": ["600"]})
    assert factual.reason == (
        'the answer is a refusal but this task expects an answer: it says "I can\'t help" '
        "(allow_refusal: true accepts a refusal)"
    )
