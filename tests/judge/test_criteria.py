"""Single-criterion rubrics: the built-in library, hashing, and line-numbered loading errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.errors import CriterionError, InputError
from pathjudge.rubrics.criteria import (
    BUILTIN_CRITERIA,
    builtin_criteria,
    get_criterion,
    load_criterion,
    parse_criterion,
)

GOOD = """\
id: my-criterion
version: 2
criterion: Is the answer polite?
inputs: [answer]
pass_means: The answer is polite.
fail_means: The answer is rude.
examples:
  - inputs: {answer: "Thanks!"}
    verdict: pass
    reasoning: It thanks the user.
"""


def test_builtin_library_is_complete_and_valid() -> None:
    library = builtin_criteria()
    assert (
        sorted(library)
        == sorted(BUILTIN_CRITERIA)
        == [
            "answer-correct",
            "answer-grounded",
            "claims-backed",
            "refusal-appropriate",
            "step-faithful",
            "summary-covers-points",
            "summary-faithful",
        ]
    )
    assert library["answer-correct"].inputs == ("question", "answer", "reference")
    assert library["step-faithful"].inputs == ("tool_call", "tool_result", "claim")
    assert len({c.content_hash for c in library.values()}) == len(library)


def test_parse_and_version_as_text() -> None:
    criterion = parse_criterion(GOOD)
    assert criterion.version == "2"
    assert criterion.examples[0].verdict == "pass"
    assert criterion.content_hash.startswith("sha256:")
    assert len(criterion.content_hash) == 7 + 24


@pytest.mark.parametrize(
    "edit",
    [
        ("Is the answer polite?", "Is the answer polite and brief?"),
        ("version: 2", "version: 3"),
        ("It thanks the user.", "It thanks the user warmly."),
    ],
)
def test_any_edit_changes_the_hash(edit: tuple[str, str]) -> None:
    before = parse_criterion(GOOD).content_hash
    after = parse_criterion(GOOD.replace(*edit)).content_hash
    assert before != after


def test_hash_ignores_yaml_formatting() -> None:
    reformatted = GOOD.replace("inputs: [answer]", "inputs:\n  - answer")
    assert parse_criterion(reformatted).content_hash == parse_criterion(GOOD).content_hash


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        (GOOD.replace("pass_means:", "pass_mean:"), 5, "pass_mean", "unknown field"),
        (GOOD.replace("fail_means: The answer is rude.\n", ""), 1, "fail_means", "Field required"),
        (
            GOOD.replace("    verdict: pass", "    verdict: maybe"),
            9,
            "examples[0].verdict",
            "'pass', 'fail' or 'unsure'",
        ),
        (GOOD.replace("inputs: [answer]", "inputs: [Answer]"), 4, "inputs", "lower_snake_case"),
        (
            GOOD.replace('{answer: "Thanks!"}', '{reply: "Thanks!"}'),
            7,
            "examples",
            "missing ['answer']",
        ),
    ],
)
def test_errors_name_file_line_and_field(
    tmp_path: Path, text: str, line: int, field: str, words: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(CriterionError) as info:
        load_criterion(path)
    error = info.value
    assert error.file == str(path)
    assert error.line == line, str(error)
    assert error.field == field
    assert words in str(error)
    assert error.exit_code == 2


def test_invalid_yaml_and_non_mapping(tmp_path: Path) -> None:
    with pytest.raises(CriterionError, match=r"c.yaml:2: not valid YAML"):
        parse_criterion("id: x\n  bad: [\n", source="c.yaml")
    with pytest.raises(CriterionError, match="must be a YAML mapping"):
        parse_criterion("- a\n- b\n", source="c.yaml")
    with pytest.raises(CriterionError, match="file not found"):
        load_criterion(tmp_path / "missing.yaml")


def test_get_criterion_by_id_path_or_error(tmp_path: Path) -> None:
    assert get_criterion("summary-faithful").id == "summary-faithful"
    path = tmp_path / "mine.yaml"
    path.write_text(GOOD)
    assert get_criterion(str(path)).id == "my-criterion"
    with pytest.raises(CriterionError, match=r"unknown criterion 'answer-corect'.*answer-correct"):
        get_criterion("answer-corect")


def test_check_inputs() -> None:
    criterion = get_criterion("summary-faithful")
    criterion.check_inputs({"source": "s", "summary": "t"})
    with pytest.raises(InputError, match=r"lacks input\(s\) \['summary'\]"):
        criterion.check_inputs({"source": "s"}, item_id="x")
    with pytest.raises(InputError, match=r"\['sumary'\] that criterion"):
        criterion.check_inputs({"source": "s", "summary": "t", "sumary": "u"})
    with pytest.raises(InputError, match="must be a string"):
        criterion.check_inputs({"source": "s", "summary": 3})
