"""A wished change and what a preview decides of it, for every front end and every kind of row:
what one person should have in one project or in the hub (:class:`Wanted`, with what it was
decided on, :class:`Evidence`), what a list showed of them (:class:`ListedAccess`), and the step a
preview makes of it (:class:`DecidedRow`, its :class:`Verdict`). The batch engine
(``core.batches.projects``) and the hub's rows (``core.batches.hubs``) both stand on it.

Textual-free.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.changes.actions import Action
from hubtui.core.changes.record import Change
from hubtui.core.clock import now

if TYPE_CHECKING:
    from hubtui.api import ProjectUser

__all__ = [
    "Evidence",
    "Intent",
    "ListedAccess",
    "DecidedRow",
    "Verdict",
    "Wanted",
    "hub_change",
    "project_change",
]


class Intent(StrEnum):
    """What a wanted row asks for."""

    SET = "set"
    """A direct member's role and reviewer flag set (a PUT); nobody is added."""
    ADD = "add"
    """Added as a direct member (an absent person, or a limited reader made a member)."""
    MEMBER = "member"
    """A direct member with this role, however they are now (a row of a file): added or set."""
    LIMITED = "limited"
    """A limited reader, as they are (a row of a file that says so): nothing to send."""
    HUB_ROLE = "hub role"
    """A hub user's hub role set (a row of the hub, not of a project)."""
    HUB_REMOVE = "remove from hub"
    """Removed from the hub, and so from every project of it."""
    HUB_INVITE = "invite to hub"
    """Invited to the hub with a hub role (they get an email)."""


@dataclass(frozen=True)
class ListedAccess:
    """A person's access in a project, as a list showed it (``present`` False: not in it)."""

    present: bool
    limited: bool | None = None
    role: str | None = None
    reviewer: bool | None = None

    @classmethod
    def of(cls, user: ProjectUser | None) -> ListedAccess:
        if user is None:
            return cls(False)
        if user.is_limited:
            return cls(True, True)
        return cls(True, False, user.role, user.is_reviewer)

    def words(self) -> str:
        if not self.present:
            return "not in the project"
        if self.limited:
            return "a limited reader"
        reviewer = ", reviewer" if self.reviewer else ""
        return f"{self.role}{reviewer}"


@dataclass(frozen=True)
class Evidence:
    """What a decision about a person was made on (a review's, a decisions file's): read again
    before it is sent, and every fact that no longer holds refuses the row, named.

    None in a field: not known when decided, so not held against what is read now."""

    hub_role: str | None = None
    """Their hub role (``""``: not a user of the hub)."""
    activated: bool | None = None
    """Whether they had accepted the hub's invitation."""
    last_seen: str | None = None
    """Their last sign-in or activity as stamped (``2026-11-24T14:02:00Z``), ``""`` for never."""
    projects: tuple[tuple[str, str], ...] = ()
    """(project id, their access there: a role, or ``LIMITED``) for each project it was made on."""


@dataclass(frozen=True)
class Wanted:
    """What one person should have in one project."""

    hub_id: str
    hub_name: str
    project_id: str
    project_name: str | None
    email: str
    intent: Intent
    role: str | None = None
    """None: the role stays as it is (a change of the reviewer flag only)."""
    reviewer: bool | None = None
    """None: the flag stays as it is (on an add: not sent, the server's default)."""
    seen: ListedAccess | None = None
    """What the person had when this was staged (None: not known, as for a row of a file)."""
    line: int | None = None
    """The row's line in the file it came from, if any."""
    projects: tuple[tuple[str, str | None], ...] = ()
    """For a removal from the hub, the projects (id, name) the person was seen in: read again
    in the preview, to say what they lose and to keep it for the revert."""
    user_id: str | None = None
    """The account a row of the hub acts on, or the known account an add to a project acts on,
    by its user Id as read (None: the one account whose address is ``email``; several such
    accounts are then refused, naming each; for an add, an address nobody was known by)."""
    evidence: Evidence | None = None
    """What the decision was made on (a review's): each fact must still hold when it is sent."""
    note: str | None = None
    """Said in the preview beside what is sent (an add of an address nobody has in the hub)."""

    @classmethod
    def hub_removal(
        cls,
        hub_id: str,
        hub_name: str,
        email: str,
        projects: tuple[tuple[str, str | None], ...],
        *,
        line: int | None = None,
        user_id: str | None = None,
        evidence: Evidence | None = None,
    ) -> Wanted:
        """A person out of the hub; ``projects`` (id, name): where they were seen, read again in
        the preview to say what they lose and kept for the revert; ``user_id``: the account;
        ``evidence``: what the decision was made on, checked again before it is sent."""
        return cls(
            hub_id=hub_id,
            hub_name=hub_name,
            project_id="",
            project_name=None,
            email=email,
            intent=Intent.HUB_REMOVE,
            line=line,
            projects=projects,
            user_id=user_id,
            evidence=evidence,
        )

    @property
    def key(self) -> tuple[str, str, str, str]:
        """One row per account and place: the same address twice (two accounts, told apart
        by their Ids) is two rows."""
        return (self.hub_id, self.project_id, person_key(self.email), self.user_id or "")

    @property
    def of_hub(self) -> bool:
        """A row of the hub (its role, a removal, an invitation), not of a project."""
        return self.intent in (Intent.HUB_ROLE, Intent.HUB_REMOVE, Intent.HUB_INVITE)

    @property
    def where(self) -> str:
        if self.of_hub:
            return "the hub"
        return self.project_name or f"project {self.project_id}"

    def words(self) -> str:
        """What is asked, in words: ``Editor``, ``reviewer on``, ``direct member, Reader``."""
        parts = []
        if self.intent is Intent.LIMITED:
            return "a limited reader"
        if self.intent is Intent.HUB_REMOVE:
            return "removed from the hub"
        if self.intent is Intent.HUB_INVITE:
            return f"invited to the hub as {self.role}"
        if self.intent is Intent.HUB_ROLE:
            return f"hub role {self.role}"
        if self.intent is Intent.ADD:
            parts.append("direct member")
        if self.role:
            parts.append(self.role)
        if self.reviewer is not None:
            parts.append("reviewer on" if self.reviewer else "reviewer off")
        return ", ".join(parts) or "no change"


class Verdict(StrEnum):
    """What the preview says of a row."""

    SEND = "send"
    SAME = "no change"
    """Already in the wanted state: nothing to send (applying again is harmless)."""
    SKIP = "skipped"
    """hubtui will not send it; the row says why."""
    CHANGED = "changed since staged"
    """The list now differs from what it showed when the row was staged: look again."""
    NOT_READ = "not read"
    """The project's users could not be read, so nothing is sent to it."""


@dataclass(frozen=True)
class DecidedRow:
    """One wanted row, decided against the list read just now."""

    wanted: Wanted
    verdict: Verdict
    words: str
    """The difference (``Role: Reader → Editor``) or why nothing is sent."""
    change: Change | None = None
    """The change to send (a SEND only)."""
    now: ListedAccess | None = None
    """What the list shows now (None: not read)."""


def unless_read_only(step: DecidedRow, read_only: bool) -> DecidedRow:
    """In read-only mode a row that would be sent is not, and says what it would have sent:
    the one guard of every batch's rows, a project's and a hub's."""
    if step.verdict is Verdict.SEND and read_only:
        words = f"read-only mode: nothing is sent ({step.words})"
        return DecidedRow(step.wanted, Verdict.SKIP, words, now=step.now)
    return step


def hub_change(
    row: Wanted,
    action: Action,
    before: dict[str, object] | None,
    after: dict[str, object],
    user_id: str | None,
) -> Change:
    """A change of the hub's users (no project; a hub's calls have one API version)."""
    return replace(project_change(row, action, before, after, user_id, "v3"), project_id="")


def project_change(
    row: Wanted,
    action: Action,
    before: dict[str, object] | None,
    after: dict[str, object],
    user_id: str | None,
    api_version: str,
) -> Change:
    return Change(
        time=now(),
        action=action,
        hub_id=row.hub_id,
        hub_name=row.hub_name,
        project_id=row.project_id,
        project_name=row.project_name,
        user_id=user_id,
        email=row.email,
        before=before,
        after=after,
        outcome="",
        api_version=api_version,
    )
