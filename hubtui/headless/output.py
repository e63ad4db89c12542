"""What a headless command prints: its exit statuses, and a table as text, JSON or CSV."""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TextIO

from pydantic import TypeAdapter
from rich.cells import cell_len

from hubtui.api import HubError, NotFoundError
from hubtui.api.errors import StoreUnreadableError
from hubtui.core.presenting import Cell, Column, fit_columns, render, size_words, typed_cell
from hubtui.core.presenting.export import SparseCsvRow, write_csv
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import HubClient
    from hubtui.api.exchanges import Exchange
    from hubtui.core.workspace import Workspace

    pass


OK, NOTHING, NOT_SENT, REFUSED, UNKNOWN_OUTCOME, INTERRUPTED = 0, 1, 2, 3, 4, 130
USAGE = NOT_SENT
#: Every command's exit statuses: the same table in --help, the README and the tests.
EXIT_TABLE = (
    (OK, "done, found, or already so (nothing to change)"),
    (NOTHING, "not found: no such hub, project or person, or nothing matched"),
    (
        NOT_SENT,
        "not sent: a wrong option or setting, read-only, a change hubtui refuses (an invalid "
        "email, a limited reader's role, someone already a member) or the question answered no",
    ),
    (REFUSED, "the server refused or failed, or part of the answer could not be read"),
    (UNKNOWN_OUTCOME, "the outcome of a change is unknown"),
    (INTERRUPTED, "stopped with Ctrl+C"),
)
EXIT_STATUSES = "exit status: " + "; ".join(f"{code} {words}" for code, words in EXIT_TABLE)
#: A reader of our output went away (``| head``): end quietly, as other Unix tools do.
BROKEN_PIPE = 141
FORMATS = ("table", "json", "jsonl", "csv")


class StatusLine:
    """One line on stderr rewritten in place while work goes on, on a terminal only;
    :meth:`clear` leaves the line empty for what is printed next."""

    def __init__(self) -> None:
        self.shown = sys.stderr.isatty()

    def say(self, text: str) -> None:
        if self.shown:
            print(f"\r\x1b[K{text}", end="", file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.shown:
            print("\r\x1b[K", end="", file=sys.stderr)


class Stop(Exception):
    """End the command with this status and message (the message is already safe to print)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Table:
    """What a command prints: records for JSON, and the same as rows of words for people.

    Each is built only when the format asks for it: 50,000 users as JSON lines need no table.
    """

    columns: tuple[Column, ...]
    items: Sequence[Any]
    row: Callable[[Any], tuple[str, ...]]
    dump: Callable[[Sequence[Any]], list[dict[str, Any]]]
    empty: str = "nothing matched"
    """Said on stderr when there is no row, however the output goes: stdout stays empty."""
    note: int | None = None
    """A column of prose (a reason): on a terminal, written whole under its row, wrapped to
    the width, instead of as a column; a column like any other in CSV."""
    lines: Callable[[Sequence[Any]], str] | None = None
    """JSON lines written straight from the records, when that is faster than :attr:`dump`."""
    before: str = ""
    """Lines printed above the table on a terminal (a hub's facts)."""
    csv: tuple[tuple[str, ...], Callable[[Any], Sequence[Cell] | SparseCsvRow]] | None = None
    """CSV's own columns and cells, where the table's words (placeholders) are not values."""

    @property
    def rows(self) -> list[tuple[str, ...]]:
        return [self.row(item) for item in self.items]

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.dump(self.items)

    @property
    def labels(self) -> list[str]:
        return [column.label for column in self.columns]


#: What JSON leaves raw but a terminal would obey or hide: C1 controls, bidi and invisible marks.
_UNSAFE_IN_JSON = re.compile("[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def model_lines(items: Sequence[Any]) -> str:
    """JSON lines of records in pydantic's own serializer (API field names, unknown fields
    kept), with every character a terminal could obey written as an escape."""
    if not items:
        return ""
    adapter: TypeAdapter[Any] = TypeAdapter(type(items[0]))
    text = b"\n".join(
        adapter.dump_json(item, by_alias=True, exclude_unset=True) for item in items
    ).decode()
    safe: str = _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return safe + "\n"


def dump_models(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Records as the API names their fields, unknown fields kept (one pydantic call)."""
    if not items:
        return []
    adapter: TypeAdapter[list[Any]] = TypeAdapter(list[type(items[0])])  # type: ignore[misc,arg-type]
    dumped = adapter.dump_python(list(items), mode="json", by_alias=True, exclude_unset=True)
    return dumped  # type: ignore[no-any-return]


def json_line_encoder() -> Callable[[Any], str]:
    """A record as one line of JSON (ASCII, as ``json.dumps``): one encoder for every record of
    a list, where ``json.dumps`` builds its encoder again for each (a third of 50,000 lines)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without json's C speedups
        return lambda record: json.dumps(record, ensure_ascii=True) + "\n"
    encode = make(
        None, None, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True
    )
    return lambda record: "".join(encode(record, 0)) + "\n"


def print_table(table: Table, fmt: str, out: TextIO) -> None:
    if fmt == "jsonl" and table.lines is not None:
        out.write(table.lines(table.items))
    elif fmt == "jsonl":
        line = json_line_encoder()
        records = table.records
        for start in range(0, len(records), 1000):  # a thousand lines a write
            out.write("".join([line(record) for record in records[start : start + 1000]]))
    elif fmt == "json":
        out.write(json.dumps(table.records, ensure_ascii=True, indent=2) + "\n")
    elif fmt == "csv":
        if table.csv is not None:
            labels, cells = table.csv
            write_csv(out, {}, labels, (cells(item) for item in table.items))  # a row at a time
        else:
            kinds = [(c.boolean, c.numeric) for c in table.columns]
            rows = [
                [
                    typed_cell(cell, boolean=b, numeric=n)
                    for cell, (b, n) in zip(r, kinds, strict=True)
                ]
                for r in table.rows
            ]
            out.write(render("csv", {}, table.labels, rows))
    else:
        out.write(table.before)
        if table.before:
            return
        if table.items:
            text, left_out = aligned(table, shutil.get_terminal_size().columns)
            out.write(text)
            if left_out and sys.stderr.isatty():
                print(
                    f"hubtui: left out to fit the terminal: {', '.join(left_out)} "
                    "(a wider terminal or --format csv shows every column).",
                    file=sys.stderr,
                )


def _layout(table: Table, rows: Sequence[Sequence[str]], width: int) -> list[tuple[int, int]]:
    """The columns shown and their widths: the app's own rule (:func:`fit_columns`), with the
    identifiers (``keep``) never cut while another column can give way, and an Id never cut."""
    natural = [
        max([cell_len(c.label), *(cell_len(r[i]) for r in rows)])
        for i, c in enumerate(table.columns)
    ]
    columns = [
        # An Id is fixed at its longest value; a column needs no more than its longest text;
        # the note column is written under its row, so it takes no width.
        replace(c, width=natural[i])
        if c.key == "id"
        else replace(c, width=0, priority=99)
        if i == table.note
        else replace(c, min_width=min(c.min_width, natural[i]))
        for i, c in enumerate(table.columns)
    ]
    fitted = fit_columns(columns, natural, width, gap=2, spread=False)
    return [(i, w) for i, w in fitted if i != table.note]


def aligned(table: Table, width: int) -> tuple[str, list[str]]:
    """The table fitted to ``width`` cells, and the labels of the columns left out: columns
    chosen and sized as the app's are; a cell too long for its column is cut with ``…``; the
    note column's text is written under its row, indented and wrapped."""
    rows = table.rows
    layout = _layout(table, rows, width)

    def line(cells: Sequence[str]) -> str:
        fitted = [
            cell if len(cell) <= given else cell[: max(0, given - 1)] + "…"
            for cell, given in ((cells[i] if i < len(cells) else "", w) for i, w in layout)
        ]
        return "  ".join(c.ljust(w) for c, (_, w) in zip(fitted, layout, strict=True)).rstrip()

    out = [line(table.labels)]
    for row in rows:
        out.append(line(row))
        if table.note is not None and row[table.note]:
            out += textwrap.wrap(
                row[table.note], max(20, width - 4), initial_indent="    ", subsequent_indent="    "
            )
    shown = {index for index, _ in layout} | {table.note}
    left_out = [c.label for i, c in enumerate(table.columns) if i not in shown]
    return "\n".join(out) + "\n", left_out


async def with_client(
    args: argparse.Namespace,
    workspace: Workspace,
    body: Callable[[HubClient], Awaitable[int]],
) -> int:
    """Run ``body`` with the Workspace's client (each request on stderr with ``--verbose``); a
    server's refusal ends the command with the table's status."""
    client = workspace.connect()
    client.exchanges.keeps_bodies = False  # no command shows a body from the log
    if getattr(args, "verbose", False):
        client.exchanges.listeners.append(print_exchange)
    async with client:
        try:
            return await body(client)
        except NotFoundError as error:
            raise Stop(NOTHING, inert(str(error), limit=1000)) from None
        except StoreUnreadableError as error:  # offline: the store, not a server, failed
            raise Stop(NOT_SENT, inert(str(error), limit=None)) from None
        except HubError as error:
            raise Stop(REFUSED, inert(str(error), limit=1000)) from None


def print_answer(args: argparse.Namespace, table: Table, status: int) -> int:
    """The answer on stdout in the format asked (a table on a terminal, JSON lines when piped);
    an empty answer said on stderr, whatever the streams."""
    fmt = args.format or ("table" if sys.stdout.isatty() else "jsonl")
    if not table.items:  # said on stderr whatever the streams are: stdout keeps the format
        print(f"hubtui: {table.empty}.", file=sys.stderr)
    print_table(table, fmt, sys.stdout)
    return status


def print_exchange(exchange: Exchange) -> None:
    """``> GET https://…`` then ``< 200 OK 35 ms 2.1 KB``, on stderr, every value inert."""
    retry = f" (retry {exchange.attempt})" if exchange.attempt else ""
    print(f"> {exchange.method} {inert(exchange.url, limit=None)}{retry}", file=sys.stderr)
    took = f"{exchange.seconds * 1000:.0f} ms"
    if exchange.status is None:
        print(f"< no answer after {took}: {inert(exchange.error)}", file=sys.stderr)
        return
    said = inert(f"{exchange.status} {exchange.reason}".strip())
    print(f"< {said} {took} {size_words(exchange.response_size)} [{exchange.id}]", file=sys.stderr)
