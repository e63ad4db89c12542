"""The workflows a front end runs whole: a batch file applied, a decisions file applied, a person
offboarded. Each is one use case here that reads, decides and previews, then hands the front end
what to show and asks it to send (:class:`Front`): the front end asks the person, confirms and
renders, and sends through the one engine (:func:`~hubtui.core.people.review.apply_reviewed`).

Read-only is refused by the front end before it starts one (a dry run still previews).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from hubtui.core.batches.file_rows import (
    RowOfFile,
    mark_decided,
    mark_ended,
    prepare_file,
    rows_of_preview,
    wanted_of,
)
from hubtui.core.batches.projects import Preview, prepare
from hubtui.core.clock import now
from hubtui.core.people.decisions import review_of_file, rows_of_decisions
from hubtui.core.people.review import (
    Kept,
    Offboarding,
    Review,
    keep_reviews,
    offboarding,
    offboarding_reviews,
    outcomes,
)

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.batches import Batch
    from hubtui.core.batches.file import FileRow
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.people.search import Progress

__all__ = ["Front", "Keep", "apply_decisions", "apply_file", "offboard"]

#: How a review is kept in the store (its number; StoreOff or StoreError where it cannot be).
Keep = Callable[[Review], Awaitable[int]]


class Front(Protocol):
    """What a workflow asks of the front end that runs it."""

    async def find_hub(self, given: str) -> Hub:
        """A hub by its exact Name or Id; ``LookupError`` says why none was taken."""
        ...

    def reading(self, done: int, total: int) -> None:
        """How far reading each project's users again has come."""

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile]) -> None:
        """Show the preview, and the rows not read as changes."""

    async def send(self, preview: Preview, reviews: Sequence[Review]) -> Batch | None:
        """Ask, then send the preview as one batch with the reviews it carries kept after it
        (None: nothing sent: a dry run, nothing to send)."""
        ...

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        """Say how each row ended, and how the reviews nothing sent were kept (``kept`` None:
        there were none, or this was a dry run)."""


async def apply_file(
    client: HubClient,
    given: Sequence[FileRow],
    log: ChangeLog,
    front: Front,
    *,
    concurrency: int,
    settle: bool,
) -> None:
    """A batch file's rows: found, previewed, sent on the front end's word, each row ended."""
    found = await prepare_file(
        client,
        given,
        log,
        front.find_hub,
        concurrency=concurrency,
        settle=settle,
        on_read=front.reading,
    )
    front.previewed(found.preview, found.refused)
    batch = await front.send(found.preview, ())
    if batch is not None:
        mark_ended(found.rows, batch)
    await front.ended(found.rows, batch, None)


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
    front.previewed(preview, [row for row in rows if row.wanted is None and row.verdict])
    batch = await front.send(preview, ())
    if batch is not None:
        mark_ended(rows, batch)
    review = review_of_file(rows, decisions, given, started, batch, criteria, log.operator)
    kept = await keep_reviews([review], None, None, keep) if settle else None
    await front.ended(rows, batch, kept)


class OffboardFront(Front, Protocol):
    """An offboarding's front end also follows the search and says where the person was."""

    def searching(self, progress: Progress) -> None:
        """How far the search across the hubs has come."""

    def found(self, answer: Offboarding) -> None:
        """Where the person is, and what could not be read; ``LookupError`` ends the workflow
        when they have no access to remove."""


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
