"""Each kind of change, one class: its request, the evidence checked just before it leaves, how
an unknown outcome is settled, whether it is ever retried, and how it is put back.

:data:`KINDS` is the list ``docs/design.md`` shows as a table; :func:`kind_of` finds a change's
kind. Nothing outside this module branches on what a change does: the sender, a batch, the log
and a revert ask the change's kind. A seventh kind is one class here, and a row of that table.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from hubtui.api.errors import HubError, NotFoundError
from hubtui.api.versions import is_api_version
from hubtui.core.access import account_of, accounts_of, find_person, person_key
from hubtui.core.changes.actions import Action

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, ChangeRequest, HubClient
    from hubtui.api.models import HubUser, ProjectUser

T = TypeVar("T")

__all__ = [
    "ADDED_WORDS",
    "ALREADY_REMOVED",
    "KINDS",
    "SET_WORDS",
    "Change",
    "ChangedSinceRead",
    "HubInvitation",
    "HubRemoval",
    "HubRole",
    "InvitationResend",
    "Kind",
    "ProjectAdd",
    "ProjectUpdate",
    "Undo",
    "kind_of",
]


class Change(Protocol):
    """A change as its kind reads it (the record, :class:`~hubtui.core.changes.record.Change`,
    asks its kind in turn: the kinds import neither the record nor the log)."""

    @property
    def action(self) -> str: ...
    @property
    def hub_id(self) -> str: ...
    @property
    def project_id(self) -> str: ...
    @property
    def user_id(self) -> str | None: ...
    @property
    def email(self) -> str | None: ...
    @property
    def before(self) -> dict[str, object] | None: ...
    @property
    def after(self) -> dict[str, object]: ...
    @property
    def api_version(self) -> str: ...
    @property
    def where(self) -> str: ...


#: What reading a list back says of a change whose outcome was unknown: (it took effect, it
#: did not), for an add and for every other kind.
ADDED_WORDS = (
    "the list has them: the add reached the server",
    "the list does not have them: nothing was added",
)
SET_WORDS = (
    "the list shows the new values: the change reached the server",
    "the list shows the old values: it did not take effect",
)


class ChangedSinceRead(Exception):
    """The person is no longer as they were when the change was decided (a preview or a
    question may have waited minutes): nothing is sent, and the message says what they are
    now, so the change is decided again from that."""


class Undo(StrEnum):
    """How a change of a kind is put back (the revert reads it: one rule for ``R`` and
    ``hubtui revert``)."""

    NOTHING = "nothing to put back"
    """An email sent again: nothing changed that could be undone."""
    NEVER = "cannot be put back"
    """Nobody can be removed from a project through this API."""
    ROLE = "the role and reviewer flag before"
    HUB_ROLE = "the hub role before"
    REMOVAL = "a removal from the hub"
    """An invitation, undone while the hub role it gave still holds."""
    INVITATION = "an invitation, then each project's role"
    """A removal from the hub, undone by inviting them back."""


def _word(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _access_words(role: object, reviewer: object) -> str:
    return f"{role}{', reviewer' if reviewer else ''}"


class Kind:
    """What every kind of change knows; each subclass is one kind."""

    action: ClassVar[Action]
    of_hub: ClassVar[bool] = False
    """A change of the hub's users (no project)."""
    phase: ClassVar[int] = 1
    """When a batch sends it: a hub's invitations and roles (0), the projects' rows (1), the
    removals from a hub (2), each phase once the one before has ended."""
    counted: ClassVar[tuple[str, str]] = ("change", "changes")
    """How a preview counts it (one, many)."""
    always_counted: ClassVar[bool] = False
    """Counted in a preview's summary even when there are none (``0 adds``)."""
    undo: ClassVar[Undo] = Undo.NEVER
    held_until_checked: ClassVar[bool] = False
    """An earlier one of the same address and project whose outcome is unknown holds it back
    until the project's list is checked: an add is never sent twice."""
    others_wait_on_it: ClassVar[bool] = False
    """The person's project rows in the same batch are sent only once this ended done."""
    settled_words: ClassVar[tuple[str, str]] = SET_WORDS
    """What the list read back showed, when it settles an unknown outcome (took, did not)."""
    invitation: ClassVar[str] = ""
    """How it sends the hub's invitation email: ``sent``, ``sent again`` (empty: it does not)."""
    carries: ClassVar[str] = ""
    """What a review's decision it carries out: ``remove`` (the account out of the hub, by
    its Id), ``role`` (a role set in a project) (empty: none)."""

    def summary(self, change: Change) -> str:
        """``Role: Reader → Editor`` style, one line."""
        parts = []
        for name, value in change.after.items():
            old = None if change.before is None else change.before.get(name)
            if change.before is None or name not in change.before:
                parts.append(f"{name}: {_word(value)}")  # nothing kept before: never "None"
            elif old != value:
                parts.append(f"{name}: {_word(old)} → {_word(value)}")
        return ", ".join(parts) or "no change"

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        """The request :meth:`request` sends (nothing is sent): what a dry run prints."""
        raise NotImplementedError

    async def request(self, client: HubClient, change: Change) -> ProjectUser | HubUser | None:
        """The change's request, sent once; None: the server answered with nobody."""
        raise NotImplementedError

    async def check(self, client: HubClient, change: Change) -> None:
        """Read what the change stands on once more, just before it is sent: raises
        :class:`ChangedSinceRead` when it no longer holds (then nothing is sent)."""

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool | None:
        """Whether a change whose outcome was unknown took effect, from the list read again
        (the project's users, or the hub's); None: it shows neither before nor after."""
        return None

    async def already(self, client: HubClient, change: Change, error: HubError) -> bool:
        """Whether ``error`` says that what the change asked was so already, not by it."""
        return False

    def cannot_undo(self, change: Change) -> str:
        """Why this change cannot be put back, in words that follow the person's address."""
        return (
            f"({change.action} in {change.where}): the change log does not hold what they had "
            "before"
        )


# Project kinds --------------------------------------------------------------------------------


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


def check_same_account(change: Change, user_id: object, email: str | None) -> None:
    """A person is their Id and their address together: the account the change names must
    still have the address it was read with, else nothing is sent to it."""
    if person_key(email) != person_key(change.email):
        raise ChangedSinceRead(
            f"Id {user_id} is now {email or '(no email)'}, not {change.email}: nothing was sent."
        )


#: How long one read of a hub's users serves the adds of known accounts about to leave: a
#: batch's adds share a read made a moment before (one, not one each, of a firm's hub).
SHARED_READ_SECONDS = 2.0
_hub_reads: weakref.WeakKeyDictionary[Any, dict[str, tuple[float, asyncio.Future[Any]]]] = (
    weakref.WeakKeyDictionary()
)


async def _hub_users_just_read(client: HubClient, hub_id: str) -> Sequence[HubUser]:
    """The hub's users as read just now: a read under way, or one ended under
    :data:`SHARED_READ_SECONDS` ago, is shared; else read again."""
    reads = _hub_reads.setdefault(client, {})
    kept = reads.get(hub_id)
    moment = time.monotonic()
    if kept is None or (kept[1].done() and moment - kept[0] > SHARED_READ_SECONDS):
        read = asyncio.ensure_future(client.list_hub_users(hub_id))
        kept = reads[hub_id] = (moment, read)

        def ended(done: asyncio.Future[Any]) -> None:  # its age counts from its answer
            if reads.get(hub_id, (0.0, None))[1] is done:
                reads[hub_id] = (time.monotonic(), done)

        read.add_done_callback(ended)
    users: Sequence[HubUser] = await asyncio.shield(kept[1])
    return users


async def _read_again(read: Awaitable[Sequence[HubUser]]) -> Sequence[HubUser]:
    """The hub's users read again just before a change is sent; a read that fails sends
    nothing."""
    try:
        return await read
    except HubError as error:
        raise ChangedSinceRead(
            f"The hub's users could not be read again just before sending ({error}), so "
            "nothing was sent."
        ) from None


def _hub_account(users: Sequence[HubUser], change: Change, gone: str) -> HubUser:
    """The account a change names among the hub's users read again, still of its address
    (``gone``: what is said when the hub no longer lists it)."""
    user = account_of(users, change.email or "", change.user_id)
    if user is None:
        raise ChangedSinceRead(gone)
    check_same_account(change, user.user.id, user.user.email)
    return user


class NotInProject(ChangedSinceRead):
    """The account the change names is not in the project (read again by its Id)."""


class _ProjectKind(Kind):
    async def _account_now(self, client: HubClient, change: Change) -> ProjectUser:
        """The account the change names, read again by its Id, still of this address."""
        assert change.user_id is not None
        hub_id, project_id, _, _, version = _arguments(change)
        try:
            user = await client.get_project_user(
                hub_id, project_id, change.user_id, api_version=version
            )
        except NotFoundError:
            raise NotInProject(
                f"Id {change.user_id} is no longer in the project: nothing was sent."
            ) from None
        except HubError as error:
            raise ChangedSinceRead(
                f"They could not be read again just before sending ({error}), so nothing was sent."
            ) from None
        check_same_account(change, user.user.id, user.user.email)
        return user

    async def _hub_account_now(self, client: HubClient, change: Change) -> None:
        """The account the change names, not in the project: read again by its Id in the hub's
        users (a read a moment old shared by a batch's adds), still of this address."""
        users = await _read_again(_hub_users_just_read(client, change.hub_id))
        gone = f"Id {change.user_id} is no longer a user of the hub: nothing was sent."
        _hub_account(users, change, gone)


class ProjectAdd(_ProjectKind):
    """A direct member added to a project (or a limited reader made one)."""

    action = Action.ADD
    counted = ("adds", "adds")
    always_counted = True
    undo = Undo.NEVER
    held_until_checked = True
    settled_words = ADDED_WORDS

    def cannot_undo(self, change: Change) -> str:
        return (
            f"was added to {change.where} by the batch; nobody can be removed from a project "
            "through this API"
        )

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        return await self._call(client.plan_create, change)

    async def request(self, client: HubClient, change: Change) -> ProjectUser:
        return await self._call(client.create_project_user, change)

    async def _call(self, add: Callable[..., Awaitable[T]], change: Change) -> T:
        hub_id, project_id, role, reviewer, version = _arguments(change)
        return await add(
            hub_id,
            project_id,
            email=change.email or "",
            role=role,
            is_reviewer=reviewer,
            api_version=version,
        )

    async def check(self, client: HubClient, change: Change) -> None:
        """An add of an address nobody was known by names it alone (the POST). An add of a
        known account (a limited reader made a member, a user of the hub added to the project)
        is sent only while that account, read again by its Id, still has this address (else the
        POST would make a second account at the old one) and is not a direct member already."""
        if change.user_id is None:
            return
        try:
            user = await self._account_now(client, change)
        except NotInProject:
            await self._hub_account_now(client, change)
            return
        if not user.is_limited:
            raise ChangedSinceRead(
                f"Changed since it was read: was a limited reader, now a direct member "
                f"({_access_words(user.role, user.is_reviewer)}). Nothing was sent."
            )

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool:
        user: ProjectUser | None = find_person(listed, change.email or "")
        return user is not None and user.is_direct_member is True


class ProjectUpdate(_ProjectKind):
    """A direct member's role and reviewer flag set."""

    action = Action.UPDATE
    counted = ("updates", "updates")
    always_counted = True
    undo = Undo.ROLE
    carries = "role"

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        return await self._call(client.plan_update, change)

    async def request(self, client: HubClient, change: Change) -> ProjectUser:
        return await self._call(client.update_project_user, change)

    async def _call(self, update: Callable[..., Awaitable[T]], change: Change) -> T:
        hub_id, project_id, role, reviewer, version = _arguments(change)
        assert change.user_id is not None, "an update changes a user who is there"
        return await update(
            hub_id, project_id, change.user_id, role=role, is_reviewer=reviewer, api_version=version
        )

    async def check(self, client: HubClient, change: Change) -> None:
        """The person read again by Id: the same account (its address), the role and flag as
        decided, not a limited reader."""
        before = change.before
        if before is None or change.user_id is None:
            return
        user = await self._account_now(client, change)
        now = {"Role": user.role, "IsReviewer": user.is_reviewer}
        if user.is_limited or any(now.get(key) != value for key, value in before.items()):
            was = _access_words(before.get("Role"), before.get("IsReviewer"))
            is_now = (
                "a limited reader"
                if user.is_limited
                else _access_words(user.role, user.is_reviewer)
            )
            raise ChangedSinceRead(
                f"Changed since it was read: was {was}, now {is_now}. Nothing was sent: decide "
                "the change again from what they have now."
            )

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool | None:
        user: ProjectUser | None = find_person(listed, change.email or "")
        shown = None if user is None else {"Role": user.role, "IsReviewer": user.is_reviewer}
        if shown == change.after:
            return True
        return False if shown == change.before else None


# Hub kinds ------------------------------------------------------------------------------------


class _HubKind(Kind):
    of_hub = True

    async def _users_now(self, client: HubClient, change: Change) -> Sequence[HubUser]:
        """The hub's users read again just before a change of them is sent (else nothing is)."""
        return await _read_again(client.list_hub_users(change.hub_id))

    async def _account_now(self, client: HubClient, change: Change) -> HubUser:
        """The account the change names (by its Id), still of this address and of the hub
        role it was decided from."""
        users = await self._users_now(client, change)
        return _hub_account(users, change, "No longer a user of the hub: nothing was sent.")

    def _role_as_decided(self, change: Change, user: HubUser) -> None:
        was = None if change.before is None else change.before.get("Role")
        if user.role != was:
            raise ChangedSinceRead(
                f"Changed since it was read: was {was} of the hub, now {user.role}. Nothing "
                "was sent: decide the change again from what they have now."
            )

    def _role_took(self, change: Change, listed: Sequence[Any]) -> bool | None:
        """From the hub role the hub's users show: the one it set (it took), the one before
        (it did not), else unknown still."""
        user = account_of(listed, change.email or "", change.user_id)
        role = None if user is None else user.role
        if change.after.get("Role") == role:
            return True
        return False if change.before is not None and change.before.get("Role") == role else None

    def _user_id(self, change: Change) -> str:
        assert change.user_id is not None, "a hub user's change names the hub user"
        return change.user_id

    def _role(self, change: Change) -> str:
        return str(change.after.get("Role"))


class HubInvitation(_HubKind):
    """A person invited to the hub (they get an email)."""

    action = Action.HUB_INVITE
    phase = 0
    counted = ("invitation", "invitations")
    undo = Undo.REMOVAL
    invitation = "sent"
    others_wait_on_it = True
    settled_words = ADDED_WORDS

    def summary(self, change: Change) -> str:
        return f"invited to the hub as {change.after.get('Role')}"

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        return await client.plan_invite(
            change.hub_id, email=change.email or "", role=self._role(change)
        )

    async def request(self, client: HubClient, change: Change) -> HubUser:
        return await client.invite_hub_user(
            change.hub_id, email=change.email or "", role=self._role(change)
        )

    async def check(self, client: HubClient, change: Change) -> None:
        """Sent only while the person is still not a user of the hub."""
        found = accounts_of(await self._users_now(client, change), change.email or "")
        if found:
            raise ChangedSinceRead(
                f"Already a user of the hub ({found[0].role}) since it was read: nothing was sent."
            )

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool:
        return bool(accounts_of(listed, change.email or ""))


class HubRole(_HubKind):
    """A hub user's hub role set (Guest or Admin)."""

    action = Action.HUB_ROLE
    phase = 0
    counted = ("hub role", "hub roles")
    undo = Undo.HUB_ROLE

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        role = self._role(change)
        return await client.plan_update_hub_user(change.hub_id, self._user_id(change), role=role)

    async def request(self, client: HubClient, change: Change) -> HubUser:
        role = self._role(change)
        return await client.update_hub_user(change.hub_id, self._user_id(change), role=role)

    async def check(self, client: HubClient, change: Change) -> None:
        self._role_as_decided(change, await self._account_now(client, change))

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool | None:
        return self._role_took(change, listed)


#: What the log and the row say of a removal that found the person gone already.
ALREADY_REMOVED = "already removed (not by this change): the hub no longer lists them"


class HubRemoval(_HubKind):
    """A person removed from the hub, and so from every project of it."""

    action = Action.HUB_REMOVE
    phase = 2
    counted = ("removal from the hub", "removals from the hub")
    undo = Undo.INVITATION
    carries = "remove"

    def summary(self, change: Change) -> str:
        role = None if change.before is None else change.before.get("Role")
        return f"removed from the hub (was {role})"

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        return await client.plan_remove_hub_user(change.hub_id, self._user_id(change))

    async def request(self, client: HubClient, change: Change) -> None:
        await client.remove_hub_user(change.hub_id, self._user_id(change))

    async def check(self, client: HubClient, change: Change) -> None:
        self._role_as_decided(change, await self._account_now(client, change))

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool:
        return account_of(listed, change.email or "", change.user_id) is None

    async def already(self, client: HubClient, change: Change, error: HubError) -> bool:
        """A removal answered 404 found the person gone already (a colleague removed them a
        moment before): settled by reading the hub's users back, never by the status alone."""
        if not isinstance(error, NotFoundError):
            return False
        try:
            users = await client.list_hub_users(change.hub_id)
        except HubError:
            return False  # not settled: it stays failed, as the server said
        return account_of(users, change.email or "", change.user_id) is None


class InvitationResend(_HubKind):
    """A hub user's invitation sent again: never retried (a second email)."""

    action = Action.RESEND
    counted = ("invitation sent again", "invitations sent again")
    undo = Undo.NOTHING
    invitation = "sent again"

    def summary(self, change: Change) -> str:
        return f"invitation to the hub sent again (hub role {change.after.get('Role')})"

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        return await client.plan_update_hub_user(
            change.hub_id, self._user_id(change), role=self._role(change), resend_invite=True
        )

    async def request(self, client: HubClient, change: Change) -> HubUser:
        return await client.update_hub_user(
            change.hub_id, self._user_id(change), role=self._role(change), resend_invite=True
        )

    async def check(self, client: HubClient, change: Change) -> None:
        """Sent only while that account still has the address, the invitation still waits,
        and the hub role the request carries is still theirs."""
        user = await self._account_now(client, change)
        if user.is_activated:
            raise ChangedSinceRead(
                "The invitation was accepted since it was read: nothing was sent."
            )
        if user.role is None:
            raise ChangedSinceRead(
                "The hub's users do not say their hub role, which the request must carry (the "
                "service requires Role): nothing was sent."
            )
        self._role_as_decided(change, user)

    def took_effect(self, change: Change, listed: Sequence[Any]) -> bool | None:
        return self._role_took(change, listed)


class _Unknown(Kind):
    """A line of another kind than these (a newer hubtui's, or a line edited by hand): shown,
    never sent, settled or put back."""

    undo = Undo.NEVER

    async def plan(self, client: HubClient, change: Change) -> ChangeRequest:
        raise ChangedSinceRead(f"hubtui does not know how to send {change.action!r}.")

    async def request(self, client: HubClient, change: Change) -> None:
        raise ChangedSinceRead(f"hubtui does not know how to send {change.action!r}.")


#: Every kind of change, in the order a preview counts them.
KINDS: tuple[Kind, ...] = (
    ProjectAdd(),
    ProjectUpdate(),
    HubRemoval(),
    HubInvitation(),
    HubRole(),
    InvitationResend(),
)
_BY_ACTION: dict[str, Kind] = {kind.action.value: kind for kind in KINDS}
_UNKNOWN = _Unknown()


def kind_of(change: Change) -> Kind:
    """The kind of ``change``, by what it does (a kind hubtui does not know: one that is shown
    but never sent)."""
    return _BY_ACTION.get(change.action, _UNKNOWN)
