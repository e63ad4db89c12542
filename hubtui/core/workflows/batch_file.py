"""A batch file applied: its rows found (hub by Name or Id), previewed against a fresh read,
sent on the front's word, each row ended. One use case for ``hubtui apply FILE``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hubtui.core.batches.file_rows import mark_ended, prepare_file
from hubtui.core.workflows.run import Sending, run_preview

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches.file import FileRow
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.workflows.ports import Front

__all__ = ["apply_file"]


async def apply_file(
    client: HubClient,
    given: Sequence[FileRow],
    log: ChangeLog,
    front: Front,
    *,
    concurrency: int,
    settle: bool,
) -> None:
    """A batch file's rows: found, previewed, asked, sent, each row ended (``settle`` False:
    a dry run)."""
    found = await prepare_file(
        client,
        given,
        log,
        front.find_hub,
        concurrency=concurrency,
        settle=settle,
        on_read=front.reading,
    )
    sending = Sending(log, concurrency, dry_run=not settle)
    ran = await run_preview(front, client, found.preview, sending, refused=found.refused)
    if ran.batch is not None:
        mark_ended(found.rows, ran.batch)
    await front.ended(found.rows, ran.batch, None)
