"""A decisions file applied: each row's decision as a batch's row, previewed against a fresh
read, sent on the front's word, each row ended and the review of the file kept. One use case
for ``hubtui apply`` of a review's decisions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hubtui.core.batches.file_rows import mark_decided, mark_ended, wanted_of
from hubtui.core.batches.projects import prepare
from hubtui.core.clock import now
from hubtui.core.people.decisions import review_of_file, rows_of_decisions
from hubtui.core.workflows.reviewed import keep_reviews
from hubtui.core.workflows.run import Sending, run_preview

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches.file import FileRow
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.workflows.ports import Front, Keep

__all__ = ["apply_decisions"]


async def apply_decisions(
    client: HubClient,
    given: Sequence[FileRow],
    log: ChangeLog,
    front: Front,
    *,
    criteria: str,
    concurrency: int,
    settle: bool,
    keep: Keep,
) -> None:
    """A decisions file: each row's decision as the batch's rows, previewed, sent on the front
    end's word, each row ended, and the review of the file kept (not on a dry run)."""
    started = now()
    rows, decisions = await rows_of_decisions(client, given, front.find_hub)
    preview = await prepare(
        client, wanted_of(rows), log, concurrency=concurrency, settle=settle, on_read=front.reading
    )
    mark_decided(rows, preview)
    refused = [row for row in rows if row.wanted is None and row.verdict]
    ran = await run_preview(
        front, client, preview, Sending(log, concurrency, dry_run=not settle), refused=refused
    )
    batch = ran.batch
    if batch is not None:
        mark_ended(rows, batch)
    review = review_of_file(rows, decisions, given, started, batch, criteria, log.operator)
    kept = await keep_reviews([review], None, None, keep) if settle else None
    await front.ended(rows, batch, kept)
