"""The run every workflow that sends a batch shares, after its own reading and deciding: the
preview shown, asked, the journal's claim (where the workflow has one), sent (each change's
``pending`` line written before its request leaves), read back, the reviews it carries kept,
and how it ended said. A dry run shows exactly the requests and sends nothing.

Every step is the front's to show and nothing else: no front sends, settles or keeps on its own.
The change log is the journal: a run interrupted anywhere is finished by running the workflow
again (what took effect is found in it and by reading the hub back; only what was never sent
is sent).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.core.batches.running import Batch
from hubtui.core.changes.sending import plan
from hubtui.core.workflows.ports import Question
from hubtui.core.workflows.reviewed import Kept, apply_reviewed, keep_reviews

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches.file_rows import RowOfFile
    from hubtui.core.batches.projects import Preview
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.changes.record import Change
    from hubtui.core.people.review import Review
    from hubtui.core.workflows.ports import Front, Keep

__all__ = ["Ran", "Sending", "run_preview"]


@dataclass(frozen=True)
class Sending:
    """How a workflow's batch is sent: its log, its reviews, its journal."""

    log: ChangeLog
    concurrency: int
    dry_run: bool = False
    reviews: Sequence[Review] = ()
    keep: Keep | None = None
    """Where the reviews are kept (needed when there are reviews)."""
    reverts: str | None = None
    """The batch this one puts back."""
    batch_id: str | None = None
    """The id a journal named before sending (a campaign's close, a retry), else a new one."""
    claim: Callable[[], Awaitable[None]] | None = None
    """The journal's first step, recorded once the answer is yes and before anything leaves
    (its failure sends nothing)."""


@dataclass(frozen=True)
class Ran:
    """How a run ended: the batch sent (None: a dry run, or nothing to send) and how the
    reviews were kept (None: there were none, or a dry run)."""

    preview: Preview
    batch: Batch | None
    kept: Kept | None


async def run_preview(
    front: Front,
    client: HubClient,
    preview: Preview,
    sending: Sending,
    *,
    refused: Sequence[RowOfFile] = (),
    question: Question | None = None,
) -> Ran:
    """``preview`` shown, asked, claimed, sent, read back and kept, each step through ``front``
    (:class:`~hubtui.core.workflows.ports.NotSent` from its question ends it, nothing sent)."""
    question = question or Question()
    front.previewed(preview, refused, question)
    if sending.dry_run:
        front.would_send([await plan(client, change) for change in _changes(preview)])
        return Ran(preview, None, None)
    if _changes(preview) or sending.claim is not None:
        # A journal's claim is the act itself (a close with nothing to send is still asked).
        preview = await front.ask(preview, question)
    if sending.claim is not None:
        await sending.claim()
    if not _changes(preview):
        front.nothing_to_send(preview)
        if not sending.reviews:
            return Ran(preview, None, None)
        assert sending.keep is not None  # reviews are kept somewhere
        return Ran(preview, None, await keep_reviews(sending.reviews, preview, None, sending.keep))
    return await _sent(front, client, preview, sending)


async def _sent(front: Front, client: HubClient, preview: Preview, sending: Sending) -> Ran:
    """The batch of ``preview`` sent under the front's eyes, the reviews kept after it."""
    batch = Batch(preview.steps, batch_id=sending.batch_id)
    batch.reverts = sending.reverts
    stop = asyncio.Event()
    front.sending(batch, stop)
    try:
        applied, kept = await apply_reviewed(
            batch,
            client,
            sending.log,
            sending.reviews,
            preview,
            sending.keep or _nowhere,
            concurrency=sending.concurrency,
            on_result=lambda _, result: front.came(batch, result),
            on_settling=front.settling,
            stop=stop,
        )
    except BaseException as error:  # cancelled (escape, a signal), or a failure of the run
        front.interrupted(batch, error)
        raise
    front.sent(applied, kept)
    return Ran(preview, batch, kept)


def _changes(preview: Preview) -> list[Change]:
    """The changes a batch of ``preview`` would send, in its order."""
    return [step.change for step in Batch(preview.steps).steps if step.change is not None]


async def _nowhere(review: Review) -> int:
    raise AssertionError("a run with reviews is given where to keep them")
