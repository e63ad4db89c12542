"""A batch file's rows applied (``hubtui apply FILE.csv``, read by :mod:`hubtui.headless.apply`)
and ``hubtui revert BATCH``: each the one use case of :mod:`hubtui.core.workflows`, the command
its front (:class:`~hubtui.headless.front.CommandFront`).

The preview is printed grouped by project, each change as a difference and each row not sent
with its reason; a dry run then prints exactly the requests and sends nothing. Sent, every row's
outcome goes into a results CSV beside the input (the same columns, then ``outcome`` and
``message``), which can be corrected and applied again.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.workflows.batch_file import apply_file
from hubtui.core.workflows.engine import FileRow, rows_of_preview
from hubtui.core.workflows.revert import find_revert, revert_batch
from hubtui.headless.front import CommandFront, read_only_words, status_of
from hubtui.headless.output import NOT_SENT, NOTHING, OK, Stop, with_client
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace


async def apply_rows(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
    path: Path,
    header: Sequence[str],
    given: Sequence[FileRow],
) -> int:
    """apply of a batch file's rows (read by :mod:`hubtui.headless.apply`): the one use case
    (:func:`~hubtui.core.workflows.batch_file.apply_file`), this command its front end."""
    front = CommandFront(args, client, workspace, path=path, header=header)
    await apply_file(
        client,
        given,
        workspace.change_log,
        front,
        concurrency=workspace.concurrency,
        settle=not args.dry_run,
    )
    return front.status


async def revert_command(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """revert: the one use case (:func:`~hubtui.core.workflows.revert.revert_batch`, with the
    app's R), this command its front end."""
    if workspace.read_only:
        raise Stop(NOT_SENT, read_only_words(args))
    revert = find_revert(workspace, args.batch)
    if revert.plan is None:
        known = ", ".join(inert(b) for b in revert.latest) or "none"
        raise Stop(
            NOTHING,
            f"no batch {inert(args.batch)} sent to {inert(workspace.server_label)} in the "
            f"change log {workspace.change_log.path} (the latest: {known}).",
        )
    if not revert.wanted:
        for note in revert.notes():
            print(note, file=sys.stderr)
        print(revert.nothing_words(), file=sys.stderr)
        return OK if not revert.cannot() or revert.already()[1] else NOT_SENT
    front = CommandFront(args, client, workspace)
    ran = await revert_batch(workspace, client, front, revert, dry_run=args.dry_run)
    return status_of(rows_of_preview(ran.preview, ran.batch), ran.batch, dry_run=args.dry_run)


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """revert (apply is :mod:`hubtui.headless.apply`'s)."""
    return asyncio.run(
        with_client(args, workspace, lambda client: revert_command(args, client, workspace))
    )
