"""One way to send a change, for the form, the headless commands and batches alike.

Write ahead, send once, write the outcome:

1. An add of an email whose earlier add (by this process or an earlier one, on this server) may
   have reached the server is refused (:class:`EarlierAddUnknown`) until the project's list is
   checked: an add is never sent twice.
2. The change's ``pending`` line is written and flushed (:meth:`ChangeLog.begin_sending`, off
   the event loop, so that the other changes of a batch go on meanwhile); if that fails,
   :class:`~hubtui.core.changes.log.ChangeLogError` is raised and nothing is sent.
3. The request is sent once, exactly as :func:`plan` describes it (what a dry run prints).
4. The outcome is written under the same id: done, failed, or unknown (no answer, a gateway's
   502/504, a cancelled wait, a signal), and returned as :class:`Sent`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from hubtui.api.errors import HubError
from hubtui.api.models import ProjectUser
from hubtui.core.changes.actions import Outcome
from hubtui.core.changes.kinds import ALREADY_REMOVED, ChangedSinceRead, kind_of
from hubtui.core.changes.log import ChangeLog
from hubtui.core.changes.record import Change, change_outcome

if TYPE_CHECKING:
    from hubtui.api import ChangeRequest, HubClient
    from hubtui.api.models import HubUser

__all__ = ["STOPPED", "ChangedSinceRead", "EarlierAddUnknown", "Sent", "plan", "send_change"]

#: What the log says of a change whose wait was given up (a cancel, a signal, ctrl+c).
STOPPED = "hubtui stopped waiting before the answer came."


class EarlierAddUnknown(Exception):
    """An earlier add of this email to this project may have reached the server: nothing is
    sent until the project's list has been checked (:meth:`ChangeLog.settle_adds`)."""

    def __init__(self, earlier: Change) -> None:
        super().__init__(
            "An earlier add of this email to this project may have reached the server "
            f"(outcome unknown, {earlier.time}); it is not sent again until the list is checked."
        )
        self.earlier = earlier


@dataclass(frozen=True)
class Sent:
    """How a change ended: its last log line, and the person as the server now has them."""

    change: Change
    answer: ProjectUser | HubUser | None
    """None unless the server answered with them."""
    error: HubError | None = None
    """Why it failed, or why its outcome is unknown (or, done, why its answer is unreadable)."""
    already: bool = False
    """It failed because what it asked was so already, not by this change (a removal of a
    person the hub no longer lists): logged failed (it took no effect, nothing to put back),
    and as asked."""

    @property
    def user(self) -> ProjectUser | None:
        """The project user the server answered with (a change to a project)."""
        return self.answer if isinstance(self.answer, ProjectUser) else None

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.change.outcome)


class Carried(TypedDict, total=False):
    """What the request log says of the exchange that carried a change, for its log line."""

    request_id: str | None
    sent_to: str | None


async def plan(client: HubClient, change: Change) -> ChangeRequest:
    """The request :func:`send_change` sends for ``change`` (nothing is sent): its kind's."""
    return await kind_of(change).plan(client, change)


async def send_change(
    client: HubClient,
    log: ChangeLog,
    change: Change,
    *,
    stopped: str = STOPPED,
    wait_for_outcome_line: bool = True,
) -> Sent:
    """Send ``change`` once, logged before it leaves and after it ends.

    Raises :class:`EarlierAddUnknown`, :class:`ChangedSinceRead` (an update's person is no
    longer as its ``before`` says, read again just now) or
    :class:`~hubtui.core.changes.log.ChangeLogError` before anything is sent. A wait given up
    (cancelled, a signal) is logged as unknown, with ``stopped``, and goes on up; so does an
    unexpected error, logged as unknown with its name. Without ``wait_for_outcome_line``, it
    returns as the outcome's line is written (a batch waits for them all with
    :meth:`ChangeLog.drained`).
    """
    kind = kind_of(change)
    if kind.held_until_checked:
        await log.read_team_adds([(change.hub_id, change.project_id)])
        log.take_in_unknown_adds(change.hub_id, change.project_id)
        earlier = log.unknown_add(change.hub_id, change.project_id, change.email or "")
        if earlier is not None:
            raise EarlierAddUnknown(earlier)
    planned = await kind.plan(client, change)
    operation = planned.operation
    await kind.check(client, change)  # sent from what the server holds now
    pending = await log.begin_sending(change)  # nothing is sent unless this line is on disk
    before = client.exchanges.last_for(operation)

    def carried_by() -> Carried:
        """The exchange that carried it, and where, when a redirect took it elsewhere."""
        exchange = client.exchanges.last_for(operation)
        if exchange is None or exchange is before:
            return {}
        moved = exchange.url if exchange.url != planned.url else None
        return {"request_id": exchange.id, "sent_to": moved}

    try:
        user = await kind.request(client, pending)
    except HubError as error:
        if await kind.already(client, change, error):
            ended = await log.finish_sending(
                pending, Outcome.FAILED, ALREADY_REMOVED, wait=wait_for_outcome_line, **carried_by()
            )
            return Sent(ended, None, error, already=True)
        outcome = change_outcome(error)
        ended = await log.finish_sending(
            pending, outcome, str(error), wait=wait_for_outcome_line, **carried_by()
        )
        return Sent(ended, None, error)
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
            why = stopped
        else:
            why = f"hubtui failed before the answer was read ({type(exc).__name__}: {exc})."
        log.finish(pending, Outcome.UNKNOWN, why, **carried_by())
        raise
    done = await log.finish_sending(
        pending,
        Outcome.DONE,
        user_id=change.user_id if user is None else str(user.user.id),
        wait=wait_for_outcome_line,
        **carried_by(),
    )
    return Sent(done, user)
