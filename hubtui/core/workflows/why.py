"""A ticket answered: why this person can, or cannot, get in. One use case for ``hubtui why``
and the app's ``W`` and palette: the scope, the project a text names, the answers (each with
what hubtui keeps of the person), since when, which account leads, and how it ended. The front
finds a hub by name and chooses among several projects; it decides nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from hubtui.core.access import email_problem
from hubtui.core.people.why import (
    Answer,
    ProjectNamed,
    explain,
    explain_everywhere,
    offline_note,
    project_named,
)
from hubtui.text import inert

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from hubtui.api import Hub, HubClient
    from hubtui.core.workspace import Workspace

__all__ = ["Ending", "Ticket", "TicketFront", "answer_ticket", "leading"]


class Ending(StrEnum):
    """How a ticket ended, by one rule for both front ends (the command's exit status)."""

    ANSWERED = "answered"
    INCOMPLETE = "incomplete"
    """Something could not be read: the answers say what (exit 3)."""
    NO_PERSON = "no person"
    """Nobody with the address in the hubs asked, no project named (exit 2)."""
    REFUSED = "refused"
    """The input names no person or no one project: :attr:`Ticket.refused` says why (exit 2)."""


@dataclass
class Ticket:
    """What a ticket came to: the answers, and what to say with them."""

    email: str
    answers: list[Answer] = field(default_factory=list)
    offline: str | None = None
    """Said with the answers read offline: when the kept lists were read."""
    refused: str | None = None
    """Why nothing was answered: a bad address, or a text that names no one project."""
    nobody: str | None = None
    """``… is neither a user nor in a project of hub acme-build``, where that is the end."""
    named: ProjectNamed | None = None
    """What the project text named, when it named several (the front may choose one)."""

    @property
    def ending(self) -> Ending:
        if self.refused is not None:
            return Ending.REFUSED
        if any(answer.not_read for answer in self.answers):
            return Ending.INCOMPLETE
        if self.nobody is not None:
            return Ending.NO_PERSON
        return Ending.ANSWERED


class TicketFront(Protocol):
    """What a ticket asks of the front that runs it."""

    async def find_hub(self, given: str) -> Hub:
        """The hub a typed name names (its Name or Id; the command also takes an exact
        DisplayName, and says so); ``LookupError`` says why none was taken."""
        ...

    def several_projects(self, named: ProjectNamed) -> None:
        """The text names several projects: the app lists them to choose from; the command
        says them (the ticket's :attr:`~Ticket.refused` words)."""


async def answer_ticket(
    workspace: Workspace,
    client: HubClient,
    front: TicketFront,
    email: str,
    *,
    hubs: Sequence[Hub] | None = None,
    hub: str | None = None,
    project: str | None = None,
    account: str | None = None,
    now: datetime | None = None,
) -> Ticket:
    """Answer for ``email``: in ``project`` (an Id, ``id:ID`` or part of a name) or every
    project where they have access; in ``hubs``, the hub ``hub`` names, or every hub the
    token sees. ``account``: the row's account, whose answers lead. A :class:`HubError`
    that stops the hub list goes up; every other failure is said in the ticket."""
    ticket = Ticket(email)
    if problem := email_problem(email):
        ticket.refused = f"{inert(email)}: {problem}"
        return ticket
    scoped = hubs is not None or bool(hub)  # "hub NAME" in what is said, else every hub
    if hubs is None:
        hubs = [await front.find_hub(hub)] if hub else list(await client.list_hubs())
    sources = workspace.why_sources()
    typed = (project or "").strip()
    if typed:
        named = await project_named(client, hubs, typed)
        chosen = named.one
        if chosen is None:
            ticket.refused = named.words()
            if len(named.found) > 1 and named.by_name:
                ticket.named = named
                front.several_projects(named)
            return ticket
        where, project_id = chosen
        ticket.answers = await explain(client, email, where, project_id, now=now, sources=sources)
    else:
        ticket.answers = await explain_everywhere(
            client,
            email,
            hubs,
            concurrency=workspace.settings.concurrency,
            now=now,
            sources=sources,
        )
        one = scoped and len(hubs) == 1
        scope = f"hub {inert(hubs[0].name)}" if one else "any hub the token sees"
        if not ticket.answers or all(a.verdict_code == "not_a_user" for a in ticket.answers):
            ticket.nobody = f"{inert(email)} is neither a user nor in a project of {scope}"
    await workspace.tell_since(ticket.answers)  # since when, from the snapshots kept
    ticket.answers = leading(ticket.answers, account)
    offline = workspace.offline
    ticket.offline = None if offline is None else offline_note(offline.last_words)
    return ticket


def leading(answers: Sequence[Answer], account: str | None) -> list[Answer]:
    """The answers with the row's account's first (in their order), then the others'."""
    if account is None:
        return list(answers)
    return sorted(answers, key=lambda a: a.user_id not in (None, account))
