"""Text that came from data (task ids, tool names, answers, judge reasoning), made safe for each surface.

Every renderer treats agent text as hostile. This module is the one place that says how:

- **Terminal.** :func:`visible` turns control characters (C0, DEL, C1, the Unicode line separators
  and the bidirectional overrides used in "Trojan Source" tricks) into visible escapes such as
  ``\\x1b`` and ``\\u202e``, so data can never move the cursor, recolour the screen, set the window
  title or reorder what is shown. :class:`SafeConsole` applies the same rule to every segment it
  writes (a safety net under the helpers), prints no markup from strings (styles come from code, as
  :class:`rich.text.Text` spans) and never cuts a long word: :class:`Prose` wraps at spaces only,
  and :func:`print_table` fits a table to the terminal without breaking an id (ids that cannot fit
  end in ``…`` and a legend under the table gives them in full).
- **Markdown.** :func:`md_text` makes text inert inline Markdown: every character that could start
  a link, an image, emphasis, code, a table cell, math or raw HTML is escaped, so ``![x](url)`` in an
  answer renders as those characters and a CI job summary never fetches a URL from agent text.
  :func:`md_cell` is the same on one line, for a table cell.
- **XML.** :func:`xml_text` replaces the characters XML 1.0 cannot hold (most C0 controls, lone
  surrogates, U+FFFE/U+FFFF) by visible escapes; :mod:`xml.etree` escapes the rest.
- **JSON on a terminal.** :func:`json_text` escapes the control characters that JSON itself allows
  raw (DEL, C1, separators, bidi overrides) as ``\\uXXXX``: the same JSON value, inert on a screen.

:func:`natural_key` sorts ids the way a person does (``task-2`` before ``task-10``);
:func:`count_and_first` shortens a long list of ids to its count and first ten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "Column",
    "Prose",
    "SafeConsole",
    "fit_widths",
    "json_text",
    "md_cell",
    "md_text",
    "natural_key",
    "number_columns",
    "one_line",
    "print_table",
    "styled",
    "visible",
    "xml_text",
]

# C0 controls, DEL, C1 controls, the line/paragraph separators, and the bidi embedding/override/isolate
# marks (U+202A-U+202E, U+2066-U+2069) plus LRM/RLM/ALM (U+200E, U+200F, U+061C).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_UNSAFE_OR_BREAK = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``).

    Newlines and tabs are kept when ``keep_newlines`` (the default); with ``keep_newlines=False``
    they become ``\\n`` and ``\\t`` too, for a value that must stay on one line. A backslash already in
    the text is left alone, so the output is readable rather than reversible.

    >>> visible("ok\\x1b[31m red")
    'ok\\\\x1b[31m red'
    >>> visible("a\\nb", keep_newlines=False)
    'a\\\\nb'
    """
    value = str(text)
    pattern = _UNSAFE if keep_newlines else _UNSAFE_OR_BREAK
    return pattern.sub(_escape_char, value)


def one_line(text: object) -> str:
    """``text`` on one line for a table cell or a list entry: controls escaped, breaks shown as ``\\n``."""
    return visible(text, keep_newlines=False)


def styled(text: object, style: str | None = None) -> Text:
    """A :class:`rich.text.Text` of data, escaped with :func:`visible` and styled from code, never markup."""
    return Text(visible(text), style=style or "")


# -- Markdown --------------------------------------------------------------------------------------

# Every ASCII punctuation character that has a meaning inline in CommonMark or GitHub Flavored
# Markdown: links and images ([ ] ( ) !), emphasis (* _ ~), code (`), tables (|), math ($ ^), raw
# HTML and autolinks (< > &, written as entities), escapes (\\) and attribute braces ({ }).
_MD_ESCAPE = {
    **{char: "\\" + char for char in "\\`*_{}[]()!|~$^"},
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
}
_MD_PATTERN = re.compile("[" + re.escape("".join(_MD_ESCAPE)) + "]")
# block markers that matter where the text starts a list item's content: "# x", "- x", "1. x"
_MD_LEADING = re.compile(r"^(?:([#+=-])|(\d+)\.)")


def md_text(text: object) -> str:
    """``text`` as inert inline Markdown: it renders as these characters and nothing else.

    Controls become visible escapes and the text is joined onto one line (no block can start inside
    it; a heading, list or rule marker at its start is escaped too); then every character with an
    inline meaning is backslash-escaped (``&``, ``<`` and ``>`` become entities), so no link, image,
    emphasis, code span, table break, math or HTML can form.

    >>> md_text("see ![x](http://e.test/a.png) *now*")
    'see \\\\!\\\\[x\\\\]\\\\(http://e.test/a.png\\\\) \\\\*now\\\\*'
    """
    value = " ".join(visible(text).split())
    value = _MD_PATTERN.sub(lambda m: _MD_ESCAPE[m.group()], value)
    return _MD_LEADING.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\.", value)


def md_cell(text: object) -> str:
    """``text`` safe for one Markdown table cell: :func:`md_text` (no row or column breaks, no markup)."""
    return md_text(text)


# -- XML and JSON -----------------------------------------------------------------------------------

# what XML 1.0 cannot hold (C0 controls but tab, newline and carriage return; surrogates; U+FFFE,
# U+FFFF), what it discourages (DEL, the C1 controls), and the bidi marks that would reorder the
# text where a CI page or a terminal shows it
_XML_INVALID = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def xml_text(text: object) -> str:
    """``text`` with the characters XML 1.0 cannot hold, C1 controls and bidi marks shown as escapes
    (``\\x1b``, ``\\u202e``); the rest as is.

    >>> xml_text("a\\x00b\\tc")
    'a\\\\x00b\\tc'
    """
    return _XML_INVALID.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        str(text),
    )


_JSON_RAW_CONTROLS = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def json_text(document: str) -> str:
    """A JSON document with the control characters JSON allows raw written as ``\\uXXXX`` escapes.

    The parsed value is unchanged (these characters can only occur inside strings), but a terminal
    shows them as text.
    """
    return _JSON_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


# -- ordering -------------------------------------------------------------------------------------

_DIGITS = re.compile(r"(\d+)")


def count_and_first(ids: Sequence[str], limit: int = 10) -> str:
    """``ids`` for one line of a report: all of them when at most ``limit``, else their count, the
    first ``limit`` and how many more (the JSON report keeps the full list).

    >>> count_and_first(["a", "b"])
    'a, b'
    >>> count_and_first([f"t{i}" for i in range(12)], limit=3)
    '12: t0, t1, t2 and 9 more (all in the JSON report)'
    """
    if len(ids) <= limit:
        return ", ".join(ids)
    shown = ", ".join(ids[:limit])
    return f"{len(ids)}: {shown} and {len(ids) - limit} more (all in the JSON report)"


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key that orders digit runs by value: ``2 < 10``, ``task-2 < task-10``, ``a < B`` ties by case."""
    parts: list[tuple[int, int, str]] = []
    for index, part in enumerate(_DIGITS.split(text)):
        if index % 2:
            parts.append((0, int(part), part))
        elif part:
            parts.append((1, 0, part.casefold()))
    parts.append((2, 0, text))
    return tuple(parts)


# -- console --------------------------------------------------------------------------------------


class SafeConsole(Console):
    """A rich console for data: no markup or highlighting from strings, controls escaped, words whole.

    Every text segment it writes passes through :func:`visible` (rich's own control segments, such as
    a progress bar's cursor moves, are kept), so a string that reaches it without escaping still
    cannot drive the terminal. ``print`` defaults to ``crop=False``: a word longer than the terminal
    (a file path, an id) is written whole and left to the terminal, never cut or folded by rich.
    Strings wrap at spaces on a terminal (see :class:`Prose`) and are written unwrapped when piped.
    """

    def __init__(self, *, file: IO[str] | None = None, stderr: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("highlight", False)
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("soft_wrap", False)
        super().__init__(file=file, stderr=stderr, **kwargs)

    def render(self, renderable: Any, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not _UNSAFE.search(segment.text):
                yield segment
            else:
                yield Segment(visible(segment.text), segment.style, segment.control)

    def print(self, *objects: Any, sep: str = " ", crop: bool = False, **kwargs: Any) -> None:
        plain_call = (
            objects
            and all(isinstance(o, str | Text) for o in objects)
            and not kwargs.get("soft_wrap", self.soft_wrap)
            and kwargs.get("overflow") is None
            and kwargs.get("justify") is None
            and kwargs.get("width") is None
            and not kwargs.get("no_wrap")
        )
        if plain_call and not self.is_terminal:
            kwargs["soft_wrap"] = True  # piped: one logical line per line, for grep and CI logs
        elif plain_call:
            # text wraps at spaces and keeps long words whole (rich's own wrapping folds them)
            markup = kwargs.pop("markup", None)
            markup = self._markup if markup is None else markup
            kwargs.pop("highlight", None)
            kwargs.pop("emoji", None)
            style = kwargs.pop("style", None)
            parts = [
                (Text.from_markup(o) if markup else Text(o)) if isinstance(o, str) else o
                for o in objects
            ]
            text = Text(sep).join(parts)
            if style:
                text.stylize(style)
            objects = (Prose(text),)
        super().print(*objects, sep=sep, crop=crop, **kwargs)


class Prose:
    """Text that wraps at spaces to the console width and never breaks a word (on a terminal; piped
    output keeps each line whole).

    A word longer than the line is written whole on a line of its own. ``indent`` spaces start every
    line (a hanging indent for continuation lines when ``hanging`` is true: the first line is not
    indented). Newlines in the text are kept; other controls are escaped.
    """

    def __init__(self, text: str | Text, *, indent: int = 0, hanging: bool = False) -> None:
        self.text = text if isinstance(text, Text) else Text(visible(text))
        self.indent = indent
        self.hanging = hanging

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich._wrap import divide_line

        # piped output is not wrapped at all: a log or a grep wants one logical line per line
        width = max(1, options.max_width - self.indent) if console.is_terminal else 1 << 30
        first = True
        for paragraph in self.text.split("\n", allow_blank=True):
            plain = paragraph.plain
            offsets = divide_line(plain, width, fold=False) if plain else []
            for line in paragraph.divide(offsets) if plain else [paragraph]:
                line.rstrip()
                pad = 0 if (first and self.hanging) else self.indent
                first = False
                if pad:
                    yield Segment(" " * pad)
                yield from line.render(console)
                yield Segment.line()


# -- tables ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """A table column: ``id`` (never broken: cut with ``…`` and a legend when it cannot fit), ``num``
    (short values, always whole), or ``text`` (wraps at spaces; a single word too long ends in ``…``)."""

    header: str
    kind: Literal["id", "num", "text"] = "text"
    justify: Literal["left", "right"] = "left"


def number_columns(*headers: str) -> list[Column]:
    """One right-aligned ``num`` column per header, in order."""
    return [Column(header, "num", "right") for header in headers]


_ID_FLOOR = 12
_TEXT_FLOOR = 16


def _lines(cell: str | Text) -> list[str]:
    plain = cell.plain if isinstance(cell, Text) else cell
    return plain.split("\n")


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def fit_widths(
    columns: Sequence[Column], rows: Sequence[Sequence[str | Text]], available: int
) -> list[int]:
    """Column widths (content only) that fit ``available`` cells where possible.

    Numbers are never narrowed below their widest value; ids get their full width before any prose
    column grows past its floor; prose columns share the rest in proportion to what they want. When
    even the floors do not fit, the floors are returned and the table is wider than the terminal.
    """
    natural: list[int] = []
    floor: list[int] = []
    for j, col in enumerate(columns):
        header_word = _longest_word(col.header) or 1
        widest = max(
            [cell_len(col.header), *(cell_len(line) for row in rows for line in _lines(row[j]))]
        )
        longest = max([0, *(_longest_word(line) for row in rows for line in _lines(row[j]))])
        natural.append(widest)
        if col.kind == "num":
            floor.append(
                max(
                    header_word,
                    max([0, *(cell_len(line) for row in rows for line in _lines(row[j]))]),
                )
            )
        elif col.kind == "id":
            floor.append(max(header_word, min(widest, _ID_FLOOR)))
        else:
            floor.append(max(header_word, min(longest, _TEXT_FLOOR), min(widest, 8)))
    if sum(natural) <= available:
        return natural
    widths = list(floor)
    spare = available - sum(widths)
    if spare <= 0:
        return widths
    for j, col in enumerate(columns):  # ids first: whole ids are worth more than wide prose
        if col.kind == "id" and spare > 0:
            grow = min(spare, natural[j] - widths[j])
            widths[j] += grow
            spare -= grow
    wants = {j: natural[j] - widths[j] for j, col in enumerate(columns) if col.kind == "text"}
    total = sum(wants.values())
    if total > 0 and spare > 0:
        given = 0
        for j, want in wants.items():
            share = min(want, spare * want // total)
            widths[j] += share
            given += share
        for j in wants:  # the remainder, one cell at a time
            while given < spare and widths[j] < natural[j]:
                widths[j] += 1
                given += 1
    return widths


def _cut(text: str, width: int) -> str:
    return text if cell_len(text) <= width else set_cell_size(text, max(0, width - 1)) + "…"


def print_table(
    console: Console,
    title: str | None,
    columns: Sequence[Column],
    rows: Iterable[Sequence[str | Text]],
    *,
    id_legend: bool = True,
) -> None:
    """Print ``rows`` as a table fitted to ``console``'s width, ``title`` on a line of its own above.

    Cells are data: plain strings are escaped with :func:`visible` (``\\n`` in a ``text`` cell is a
    line break, elsewhere it is shown as ``\\n``); :class:`Text` cells keep their styles. When an id
    column is too narrow for some id, or a text column for one of its words (a path, a URL), the value
    ends in ``…`` and a legend under the table names it in full (``id_legend=False`` leaves the legend
    out). Nothing is folded across lines.
    """
    prepared = [_prepared_row(columns, row) for row in rows]
    overhead = 2 * (len(columns) - 1)  # compact style: two spaces between columns, no edges
    widths = fit_widths(columns, prepared, max(1, console.width - overhead))
    legend: dict[str, str] = {}  # full id -> shortened
    table = _empty_table(columns, widths)
    for cells in prepared:
        table.add_row(*_fitted_row(columns, cells, widths, legend))
    if title:
        console.print(Prose(title))
    table.width = sum(widths) + overhead  # never squeezed below the floors (wider than the console)
    console.print(table)
    if legend and id_legend:
        console.print(Prose(f"{len(legend)} value(s) shortened to fit {console.width} columns:"))
        for full, short in legend.items():
            console.print(Text(f"  {short} = {full}"), soft_wrap=True)  # whole, for copy and grep


def _prepared_row(columns: Sequence[Column], row: Sequence[str | Text]) -> list[str | Text]:
    """One row's cells made visible: a ``text`` cell keeps its line breaks, others are one line."""
    cells: list[str | Text] = []
    for col, cell in zip(columns, row, strict=True):
        if isinstance(cell, Text):
            cells.append(cell)
        elif col.kind == "text":
            cells.append("\n".join(one_line(part) for part in str(cell).split("\n")))
        else:
            cells.append(one_line(cell))
    return cells


def _empty_table(columns: Sequence[Column], widths: Sequence[int]) -> Table:
    """The compact table (a rule under the header, no edges) with ``columns`` at ``widths``."""
    from rich import box  # here: a one-line summary (score -q) never builds a table
    from rich.table import Table

    table = Table(
        show_header=True,
        title=None,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        header_style="bold",
    )
    for col, width in zip(columns, widths, strict=True):
        table.add_column(
            col.header,
            justify=col.justify,
            width=width,
            no_wrap=False,  # headers wrap at spaces; ids are cut to fit and numbers fit already
            overflow="ellipsis",
        )
    return table


def _fitted_row(
    columns: Sequence[Column],
    cells: Sequence[str | Text],
    widths: Sequence[int],
    legend: dict[str, str],
) -> list[str | Text]:
    """One row's cells cut to their column's width; what was cut goes in ``legend`` (full → cut)."""
    out: list[str | Text] = []
    for col, cell, width in zip(columns, cells, widths, strict=True):
        if isinstance(cell, Text):
            out.append(cell)
        elif col.kind == "id" and cell_len(cell) > width:
            short = _cut(cell, width)
            legend[cell] = short
            out.append(short)
        elif col.kind == "text" and _longest_word(cell) > width:
            out.append(_cut_long_words(cell, width, legend))
        else:
            out.append(cell)
    return out


def _cut_long_words(cell: str, width: int, legend: dict[str, str]) -> str:
    """Prose wraps at spaces; a single word too long for the column (a path, a URL) is cut and named
    in full in the legend, never folded across lines."""
    lines = []
    for line in cell.split("\n"):
        words = []
        for word in line.split(" "):
            if cell_len(word) > width:
                legend[word] = _cut(word, width)
                word = legend[word]
            words.append(word)
        lines.append(" ".join(words))
    return "\n".join(lines)
