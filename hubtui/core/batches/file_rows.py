"""A batch file's rows made changes, the one use case of ``hubtui apply FILE.csv`` and of a
decisions file: each row's hub found by Name or Id (never by DisplayName) and its project by Id
or exact name, the wanted rows previewed against a fresh read, each row marked with what the
preview and then the batch made of it, and the results file written beside the input (the same
columns, then ``outcome`` and ``message``: a file to correct and apply again).

The command asks, confirms and prints; the rules are here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.core.batches.file import FILE_COLUMNS, FileRow
from hubtui.core.batches.projects import Preview, prepare
from hubtui.core.batches.running import Batch
from hubtui.core.batches.wanted import Verdict, Wanted
from hubtui.core.changes.actions import Outcome
from hubtui.core.presenting import render, write_export
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.changes.log import ChangeLog

__all__ = [
    "FileRows",
    "RowOfFile",
    "mark_ended",
    "prepare_file",
    "rows_of_preview",
    "wanted_of",
    "wanted_of_file",
    "write_results",
]

#: Finds a hub by its exact Name or Id; ``LookupError`` says, in words, why none was taken.
FindHub = Callable[[str], Awaitable["Hub"]]


@dataclass
class RowOfFile:
    """One row of the file, with what became of it."""

    given: FileRow | None
    wanted: Wanted | None
    #: What the preview said of it, then how it ended when sent (None: not decided yet).
    verdict: Verdict | Outcome | None
    message: str


@dataclass
class FileRows:
    """A file's rows and their preview, read just now."""

    rows: list[RowOfFile]
    preview: Preview

    @property
    def refused(self) -> list[RowOfFile]:
        """The rows not read as changes (their reason in ``message``)."""
        return [row for row in self.rows if row.wanted is None]


async def prepare_file(
    client: HubClient,
    given: Sequence[FileRow],
    log: ChangeLog,
    find_hub: FindHub,
    *,
    concurrency: int,
    settle: bool,
    on_read: Callable[[int, int], None] | None = None,
) -> FileRows:
    """Each row of the file as a wanted row, previewed against a fresh read of its project
    (its unknown adds settled first, unless ``settle`` is False: a dry run), each row marked
    with the preview's verdict."""
    rows = await wanted_of_file(client, given, find_hub)
    preview = await prepare(
        client,
        wanted_of(rows),
        log,
        concurrency=concurrency,
        settle=settle,
        on_read=on_read,
    )
    mark_decided(rows, preview)
    return FileRows(rows, preview)


def wanted_of(rows: Sequence[RowOfFile]) -> list[Wanted]:
    """The wanted rows of a file's rows, in order."""
    return [row.wanted for row in rows if row.wanted is not None]


def rows_of_preview(preview: Preview, batch: Batch | None) -> list[RowOfFile]:
    """A preview's steps as rows of no file, each marked with how it ended when ``batch`` sent
    it (None: nothing was sent)."""
    rows = [RowOfFile(None, step.wanted, step.verdict, step.words) for step in preview.steps]
    if batch is not None:
        mark_ended(rows, batch)
    return rows


def mark_decided(rows: Sequence[RowOfFile], preview: Preview) -> None:
    """Each wanted row says the preview's verdict, in the preview's order."""
    steps = iter(preview.steps)
    for row in rows:
        if row.wanted is not None:
            step = next(steps)
            row.verdict, row.message = step.verdict, step.words


def mark_ended(rows: Sequence[RowOfFile], batch: Batch) -> None:
    """Each row sent now says its outcome, and why when it is not done."""
    by_wanted = {id(r.step.wanted): r for r in batch.results.values()}
    for row in rows:
        result = by_wanted.get(id(row.wanted))
        if result is not None:
            row.verdict = result.ended
            row.message = result.message or row.message


async def wanted_of_file(
    client: HubClient, given: Sequence[FileRow], find_hub: FindHub
) -> list[RowOfFile]:
    """Each row of the file as a wanted row, its hub found by ``find_hub`` (by Name or Id, as
    ``hubtui hub`` finds it, never by DisplayName), its project by id or exact name."""
    hubs: dict[str, Hub | str] = {}
    projects: dict[str, dict[str, str] | None] = {}
    rows = []
    for row in given:
        if row.problem:
            rows.append(RowOfFile(row, None, Verdict.SKIP, row.problem))
            continue
        if row.hub not in hubs:
            try:
                hubs[row.hub] = await find_hub(row.hub)
            except LookupError as why:
                hubs[row.hub] = str(why)
            except HubError as error:
                hubs[row.hub] = f"the hub could not be looked up: {inert(str(error))}"
        hub = hubs[row.hub]
        if isinstance(hub, str):
            rows.append(RowOfFile(row, None, Verdict.SKIP, hub))
            continue
        if hub.id not in projects:
            try:
                listed = await client.list_projects(hub.id)
            except HubError:
                projects[hub.id] = None  # the server lists no projects: ids are taken as given
            else:
                projects[hub.id] = {str(p.id): p.name for p in listed}
        project_id, project_name, problem = _project(row.project, projects[hub.id], hub)
        if problem:
            rows.append(RowOfFile(row, None, Verdict.SKIP, problem))
            continue
        wanted = Wanted(
            hub_id=hub.id,
            hub_name=hub.name,
            project_id=project_id,
            project_name=project_name,
            email=row.email,
            intent=row.intent,
            role=row.role,
            reviewer=row.reviewer,
            line=row.line,
        )
        rows.append(RowOfFile(row, wanted, None, ""))
    return rows


def _project(
    given: str, listed: dict[str, str] | None, hub: Hub
) -> tuple[str, str | None, str | None]:
    """(id, name, problem) of the project a cell names: an id, or a unique exact name."""
    if listed is None:
        return given, None, None
    if given in listed:
        return given, listed[given], None
    named = [pid for pid, name in listed.items() if name == given]
    if len(named) == 1:
        return named[0], given, None
    why = "two projects have that name" if named else "no such project"
    return given, None, f"{why} in hub {inert(hub.name)}: “{inert(given)}” (give the project's id)"


def write_results(
    source: Path, header: Sequence[str], rows: Sequence[RowOfFile], batch_id: str
) -> Path:
    """The file's rows, every column as given, then each one's ``outcome`` and ``message``
    (those of an earlier results file replaced): a file to correct and apply again."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = source.with_name(f"{source.stem.split('-results-')[0]}-results-{stamp}.csv")
    given = [c for c in dict.fromkeys([*FILE_COLUMNS, *header]) if c not in ("outcome", "message")]
    columns = [*given, "outcome", "message"]
    cells = [
        [
            *(row.given.cells.get(c, "") if row.given else "" for c in given),
            row.verdict or "",
            row.message,
        ]
        for row in rows
    ]
    context = {"batch": batch_id, "applied from": str(source)}
    return write_export(target, render("csv", context, columns, cells))
