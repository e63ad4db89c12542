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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, TypeVar

from hubtui.api.errors import HubError, NotFoundError
from hubtui.api.models import ProjectUser
from hubtui.api.versions import is_api_version
from hubtui.core.access import account_of, accounts_of, person_key
from hubtui.core.changes.log import HUB_CHANGES, Action, Change, ChangeLog, Outcome, change_outcome

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, ChangeRequest, HubClient, ProjectUser
    from hubtui.api.models import HubUser

T = TypeVar("T")

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


class ChangedSinceRead(Exception):
    """The person is no longer as they were when the change was decided (a preview or a
    question may have waited minutes): nothing is sent, and the message says what they are
    now, so the change is decided again from that."""


def _access_words(role: object, reviewer: object) -> str:
    return f"{role}{', reviewer' if reviewer else ''}"


async def _check_still_as_read(client: HubClient, change: Change) -> None:
    """Read the person an update changes once more, just before it is sent: a change is sent
    from what the server holds now, never from what a preview saw earlier."""
    if change.action in HUB_ACTIONS:
        await _check_hub_user(client, change)
        return
    if change.user_id is None:
        return  # an add of an address the project did not list: the POST names it alone
    if change.action == Action.UPDATE and change.before is None:
        return
    hub_id, project_id, _, _, version = _arguments(change)
    try:
        user = await client.get_project_user(
            hub_id, project_id, change.user_id, api_version=version
        )
    except NotFoundError:
        raise ChangedSinceRead(
            f"Id {change.user_id} is no longer in the project: nothing was sent."
        ) from None
    except HubError as error:
        raise ChangedSinceRead(
            f"They could not be read again just before sending ({error}), so nothing was sent."
        ) from None
    _check_same_account(change, user.user.id, user.user.email)
    if change.action == Action.ADD:  # a limited reader made a direct member
        if not user.is_limited:
            raise ChangedSinceRead(
                f"Changed since it was read: was a limited reader, now a direct member "
                f"({_access_words(user.role, user.is_reviewer)}). Nothing was sent."
            )
        return
    before = change.before
    assert before is not None
    now = {"Role": user.role, "IsReviewer": user.is_reviewer}
    if user.is_limited or any(now.get(key) != value for key, value in before.items()):
        was = _access_words(before.get("Role"), before.get("IsReviewer"))
        is_now = (
            "a limited reader" if user.is_limited else _access_words(user.role, user.is_reviewer)
        )
        raise ChangedSinceRead(
            f"Changed since it was read: was {was}, now {is_now}. Nothing was sent: decide the "
            "change again from what they have now."
        )


def _check_same_account(change: Change, user_id: object, email: str | None) -> None:
    """A person is their Id and their address together: the account the change names must
    still have the address it was read with, else nothing is sent to it."""
    if person_key(email) != person_key(change.email):
        raise ChangedSinceRead(
            f"Id {user_id} is now {email or '(no email)'}, not {change.email}: nothing was sent."
        )


async def _hub_users_now(client: HubClient, change: Change) -> Sequence[HubUser]:
    """The hub's users read again just before a change of them is sent (else nothing is)."""
    try:
        return await client.list_hub_users(change.hub_id)
    except HubError as error:
        raise ChangedSinceRead(
            f"The hub's users could not be read again just before sending ({error}), so "
            "nothing was sent."
        ) from None


async def _check_hub_user(client: HubClient, change: Change) -> None:
    """A change of a hub user is sent only while its account (by its Id) still has the address
    and the hub role it was decided from, and a resend only while that invitation still waits;
    an invitation only while the person is still not a user of the hub."""
    users = await _hub_users_now(client, change)
    if change.action == Action.HUB_INVITE:
        found = accounts_of(users, change.email or "")
        if found:
            raise ChangedSinceRead(
                f"Already a user of the hub ({found[0].role}) since it was read: nothing was sent."
            )
        return
    user = account_of(users, change.email or "", change.user_id)
    if user is None:
        raise ChangedSinceRead("No longer a user of the hub: nothing was sent.")
    _check_same_account(change, user.user.id, user.user.email)
    if change.action == Action.RESEND:
        if user.is_activated:
            raise ChangedSinceRead(
                "The invitation was accepted since it was read: nothing was sent."
            )
        if user.role is None:
            raise ChangedSinceRead(
                "The hub's users do not say their hub role, which the request must carry (the "
                "service requires Role): nothing was sent."
            )
    was = None if change.before is None else change.before.get("Role")
    if user.role != was:
        raise ChangedSinceRead(
            f"Changed since it was read: was {was} of the hub, now {user.role}. Nothing was "
            "sent: decide the change again from what they have now."
        )


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
    """The request :func:`send_change` sends for ``change`` (nothing is sent)."""
    if change.action in HUB_ACTIONS:
        return await _hub_call(
            change, client.plan_invite, client.plan_update_hub_user, client.plan_remove_hub_user
        )
    return await _call(change, client.plan_create, client.plan_update)


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
    if change.action == Action.ADD:
        await log.read_team_adds([(change.hub_id, change.project_id)])
        log.take_in_unknown_adds(change.hub_id, change.project_id)
        earlier = log.unknown_add(change.hub_id, change.project_id, change.email or "")
        if earlier is not None:
            raise EarlierAddUnknown(earlier)
    planned = await plan(client, change)
    operation = planned.operation
    await _check_still_as_read(client, change)
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
        user = await _request(client, pending)
    except HubError as error:
        if await _removed_already(client, change, error):
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


#: What the log and the row say of a removal that found the person gone already.
ALREADY_REMOVED = "already removed (not by this change): the hub no longer lists them"


async def _removed_already(client: HubClient, change: Change, error: HubError) -> bool:
    """Whether a removal answered 404 found the person gone already (a colleague removed them
    a moment before): settled by reading the hub's users back, never by the status alone."""
    if change.action != Action.HUB_REMOVE or not isinstance(error, NotFoundError):
        return False
    try:
        users = await client.list_hub_users(change.hub_id)
    except HubError:
        return False  # not settled: it stays failed, as the server said
    return account_of(users, change.email or "", change.user_id) is None


async def _request(client: HubClient, change: Change) -> ProjectUser | HubUser | None:
    """The change's request, sent once; None: the server answered with nobody (a removal)."""
    if change.action in HUB_ACTIONS:
        answer: HubUser | None = await _hub_call(
            change, client.invite_hub_user, client.update_hub_user, client.remove_hub_user
        )
        return answer
    return await _call(change, client.create_project_user, client.update_project_user)


#: The changes of a hub's users (no project).
HUB_ACTIONS = (Action.RESEND, *HUB_CHANGES)


async def _hub_call(
    change: Change,
    invite: Callable[..., Awaitable[T]],
    update: Callable[..., Awaitable[T]],
    remove: Callable[..., Awaitable[T]],
) -> T:
    """``invite``, ``update`` or ``remove`` (a plan, or the request itself) called with a hub
    change's values: what a dry run prints and what is sent come from the same arguments."""
    role = str(change.after.get("Role"))
    if change.action == Action.HUB_INVITE:
        return await invite(change.hub_id, email=change.email or "", role=role)
    assert change.user_id is not None, "a hub user's change names the hub user"
    if change.action == Action.RESEND:
        return await update(change.hub_id, change.user_id, role=role, resend_invite=True)
    if change.action == Action.HUB_ROLE:
        return await update(change.hub_id, change.user_id, role=role)
    return await remove(change.hub_id, change.user_id)


async def _call(
    change: Change, add: Callable[..., Awaitable[T]], update: Callable[..., Awaitable[T]]
) -> T:
    """``add`` or ``update`` (a plan, or the request itself) called with the change's values:
    what a dry run prints and what is sent come from the same arguments."""
    hub_id, project_id, role, reviewer, version = _arguments(change)
    if change.action == Action.ADD:
        return await add(
            hub_id,
            project_id,
            email=change.email or "",
            role=role,
            is_reviewer=reviewer,
            api_version=version,
        )
    assert change.user_id is not None, "an update changes a user who is there"
    return await update(
        hub_id, project_id, change.user_id, role=role, is_reviewer=reviewer, api_version=version
    )


def _arguments(change: Change) -> tuple[str, str, str, bool | None, ApiVersion | None]:
    """Hub, project, role, reviewer flag (None: not sent) and API version of a change."""
    reviewer = change.after.get("IsReviewer")
    version = change.api_version if is_api_version(change.api_version) else None
    return (
        change.hub_id,
        change.project_id,
        str(change.after["Role"]),
        None if reviewer is None else bool(reviewer),
        version,
    )
