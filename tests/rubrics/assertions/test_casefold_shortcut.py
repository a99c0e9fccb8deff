"""A contains criterion under ``casefold`` whose values hold no whitespace reads the answer through
plain ``str.casefold`` (no whitespace folding): it gives the plain verdict, and its premise holds
over every code point."""

from __future__ import annotations

import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pathjudge.agent.trajectory import RunRecord
from pathjudge.rubrics.assertions.outcome import (
    ContainsAllCriterion,
    ContainsAnyCriterion,
    _checked_outcome,
    check_outcome,
)


def test_case_folding_keeps_whitespace_apart_from_everything_else() -> None:
    # the shortcut's premise: whitespace folds to itself, nothing else folds to (or to text with)
    # whitespace or to nothing, and str.split() splits exactly at str.isspace() characters
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        folded = char.casefold()
        if char.isspace():
            assert folded == char, hex(point)
            assert ("a" + char + "b").split() == ["a", "b"], hex(point)
        else:
            assert folded, hex(point)
            assert not any(c.isspace() for c in folded), hex(point)
            assert len(("a" + char + "b").split()) == 1, hex(point)


_PIECES = ["a", "B", "ß", "SS", "İ", "ﬁ", "Café", "CAFÉ", " ", "\t", "\u00a0", "\u3000", "\n", "x"]
_text = st.lists(st.sampled_from(_PIECES), max_size=8).map("".join)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from([ContainsAnyCriterion, ContainsAllCriterion]),
    st.lists(_text.filter(lambda v: v.strip() != ""), min_size=1, max_size=3, unique=True),
    st.one_of(st.none(), _text),
)
@example(ContainsAnyCriterion, ["ss"], "Straße")
@example(ContainsAnyCriterion, ["a b"], "A \t B")
@example(ContainsAllCriterion, ["fi", "ss"], "ﬁ ß")
def test_casefold_without_whitespace_folding_equals_the_plain_verdict(
    kind: type[ContainsAnyCriterion | ContainsAllCriterion], values: list[str], answer: str | None
) -> None:
    criterion = kind(kind=kind.model_fields["kind"].default, values=tuple(values))
    run = RunRecord(run_id="r", task_id="t", final_answer=answer)
    shortcut = check_outcome(run, criterion)
    plain = _checked_outcome(run, criterion)
    assert shortcut == plain
    apply, pairs = criterion._pairs
    folds_whitespace = any(c.isspace() for _, wanted in pairs for c in wanted)
    assert (apply is str.casefold) is not folds_whitespace
