"""An offline, deterministic Docent "model": a scripted policy that plays Claude's part in the loop.

It behaves like a careful docs assistant, by rule rather than by sampling:

1. first turn: call ``search_docs`` with the question's content words as the query;
2. after an errored result: retry the same call, up to ``retries_on_error`` times in a row;
3. after results: answer with the (at most ``sentences``) sentences of the returned pages that share a
   stemmed content word with the question and, counting their page title, at least ``min_overlap`` of
   them; most shared words first, ties in the order read;
4. when no sentence qualifies: search again with a narrower query, up to ``searches_before_refusal``
   searches in all, then refuse with "I don't have that in the docs."

Because the answer is read off the pages the retriever returned, the policy is only as good as its
retriever: swap in the worst-match retriever and its factual answers collapse into refusals, which is the
broken-retriever experiment. ``use_distractor=True`` makes it (wrongly) prefer ``search_web`` when offered.
Token usage is counted in words, so runs are byte-for-byte reproducible.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pathjudge.agent.backends import (
    AssistantMessage,
    ModelRequest,
    ModelTurn,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from pathjudge.agent.docent.retrievers import tokens
from pathjudge.agent.trajectory import Usage

__all__ = ["REFUSAL", "STOP_WORDS", "DocentPolicy", "content_words", "stem"]

REFUSAL = "I don't have that in the docs."

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "is",
        "are",
        "was",
        "be",
        "do",
        "does",
        "did",
        "how",
        "what",
        "which",
        "who",
        "when",
        "where",
        "why",
        "can",
        "could",
        "you",
        "your",
        "i",
        "it",
        "its",
        "on",
        "in",
        "for",
        "per",
        "that",
        "this",
        "and",
        "or",
        "if",
        "with",
        "by",
        "at",
        "from",
        "as",
        "my",
        "me",
        "we",
        "our",
        "there",
        "their",
        "about",
        "any",
        "much",
        "many",
        "long",
    ]
)
"""Function words ignored when building queries and matching sentences ('long', 'much' and 'many' are
question scaffolding: 'how long', 'how much')."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9'])")


def content_words(text: str) -> list[str]:
    """The question's tokens minus stop words, lower-cased, first occurrence order, no duplicates."""
    out: list[str] = []
    for token in re.findall(r"[a-z0-9_]+(?:[-'][a-z0-9_]+)*", text.lower()):
        token = token.removesuffix("'s")
        if token not in STOP_WORDS and token not in out:
            out.append(token)
    return out


def stem(word: str) -> str:
    """A crude stem: drop a plural 's' (words over three letters), keep the first five characters."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:5]


def _stems(text: str) -> set[str]:
    return {stem(word) for word in tokens(text) if word not in STOP_WORDS}


def _history(request: ModelRequest) -> list[tuple[ToolCall, ToolResult]]:
    calls: dict[str, ToolCall] = {}
    pairs: list[tuple[ToolCall, ToolResult]] = []
    for message in request.messages:
        if isinstance(message, AssistantMessage):
            for call in message.turn.tool_calls:
                calls[call.id] = call
        elif isinstance(message, ToolResultsMessage):
            for result in message.results:
                issued = calls.get(result.call_id)
                if issued is not None:
                    pairs.append((issued, result))
    return pairs


def _passages(result: ToolResult) -> list[tuple[str, str]]:
    """``(title, text)`` of every hit in a successful result (search_docs pages or search_web snippets)."""
    try:
        hits = json.loads(result.content)
    except ValueError:
        return []
    out: list[tuple[str, str]] = []
    for hit in hits if isinstance(hits, list) else []:
        if isinstance(hit, dict):
            body = hit.get("text") or hit.get("snippet")
            if isinstance(body, str):
                out.append((str(hit.get("title", "")), body))
    return out


def _words(request: ModelRequest) -> int:
    total = len(request.system.split())
    for message in request.messages:
        if isinstance(message, UserMessage):
            total += len(message.text.split())
        elif isinstance(message, AssistantMessage):
            total += len((message.turn.text or "").split()) + 4 * len(message.turn.tool_calls)
        else:
            total += sum(len(result.content.split()) for result in message.results)
    return total


@dataclass(frozen=True)
class DocentPolicy:
    """The scripted Docent (see the module docstring). Call it with a request; it returns the next turn."""

    searches_before_refusal: int = 1
    retries_on_error: int = 1
    min_overlap: int = 2
    sentences: int = 2
    use_distractor: bool = False

    def _search_tool(self, request: ModelRequest) -> str | None:
        names = [spec.name for spec in request.tools]
        if self.use_distractor and "search_web" in names:
            return "search_web"
        if "search_docs" in names:
            return "search_docs"
        return names[0] if names else None

    def _turn(
        self, request: ModelRequest, text: str, calls: tuple[ToolCall, ...] = ()
    ) -> ModelTurn:
        out_words = len(text.split()) + sum(4 + len(str(c.arguments).split()) for c in calls)
        return ModelTurn(
            text=text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=Usage(input_tokens=_words(request), output_tokens=out_words),
        )

    def _search(self, request: ModelRequest, tool: str, query: str, made: int) -> ModelTurn:
        call = ToolCall(id=f"toolu_{made + 1:02d}", name=tool, arguments={"query": query})
        return self._turn(request, f"Searching the Meridian docs for: {query}", (call,))

    def __call__(self, request: ModelRequest) -> ModelTurn:
        question = request.question
        words = content_words(question)
        tool = self._search_tool(request)
        history = _history(request)
        if tool is None:
            return self._turn(request, REFUSAL)
        if not history:
            return self._search(request, tool, " ".join(words) or question, 0)
        last_call, last_result = history[-1]
        if last_result.is_error:
            streak = 0
            for _, result in reversed(history):
                if not result.is_error:
                    break
                streak += 1
            if streak <= self.retries_on_error:
                retry = ToolCall(
                    id=f"toolu_{len(history) + 1:02d}",
                    name=last_call.name,
                    arguments=last_call.arguments,
                )
                return self._turn(request, "The search failed; trying it again.", (retry,))
            return self._turn(
                request, f"The search keeps failing, so {REFUSAL[0].lower()}{REFUSAL[1:]}"
            )
        wanted = {stem(word) for word in words}
        scored: list[tuple[int, str, str]] = []
        read: set[str] = set()
        for _, result in history:
            if result.is_error:
                continue
            for title, body in _passages(result):
                title_hits = wanted & _stems(title)
                for sentence in _SENTENCE_END.split(body.strip()):
                    hits = wanted & _stems(sentence)
                    # qualifies: shares a word itself, and enough words together with its page title
                    if sentence not in read and hits and len(hits | title_hits) >= self.min_overlap:
                        read.add(sentence)
                        scored.append((len(hits), title, sentence))
        scored.sort(key=lambda item: item[0], reverse=True)
        best = scored[: self.sentences]
        if best:
            titles = list(dict.fromkeys(title for _, title, _ in best))
            answer = " ".join(sentence for _, _, sentence in best)
            return self._turn(request, f"From the {' and '.join(titles)} page: {answer}")
        searches = sum(1 for _, result in history if not result.is_error)
        if searches < self.searches_before_refusal:
            narrower = " ".join(words[searches:]) or f"{' '.join(words)} {searches}"
            return self._search(request, tool, narrower, len(history))
        return self._turn(request, REFUSAL)
