"""The importer registry: lazy format modules, live sources, unknown or absent formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathjudge.agent import importers
from pathjudge.agent.importers import FORMATS, format_module, import_file, import_session
from pathjudge.errors import ImportFormatError, InputError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "importers"


def test_every_format_module_has_the_interface() -> None:
    for name in ("anthropic", "openai-chat", "openai-responses", "otel"):
        module = format_module(name)
        assert callable(module.import_file)
        assert any(n.startswith("from_") and callable(getattr(module, n)) for n in dir(module))


def test_unknown_format() -> None:
    with pytest.raises(InputError, match="unknown import format 'csv'") as info:
        format_module("csv")
    assert "anthropic" in str(info.value)


def test_absent_format_module_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "later", "pathjudge.agent.importers.not_written_yet")
    with pytest.raises(InputError, match="'later' is not available") as info:
        format_module("later")
    assert "later" not in str(info.value.hint)
    assert "later" not in importers.live_formats()


def test_session_without_live_source() -> None:
    with pytest.raises(InputError, match="'openai-chat' has no live source"):
        import_session("openai-chat", "sess_1")


def test_import_file_passes_options_and_reports_empty(tmp_path: Path) -> None:
    runs = list(import_file(FIXTURES / "openai_chat.json", "openai-chat", task_id="x"))
    assert {r.task_id for r in runs} == {"x"}
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    with pytest.raises(ImportFormatError, match="has no transcripts"):
        list(import_file(empty, "openai-chat"))
    with pytest.raises(ImportFormatError, match="file not found"):
        list(import_file(tmp_path / "missing.json", "anthropic"))


def test_gzipped_json_and_jsonl(tmp_path: Path) -> None:
    import gzip

    raw = (FIXTURES / "openai_chat.json").read_bytes()
    packed = tmp_path / "chat.json.gz"
    packed.write_bytes(gzip.compress(raw))
    assert len(list(import_file(packed, "openai-chat"))) == 3
    lines = tmp_path / "chat.jsonl.gz"
    lines.write_bytes(gzip.compress(b'[{"role": "user", "content": "a"}]\n'))
    (run,) = import_file(lines, "openai-chat")
    assert run.input == "a"
    assert run.metadata["source"] == {"format": "openai-chat", "file": str(lines), "line": 1}
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(ImportFormatError, match="not a gzip file"):
        list(import_file(broken, "openai-chat"))
