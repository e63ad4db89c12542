"""A review's decisions sent and kept: the batch they make applied through the one engine, then
each review kept with its decisions' outcomes; with nothing to send, each review kept as
decided. The one rule every front end's preview follows (:func:`send_reviewed`), whether a
decisions file, ``v`` on the hub's people or an offboarding."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hubtui.core.batches.applying import Applied, apply_batch
from hubtui.core.people.review import Review, outcomes
from hubtui.core.store import StoreError, StoreOff
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches import Batch, Preview
    from hubtui.core.changes.log import ChangeLog

__all__ = ["Kept", "apply_reviewed", "keep_reviews", "send_reviewed"]


@dataclass(frozen=True)
class Kept:
    """How keeping a review's decisions with their outcomes ended."""

    numbers: list[int]
    """The numbers the reviews were kept as, in order."""
    problem: str | None = None
    """Why they were not kept (None: they were): their changes are in the change log anyway."""

    def words(self) -> str:
        """What a front end says of it."""
        if self.problem is not None:
            why = inert(self.problem, limit=None)
            return f"The review was not kept: {why} Its changes are in the change log."
        kept = ", ".join(f"#{number}" for number in self.numbers)
        return f"Review {kept} kept: {command_line('reviews', self.numbers[-1])}"


async def keep_reviews(
    reviews: Sequence[Review],
    preview: Preview | None,
    batch: Batch | None,
    keep: Callable[[Review], Awaitable[int]],
) -> Kept:
    """Each review kept with its decisions' outcomes (from the preview and the batch's results),
    under the batch's id (``preview`` None: the reviews hold their outcomes already). The
    store's refusal (off, offline, broken) is said in :attr:`Kept.problem`, never raised: the
    changes are in the change log either way."""
    results = [] if batch is None else list(batch.results.values())
    numbers = []
    try:
        for review in reviews:
            done = (
                review
                if preview is None
                else outcomes(replace(review, batch=batch.id if batch else ""), preview, results)
            )
            numbers.append(await keep(done))
    except (StoreOff, StoreError) as error:
        return Kept(numbers, str(error))
    return Kept(numbers)


async def apply_reviewed(
    batch: Batch,
    client: HubClient,
    log: ChangeLog,
    reviews: Sequence[Review],
    preview: Preview | None,
    keep: Callable[[Review], Awaitable[int]],
    **options: Any,
) -> tuple[Applied, Kept | None]:
    """A batch sent, and the reviews whose decisions it carries kept: the batch applied
    (:func:`~hubtui.core.batches.applying.apply_batch`, with its ``options``), then each review
    kept with its decisions' outcomes under the batch's id (None: there are no reviews)."""
    applied = await apply_batch(batch, client, log, **options)
    if not reviews:
        return applied, None
    return applied, await keep_reviews(reviews, preview, batch, keep)


async def send_reviewed(
    batch: Batch,
    client: HubClient,
    log: ChangeLog,
    reviews: Sequence[Review],
    preview: Preview,
    keep: Callable[[Review], Awaitable[int]],
    **options: Any,
) -> tuple[Applied | None, Kept | None]:
    """A preview's batch sent with the reviews it carries kept after it; a batch with nothing to
    send sends nothing, and the reviews are kept as decided at once (None, kept). ``kept`` is
    None where there are no reviews."""
    if not batch.steps:
        return None, (await keep_reviews(reviews, preview, None, keep) if reviews else None)
    return await apply_reviewed(batch, client, log, reviews, preview, keep, **options)
