"""Text normalisations: what they compute, and that their memory grows linearly with the text."""

from __future__ import annotations

import sys
import tracemalloc
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathjudge.rubrics.assertions._normalize import (
    TextNormalization,
    casefold_text,
    collapse_whitespace,
    normalize_string,
)


def _whole_text_strip(text: str) -> str:
    # the definition: decompose the whole text (NFKD), then drop every combining mark
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_stripping_accents_equals_decomposing_the_whole_text(text: str) -> None:
    assert TextNormalization(strip_accents=True).apply(text) == _whole_text_strip(text)


def test_stripping_accents_keeps_letters_and_drops_marks() -> None:
    strip = TextNormalization(strip_accents=True).apply
    assert strip("Café crème, Ångström, ﬁ") == "Cafe creme, Angstrom, fi"
    assert strip("e\u0301\u0327") == "e"  # out-of-order marks: all dropped
    assert len(strip("\ufdfa")) == 18  # one ligature, eighteen letters and spaces


NORMALISATIONS: dict[str, Callable[[str], str]] = {
    "strip_accents": TextNormalization(strip_accents=True).apply,
    "every step": TextNormalization(
        strip_accents=True, casefold=True, remove=",$", punctuation="drop", collapse_whitespace=True
    ).apply,
    "casefold preset": casefold_text,
    "bfcl preset": lambda text: normalize_string(text, "bfcl"),
}
# characters that grow the most under each step: U+FDFA decomposes to 18 characters, U+0390 folds
# to three, a Hangul syllable to two or three jamo, U+FB03 (ffi) to three letters
HOSTILE = ["\ufdfa", "\u0390", "\uac01", "\ufb03", "e\u0301 ", "\U0001d400,"]


def _peak(normalise: Callable[[str], str], text: str) -> tuple[int, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = normalise(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, sys.getsizeof(result)


@pytest.mark.parametrize("name", NORMALISATIONS)
@pytest.mark.parametrize("unit", HOSTILE)
def test_normalisation_memory_grows_linearly_with_the_text(name: str, unit: str) -> None:
    normalise = NORMALISATIONS[name]
    normalise(unit)  # tables built on first use are not part of one call's cost
    peaks = {}
    for size in (2_000, 8_000, 32_000):
        text = unit * size
        peak, result_bytes = _peak(normalise, text)
        # a few copies of the text and of the result plus a bounded working set (words of one
        # 8K-character piece), never an object per character of the whole text
        assert peak <= 8 * (sys.getsizeof(text) + result_bytes) + 400_000, (size, peak)
        peaks[size] = peak
    assert peaks[8_000] <= 4.5 * peaks[2_000] + 64_000, peaks
    assert peaks[32_000] <= 4.5 * peaks[8_000] + 64_000, peaks


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "bc", " ", "\n", "\u3000", "\ufdfa", "  \t"]), max_size=30))
def test_collapsing_a_long_text_cut_into_pieces_equals_collapsing_it_whole(
    parts: list[str],
) -> None:
    import re

    text = "".join(parts) * 5000  # far past one 64K piece
    assert collapse_whitespace(text) == re.sub(r"\s+", " ", text).strip()


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(" ,./-_*^'\"aAİΣé\u0301\t-"), max_size=30))
def test_the_bfcl_rule_drops_its_characters_lowers_and_reads_quotes_as_double(text: str) -> None:
    import re

    expected = re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')
    assert normalize_string(text, "bfcl") == expected
