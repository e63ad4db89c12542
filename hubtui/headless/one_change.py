"""add-user and set-role: the same reads and refusals as the app's form, sent the one way."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hubtui.api.errors import HubError
from hubtui.api.exchanges import as_curl
from hubtui.core.access import account_of, email_problem, find_person
from hubtui.core.workflows.engine import (
    ChangedSinceRead,
    ChangeLog,
    ChangeLogError,
    EarlierAddUnknown,
    Intent,
    Outcome,
    Wanted,
)
from hubtui.core.workflows.one_change import OneChange, ReadOnly, one_change
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import HubClient, ProjectUser
    from hubtui.core.workspace import Workspace

from hubtui.headless.front import read_only_words, said_yes
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    UNKNOWN_OUTCOME,
    Stop,
    with_client,
)
from hubtui.headless.tables import resolve_hub


def _check_unknown_adds(
    log: ChangeLog, hub_id: str, project_id: str, users: Sequence[ProjectUser], *, dry_run: bool
) -> None:
    """Adds to this project that an earlier run left unknown are settled from the list just
    read (found: the add reached the server), and logged so, before anything is sent again:
    an add is never sent twice. A dry run says what it would log."""
    taken = log.take_in_unknown_adds(hub_id, project_id)
    if not taken:
        return
    members = [u.user.email or "" for u in users if u.is_direct_member]
    if dry_run:
        for change, checked in log.settling(hub_id, project_id, members):
            print(
                f"An earlier add of {inert(change.email)} (outcome unknown, {change.time}) would "
                f"be logged as checked: {checked}.",
                file=sys.stderr,
            )
        return
    for change in log.settle_adds(hub_id, project_id, members):
        print(
            f"An earlier add of {inert(change.email)} (outcome unknown) is now checked against "
            f"the list: {change.checked}. {inert(change.detail)}",
            file=sys.stderr,
        )


async def change_command(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """add-user and set-role: the same reads and refusals whether sent or a dry run (the one
    use case, :mod:`hubtui.core.workflows.one_change`, decides and sends; this asks and says)."""
    adding = args.command == "add-user"
    email = args.email
    if adding:
        problem = email_problem(email)
        if problem:
            raise Stop(NOT_SENT, f"“{inert(email)}”: {problem} Nothing was sent.")
    hub = await resolve_hub(client, args.hub)
    users = await client.list_project_users(hub.id, args.project)
    user = find_person(users, email)
    wish = Wanted(
        hub.id,
        hub.name,
        str(args.project),
        None,
        email,
        Intent.ADD if adding else Intent.SET,
        role=args.role,
        reviewer=args.reviewer,
        user_id=await _known_account(client, hub.id, email) if adding and user is None else None,
    )
    try:  # read-only refuses before anything is settled, asked or sent
        one = one_change(wish, user, api_version=client.api_version, read_only=workspace.read_only)
    except ReadOnly:
        raise Stop(NOT_SENT, read_only_words(args)) from None
    log = workspace.change_log
    _check_unknown_adds(log, hub.id, str(args.project), users, dry_run=args.dry_run or args.curl)
    where = f"project {inert(args.project)} of hub {inert(hub.name)}"
    _refuse_who_is_not(adding, email, user, where)
    if one.so_already:
        print("Nothing to change, so nothing was sent.", file=sys.stderr)
        return OK
    change = one.change
    if change is None:
        raise Stop(NOT_SENT, f"{inert(email)} in {where}: {inert(one.words)}. Nothing was sent.")
    # The preview is the answer (stdout), but for --curl, whose answer is the command alone.
    preview = sys.stderr if args.curl else sys.stdout
    print(f"{change.action} {inert(email)} in {where}: {inert(change.summary)}", file=preview)
    if args.curl or args.dry_run:
        await _not_sent(args, client, one)
        return OK
    if not args.yes:
        if not sys.stdin.isatty():
            raise Stop(NOT_SENT, "not asking without a terminal: add --yes to send the change.")
        if not await said_yes("Send this change? [y/N] "):
            print("Nothing was sent.", file=sys.stderr)
            return NOT_SENT
    return await _sent(client, log, one)


def _refuse_who_is_not(adding: bool, email: str, user: ProjectUser | None, where: str) -> None:
    """Refused when the person is not who the command changes: a member added again, someone
    not in the project, a limited reader given a role (a limited reader added is said)."""
    if adding and user is not None and user.is_direct_member:
        raise Stop(
            NOT_SENT,
            f"{inert(email)} is already a member of {where} as {inert(user.role)}: there "
            "is nobody to add. Change their role with: hubtui set-role",
        )
    if not adding and user is None:
        raise Stop(NOTHING, f"{inert(email)} is not in {where}.")
    if not adding and user is not None and user.is_limited:
        raise Stop(
            NOT_SENT,
            f"{inert(email)} is a limited reader, not a member: there is no role to "
            "change. Add them as a member with: hubtui add-user",
        )
    if adding and user is not None and user.is_limited:
        print(
            f"{inert(email)} is a limited reader of this project: the add makes them a "
            "direct member.",
            file=sys.stderr,
        )


async def _not_sent(args: argparse.Namespace, client: HubClient, one: OneChange) -> None:
    """``--curl``: the command that would send it; a dry run: exactly the request."""
    if args.curl:
        print(as_curl(client.planned_exchange(await one.plan(client))))
        print("(nothing was sent)", file=sys.stderr)
        return
    request = await one.plan(client)
    print(  # the dry run's answer: exactly the request, on stdout
        f"Would send: {request.method} {inert(request.url, limit=None)}\n"
        f"{inert(json.dumps(request.body, ensure_ascii=False), limit=None)}"
    )
    print("(dry run: nothing was sent)", file=sys.stderr)


async def _sent(client: HubClient, log: ChangeLog, one: OneChange) -> int:
    """The change sent once, the one way, and how it ended said."""
    try:
        sent = await one.send(client, log)
    except (ChangeLogError, EarlierAddUnknown, ChangedSinceRead) as error:
        raise Stop(NOT_SENT, f"{inert(str(error), limit=None)} Nothing was sent.") from None
    if sent.error is not None:
        print(inert(str(sent.error), limit=1000), file=sys.stderr)
    if sent.outcome == Outcome.DONE:
        if sent.user is not None:
            print(f"Done: {inert(one.wish.email)} is {inert(sent.user.role)}.", file=sys.stderr)
        if one.revertible:  # an add is not: nobody leaves a project through the API
            print(f"({command_line('revert', sent.change.batch)} puts it back)", file=sys.stderr)
        return OK
    return REFUSED if sent.outcome == Outcome.FAILED else UNKNOWN_OUTCOME


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """add-user and set-role."""
    return asyncio.run(
        with_client(args, workspace, lambda client: change_command(args, client, workspace))
    )


async def _known_account(client: HubClient, hub_id: str, email: str) -> str | None:
    """The account of the hub with this address, by its Id (None: none, several, or the hub's
    users not read): an add of it is sent only while that account still has the address."""
    try:
        found = account_of(await client.list_hub_users(hub_id), email, None)
    except HubError:
        return None
    return None if found is None else str(found.user.id)
