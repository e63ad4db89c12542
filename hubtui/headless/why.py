"""``hubtui why EMAIL PROJECT --hub HUB``: why this person can, or cannot, get into this project,
in one answer a ticket can hold (:mod:`hubtui.core.people.why`): the verdict, the facts behind
it, and the next step where the facts support one. Nothing is sent to the server but reads."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING

from hubtui.core.emails import email_problem
from hubtui.headless.output import NOT_SENT, OK, REFUSED, Stop, with_client
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    return asyncio.run(with_client(args, workspace, lambda client: _why(args, client)))


async def _why(args: argparse.Namespace, client: HubClient) -> int:
    from hubtui.core.people.why import explain

    if problem := email_problem(args.email):
        raise Stop(NOT_SENT, f"{inert(args.email)}: {problem}")
    if not str(args.project).strip().isdigit():
        raise Stop(NOT_SENT, f"{inert(args.project)} is not a project Id (a number)")
    hub = await resolve_hub(client, args.hub)
    answer = await explain(client, args.email, hub, str(args.project).strip())
    if args.format == "json":
        print(json.dumps(answer.as_record(), ensure_ascii=True, indent=2))
    else:
        # Each line made data (a server's text never steers the terminal), the lines kept.
        print("\n".join(inert(line, limit=None) for line in answer.text().splitlines()))
    return REFUSED if answer.not_read else OK


__all__ = ["main"]
