"""The one use case of a previewed batch, called by the app's staged changes and by every command
that sends one (``apply``, ``review``, ``offboard``, ``revert``): send it, settle the rows whose
outcome is unknown by reading back, say what is left to send again. A review's use case keeps
its outcomes after it (:func:`~hubtui.core.workflows.reviewed.keep_reviews`).

The front ends confirm before it and render what it reports; none of them sends, settles or keeps
on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.core.batches.running import Batch, Result
from hubtui.core.changes.actions import Outcome

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches.wanted import Wanted
    from hubtui.core.changes.log import ChangeLog


#: What a front end says while the unknown rows are read back.
SETTLING = "Checking the rows whose outcome is unknown: reading their lists…"


@dataclass
class Applied:
    """How a batch run ended."""

    batch: Batch
    stopped: bool
    """Stopped by the person (``stop`` set): the rows in flight were settled, the rest not sent."""
    settled: list[int]
    """The positions whose unknown outcome a read back settled."""
    again: list[Wanted]
    """The rows left to send again: failed, still unknown, or not sent."""


async def apply_batch(
    batch: Batch,
    client: HubClient,
    log: ChangeLog,
    *,
    concurrency: int,
    on_result: Callable[[int, Result], None] | None = None,
    on_settling: Callable[[], None] | None = None,
    stop: asyncio.Event | None = None,
) -> Applied:
    """Send ``batch``, then settle its unknown rows by reading their lists back.

    ``stop`` set: no new change is sent, the ones in flight end as their log says and are
    settled like the rest. Cancelled (a signal, the screen going away), the cancel goes on up
    after :meth:`Batch.send` has logged every row in flight.
    """
    sending = asyncio.ensure_future(
        batch.send(client, log, concurrency=concurrency, on_result=on_result)
    )
    stopped = False
    try:
        if stop is None:
            await asyncio.shield(sending)
        else:
            asked = asyncio.ensure_future(stop.wait())
            try:
                await asyncio.wait({sending, asked}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                asked.cancel()
            if not sending.done():
                stopped = True
                sending.cancel()
                await asyncio.wait({sending})
            if not sending.cancelled() and sending.exception() is not None:
                raise sending.exception()  # type: ignore[misc]
    except asyncio.CancelledError:
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending
        raise
    settled: list[int] = []
    if batch.outcome_counts()[Outcome.UNKNOWN]:
        if on_settling is not None:
            on_settling()
        settled = await batch.check(client, log, concurrency=concurrency)
        if on_result is not None:
            for position in settled:
                on_result(position, batch.results[position])
    return Applied(batch, stopped, settled, batch.again())
