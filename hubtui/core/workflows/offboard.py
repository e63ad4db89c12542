"""A person offboarded: found in every hub, taken out of each as one batch kept as a review of
each hub, previewed and sent on the front's word. One use case for ``hubtui offboard``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hubtui.core.batches.file_rows import rows_of_preview
from hubtui.core.batches.projects import prepare
from hubtui.core.clock import now
from hubtui.core.people.review import Offboarding, offboarding, offboarding_reviews
from hubtui.core.workflows.ports import Question
from hubtui.core.workflows.run import Sending, run_preview

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.workflows.ports import Front, Keep

__all__ = ["offboard"]


async def offboard(
    client: HubClient,
    email: str,
    hubs: Sequence[Hub],
    log: ChangeLog,
    front: Front,
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
    reviews = offboarding_reviews(answer, reason, started, log.operator)
    sending = Sending(log, concurrency, dry_run=not settle, reviews=reviews, keep=keep)
    question = Question(title=f"Offboarding of {email}", incomplete="; ".join(answer.not_read))
    ran = await run_preview(front, client, preview, sending, question=question)
    # Sent, the reviews were kept after the batch; nothing to send, as decided.
    kept = ran.kept if ran.batch is None else None
    await front.ended(rows_of_preview(ran.preview, ran.batch), ran.batch, kept)
    return answer
