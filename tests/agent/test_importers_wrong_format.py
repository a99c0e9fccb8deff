"""An importer that recognises nothing in a file says so, naming the file and the ``--from`` that
would read it; the CLI exits 2 and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.cli import main
from pathjudge.errors import ImportFormatError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"


WRONG_FORMAT = [
    ("openai-chat", "anthropic_refund.json", "anthropic"),
    ("openai-chat", "anthropic_mixed.jsonl", "anthropic"),
    ("openai-chat", "openai_responses.json", "openai-responses"),
    ("openai-chat", "otel_otlp.json", "otel"),
    ("anthropic", "openai_chat.json", "openai-chat"),
    ("anthropic", "openai_responses.json", "openai-responses"),
    ("anthropic", "otel_flat.json", "otel"),
    ("openai-responses", "anthropic_refund.json", "anthropic"),
    ("openai-responses", "openai_chat.json", "openai-chat"),
    ("openai-responses", "otel_flat.json", "otel"),
    ("openai-responses", "otel_otlp.json", "otel"),
    ("otel", "anthropic_refund.json", "anthropic"),
    ("otel", "openai_chat.json", "openai-chat"),
    ("otel", "openai_responses.json", "openai-responses"),
]


@pytest.mark.parametrize(("fmt", "fixture", "right"), WRONG_FORMAT)
def test_wrong_from_names_the_file_and_the_right_format(fmt: str, fixture: str, right: str) -> None:
    from pathjudge.agent.importers import import_file

    with pytest.raises(ImportFormatError) as caught:
        list(import_file(FIXTURES / fixture, fmt))
    assert caught.value.file is not None
    assert caught.value.file.endswith(fixture)
    assert f"--from {right}" in str(caught.value)


@pytest.mark.parametrize(
    ("fmt", "fixture"),
    [
        ("anthropic", "anthropic_refund.json"),
        ("anthropic", "anthropic_mixed.jsonl"),
        ("openai-chat", "openai_chat.json"),
        ("openai-responses", "openai_responses.json"),
        ("otel", "otel_flat.json"),
        ("otel", "otel_otlp.json"),
    ],
)
def test_right_from_still_imports(fmt: str, fixture: str) -> None:
    from pathjudge.agent.importers import import_file

    assert list(import_file(FIXTURES / fixture, fmt))


def test_unrecognisable_transcript_without_markers(tmp_path: Path) -> None:
    from pathjudge.agent.importers import import_file

    odd = tmp_path / "odd.json"
    odd.write_text('{"conversation": [{"speaker": "bot", "said": "hi"}]}', encoding="utf-8")
    with pytest.raises(
        ImportFormatError, match="nothing in it is recognisable as openai-responses"
    ):
        list(import_file(odd, "openai-responses"))


def test_cli_import_wrong_from_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.jsonl"
    code = main(
        ["import", "--from", "openai-chat", str(FIXTURES / "anthropic_refund.json"), "-o", str(out)]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "anthropic_refund.json" in err
    assert "--from anthropic" in err
    assert not out.exists()
