"""Lists written out for a ticket: CSV a spreadsheet opens safely, or JSON.

Textual-free, so that the app's `x` and a headless command write the same files. The cells are
the ones shown (already inert: control characters as pictures); in CSV a cell that a spreadsheet
would run as a formula (it begins, after any spaces, with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return) gets a leading ``'``, the usual rule. The context (server, hub, project, filter,
time) comes first: ``#`` lines in CSV, each one cell written by the same CSV writer under the
same rule, a ``context`` object in JSON. The file is created 0600 and never replaces an existing
one.

Cells keep their kind: a yes/no column is ``True``/``False`` (``None`` where the server did not
say), a count an ``int``. JSON keeps them as JSON booleans and numbers; CSV writes ``yes``,
``no`` or an empty cell. A CSV file may start with a UTF-8 byte-order mark, so that a
spreadsheet reads ``Malmö`` as such.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO, TypeAlias

from hubtui.core.files import write_new
from hubtui.text import already_inert, inert

__all__ = [
    "FORMATS",
    "Cell",
    "default_file_name",
    "formula_safe",
    "render",
    "typed_cell",
    "write_export",
]

#: One exported value: text as shown, a yes/no (None: not said), or a count.
Cell: TypeAlias = str | bool | int | None
#: What a spreadsheet needs to read a CSV file as UTF-8.
BOM = "\ufeff"
#: hubtui's words for a yes/no the server did not give.
_NOT_SAID = frozenset({"unknown", "?"})

FORMATS = ("csv", "json")
#: The distinct texts a CSV written remembers as made safe (then it starts again).
MEMO_CELLS = 4096
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def formula_safe(cell: str) -> str:
    """A cell no spreadsheet runs as a formula, even one that trims spaces on import
    (`` =1+1``) or reads full-width signs (``＝``)."""
    return "'" + cell if cell.lstrip().startswith(_FORMULA_STARTS) else cell


def default_file_name(what: str, fmt: str, moment: datetime | None = None) -> str:
    """``hubtui-users-harbour-bridge-20261123-0930.csv``: dated, in the current directory."""
    stamp = (moment or datetime.now()).strftime("%Y%m%d-%H%M%S")
    slug = "".join(ch if ch.isalnum() else "-" for ch in what.lower()).strip("-")
    slug = "-".join(part for part in slug.split("-") if part)[:60] or "list"
    return f"hubtui-{slug}-{stamp}.{fmt}"


def typed_cell(text: str, *, boolean: bool = False, numeric: bool = False) -> Cell:
    """A shown cell as the value it stands for: a yes/no column's mark (``LIMITED``, ``yes``,
    ``≠``) is True, an empty one False, ``unknown`` None; a count is an int."""
    if boolean:
        return None if text in _NOT_SAID else bool(text)
    if numeric:
        digits = text.replace(",", "")
        if digits.isdigit():
            return int(digits)
    return text


def csv_text(cell: Cell) -> str:
    """A cell as CSV text: made inert (uncut), never a formula."""
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, int):
        return str(cell)
    return formula_safe(inert(cell, limit=None))


def render(
    fmt: str,
    context: Mapping[str, str],
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    bom: bool = False,
) -> str:
    """The file's text; every text goes through :func:`hubtui.text.inert` (uncut). ``bom``
    starts a CSV file with a UTF-8 byte-order mark, for spreadsheets."""
    if fmt == "json":
        records = [
            {
                column: inert(cell, limit=None) if isinstance(cell, str) else cell
                for column, cell in zip(columns, row, strict=False)
            }
            for row in rows
        ]
        said = {key: inert(value, limit=None) for key, value in context.items()}
        body = {"context": said, "columns": list(columns), "rows": records}
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    if fmt != "csv":
        raise ValueError(f"unknown export format {fmt!r}")
    out = io.StringIO()
    write_csv(out, context, columns, rows, bom=bom)
    return out.getvalue()


#: Cells written as they are: no text to make inert, no formula to guard.
_PLAIN_CELLS = frozenset({"", "Admin", "Editor", "Reader", "Guest", "LIMITED", "yes", "no"})


class SparseCsvRow:
    """A row of a few leading cells and a wide rest that is mostly empty, each cell already CSV
    text (:func:`csv_text`): the rest's empty cells are written as commas and only its filled
    ones one by one, so that a row costs what it holds (a matrix of 100,000 people × 2,000
    projects is 200 million cells, 100,000 of them filled)."""

    __slots__ = ("filled", "head", "width")

    def __init__(self, head: Sequence[str], width: int, filled: Mapping[int, str]) -> None:
        self.head = head
        self.width = width
        self.filled = filled

    def cells(self) -> list[str]:
        """Every cell, the empty ones too."""
        return [*self.head, *every_cell(self.width, self.filled)]


def every_cell(width: int, filled: Mapping[int, str]) -> list[str]:
    """``width`` cells, the ``filled`` ones (by place) with their text and the others empty."""
    cells = [""] * width
    for index, cell in filled.items():
        cells[index] = cell
    return cells


def write_csv(
    out: TextIO,
    context: Mapping[str, str],
    columns: Sequence[str],
    rows: Iterable[Sequence[Cell] | SparseCsvRow],
    *,
    bom: bool = False,
) -> None:
    """CSV written to ``out`` a row at a time as ``rows`` yields them (a list of a million rows
    is never built); every text through :func:`hubtui.text.inert` (uncut), no cell a formula."""
    if bom:
        out.write(BOM)
    # Rows are written into a buffer handed on every so many rows: a file or a pipe takes a
    # few large writes, not one a row.
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for key, value in context.items():
        # One quoted cell a line, under the same rules as the body: a comma or a quote in a
        # hub or project name never opens a cell of its own.
        writer.writerow([formula_safe(f"# {key}: {inert(value, limit=None)}")])
    writer.writerow([formula_safe(inert(c, limit=None)) for c in columns])
    plain = _PLAIN_CELLS
    sparse = _SparseWriter(out)  # a wide row is one write of its own
    # A text repeated down a column (a project's name, a reviewer, a decision) is made safe
    # once: the same function, each distinct text once while it repeats, in flat memory.
    memo: dict[str, str] = {}

    def text(cell: Cell) -> str:
        if type(cell) is not str:
            return csv_text(cell)
        said = memo.get(cell)
        if said is None:
            if len(memo) >= MEMO_CELLS:
                memo.clear()
            said = memo[cell] = csv_text(cell)
        return said

    for count, row in enumerate(rows, 1):
        if isinstance(row, SparseCsvRow):
            if buffer.tell():
                _hand_on(buffer, out)
            sparse.write(row)
        elif (line := _plain_line(row)) is None:
            writer.writerow([c if c in plain else text(c) for c in row])
        elif _unquoted(line, len(row)):
            buffer.write(line)
            buffer.write("\n")
        else:
            writer.writerow(row)
        if count % ROWS_A_WRITE == 0 and buffer.tell():
            _hand_on(buffer, out)
    _hand_on(buffer, out)


#: Rows written to a file or a pipe at once (a wide row of a matrix goes alone).
ROWS_A_WRITE = 2048


def _hand_on(buffer: io.StringIO, out: TextIO) -> None:
    out.write(buffer.getvalue())
    buffer.seek(0)
    buffer.truncate()


_FORMULA_SIGN = "[" + re.escape("".join(_FORMULA_STARTS)) + "]"
#: A row's first cell a spreadsheet could run (matched at the start of the row's text).
_FORMULA_FIRST = re.compile(rf"\s*{_FORMULA_SIGN}")
#: A later cell a spreadsheet could run, after its comma (a comma within a cell may match too:
#: that row then takes the cell-by-cell way, which decides).
_FORMULA_AFTER_COMMA = re.compile(rf",\s*{_FORMULA_SIGN}")


def _unquoted(line: str, cells: int, *, more: bool = False) -> bool:
    """Whether ``line``, a row's ``cells`` printable texts joined by commas, is what the CSV
    writer writes for them: no cell to quote (no comma or quote in one; not one empty cell
    alone, which it writes as ``""`` when the row has nothing else, ``more`` cells after)."""
    return line.count(",") == cells - 1 and '"' not in line and (line != "" or cells > 1 or more)


def csv_cells(cells: Sequence[Cell]) -> list[str]:
    """Each cell as :func:`csv_text` makes it: a row of plain texts decided at once."""
    if _plain_line(cells) is not None:
        return list(cells)  # type: ignore[arg-type]
    return [csv_text(c) for c in cells]


def _plain_line(row: Sequence[Cell]) -> str | None:
    """The row's cells joined by commas when each is a text that :func:`csv_text` leaves as it
    is (printable, nothing hidden, no formula), decided for the whole row at once instead of
    cell by cell; None when a cell must be made safe."""
    try:
        line = ",".join(row)  # type: ignore[arg-type]
    except TypeError:  # a yes/no or a count among them
        return None
    if (
        already_inert(line)
        and _FORMULA_AFTER_COMMA.search(line) is None
        and _FORMULA_FIRST.match(line) is None
    ):
        return line
    return None


class _SparseWriter:
    """Writes :class:`SparseCsvRow` lines as the CSV writer would write every cell of them."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.line = io.StringIO()
        self.writer = csv.writer(self.line, lineterminator="\n")
        self.quoted: dict[str, str] = {}

    def _text(self, cells: Sequence[str]) -> str:
        """The cells as the CSV writer writes them, without the line's end."""
        self.line.seek(0)
        self.line.truncate()
        self.writer.writerow(cells)
        return self.line.getvalue()[:-1]

    def _one(self, cell: str) -> str:
        if not cell:
            return ""  # as an empty cell among others (alone on a line it would be "")
        text = self.quoted.get(cell)
        if text is None:
            text = self._text([cell])
            if len(self.quoted) < 4096:  # a role's few words, again and again
                self.quoted[cell] = text
        return text

    def write(self, row: SparseCsvRow) -> None:
        parts = []
        if row.head:
            line = ",".join(row.head)  # made safe already (csv_text): printable
            plain = _unquoted(line, len(row.head), more=row.width > 0)
            parts.append(line if plain else self._text(row.head))
        last = -1 if row.head else 0  # the first cell of the rest follows a comma after a head
        for index in sorted(row.filled):
            parts.append("," * (index - last))
            parts.append(self._one(row.filled[index]))
            last = index
        parts.append("," * (row.width - 1 - last))
        parts.append("\n")
        self.out.write("".join(parts))


def write_export(path: Path, text: str) -> Path:
    """Create ``path`` (0600) with ``text``, or the next free name when it is taken (an existing
    file or link is never replaced or followed); returns the name written."""
    return write_new(path, text)
