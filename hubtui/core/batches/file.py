"""A batch as a CSV file: the users export's columns, read back as wanted rows.

The users export (the app's ``x`` on a project's users, ``hubtui users --format csv``) starts
with ``hub, project, email, role, reviewer``, then ``access``: an export edited in a spreadsheet
can be applied as it is (``hubtui apply``). A row asks for a direct member with that role (added
if absent or a limited reader, set if a member); a row whose ``access`` says ``limited reader``
asks for nothing (it is as the file says, or not), and its role says ``—`` (no role of their
own, as every list says it): making them a member takes a role written in its place. Applying
again is harmless: rows already so are "no change". Lines starting with ``#`` (an export's
context) are skipped, a spreadsheet's byte-order mark too, and the ``'`` an export puts before a
cell a spreadsheet would run.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.core.access import LIMITED_READER, ROLES, access_words, role_named
from hubtui.core.batches import Intent
from hubtui.core.presenting.export import Cell, formula_safe
from hubtui.core.presenting.words import NO_OWN_ROLE

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from hubtui.api import ProjectUser

__all__ = [
    "BATCH_FILE_BYTES",
    "FILE_COLUMNS",
    "MadeOn",
    "USERS_CSV_COLUMNS",
    "BatchFileError",
    "FileRow",
    "read_batch_file",
    "read_table",
    "users_csv_cells",
]

#: What ``hubtui apply`` reads, in this order (other columns are left alone).
FILE_COLUMNS = ("hub", "project", "email", "role", "reviewer")
#: Where a file was made: the server (its whole base URL) and the hub's Id; ``apply`` refuses
#: a file made on another server, or for a hub whose Name another hub has taken since.
MADE_ON_COLUMNS = ("hub id", "server")
#: The users export's columns: the five above first, so an export can be applied.
USERS_CSV_COLUMNS = (
    *FILE_COLUMNS,
    "access",
    "name",
    "teams",
    "id",
    "project name",
    *MADE_ON_COLUMNS,
)
#: What a file's ``access`` cell says of a limited reader (the words of ``core.access``).
LIMITED_WORDS = LIMITED_READER
#: The largest batch file read, the most rows it may hold and the longest cell.
BATCH_FILE_BYTES = 16 * 1024 * 1024
BATCH_FILE_ROWS = 100_000
BATCH_CELL_CHARS = 4096
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


def users_csv_cells(
    hub_name: str,
    project_id: str,
    project_name: str | None,
    user: ProjectUser,
    *,
    made_on: tuple[str, str],
) -> tuple[Cell, ...]:
    """One user as a row of :data:`USERS_CSV_COLUMNS` (text as sent: the writer makes it
    inert); ``made_on``: the hub's Id and the server it was read from."""
    access = access_words(user.is_limited)
    return (
        hub_name,
        project_id,
        user.user.email or "",
        # A limited reader has no role of their own: the word every list says it with.
        NO_OWN_ROLE if user.is_limited else user.role,
        user.is_reviewer,
        access,
        user.user.full_name or user.user.user_name or "",
        ", ".join(t.name or f"team {t.id}" for t in user.teams or []),
        str(user.user.id),
        project_name or "",
        *made_on,
    )


@dataclass(frozen=True)
class FileRow:
    """One row of a batch file: its cells as given, and what it asks (or why it cannot)."""

    line: int
    cells: dict[str, str]
    """Every column of the row by its header, as written (an export's ``'`` before a formula
    taken off): the five read, and the others, kept for the results."""
    intent: Intent
    role: str | None
    reviewer: bool | None
    problem: str | None = None

    @property
    def hub(self) -> str:
        return self.cells["hub"]

    @property
    def project(self) -> str:
        return self.cells["project"]

    @property
    def email(self) -> str:
        return self.cells["email"]


@dataclass(frozen=True)
class MadeOn:
    """Where a file says its rows were made: the servers (``server`` cells) and each hub's Id
    by the hub cell that names it (``hub id`` cells). Empty: the file does not say (a file
    written by hand, or before these columns)."""

    servers: frozenset[str]
    hub_ids: dict[str, frozenset[str]]

    @classmethod
    def of(cls, rows: Sequence[FileRow]) -> MadeOn:
        hub_ids: dict[str, set[str]] = {}
        servers: set[str] = set()
        for row in rows:
            if server := row.cells.get("server", "").strip():
                servers.add(server)
            if hub_id := row.cells.get("hub id", "").strip():
                hub_ids.setdefault(row.hub, set()).add(hub_id)
        return cls(frozenset(servers), {h: frozenset(ids) for h, ids in hub_ids.items()})

    def other_servers(self, here: Iterable[str]) -> list[str]:
        """The servers the file names that are not this one (its names, ``here``)."""
        return sorted(self.servers - set(here))


class BatchFileError(Exception):
    """The file cannot be read as a batch at all (no header with the columns needed)."""


def read_table(
    text: str, *, most_rows: int, what: str, more_rows: str
) -> tuple[list[str] | None, int, list[tuple[int, dict[str, str]]]]:
    """The header (folded), the line it is on, and each row with the line it starts on, of a
    CSV file a person edited: the one reading of every file hubtui takes back (a batch file, a
    campaign's decisions).

    Records are split by CSV rules only (a line separator such as U+2028 inside a cell is part
    of the cell, never a new row); an export's context lines and blank lines are skipped; the
    ``'`` an export put before a formula-like cell is taken off. Bounded: ``most_rows`` rows,
    cells of at most :data:`BATCH_CELL_CHARS` characters; :class:`BatchFileError` says which
    bound and where (``what``: ``a batch file``; ``more_rows``: why no more are read).
    """
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    header: list[str] | None = None
    header_line = 0
    rows: list[tuple[int, dict[str, str]]] = []
    line = 0
    too_long = (
        f"has a cell longer than {BATCH_CELL_CHARS:,} characters, the most {what}'s cell may hold"
    )
    try:
        for cells in reader:
            number, line = line + 1, reader.line_num
            if not any(cell.strip() for cell in cells) or _is_context(cells[0]):
                continue
            if any(len(cell) > BATCH_CELL_CHARS for cell in cells):
                raise BatchFileError(f"line {number} {too_long}")
            if header is None:
                header, header_line = [_unguard(c).strip().casefold() for c in cells], number
                continue
            if len(rows) >= most_rows:
                raise BatchFileError(f"it has more than {most_rows:,} rows, {more_rows}")
            given = {
                name: _unguard(cells[index]).strip() if index < len(cells) else ""
                for index, name in enumerate(header)
            }
            rows.append((number, given))
    except csv.Error as error:
        if "field larger than field limit" in str(error):
            raise BatchFileError(f"line {line + 1} {too_long}") from None
        raise BatchFileError(f"line {line + 1} cannot be read as CSV ({error})") from None
    return header, header_line, rows


def read_batch_file(text: str) -> tuple[list[str], list[FileRow]]:
    """The header (folded) and the rows of a batch file (:func:`read_table`), each with the
    line it starts on; a row that cannot be applied carries its ``problem`` (the other rows are
    not held back by it)."""
    header, header_line, rows = read_table(
        text,
        most_rows=BATCH_FILE_ROWS,
        what="a batch file",
        more_rows="the most one batch may hold: split it into several files",
    )
    if header is None:
        raise BatchFileError(f"no header line: the first line must name {', '.join(FILE_COLUMNS)}")
    missing = [c for c in ("hub", "project", "email", "role") if c not in header]
    if missing:
        raise BatchFileError(
            f"the header line (line {header_line}) lacks the column(s) {', '.join(missing)}; "
            f"it must name {', '.join(FILE_COLUMNS)}"
        )
    return header, [_row(number, given) for number, given in rows]


def _row(line: int, given: dict[str, str]) -> FileRow:
    cells = {**{name: "" for name in FILE_COLUMNS}, **given}
    problem = None
    for needed in ("hub", "project", "email"):
        if not cells[needed]:
            problem = f"the {needed} cell is empty"
            break
    role_given = cells["role"]
    role = role_named(role_given)
    limited = given.get("access", "").casefold().startswith("limited")
    if limited:
        intent = Intent.LIMITED
    else:
        intent = Intent.MEMBER
        if role is None and problem is None and role_given.strip() == NO_OWN_ROLE:
            problem = (
                f"the role “{NO_OWN_ROLE}” is a limited reader's (no role of their own): write "
                f"{', '.join(ROLES)} to make them a direct member"
            )
        elif role is None and problem is None:
            problem = f"the role “{role_given}” is not one of {', '.join(ROLES)}"
    reviewer_given = cells["reviewer"].casefold()
    reviewer: bool | None = None
    if reviewer_given in _YES:
        reviewer = True
    elif reviewer_given in _NO:
        reviewer = False
    elif reviewer_given and problem is None:
        problem = f"the reviewer cell “{cells['reviewer']}” is not yes, no or empty"
    return FileRow(
        line, given | {n: cells[n] for n in FILE_COLUMNS}, intent, role, reviewer, problem
    )


def _is_context(first_cell: str) -> bool:
    """An export's context line (``# server: …``), guarded or not."""
    return first_cell.lstrip().lstrip("'").startswith("#")


def _unguard(cell: str) -> str:
    """A cell without the ``'`` an export puts before a formula-like start."""
    if cell.startswith("'") and formula_safe(cell[1:]) == cell:
        return cell[1:]
    return cell
