"""A hub looked up as the app's `g` does, and the tables of hubs, a hub, projects and users."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hubtui.api import HubError, InvalidResponseError, NotFoundError
from hubtui.core.presenting import (
    LOOKALIKE_MARK,
    Cell,
    Column,
    access_cell,
    display_name_cell,
    hub_facts,
    lookalike_words,
    match_hub,
    role_cell,
)
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project, ProjectUser

from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    Stop,
    Table,
    aligned,
    dump_models,
    model_lines,
)


def id_column(label: str = "Id", priority: int = 0) -> Column:
    # Never cut: its width is set to its longest value when the table is laid out.
    return Column("id", label, min_width=len(label), keep=True, priority=priority)


def _display_name_words(hub: Hub) -> tuple[str, str]:
    """The DisplayName cell (the app's own, :func:`display_name_cell`) and the Names note."""
    note = "differs" if hub.display_name_sent and hub.has_custom_display_name else ""
    if lookalike_words(hub):
        note = f"{note} {LOOKALIKE_MARK}lookalike".strip()
    return display_name_cell(hub), note


def hubs_table(hubs: Sequence[Hub]) -> Table:
    def row(hub: Hub) -> tuple[str, ...]:
        shown, note = _display_name_words(hub)
        return (
            inert(hub.name),
            shown,
            note,
            inert(hub.region_name or ""),
            "" if hub.number_of_users is None else str(hub.number_of_users),
            "" if hub.number_of_projects is None else str(hub.number_of_projects),
            inert(hub.id),
        )

    def dump(items: Sequence[Hub]) -> list[dict[str, Any]]:
        records = dump_models(items)
        for hub, record in zip(items, records, strict=True):
            why = lookalike_words(hub)
            if why:  # hubtui's own word, named as such beside the fields the server sent
                record["hubtui_lookalike"] = why
        return records

    def cells(hub: Hub) -> tuple[Cell, ...]:
        # Values only: the DisplayName as sent (empty when not sent), and whether it was.
        return (
            hub.name,
            hub.display_name if hub.display_name_sent else "",
            hub.display_name_sent,
            hub.has_custom_display_name,
            lookalike_words(hub) or "",
            hub.region_name or "",
            hub.number_of_users,
            hub.number_of_projects,
            hub.id,
        )

    csv_columns = (
        "Name (URL name)",
        "DisplayName",
        "DisplayName sent",
        "DisplayName differs",
        "Lookalike",
        "Region",
        "Users",
        "Projects",
        "Id",
    )
    return Table(
        (
            Column("name", "Name (URL name)", min_width=18, keep=True),
            Column("display_name", "DisplayName", min_width=24),
            Column("names", "Names", min_width=7),
            Column("region", "Region", min_width=7, priority=3),
            Column("users", "Users", width=5, numeric=True, priority=4),
            Column("projects", "Projects", width=8, numeric=True, priority=4),
            id_column(priority=5),  # left out first (and said), before the DisplayName is cut
        ),
        hubs,
        row,
        dump,
        empty="no hubs",
        csv=(csv_columns, cells),
    )


async def hub_table(client: HubClient, hub: Hub) -> Table:
    """One hub: the facts the hub detail screen shows, then its projects (on a terminal)."""
    shown, note = _display_name_words(hub)
    facts = [
        ("Name", f"{inert(hub.name)}  (URL name: in links; what 'hubtui hub' matches)"),
        ("DisplayName", f"{shown}  ({note or 'as shown'}; never used to look up)"),
        *hub_facts(hub, client.regional_route(hub)),
    ]
    why = lookalike_words(hub)
    if why:
        facts.append(("Lookalike", inert(why, limit=None)))
    lines = [f"{label:<13} {words}" for label, words in facts]
    try:
        projects = await client.list_projects(hub.id)
    except HubError as error:
        lines.append(f"\nProjects: not read ({inert(str(error), limit=300)})")
    else:
        listed = projects_table(projects, "no projects")
        width = shutil.get_terminal_size().columns
        lines.append(f"\nProjects ({len(projects)}):")
        lines.append(aligned(listed, width)[0].rstrip("\n") if projects else "(none)")
    # The hubs table, its CSV columns and JSON included, with the facts above it on a terminal.
    return replace(hubs_table([hub]), before="\n".join(lines) + "\n")


def projects_table(projects: Sequence[Project], empty: str) -> Table:
    return Table(
        (
            Column("name", "Name", min_width=18),
            Column("access", "Access", min_width=7),
            Column("status", "Status", min_width=6, priority=1),
            id_column(),
            Column("number", "Number", min_width=6, priority=3),
        ),
        projects,
        lambda p: (
            inert(p.name),
            inert(p.project_access or ""),
            inert(p.project_status or ""),
            str(p.id),
            inert(p.number or ""),
        ),
        dump_models,
        empty=empty,
    )


def users_table(
    users: Sequence[ProjectUser],
    empty: str,
    *,
    hub_name: str = "",
    project_id: str = "",
    project_name: str | None = None,
    made_on: tuple[str, str] = ("", ""),
) -> Table:
    """A project's users; as CSV, the columns ``hubtui apply`` reads back first, and where it
    was made (``made_on``: the hub's Id and the server)."""
    from hubtui.core.workflows.engine import USERS_CSV_COLUMNS, users_csv_cells

    def row(u: ProjectUser) -> tuple[str, ...]:
        return (
            inert(u.user.full_name or u.user.user_name or ""),
            inert(u.user.email or ""),
            role_cell(u),
            access_cell(u),
            "yes" if u.is_reviewer else "",
            ", ".join(inert(t.name or "") for t in u.teams or []),
            str(u.user.id),
        )

    return Table(
        (
            Column("name", "Name", min_width=12),
            Column("email", "Email", min_width=18, keep=True),
            Column("role", "Role", min_width=6),
            Column("access", "Access", min_width=8, meaning=True),
            Column("reviewer", "Reviewer", width=8, priority=3, boolean=True),
            Column("teams", "Teams", min_width=6, priority=4),
            id_column(),
        ),
        users,
        row,
        dump_models,
        empty=empty,
        lines=model_lines,
        csv=(
            USERS_CSV_COLUMNS,
            lambda u: users_csv_cells(hub_name, project_id, project_name, u, made_on=made_on),
        ),
    )


async def resolve_hub(client: HubClient, given: str) -> Hub:
    """A hub by its exact Name (URL name) or Id; anything nearer is named, never taken
    (:func:`hubtui.core.presenting.names.match_hub`, the app's rule too)."""
    # By Name and by Id both: a value that is one hub's Id and another's Name names neither.
    by_name, by_id = await asyncio.gather(
        client.get_hub_by_name(given), client.get_hub(given), return_exceptions=True
    )
    looked: list[Hub] = []
    for answer in (by_name, by_id):
        if isinstance(answer, NotFoundError | InvalidResponseError):
            continue  # not found, or an answer not understood (no Id): the list says
        if isinstance(answer, HubError):
            # A server that refuses a Name as an Id (400) still answered by Name.
            if answer is by_id and not isinstance(by_name, BaseException):
                continue
            raise answer
        if isinstance(answer, BaseException):
            raise answer
        looked.append(answer)
    # A server that matched loosely is not taken at its word.
    exact = [hub for hub in looked if given in (hub.name, hub.id)]
    found = match_hub(exact, given)
    if found.hub is None and not found.ambiguous:
        found = match_hub(await client.list_hubs(), given)
    if found.hub is not None:
        return found.hub
    raise Stop(NOT_SENT if found.ambiguous else NOTHING, found.words())
