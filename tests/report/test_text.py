"""The safe-text helpers every renderer uses: terminal escapes, inert Markdown, well-formed XML."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt
from rich.table import Table
from rich.text import Text

from pathjudge.report.text import (
    Column,
    Prose,
    SafeConsole,
    fit_widths,
    json_text,
    md_cell,
    md_text,
    natural_key,
    one_line,
    print_table,
    visible,
    xml_text,
)

HOSTILE = "ok\x1b[2J\x1b]0;pwned\x07 \x9b31m \u202eevil\u202c \x00 \x7f end"


def _console(width: int = 80, *, terminal: bool = False) -> tuple[SafeConsole, io.StringIO]:
    buffer = io.StringIO()
    return SafeConsole(file=buffer, width=width, force_terminal=terminal, color_system=None), buffer


def _has_control(text: str) -> bool:
    return any(
        (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u202c"
        for c in text
    )


def test_visible_escapes_every_control_and_bidi_mark() -> None:
    shown = visible(HOSTILE)
    assert not _has_control(shown)
    assert "\\x1b[2J" in shown
    assert "\\x07" in shown
    assert "\\x9b" in shown
    assert "\\u202e" in shown
    assert "\\x00" in shown
    assert "\\x7f" in shown
    assert visible("a\nb\tc") == "a\nb\tc"
    assert one_line("a\nb\tc\r") == "a\\nb\\tc\\r"
    assert visible("plain [bold]text[/] ü 漢字") == "plain [bold]text[/] ü 漢字"


@pytest.mark.parametrize("terminal", [False, True])
def test_safe_console_never_writes_a_control_character(terminal: bool) -> None:
    console, buffer = _console(terminal=terminal)
    console.print(HOSTILE)
    console.print(Text(HOSTILE, style="bold"))
    table = Table("task")
    table.add_row(HOSTILE)
    console.print(table)
    console.print(Prose(HOSTILE, indent=2))
    out = buffer.getvalue()
    if terminal:  # styles are rich's own SGR sequences; strip them, then nothing may be left
        import re

        out = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert not _has_control(out), repr(out)
    assert "\\x1b[2J" in out


def test_safe_console_prints_no_markup_from_strings() -> None:
    console, buffer = _console()
    console.print("[bold]Weak paths[/] [red]x[/]")
    assert buffer.getvalue() == "[bold]Weak paths[/] [red]x[/]\n"


def test_prose_wraps_at_spaces_on_a_terminal_and_keeps_long_words_whole() -> None:
    console, buffer = _console(width=20, terminal=True)
    long_word = "b" * 30
    console.print(Prose(f"aaa {long_word} ccc dd ee ff gg hh ii", indent=2, hanging=True))
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "aaa"
    assert lines[1] == "  " + long_word
    assert all(len(line) <= 20 for line in lines if long_word not in line)
    words = " ".join(lines).split()
    assert words == ["aaa", long_word, "ccc", "dd", "ee", "ff", "gg", "hh", "ii"]


def test_prose_is_not_wrapped_when_piped() -> None:
    console, buffer = _console(width=20)
    console.print("one two three four five six seven eight nine")
    assert buffer.getvalue() == "one two three four five six seven eight nine\n"


def test_table_ids_are_cut_with_an_ellipsis_and_a_legend_never_folded() -> None:
    console, buffer = _console(width=40)
    ids = ["summary-rate-limiting-very-long-id", "short", "trap-flaky-search-again"]
    print_table(
        console,
        "title",
        [Column("task", "id"), Column("runs", "num", "right"), Column("tools", "text")],
        [(i, "12345", "search_docs×1, fetch_page×2, other_tool×9") for i in ids],
    )
    out = buffer.getvalue()
    assert "12345" in out  # numbers are never narrowed
    lines = out.splitlines()
    body = [line for line in lines if line.startswith("│")]
    for line in body:  # every id cell is a prefix of a real id, whole or ending in …
        cell = line.split("│")[1].strip()
        if cell:
            assert any(i == cell or (cell.endswith("…") and i.startswith(cell[:-1])) for i in ids)
    assert "value(s) shortened to fit 40 columns" in out
    assert "= summary-rate-limiting-very-long-id" in out
    assert all(len(line) <= 40 for line in body)


def test_fit_widths_keeps_numbers_whole_and_gives_ids_room_first() -> None:
    cols = [Column("task", "id"), Column("count", "num"), Column("notes", "text")]
    rows = [("a" * 30, "1000000", "word " * 20)]
    widths = fit_widths(cols, rows, 50)
    assert widths[1] == 7
    assert widths[0] == 30
    assert sum(widths) <= 50


@pytest.mark.parametrize(
    "hostile",
    [
        "![x](http://e.test/a.png)",
        "[click](http://e.test)",
        "<img src=http://e.test/a.png>",
        "<http://e.test/a.png>",
        "&#x21;&#x5b;x&#x5d;(http://e.test/a.png)",
        "[a][1]\n\n[1]: http://e.test/a.png",
        "a | b | c",
        "*bold* _it_ `code` ~~del~~ $x^2$",
        "# heading",
        "- nested list",
        "1. ordered",
        "> quote",
    ],
)
def test_md_cell_is_inert_in_a_rendered_table(hostile: str) -> None:
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    html = md.render(f"| a | b |\n| --- | --- |\n| {md_cell(hostile)} | x |\n")
    assert "<img" not in html
    assert "<a " not in html
    assert "href" not in html
    assert "<em>" not in html
    assert "<strong>" not in html
    assert "<code>" not in html
    assert "<s>" not in html
    assert "<del>" not in html
    assert html.count("<td>") == 2  # a "|" stays inside its cell
    inline = md.render(f"- {md_text(hostile)}\n")
    assert "<img" not in inline
    assert "href" not in inline
    assert inline.count("<li>") == 1
    assert "<ol" not in inline
    assert "<h1" not in inline
    assert "<blockquote" not in inline


def test_md_text_shows_the_original_characters() -> None:
    md = MarkdownIt("commonmark")
    html = md.render(md_text("use (a+)+$ and a*b|c [x]"))
    assert "use (a+)+$ and a*b|c [x]" in html


def test_xml_text_keeps_a_document_well_formed() -> None:
    element = ET.Element("case", name=xml_text("bad\x00\x1b\x0c name"))
    element.text = xml_text("text \x01 \ufffe ok\ttab")
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.get("name") == "bad\\x00\\x1b\\x0c name"
    assert parsed.text is not None
    assert "\\x01" in parsed.text
    assert "\ttab" in parsed.text


def test_xml_text_shows_bidi_marks_and_c1_controls() -> None:
    text = xml_text("refund \u202eevil\u202c \u2066x\u2069 \u200e\u200f\u061c \x9b31m \x7f")
    assert text == "refund \\u202eevil\\u202c \\u2066x\\u2069 \\u200e\\u200f\\u061c \\x9b31m \\x7f"
    assert (
        xml_text("l'été, 東京, \u05e9\u05dc\u05d5\u05dd") == "l'été, 東京, \u05e9\u05dc\u05d5\u05dd"
    )


def test_json_text_escapes_raw_controls_but_keeps_the_value() -> None:
    document = json.dumps({"a": "x\x9b\u202ey\x7f"}, ensure_ascii=False)
    safe = json_text(document)
    assert not _has_control(safe)
    assert json.loads(safe) == {"a": "x\x9b\u202ey\x7f"}


def test_natural_key_orders_digit_runs_by_value() -> None:
    ids = ["10", "2", "1", "task-10", "task-2", "Task-3", "b", "a"]
    assert sorted(ids, key=natural_key) == ["1", "2", "10", "a", "b", "task-2", "Task-3", "task-10"]
