"""The commands: their arguments, and each one run to its answer."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from hubtui.api.exchanges import as_curl
from hubtui.core.layout import Column
from hubtui.core.text import fold, inert
from hubtui.core.words import access_cell, size_words

if TYPE_CHECKING:
    import argparse

    from hubtui.api import Hub, HubClient
    from hubtui.api.exchanges import Exchange
    from hubtui.config import Settings

from hubtui.headless.batch import add_batch_commands, apply_command, revert_command
from hubtui.headless.changes import change_command
from hubtui.headless.history import (
    add_history_commands,
    diff_command,
    diff_files,
    file_pair,
    snapshot_command,
    store_command,
    who_history,
)
from hubtui.headless.output import (
    BROKEN_PIPE,
    EXIT_STATUSES,
    FORMATS,
    INTERRUPTED,
    NOTHING,
    OK,
    REFUSED,
    StatusLine,
    Stop,
    Table,
    print_table,
)
from hubtui.headless.tables import (
    hub_table,
    hubs_table,
    projects_table,
    resolve_hub,
    users_table,
)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The headless sub-commands, beside the app's own."""

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = commands.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_STATUSES, allow_abbrev=False
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="table on a terminal, jsonl when piped (JSON keeps the API's field names)",
        )
        verbose(parser)
        return parser

    def verbose(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--verbose",
            action="store_true",
            help="print each request and its answer to stderr (the token never), stdout unchanged",
        )

    def curl(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument(
            "--curl",
            action="store_true",
            help="print the list's request as a curl command (token from $HUBTUI_TOKEN) and do "
            "not send it (a hub given by Name is looked up first, for its address)",
        )
        return parser

    curl(command("hubs", "list every hub: Name (URL name) and DisplayName"))
    command("hub", "one hub by its Name or Id").add_argument("hub", metavar="HUB")
    curl(command("projects", "a hub's projects")).add_argument("hub", metavar="HUB")
    users = curl(command("users", "a project's users: members and limited readers"))
    users.add_argument("hub", metavar="HUB")
    users.add_argument("project", metavar="PROJECT", help="the project's id")
    only = users.add_mutually_exclusive_group()
    only.add_argument("--limited", action="store_true", help="only limited readers")
    only.add_argument("--members", action="store_true", help="only direct members")
    who = command(
        "who",
        "find a person (email, @domain or name) in every project. Exit status 0: every project "
        "read and someone found; 1: every project read and nobody found; 3: a project could "
        "not be read, whatever was found (the output lists it)",
    )
    who.add_argument("query", metavar="QUERY")
    who.add_argument("--hub", help="search only this hub (Name or Id)")
    who.add_argument(
        "--history",
        action="store_true",
        help="the person's access in each snapshot kept (hubtui snapshot), oldest first",
    )
    for name, help_text in (
        ("add-user", "add a user to a project as a direct member"),
        ("set-role", "change a direct member's role"),
    ):
        change = commands.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_STATUSES, allow_abbrev=False
        )
        change.add_argument("hub", metavar="HUB")
        change.add_argument("project", metavar="PROJECT")
        change.add_argument("email", metavar="EMAIL")
        change.add_argument("role", metavar="ROLE", type=_role, help="Reader, Editor or Admin")
        change.add_argument("--reviewer", action="store_true", default=None, help="as a reviewer")
        change.add_argument("--yes", action="store_true", help="send without asking")
        change.add_argument(
            "--dry-run", action="store_true", help="print what would be sent; send nothing"
        )
        change.add_argument(
            "--curl",
            action="store_true",
            help="print the change as a curl command (token from $HUBTUI_TOKEN); send nothing",
        )
        verbose(change)

    add_history_commands(commands, command)
    add_batch_commands(commands)


HEADLESS = frozenset(
    {
        "hubs",
        "hub",
        "projects",
        "users",
        "who",
        "add-user",
        "set-role",
        "apply",
        "revert",
        "snapshot",
        "diff",
        "store",
    }
)


def run(
    args: argparse.Namespace,
    connect: Callable[[], HubClient],
    settings: Settings,
    server_label: str,
    last_week: Callable[[], HubClient] | None = None,
) -> int:
    """Run one headless command; its exit status. ``last_week``: the demo's API as it was a
    week ago (under ``--demo``), whose snapshot starts the demo's store."""
    try:
        if args.command == "store":
            return store_command(args, settings, args.demo)
        if file_pair(args):
            return _print(args, *diff_files(args))
        return asyncio.run(_run(args, connect, settings, server_label, last_week))
    except Stop as stop:
        print(f"hubtui: {stop.message}", file=sys.stderr)
        return stop.status
    except KeyboardInterrupt:
        print("\nhubtui: stopped.", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # Whatever is still buffered goes nowhere, quietly, instead of a traceback at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE


async def _run(
    args: argparse.Namespace,
    connect: Callable[[], HubClient],
    settings: Settings,
    server_label: str,
    last_week: Callable[[], HubClient] | None = None,
) -> int:
    from hubtui.api import HubError, NotFoundError

    client = connect()
    if getattr(args, "verbose", False):
        client.exchanges.listeners.append(print_exchange)
    async with client:
        try:
            if args.command in ("add-user", "set-role"):
                return await change_command(args, client, settings, server_label)
            if args.command == "apply":
                return await apply_command(args, client, settings, server_label)
            if args.command == "revert":
                return await revert_command(args, client, settings, server_label)
            if getattr(args, "curl", False):
                return await _curl(args, client)
            if args.command == "snapshot":
                return await snapshot_command(args, client, settings, args.demo, last_week)
            if args.command == "diff":
                table, status = await diff_command(args, client, settings, args.demo, last_week)
            elif args.command == "who" and args.history:
                table, status = await who_history(args, settings, args.demo, last_week)
            else:
                table, status = await _query(args, client, settings)
        except NotFoundError as error:
            raise Stop(NOTHING, inert(str(error), limit=1000)) from None
        except HubError as error:
            raise Stop(REFUSED, inert(str(error), limit=1000)) from None
    return _print(args, table, status)


def _print(args: argparse.Namespace, table: Table, status: int) -> int:
    fmt = args.format or ("table" if sys.stdout.isatty() else "jsonl")
    if not table.items:  # said on stderr whatever the streams are: stdout keeps the format
        print(f"hubtui: {table.empty}.", file=sys.stderr)
    print_table(table, fmt, sys.stdout)
    return status


def print_exchange(exchange: Exchange) -> None:
    """``> GET https://…`` then ``< 200 OK 35 ms 2.1 KB``, on stderr, every value inert."""
    retry = f" (retry {exchange.attempt})" if exchange.attempt else ""
    print(f"> {exchange.method} {inert(exchange.url, limit=None)}{retry}", file=sys.stderr)
    took = f"{exchange.seconds * 1000:.0f} ms"
    if exchange.status is None:
        print(f"< no answer after {took}: {inert(exchange.error)}", file=sys.stderr)
        return
    said = inert(f"{exchange.status} {exchange.reason}".strip())
    print(f"< {said} {took} {size_words(exchange.response_size)} [{exchange.id}]", file=sys.stderr)


async def _curl(args: argparse.Namespace, client: HubClient) -> int:
    """The list a read command would ask for, as a curl command; that request is not sent."""
    hub = None if args.command == "hubs" else await resolve_hub(client, args.hub)
    project = args.project if args.command == "users" else None
    request = await client.plan_list(None if hub is None else hub.id, project)
    print(as_curl(request))
    looked_up = "" if hub is None else f" (hub {inert(hub.name)} was looked up for its address)"
    print(f"(the list was not read{looked_up})", file=sys.stderr)
    return OK


async def _query(
    args: argparse.Namespace, client: HubClient, settings: Settings
) -> tuple[Table, int]:
    command = args.command
    if command == "hubs":
        hubs = await client.list_hubs()
        return hubs_table(hubs), OK if hubs else NOTHING
    hub = await resolve_hub(client, args.hub) if command != "who" or args.hub else None
    if command == "hub":
        assert hub is not None
        return await hub_table(client, hub), OK
    if command == "projects":
        assert hub is not None
        projects = await client.list_projects(hub.id)
        table = projects_table(projects, f"no projects in hub {inert(hub.name)}")
        return table, OK if projects else NOTHING
    if command == "users":
        assert hub is not None
        users = list(await client.list_project_users(hub.id, args.project))
        which = "users"
        if args.limited:
            users, which = [u for u in users if u.is_limited], "limited readers"
        elif args.members:
            users, which = [u for u in users if u.is_direct_member], "direct members"
        table = users_table(
            users,
            f"no {which} in project {inert(args.project)}",
            hub_name=hub.name,
            project_id=str(args.project),
            project_name=await _project_name(client, hub, str(args.project))
            if args.format == "csv"
            else None,
        )
        return table, OK if users else NOTHING
    return await _who(args, client, settings, hub)


def _role(text: str) -> str:
    """A role typed in any case, as the server spells it (the rule of batch files too)."""
    import argparse

    from hubtui.core.roles import ROLES, role_named

    role = role_named(text)
    if role is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(ROLES)}")
    return role


async def _project_name(client: HubClient, hub: Hub, project_id: str) -> str | None:
    """The project's name, for the users CSV's ``project name`` column: None (the column left
    empty) where the server cannot list the hub's projects."""
    from hubtui.api import HubError

    try:
        projects = await client.list_projects(hub.id)
    except HubError:
        return None
    return next((p.name for p in projects if str(p.id) == project_id), None)


async def _who(
    args: argparse.Namespace, client: HubClient, settings: Settings, hub: Hub | None
) -> tuple[Table, int]:
    from hubtui.core.people import Finding, PersonQuery, Progress, search_people

    hubs = [hub] if hub is not None else list(await client.list_hubs())
    findings: list[Finding] = []
    query = PersonQuery(args.query)
    status = StatusLine()

    def progressed(progress: Progress) -> None:
        status.say(progress.line())

    progress = await search_people(
        client,
        query,
        hubs,
        on_finding=findings.append,
        on_progress=progressed,
        concurrency=settings.concurrency,
        deadline=settings.search_deadline,
    )
    status.clear()
    print(inert(progress.summary(query, findings), limit=None), file=sys.stderr)
    rows, records = [], []

    def order(finding: Finding) -> tuple[str, str, str]:
        """Hub, project, person: the same order on every run, as the app's list shows them."""
        project = finding.project
        email = finding.user.user.email if finding.user is not None else None
        return (fold(finding.hub.name), fold(project.name if project else ""), fold(email or ""))

    for finding in sorted(findings, key=order):
        project = finding.project
        where = inert(project.name) if project else "(its projects)"
        base = {
            "Hub": finding.hub.name,
            "HubDisplayName": finding.hub.display_name,
            "Project": project.as_sent() if project else None,
        }
        if finding.error is not None:
            why = inert(str(finding.error), limit=300)
            rows.append((inert(finding.hub.name), where, "", "", "NOT READ", "", why))
            records.append({**base, "Error": str(finding.error)})
        elif finding.user is not None:
            user = finding.user
            # As the app's search says it: the role of a member, the domain of a limited reader.
            access = access_cell(user) if user.is_limited is not False else inert(user.role)
            rows.append(
                (
                    inert(finding.hub.name),
                    where,
                    inert(user.user.full_name or ""),
                    inert(user.user.email or ""),
                    access,
                    inert(user.role),
                    "",
                )
            )
            records.append({**base, "User": user.as_sent()})
    table = Table(
        (
            Column("hub", "Hub", min_width=12, keep=True),
            Column("project", "Project", min_width=14),
            Column("name", "Name", min_width=12, priority=2),
            Column("email", "Email", min_width=18, keep=True),
            Column("access", "Access", min_width=8, meaning=True),
            Column("role", "Role", min_width=6, priority=1),
            Column("reason", "not_read_reason", min_width=16),
        ),
        list(zip(rows, records, strict=True)),
        lambda pair: pair[0],
        lambda pairs: [pair[1] for pair in pairs],
        empty=f"nobody matched {inert(args.query)}",
        note=6,
    )
    # Completeness first: an answer with a project not read is not the whole answer.
    if any(finding.failed for finding in findings):
        return table, REFUSED
    return table, OK if progress.matches else NOTHING
