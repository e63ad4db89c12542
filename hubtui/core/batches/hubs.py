"""A batch's rows of a hub (not of a project): a hub role, a removal from the hub, an invitation.

The batch engine decides a project's rows against the project's users read again; a hub's rows
are decided here against the hub's users read again, and a removal also against the lists of
the projects the person is in: what they lose is said before anything is sent, and kept in the
change's before-values, so that its revert puts it back (an invitation, which sends the person
an email, then each project's role and reviewer flag).

A removal from the hub ends every project membership in it (the service's rule), so a batch
sends a hub's invitations and role changes first, then the projects' rows, then the removals
(each kind's ``phase``, :mod:`hubtui.core.changes.kinds`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from hubtui.api import HubError, NotFoundError, NotKeptError
from hubtui.api.errors import not_offered
from hubtui.core.access import (
    access_cell,
    account_of,
    accounts_of,
    accounts_words,
    email_problem,
    find_person,
    person_key,
)
from hubtui.core.batches.wanted import (
    DecidedRow,
    Evidence,
    Intent,
    ListedAccess,
    Verdict,
    Wanted,
    hub_change,
    unless_read_only,
)
from hubtui.core.changes.actions import Action, Outcome
from hubtui.core.changes.record import Change
from hubtui.core.presenting.words import seen_stamp
from hubtui.core.signins import last_seen

if TYPE_CHECKING:
    from hubtui.api import HubClient, ProjectUser
    from hubtui.api.models import HubUser

__all__ = [
    "HUB_ROLES",
    "account_of",
    "accounts_of",
    "decide_hub",
    "evidence_changed",
    "read_hub_users",
    "undo_by_hub_role",
    "undo_by_invitation",
    "undo_by_removal",
]

#: The roles a person has in a hub.
HUB_ROLES = ("Guest", "Admin")

Lists = Mapping[tuple[str, str], "Sequence[ProjectUser] | HubError"]


async def read_hub_users(
    client: HubClient, hub_ids: Iterable[str]
) -> dict[str, Sequence[HubUser] | HubError]:
    """Each hub's users read again (or why they could not be)."""
    answers: dict[str, Sequence[HubUser] | HubError] = {}

    async def one(hub_id: str) -> None:
        try:
            answers[hub_id] = await client.list_hub_users(hub_id)
        except HubError as error:
            answers[hub_id] = error

    async with asyncio.TaskGroup() as group:
        for hub_id in dict.fromkeys(hub_ids):
            group.create_task(one(hub_id))
    return answers


def _not_read(users: HubError) -> str:

    if not_offered(users):
        return "this server does not offer a hub's users: nothing can be changed in the hub"
    return f"the hub's users could not be read: {users}"


def decide_hub(
    row: Wanted, users: Sequence[HubUser] | HubError, lists: Lists, read_only: bool
) -> DecidedRow:
    """A hub's row decided against the hub's users read just now (and, for a removal, the
    lists of ``row.projects`` read just now: what the person loses)."""
    problem = email_problem(row.email)
    if problem:
        return DecidedRow(row, Verdict.SKIP, problem)
    if row.intent is not Intent.HUB_REMOVE and row.role not in HUB_ROLES:
        return DecidedRow(row, Verdict.SKIP, f"a hub role must be {' or '.join(HUB_ROLES)}")
    if isinstance(users, HubError):
        return DecidedRow(row, Verdict.NOT_READ, _not_read(users))
    found = accounts_of(users, row.email)
    if row.user_id is None and len(found) > 1 and row.intent is not Intent.HUB_INVITE:
        return DecidedRow(
            row,
            Verdict.SKIP,
            f"{len(found)} accounts have this address ({accounts_words(found)}): nothing is "
            "sent until each is named by its Id",
        )
    user = account_of(users, row.email, row.user_id)
    if user is not None and person_key(user.user.email) != person_key(row.email):
        return DecidedRow(
            row,
            Verdict.CHANGED,
            f"account Id {row.user_id} is now {user.user.email or '(no email)'}, not "
            f"{row.email}: nothing is sent",
        )
    if row.intent is Intent.HUB_INVITE and found:
        user = found[0]
    change, words, verdict = _decide(row, user, lists)
    if verdict is Verdict.SEND and user is not None and row.evidence is not None:
        changed = evidence_changed(row.evidence, user, row, lists)
        if changed:
            return DecidedRow(
                row,
                Verdict.CHANGED,
                f"changed since it was decided: {'; '.join(changed)}. Nothing is sent: decide "
                "again from what they have now",
            )
    return unless_read_only(DecidedRow(row, verdict, words, change), read_only)


def _decide(row: Wanted, user: HubUser | None, lists: Lists) -> tuple[Change | None, str, Verdict]:
    if row.intent is Intent.HUB_INVITE:
        if user is not None:
            return None, f"already a user of the hub ({user.role})", Verdict.SAME
        change = hub_change(row, Action.HUB_INVITE, None, {"Role": row.role}, None)
        return change, f"invited to the hub as {row.role}: they get an email", Verdict.SEND
    if user is None:
        if row.intent is Intent.HUB_REMOVE:
            return None, "not a user of the hub", Verdict.SAME
        return None, "not a user of the hub: invite them instead", Verdict.SKIP
    user_id = str(user.user.id)
    if row.intent is Intent.HUB_ROLE:
        if user.role == row.role:
            return None, f"already {row.role} of the hub", Verdict.SAME
        before: dict[str, object] = {"Role": user.role}
        change = hub_change(row, Action.HUB_ROLE, before, {"Role": row.role}, user_id)
        return change, f"hub role: {user.role} → {row.role}", Verdict.SEND
    kept, lost, unread = _projects_lost(row, lists)
    before = {"Role": user.role, "Projects": kept}
    change = hub_change(row, Action.HUB_REMOVE, before, {"Role": None}, user_id)
    words = f"removed from the hub (was {user.role})"
    if lost:
        words += f": loses {'; '.join(lost)}"
    if unread:
        words += f" (and whatever they have in {unread} projects that could not be read)"
    return change, words, Verdict.SEND


def _projects_lost(row: Wanted, lists: Lists) -> tuple[list[dict[str, object]], list[str], int]:
    """What a removal from the hub ends, from the lists read just now: the direct memberships
    (kept in the change, for its revert), the words of each, and how many lists were unread."""
    kept: list[dict[str, object]] = []
    lost: list[str] = []
    limited: list[str] = []  # said after the roles they lose
    unread = 0
    for project_id, name in row.projects:
        users = lists.get((row.hub_id, project_id))
        if users is None or isinstance(users, HubError):
            unread += 1
            continue
        user = _member(users, row)
        where = name or f"project {project_id}"
        if user is None:
            continue
        if user.is_limited:
            limited.append(f"limited reading of {where} (through the domain: not put back)")
            continue
        reviewer = ", reviewer" if user.is_reviewer else ""
        lost.append(f"{user.role}{reviewer} in {where}")
        kept.append(
            {"Id": project_id, "Name": name, "Role": user.role, "IsReviewer": user.is_reviewer}
        )
    return kept, lost + limited, unread


def _member(users: Sequence[ProjectUser], row: Wanted) -> ProjectUser | None:
    """The row's person in a project's list: the account by its Id when the row names one."""
    if row.user_id is not None:
        return next((u for u in users if str(u.user.id) == row.user_id), None)
    return find_person(users, row.email)


def _access_now(users: Sequence[ProjectUser], row: Wanted) -> str:
    user = _member(users, row)
    return "not in it" if user is None else access_cell(user)


def evidence_changed(evidence: Evidence, user: HubUser, row: Wanted, lists: Lists) -> list[str]:
    """What no longer holds of what a decision was made on, in words (empty: all holds)."""

    changed: list[str] = []
    if evidence.hub_role is not None and evidence.hub_role != user.role:
        was = evidence.hub_role or "not a user of the hub"
        changed.append(f"hub role was {was}, now {user.role}")
    if evidence.activated is not None and evidence.activated != user.is_activated:
        words = {True: "accepted", False: "not accepted", None: "not sent"}
        changed.append(
            f"invitation was {words[evidence.activated]}, now {words[user.is_activated]}"
        )
    if evidence.last_seen is not None:
        now = seen_stamp(last_seen(user))
        if now != evidence.last_seen:
            said = {"": "never", "unknown": "unknown"}
            changed.append(
                f"last seen was {said.get(evidence.last_seen, evidence.last_seen)}, now "
                f"{said.get(now, now)}"
            )
    for project_id, was in evidence.projects:
        users = lists.get((row.hub_id, project_id))
        name = dict(row.projects).get(project_id) or f"project {project_id}"
        if isinstance(users, NotFoundError) and not isinstance(users, NotKeptError):
            # The hub no longer has it (or never had: a file made elsewhere): what the
            # decision stood on is gone, never a read to skip.
            changed.append(f"in {name} was {was}, now the hub has no such project")
            continue
        if users is None or isinstance(users, HubError):
            continue  # not read: said with what they lose
        now_access = _access_now(users, row)
        if now_access != was:
            changed.append(f"in {name} was {was}, now {now_access}")
    return changed


def _at_hub(
    change: Change, intent: Intent, role: str | None = None, *, held: bool = True
) -> Wanted:
    """A row of the hub that puts back what ``change`` did; ``held``: it carries what the change
    left (the account and the hub role), held against the server before it is sent, so a row
    whose subject changed since (a role given again) is not sent."""
    left = change.after.get("Role")
    done = change.outcome == Outcome.DONE
    evidence = Evidence(hub_role=left) if done and isinstance(left, str) else None
    return Wanted(
        hub_id=change.hub_id,
        hub_name=change.hub_name,
        project_id="",
        project_name=None,
        email=change.email or "",
        intent=intent,
        role=role,
        user_id=change.user_id if held else None,
        evidence=evidence if held else None,
    )


def undo_by_removal(change: Change) -> list[Wanted]:
    """An invitation put back: a removal, while the hub role it gave still holds."""
    return [_at_hub(change, Intent.HUB_REMOVE)]


def undo_by_hub_role(change: Change) -> list[Wanted]:
    """A hub role put back: the role before (none said: it cannot be)."""
    role = (change.before or {}).get("Role")
    return [_at_hub(change, Intent.HUB_ROLE, role)] if isinstance(role, str) else []


def undo_by_invitation(change: Change) -> list[Wanted]:
    """A removal put back: an invitation with the hub role it had (the person gets an email),
    then each project's role and reviewer flag, waiting on the invitation."""
    before = change.before or {}
    role = before.get("Role")
    if not isinstance(role, str):
        return []
    done = change.outcome == Outcome.DONE
    rows = [_at_hub(change, Intent.HUB_INVITE, role, held=False)]
    projects = before.get("Projects")
    for project in projects if isinstance(projects, list) else []:
        if not isinstance(project, dict) or not isinstance(project.get("Role"), str):
            continue
        reviewer = project.get("IsReviewer")
        rows.append(
            Wanted(
                hub_id=change.hub_id,
                hub_name=change.hub_name,
                project_id=str(project.get("Id", "")),
                project_name=project.get("Name") if isinstance(project.get("Name"), str) else None,
                email=change.email or "",
                intent=Intent.MEMBER,
                role=project["Role"],
                reviewer=reviewer if isinstance(reviewer, bool) else None,
                seen=ListedAccess(False) if done else None,  # the removal left them out of it
            )
        )
    return rows
