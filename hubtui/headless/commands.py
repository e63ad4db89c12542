"""The reading commands (hubs, hub, projects, users, who), each run to its answer."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

from hubtui.api import HubError
from hubtui.api.exchanges import as_curl
from hubtui.core.presenting import Column, access_cell
from hubtui.text import fold, inert

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from hubtui.api import Hub, HubClient
    from hubtui.config import Settings
    from hubtui.core.people import Finding
    from hubtui.core.workspace import Workspace

from hubtui.headless.output import (
    NOTHING,
    OK,
    REFUSED,
    StatusLine,
    Table,
    print_answer,
    with_client,
)
from hubtui.headless.tables import (
    hub_table,
    hubs_table,
    projects_table,
    resolve_hub,
    users_table,
)


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """hubs, hub, projects, users and who: read, then print in the format asked."""
    if args.command == "who" and args.history:
        from hubtui.headless.history import main as history

        return history(args, workspace)

    async def read(client: HubClient) -> int:
        if getattr(args, "curl", False):
            return await _curl(args, client)
        server = workspace.identity.server
        return print_answer(args, *await _query(args, client, workspace.settings, server))

    return asyncio.run(with_client(args, workspace, read))


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
    args: argparse.Namespace, client: HubClient, settings: Settings, server: str
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
    if command == "users" and args.format in ("json", "jsonl"):
        assert hub is not None
        return await _users_as_sent(args, client, hub)
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
            made_on=(hub.id, server),
            project_id=str(args.project),
            project_name=await _project_name(client, hub, str(args.project))
            if args.format == "csv"
            else None,
        )
        return table, OK if users else NOTHING
    return await _who(args, client, settings, hub)


async def _users_as_sent(
    args: argparse.Namespace, client: HubClient, hub: Hub
) -> tuple[Table, int]:
    """``users --format json|jsonl``: each record as the server sent it (its JSON value, never
    a model written back), read once from the bytes; ``--limited`` and ``--members`` choose by
    ``IsLimited`` as sent (neither takes a record that does not say)."""
    sent = [record.root for record in await client.list_project_users_as_sent(hub.id, args.project)]
    which = "users"
    if args.limited:
        sent, which = [r for r in sent if r.get("IsLimited") is True], "limited readers"
    elif args.members:
        sent, which = [r for r in sent if r.get("IsLimited") is False], "direct members"
    table = Table(
        (), sent, lambda record: (), list, empty=f"no {which} in project {inert(args.project)}"
    )
    return table, OK if sent else NOTHING


async def _project_name(client: HubClient, hub: Hub, project_id: str) -> str | None:
    """The project's name, for the users CSV's ``project name`` column: None (the column left
    empty) where the server cannot list the hub's projects."""
    try:
        projects = await client.list_projects(hub.id)
    except HubError:
        return None
    return next((p.name for p in projects if str(p.id) == project_id), None)


async def _who(
    args: argparse.Namespace, client: HubClient, settings: Settings, hub: Hub | None
) -> tuple[Table, int]:
    from hubtui.core.people import PersonQuery, Progress, search_people

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
    rows, records = _found_rows(findings)
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


def _found_rows(findings: Sequence[Finding]) -> tuple[list[tuple[str, ...]], list[dict[str, Any]]]:
    """Each finding as a row shown and as its JSON record, in the same order on every run
    (hub, project, person), as the app's list shows them."""
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []

    def order(finding: Finding) -> tuple[str, str, str]:
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
    return rows, records
