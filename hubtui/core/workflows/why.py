"""A ticket answered: why this person can, or cannot, get in. One use case for ``hubtui why``
and the app's ``W`` and palette: the scope, the project a text names, the answers (each with
what hubtui keeps of the person), since when, which account leads, and how it ended. The front
finds a hub by name and chooses among several projects; it decides nothing else.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING

from hubtui.core.access import email_problem, person_key
from hubtui.core.changes.history import changes_of_person
from hubtui.core.people.advice import Former, ReviewNote
from hubtui.core.people.why import (
    Answer,
    Fact,
    Sources,
    explain,
    explain_everywhere,
    offline_note,
    project_named,
)
from hubtui.core.store import StoreError, StoreOff
from hubtui.core.workflows.keeping import snapshots_kept
from hubtui.core.workflows.ports import Front
from hubtui.text import inert

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from hubtui.api import Hub, HubClient
    from hubtui.core.store import Store
    from hubtui.core.store.server_store import ServerStore
    from hubtui.core.workspace import Workspace

__all__ = [
    "Ending",
    "Ticket",
    "answer_ticket",
    "former_accounts",
    "leading",
    "reviews_of_batches",
    "tell_since",
    "why_sources",
]


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

    @property
    def ending(self) -> Ending:
        if self.refused is not None:
            return Ending.REFUSED
        if any(answer.not_read for answer in self.answers):
            return Ending.INCOMPLETE
        if self.nobody is not None:
            return Ending.NO_PERSON
        return Ending.ANSWERED


async def answer_ticket(
    workspace: Workspace,
    client: HubClient,
    front: Front,
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
    # Checked at the door it came through: a typed address is checked here; one a row holds
    # (``account``) is the server's, shown inert and answered for that account, never refused.
    if account is None and (problem := email_problem(email)):
        ticket.refused = f"{inert(email)}: {problem}"
        return ticket
    scoped = hubs is not None or bool(hub)  # "hub NAME" in what is said, else every hub
    if hubs is None:
        hubs = [await front.find_hub(hub)] if hub else list(await client.list_hubs())
    sources = why_sources(workspace)
    typed = (project or "").strip()
    if typed:
        named = await project_named(client, hubs, typed)
        chosen = named.one
        if chosen is None:
            ticket.refused = named.words()
            if len(named.found) > 1 and named.by_name:
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
    await tell_since(workspace, ticket.answers)  # since when, from the snapshots kept
    ticket.answers = leading(ticket.answers, account)
    offline = workspace.offline
    ticket.offline = None if offline is None else offline_note(offline.last_words)
    return ticket


def leading(answers: Sequence[Answer], account: str | None) -> list[Answer]:
    """The answers with the row's account's first (in their order), then the others'."""
    if account is None:
        return list(answers)
    return sorted(answers, key=lambda a: a.user_id not in (None, account))


def why_sources(workspace: Workspace) -> Sources:
    """Where ``why`` reads what hubtui keeps of a person on this server: the change log and
    the team's trail, the snapshots of the hub's users, the reviews kept; and the
    ``inactive_after`` setting. The one way both front ends ask."""
    return Sources(
        history=partial(changes_of_person, workspace.change_log),
        formerly=partial(former_accounts, workspace),
        reviewed=partial(reviews_of_batches, workspace),
        inactive_after=workspace.settings.inactive_after,
    )


async def reviews_of_batches(
    workspace: Workspace, batches: Sequence[str], email: str
) -> dict[str, ReviewNote]:
    """The reviews kept of this server that sent these batches, each with the reason given
    for ``email`` (none where the store is off)."""
    try:
        server_store = workspace.review_store()
    except StoreOff:
        return {}
    wanted, key = set(batches), person_key(email)

    def read() -> dict[str, ReviewNote]:
        if not server_store.has_store():
            return {}
        found: dict[str, ReviewNote] = {}
        with server_store.open() as store:
            for review in store.reviews(server_store.origin, server_store.profile):
                if review.batch not in wanted:
                    continue
                rows = store.review_rows(review.id)
                row = next((r for r in rows if person_key(r.get("email")) == key), None)
                reason = "" if row is None else row.get("reason", "")
                found[review.batch] = ReviewNote(review.id, reason)
        return found

    return await asyncio.to_thread(read)


async def former_accounts(workspace: Workspace, hub_id: str, email: str) -> list[Former]:
    """The accounts this server's snapshots of the hub's users kept with ``email`` (none
    where the store is off; :class:`StoreError` where it cannot be read)."""
    from hubtui.core.history.since import former_accounts

    try:
        server_store, kept = await snapshots_kept(workspace)
    except StoreOff:
        return []
    if not kept:
        return []

    def read() -> list[Former]:
        with server_store.open() as store:
            return former_accounts(store, server_store.origin, server_store.profile, hub_id, email)

    return await asyncio.to_thread(read)


async def tell_since(workspace: Workspace, answers: Sequence[Answer]) -> None:
    """Each answer about a project told since when the person's access there is what it
    is now, and what it was before, from the snapshots kept of this server (nothing said
    where none read the project; a store that cannot be read is said, never taken as no
    snapshot)."""
    from hubtui.core.history.since import STATE_OF_VERDICT, since_words

    about = [a for a in answers if a.project_id and a.verdict_code in STATE_OF_VERDICT]
    if not about:
        return
    source = "the snapshots kept"

    def read(server_store: ServerStore) -> list[str | None]:
        with server_store.open() as store:
            return [since_of(store, server_store, answer) for answer in about]

    def since_of(store: Store, server_store: ServerStore, answer: Answer) -> str | None:
        """One answer's since; what the store kept that cannot be read is said for that
        answer alone (a row any colleague of a team store can write), never a crash."""
        try:
            return since_words(
                store,
                server_store.origin,
                server_store.profile,
                answer.hub.id,
                str(answer.project_id),
                answer.email,
                STATE_OF_VERDICT[answer.verdict_code],
                user_id=answer.account_id,
            )
        except StoreError as error:
            return f"not read ({error})"
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            return f"not read (a snapshot's row is not as hubtui keeps it: {error!r})"

    try:
        server_store, kept = await snapshots_kept(workspace)
        if not kept:
            return
        told: list[str | None] = await asyncio.to_thread(read, server_store)
    except StoreOff:
        return  # off, or offline: no snapshot to tell from, and none is claimed
    except StoreError as error:
        told = [f"not read ({error})"] * len(about)
    for answer, words in zip(about, told, strict=True):
        if words is not None:
            answer.facts.append(Fact("since", words, source))
