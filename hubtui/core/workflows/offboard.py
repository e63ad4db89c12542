"""A person offboarded: found in every hub, taken out of each as one batch kept as a review of
each hub, previewed and sent on the front's word. One use case for ``hubtui offboard``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hubtui.core.batches.file_rows import rows_of_preview
from hubtui.core.batches.projects import prepare
from hubtui.core.clock import now
from hubtui.core.people.review import (
    Offboarding,
    offboarding,
    offboarding_reviews,
    outcomes,
)
from hubtui.core.workflows.reviewed import keep_reviews

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.workflows.ports import Keep, OffboardFront

__all__ = ["offboard"]


async def offboard(
    client: HubClient,
    email: str,
    hubs: Sequence[Hub],
    log: ChangeLog,
    front: OffboardFront,
    *,
    reason: str,
    concurrency: int,
    deadline: float | None,
    settle: bool,
    keep: Keep,
) -> Offboarding:
    """A person taken out of every hub of ``hubs`` they are in, as one batch kept as a review of
    each hub: found, previewed, sent on the front end's word (the reviews kept after it, or as
    decided when nothing was sent)."""
    started = now()
    answer = await offboarding(
        client, email, hubs, concurrency=concurrency, deadline=deadline, on_progress=front.searching
    )
    front.found(answer)
    preview = await prepare(
        client, answer.rows, log, concurrency=concurrency, settle=settle, on_read=front.reading
    )
    front.previewed(preview, [])
    reviews = offboarding_reviews(answer, reason, started, log.operator)
    batch = await front.send(preview, reviews)
    rows = rows_of_preview(preview, batch)
    # Sent, the reviews were kept after the batch; not sent, they are kept as decided here
    # (not on a dry run).
    kept = None
    if batch is None and settle and reviews:
        kept = await keep_reviews([outcomes(r, preview) for r in reviews], None, None, keep)
    await front.ended(rows, batch, kept)
    return answer
