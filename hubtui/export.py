"""Lists written out for a ticket: CSV a spreadsheet opens safely, or JSON.

Textual-free, so that the app's `x` and a headless command write the same files. The cells are
the ones shown (already inert: control characters as pictures); in CSV a cell that a spreadsheet
would run as a formula (it begins, after any spaces, with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return) gets a leading ``'``, the usual rule. The context (server, hub, project, filter,
time) comes first: ``#`` lines in CSV, each one cell written by the same CSV writer under the
same rule, a ``context`` object in JSON. The file is created 0600 and never replaces an existing
one.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from hubtui.text import inert

__all__ = ["FORMATS", "default_file_name", "formula_safe", "render", "write_export"]

FORMATS = ("csv", "json")
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


def render(
    fmt: str,
    context: Mapping[str, str],
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
) -> str:
    """The file's text; every value goes through :func:`hubtui.text.inert` (uncut)."""
    context = {key: inert(value, limit=None) for key, value in context.items()}
    rows = [[inert(cell, limit=None) for cell in row] for row in rows]
    if fmt == "json":
        records = [dict(zip(columns, row, strict=False)) for row in rows]
        body = {"context": dict(context), "columns": list(columns), "rows": records}
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    if fmt != "csv":
        raise ValueError(f"unknown export format {fmt!r}")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for key, value in context.items():
        # One quoted cell a line, under the same rules as the body: a comma or a quote in a
        # hub or project name never opens a cell of its own.
        writer.writerow([formula_safe(f"# {key}: {value}")])
    writer.writerow([formula_safe(c) for c in columns])
    for row in rows:
        writer.writerow([formula_safe(cell) for cell in row])
    return out.getvalue()


def write_export(path: Path, text: str) -> None:
    """Create ``path`` (0600) with ``text``; an existing file is never replaced."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
