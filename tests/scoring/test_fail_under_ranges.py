"""``--fail-under`` thresholds: out of range or not finite is one error naming the metric and the range."""

from __future__ import annotations

import pytest

from pathjudge.errors import InputError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("success=1.5", "threshold 1.5 for 'success' is outside [0, 1]"),
        ("success=-1", "threshold -1 for 'success' is outside [0, 1]"),
        ("path=101", "threshold 101 for 'path' is outside [0, 100]"),
        ("trajectory=nan", "--fail-under value 'nan' for 'trajectory' is not a finite number"),
    ],
)
def test_fail_under_out_of_range(text: str, expected: str) -> None:
    from pathjudge.scoring.scorecard import parse_thresholds

    with pytest.raises(InputError) as caught:
        parse_thresholds(text)
    assert caught.value.message == expected
    assert caught.value.field == "--fail-under"


def test_fail_under_in_range() -> None:
    from pathjudge.scoring.scorecard import parse_thresholds

    assert parse_thresholds("success=1,path=80,overall=0") == {
        "success": 1.0,
        "path": 80.0,
        "overall": 0.0,
    }
