"""``hubtui why EMAIL [PROJECT] [--hub HUB]``: why this person can, or cannot, get into a project,
in one answer a ticket can hold (:mod:`hubtui.core.people.why`): the verdict, the facts behind
it, and the next step where the facts support one. Nothing is sent to the server but reads."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from hubtui.core.people import answers_text, offline_note
from hubtui.core.workflows.why import Ending, answer_ticket
from hubtui.headless.front import CommandFront
from hubtui.headless.output import NOT_SENT, OK, REFUSED, Stop, with_client
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace

#: How a ticket ended, as the command's exit status (the README's rules).
EXIT = {
    Ending.ANSWERED: OK,
    Ending.INCOMPLETE: REFUSED,
    Ending.NO_PERSON: NOT_SENT,
    Ending.REFUSED: NOT_SENT,
}


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    status = asyncio.run(with_client(args, workspace, lambda client: _why(args, client, workspace)))
    offline = workspace.offline
    if offline is not None:
        print(offline_note(offline.last_words), file=sys.stderr)
    return status


async def _why(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    ticket = await answer_ticket(
        workspace,
        client,
        CommandFront(args, client, workspace, display_names=True),
        args.email,
        hub=args.hub,
        project=args.project,
    )
    if ticket.refused is not None:
        raise Stop(NOT_SENT, ticket.refused)
    if not ticket.answers and ticket.nobody is not None:
        raise Stop(NOT_SENT, ticket.nobody)
    if args.format == "json":
        records = [answer.as_record() | {"offline": ticket.offline} for answer in ticket.answers]
        # A named project: one object, or a list when several accounts have the address.
        one = bool((args.project or "").strip()) and len(records) == 1
        print(json.dumps(records[0] if one else records, ensure_ascii=True, indent=2))
    else:
        # Each line made data (a server's text never steers the terminal), the lines kept.
        text = answers_text(ticket.answers)
        if ticket.offline is not None:
            text = f"{ticket.offline}\n{text}"
        print("\n".join(inert(line, limit=None) for line in text.splitlines()))
    ending = ticket.ending
    if ending is Ending.NO_PERSON and ticket.nobody is not None:
        print(f"hubtui: {ticket.nobody}", file=sys.stderr)
    return EXIT[ending]


__all__ = ["main"]
