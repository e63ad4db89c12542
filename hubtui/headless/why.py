"""``hubtui why EMAIL [PROJECT] [--hub HUB]``: why this person can, or cannot, get into a project,
in one answer a ticket can hold (:mod:`hubtui.core.people.why`): the verdict, the facts behind
it, and the next step where the facts support one. Nothing is sent to the server but reads."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from hubtui.core.access import email_problem
from hubtui.core.people import (
    answers_text,
    explain,
    explain_everywhere,
    offline_note,
    project_named,
)
from hubtui.core.presenting.names import match_hub
from hubtui.headless.output import NOT_SENT, OK, REFUSED, Stop, with_client
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert, lookalike

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from hubtui.api import Hub, HubClient
    from hubtui.core.people.why import Answer, Sources
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    concurrency = workspace.settings.concurrency
    sources = workspace.why_sources()
    offline = workspace.offline

    def note() -> str | None:
        """Offline: when the kept lists were read, said with the answer (never only beside)."""
        return None if offline is None else offline_note(offline.last_words)

    status = asyncio.run(
        with_client(
            args,
            workspace,
            lambda client: _why(args, client, concurrency, sources, note, workspace.tell_since),
        )
    )
    if offline is not None:
        print(offline_note(offline.last_words), file=sys.stderr)
    return status


async def _why(
    args: argparse.Namespace,
    client: HubClient,
    concurrency: int,
    sources: Sources,
    note: Callable[[], str | None],
    tell_since: Callable[[Sequence[Answer]], Awaitable[None]],
) -> int:
    if problem := email_problem(args.email):
        raise Stop(NOT_SENT, f"{inert(args.email)}: {problem}")
    hubs = [await _hub_named(client, args.hub)] if args.hub else list(await client.list_hubs())
    typed = (args.project or "").strip()
    if typed:
        named = await project_named(client, hubs, typed)
        if named.one is None:
            raise Stop(NOT_SENT, named.words())
        hub, project_id = named.one
        answers = await explain(
            client,
            args.email,
            hub,
            project_id,
            sources=sources,
        )
    else:
        answers = await explain_everywhere(
            client,
            args.email,
            hubs,
            concurrency=concurrency,
            sources=sources,
        )
        if not answers:
            where = f"hub {inert(hubs[0].name)}" if args.hub else "any hub the token sees"
            raise Stop(
                NOT_SENT,
                f"{inert(args.email)} is neither a user nor in a project of {where}",
            )
    await tell_since(answers)  # since when, from the snapshots kept
    offline = note()
    if args.format == "json":
        records = [answer.as_record() | {"offline": offline} for answer in answers]
        # A named project: one object, or a list when several accounts have the address.
        one = typed and len(records) == 1
        print(json.dumps(records[0] if one else records, ensure_ascii=True, indent=2))
    else:
        # Each line made data (a server's text never steers the terminal), the lines kept.
        text = answers_text(answers)
        if offline is not None:
            text = f"{offline}\n{text}"
        print("\n".join(inert(line, limit=None) for line in text.splitlines()))
    if any(answer.not_read for answer in answers):
        return REFUSED
    if not typed and all(answer.verdict_code == "not_a_user" for answer in answers):
        # Input that names no person: said (with the hub's addresses near it), and exit 2.
        where = f"hub {inert(hubs[0].name)}" if args.hub else "any hub the token sees"
        print(
            f"hubtui: {inert(args.email)} is neither a user nor in a project of {where}",
            file=sys.stderr,
        )
        return NOT_SENT
    return OK


async def _hub_named(client: HubClient, given: str) -> Hub:
    """The hub ``--hub`` names: its Name or Id, else the one hub displayed under exactly that
    DisplayName (never a lookalike, never one of several); none: exit 2, naming it."""
    try:
        return await resolve_hub(client, given)
    except Stop as stop:
        found = match_hub(await client.list_hubs(), given)
        hub = found.offer if found.by_display_name else None
        shown = None if hub is None else hub.display_name
        if hub is None or shown != given.strip() or lookalike(shown or "") is not None:
            raise Stop(NOT_SENT, stop.message) from None
        print(
            f"hubtui: “{inert(given)}” is the DisplayName of hub {inert(hub.name)}: answering "
            "for that hub.",
            file=sys.stderr,
        )
        return hub


__all__ = ["main"]
