"""Agreement statistics in words: an undefined F1 says why in a full sentence, and ``--gates`` names
the gate and the range it must lie in."""

from __future__ import annotations

import pytest

from pathjudge.errors import InputError


def test_undefined_f1_reason_is_a_full_sentence() -> None:
    from pathjudge.calibration.agreement import judge_agreement

    # the judge never says 'fail': fail precision = 0/0 is undefined, so is its F1
    stats = judge_agreement(["pass", "fail", "pass", "fail"], ["pass"] * 4, n_bootstrap=10)
    fail = stats.per_class[1]
    assert fail.f1.value is None
    assert fail.f1.reason == (
        "F1 of 'fail' is undefined because its precision is undefined: the judge never said 'fail'"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tprr=0.5", "unknown gate 'tprr'"),
        ("tpr", "gate 'tpr' has no value"),
        ("tpr=2", "gate 'tpr' is 2, outside [0, 1]"),
        ("kappa=-1.5", "gate 'kappa' is -1.5, outside [-1, 1]"),
    ],
)
def test_parse_gates_messages(text: str, expected: str) -> None:
    from pathjudge.calibration.agreement import parse_gates

    with pytest.raises(InputError) as caught:
        parse_gates(text)
    assert caught.value.message == expected
    assert caught.value.field == "--gates"
    if text == "tprr=0.5":
        assert "tpr, tnr, kappa, max_unsure" in (caught.value.hint or "")
    if text == "tpr":
        assert caught.value.hint == "write tpr=0.8"


def test_parse_gates_still_parses() -> None:
    from pathjudge.calibration.agreement import parse_gates

    gates = parse_gates("tpr=0.7, kappa=-0.2, max_unsure=0.1")
    assert (gates.tpr, gates.tnr, gates.kappa, gates.max_unsure) == (0.7, 0.8, -0.2, 0.1)
