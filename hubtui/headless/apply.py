"""``hubtui apply FILE.csv``: a file read once, bounded, and handed to the flow it asks for: a
batch file's rows (:func:`hubtui.headless.batch.apply_rows`) or, when it has a ``decision``
column, an access review's decisions (:func:`hubtui.headless.review.apply_review`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.files import read_bounded, refusal_words
from hubtui.core.workflows.engine import BATCH_FILE_BYTES, BatchFileError, MadeOn, read_batch_file
from hubtui.headless.batch import apply_rows
from hubtui.headless.front import read_only_words
from hubtui.headless.output import NOT_SENT, NOTHING, Stop, with_client
from hubtui.headless.review import apply_review
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace


async def apply_command(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    if workspace.read_only:
        raise Stop(NOT_SENT, read_only_words(args))
    path = Path(args.file)
    try:
        body = await asyncio.to_thread(
            read_bounded, path, limit=BATCH_FILE_BYTES, what="batch file"
        )
        text = body.decode("utf-8")
    except OSError as error:
        raise Stop(NOT_SENT, f"cannot read it: {inert(refusal_words(path, error))}") from None
    except UnicodeDecodeError:
        raise Stop(NOT_SENT, f"cannot read {inert(str(path))}: it is not UTF-8 text") from None
    try:
        header, given = read_batch_file(text)
    except BatchFileError as error:
        raise Stop(NOT_SENT, f"{inert(str(path))}: {inert(str(error))}.") from None
    if not given:
        raise Stop(NOTHING, f"{inert(str(path))} has no rows to apply.")
    await _check_made_here(client, workspace, path, MadeOn.of(given))
    if "decision" in header:  # an access review's decisions (hubtui review)
        return await apply_review(args, client, workspace, path, header, given)
    return await apply_rows(args, client, workspace, path, header, given)


async def _check_made_here(
    client: HubClient, workspace: Workspace, path: Path, made_on: MadeOn
) -> None:
    """A file is applied only where it was made: on its server, to the hubs it was made for
    (each hub cell naming the hub whose Id the file holds, never one that took its Name
    since). Otherwise nothing is sent, and both are named."""
    here = workspace.identity
    elsewhere = made_on.other_servers([here.server, *here.aliases])
    if elsewhere:
        raise Stop(
            NOT_SENT,
            f"{inert(str(path))} was made on {inert(', '.join(elsewhere))}, and hubtui is using "
            f"{inert(here.server)}: a file is applied only on the server it was made on. "
            "Nothing was sent.",
        )
    for hub_cell, ids in sorted(made_on.hub_ids.items()):
        try:
            hub = await resolve_hub(client, hub_cell)
        except Stop:
            continue  # its rows say the hub is not found, row by row
        if hub.id not in ids or len(ids) > 1:
            raise Stop(
                NOT_SENT,
                f"{inert(str(path))} was made for hub {inert(hub_cell)} with the Id "
                f"{inert(', '.join(sorted(ids)))}; here {inert(hub_cell)} is the hub with the Id "
                f"{inert(hub.id)}, another hub. Nothing was sent.",
            )


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """apply."""
    return asyncio.run(
        with_client(args, workspace, lambda client: apply_command(args, client, workspace))
    )
