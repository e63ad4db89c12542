"""``hubtui team``: the team roster, as the command's front end of
:mod:`hubtui.core.workflows.team`. Who decides in a campaign on the team store is the database
role a person signs in as and the hub account the roster says it acts for; the store's owner
keeps the roster, and the database refuses any other role's change to it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from hubtui.core.workflows import team as use
from hubtui.core.workflows.kept import StoreError, StoreOff
from hubtui.headless.output import NOT_SENT, NOTHING, OK, StatusLine, Stop, with_client
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """team add | list | remove."""
    try:
        server_store = workspace.review_store()
    except StoreOff as off:
        raise Stop(
            NOT_SENT, f"{off} The roster lives in the team store: nothing was done."
        ) from None
    if server_store.team is None:
        raise Stop(
            NOT_SENT,
            "the team roster lives in a team store (store_url): alone, on this machine's file, "
            "the operator setting names who decides. Nothing was done.",
        )
    try:
        if args.team_command == "list":
            return _list(args, asyncio.run(use.roster_of(server_store)))
        if args.team_command == "remove":
            gone = asyncio.run(use.remove_from_roster(server_store, args.role))
            if not gone:
                raise Stop(NOTHING, f"{inert(args.role)} is not in the team roster.")
            print(f"{inert(args.role)} decides no more (was in the roster {gone:,} times).")
            return OK

        async def add(client: HubClient) -> int:
            status = StatusLine()
            found = await use.find_account(
                client, args.account, on_hub=lambda name: status.say(f"looking in hub {name}")
            )
            status.clear()
            if found is None:
                raise Stop(
                    NOTHING,
                    f"no hub the token sees has a user {inert(args.account)}: nothing was added "
                    "(a role acts for an account the server knows).",
                )
            entry = await use.add_to_roster(server_store, args.role, found, args.name)
            print(
                f"{inert(entry.role)} acts for {inert(entry.email)} (account {inert(entry.account)}"
                f") on {inert(entry.origin)}: it decides that account's rows of a campaign, and "
                "never the account's own access."
            )
            return OK

        return asyncio.run(with_client(args, workspace, add))
    except StoreError as error:
        words = inert(str(error), limit=None)
        if "permission denied" in str(error):
            words += (
                " Only the team store's owner keeps the roster: "
                + command_line("team", args.team_command, args.role)
                + " with the owner's role."
            )
        raise Stop(NOT_SENT, f"{words} Nothing was changed.") from None


def _list(args: argparse.Namespace, entries: list[use.RosterEntry]) -> int:
    if args.format == "json":
        print(json.dumps([e._asdict() for e in entries], ensure_ascii=True, indent=2))
        return OK if entries else NOTHING
    if not entries:
        print("The team roster is empty: nobody decides in a campaign yet.", file=sys.stderr)
        return NOTHING
    for e in entries:
        name = f" ({inert(e.name)})" if e.name else ""
        print(
            f"{inert(e.role)}: {inert(e.email)}{name}, account {inert(e.account)}, added "
            f"{inert(e.added)} by {inert(e.db_role)}"
        )
    return OK
