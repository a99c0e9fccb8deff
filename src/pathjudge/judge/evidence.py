"""Is the judge's evidence really in what it judged? Each quote checked against the judged inputs.

A judge cites ``evidence``: short verbatim quotes from the data that support its verdict. A small or
confused model invents them. :func:`verify_evidence` checks every quote against the item's inputs
(all of them, joined) and says which quotes were not found.

How a quote is matched (the rules are the contract; tests pin each one):

1. **Normalisation** of quote and inputs alike: Unicode NFKC; case folded; curly quotes, primes and
   backticks → ``'`` or ``"``; every dash → ``-``; the ellipsis character → ``...``; every run of
   whitespace → one space. Quote marks, brackets and spaces around the quote are stripped.
2. A quote with an ellipsis (``...``) is split there into fragments (a judge elides the middle of
   a long passage); every fragment must be found, in any position.
3. A fragment is **found** when its normalised text is a substring of the normalised inputs that
   starts and ends at word boundaries (so ``"rate"`` is not found in ``"separate"``), or when its
   words (runs of letters and digits) appear consecutively among the inputs' words (so punctuation
   and spacing differences do not count).
4. Otherwise it is found when it matches fuzzily: over every window of the
   inputs' words as long as the fragment, the best ``difflib.SequenceMatcher`` ratio on the word
   lists, ``2 M / (a + b)`` with ``M`` matched words, must reach :data:`FUZZY_THRESHOLD` (0.85). At
   that threshold a 20-word quote may differ in about three words (a changed tense, a dropped
   article), and a 6-word quote in none: a one-word change in six words scores 0.83. Numbers are
   never fuzzy: a window counts only when every word of the fragment that holds a digit appears in
   it (a quote that changes ``0.25`` into ``0.5`` is not found).
5. A fragment without any word (only punctuation) is ignored; a quote with no fragment left is
   ignored as well.

``evidence_verified`` is then ``True`` when every quote is found, ``False`` when at least one is not,
and ``None`` when the verdict cites no evidence (nothing to check).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = [
    "FUZZY_THRESHOLD",
    "EvidenceCheck",
    "normalise",
    "quote_found",
    "verify_evidence",
]

FUZZY_THRESHOLD = 0.85
"""The least word-level similarity at which a quote counts as found (see the module docstring)."""

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
    }
)
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")
_ELLIPSIS = re.compile(r"\.\.\.+|\[\s*\.\.\.\s*\]")
_STRIP = " \"'()[]{}<>"


def normalise(text: str) -> str:
    """The normalised form used for matching (rule 1 of the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_TRANSLATE)
    return _SPACE.sub(" ", text).strip()


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _fuzzy(fragment: list[str], source: list[str]) -> float:
    """Best SequenceMatcher ratio of ``fragment`` against every equally long window of ``source``."""
    m = len(fragment)
    if not source:
        return 0.0
    if len(source) <= m:
        if any(any(c.isdigit() for c in w) and w not in source for w in fragment):
            return 0.0
        return SequenceMatcher(None, fragment, source, autojunk=False).ratio()
    best = 0.0
    wanted = set(fragment)
    numbers = {w for w in fragment if any(c.isdigit() for c in w)}
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(fragment)
    for start in range(len(source) - m + 1):
        window = source[start : start + m]
        # cheap bound first: the ratio cannot exceed 2 * (shared words) / (2 m)
        shared = sum(1 for w in window if w in wanted)
        if shared / m <= best or (numbers and not numbers.issubset(window)):
            continue
        matcher.set_seq1(window)
        ratio = matcher.ratio()
        if ratio > best:
            best = ratio
            if best == 1.0:
                break
    return best


def _bounded_in(fragment: str, source: str) -> bool:
    start = source.find(fragment)
    while start != -1:
        end = start + len(fragment)
        before = source[start - 1] if start else " "
        after = source[end] if end < len(source) else " "
        edge_ok = (not fragment[0].isalnum() or not before.isalnum()) and (
            not fragment[-1].isalnum() or not after.isalnum()
        )
        if edge_ok:
            return True
        start = source.find(fragment, start + 1)
    return False


def _contiguous(fragment: list[str], source: list[str]) -> bool:
    joined = " " + " ".join(source) + " "
    return (" " + " ".join(fragment) + " ") in joined


@dataclass(frozen=True)
class EvidenceCheck:
    """The result of checking one verdict's quotes."""

    verified: bool | None
    missing: tuple[str, ...] = ()
    checked: int = 0


def quote_found(
    quote: str,
    source: str,
    *,
    threshold: float = FUZZY_THRESHOLD,
    _words_cache: list[str] | None = None,
) -> bool | None:
    """Whether ``quote`` is in ``source`` (module docstring rules); None when it has nothing to check."""
    norm_source = normalise(source)
    words = _words(norm_source) if _words_cache is None else _words_cache
    fragments = [f.strip(_STRIP) for f in _ELLIPSIS.split(normalise(quote))]
    checked = False
    for fragment in fragments:
        frag_words = _words(fragment)
        if not frag_words:
            continue
        checked = True
        if _bounded_in(fragment, norm_source) or _contiguous(frag_words, words):
            continue
        if _fuzzy(frag_words, words) < threshold:
            return False
    return True if checked else None


def verify_evidence(
    evidence: Sequence[str],
    inputs: Mapping[str, str] | Iterable[str],
    *,
    threshold: float = FUZZY_THRESHOLD,
) -> EvidenceCheck:
    """Check every quote of ``evidence`` against the judged ``inputs`` (all of them, joined).

    Returns ``verified=None`` when no quote has anything to check (no evidence cited).
    """
    if not evidence:  # nothing to check: skip normalising the inputs
        return EvidenceCheck(verified=None)
    texts = list(inputs.values()) if isinstance(inputs, Mapping) else list(inputs)
    source = "\n".join(texts)
    norm_source = normalise(source)
    words = _words(norm_source)
    missing: list[str] = []
    checked = 0
    for quote in evidence:
        found = quote_found(quote, source, threshold=threshold, _words_cache=words)
        if found is None:
            continue
        checked += 1
        if not found:
            missing.append(quote)
    if not checked:
        return EvidenceCheck(verified=None)
    return EvidenceCheck(verified=not missing, missing=tuple(missing), checked=checked)
