"""A project's users: direct members and limited readers, and why each can do what they can."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from hubtui.api.errors import HubError
from hubtui.tui.present import (
    LIMITED_BADGE,
    UNKNOWN,
    hub_label,
    limited_cell,
    role_meaning,
    user_name,
)
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.text import inert
from hubtui.tui.widgets.chrome import Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, Project, ProjectUser

USER_COLUMNS = (
    Column("name", "Name", min_width=16, priority=0),
    Column("email", "Email", min_width=18, priority=1),
    Column("role", "Role", width=7, priority=0),
    Column("reviewer", "Reviewer", width=8, priority=3),
    Column("limited", "Limited", width=8, priority=0),
    Column("teams", "Teams", min_width=10, priority=4),
)
LIMITED_COLUMN = 4
#: What `l` cycles through: all users, direct members only, limited readers only.
GROUPS: tuple[tuple[str | None, str], ...] = (
    (None, "all users"),
    ("member", "direct members"),
    ("limited", "limited readers"),
)


class ProjectUsersScreen(ListScreen):
    """Who is in a project, and whether each is a direct member or a limited reader."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "cycle_group", "Who"),
        Binding("v", "toggle_version", "v2/v3"),
        Binding("y", "copy", "Copy"),
    ]
    LEGEND = (
        f"{LIMITED_BADGE}: a limited reader. They can only read, because their email domain is "
        "whitelisted at hub level and the project's access is Limited. They are not a direct "
        "member and have no role of their own in the project.",
        f"{UNKNOWN} (in Limited): the server did not say (it predates the IsLimited field).",
        "Role: Reader views; Editor views and changes; Admin also manages users and settings.",
        "l shows all users, only direct members, or only limited readers.",
        "v switches this screen between API v2 and v3 (same data, both supported).",
    )

    def __init__(
        self,
        hub: Hub,
        project: Project | None,
        *,
        project_id: str | None = None,
        api_version: ApiVersion = "v3",
        select_user: str | None = None,
    ) -> None:
        super().__init__()
        self.hub = hub
        self.project = project
        self.project_id = str(project.id) if project else str(project_id)
        self.api_version: ApiVersion = api_version
        self.users: list[ProjectUser] = []
        self._counts = (0, 0, 0)
        self._select_user = select_user
        self._group_index = 0

    def compose_body(self) -> ComposeResult:
        yield RecordTable(USER_COLUMNS, id="records", empty_text="This project has no users.")
        yield Static(id="access")

    @property
    def project_title(self) -> str:
        return self.project.name if self.project else f"project {self.project_id}"

    def start(self) -> None:
        self.table.can_open = False
        self.query_one(Breadcrumb).show_path(hub_label(self.hub), self.project_title)
        self.refresh_status(self.api_version)
        self.load()

    def on_screen_resume(self) -> None:
        self.refresh_status(self.api_version)

    def load(self) -> None:
        self._load()

    @work(exclusive=True, group="load", exit_on_error=False)
    async def _load(self) -> None:
        self.begin_loading()
        self.query_one(Summary).say(f"Loading users ({self.api_version})…")
        try:
            client = await self.client()
            users = await client.list_project_users(
                self.hub.id, self.project_id, api_version=self.api_version
            )
        except HubError as error:
            self.show_problem(str(error))
            self.query_one(Summary).say("Users not loaded.")
        else:
            self.users = users
            limited = sum(1 for u in users if u.is_limited)
            members = sum(1 for u in users if u.is_limited is False)
            self._counts = (members, limited, len(users) - members - limited)
            self.hub_app.catalog.add_users(self.hub, self.project, self.project_id, users)
            self.table.set_records(users, user_row, key=user_key, keep_key=self._select_user)
            self._select_user = None
            self.on_view_changed()
        finally:
            self.end_loading()

    def on_view_changed(self) -> None:
        members, limited, unknown = self._counts
        parts = [
            f"{len(self.users):,} users",
            f"{members:,} members",
            f"{limited:,} limited readers",
        ]
        if unknown:
            parts.append(f"{unknown:,} unknown")
        label = GROUPS[self._group_index][1]
        table = self.table
        shown = f"showing {label}"
        if table.filter_text:
            shown += f" matching “{table.filter_text}”"
        parts.append(f"{shown}: {table.visible_count:,}")
        if self.project and self.project.is_access_limited:
            parts.append("access Limited")
        self.query_one(Summary).say(" · ".join(parts))
        self._explain(table.highlighted_record)

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, user: ProjectUser | None) -> None:
        panel = self.query_one("#access", Static)
        panel.update(explain_access(user, self.project) if user else "")

    def action_cycle_group(self) -> None:
        self._group_index = (self._group_index + 1) % len(GROUPS)
        self.table.show_group(GROUPS[self._group_index][0])
        self.on_view_changed()

    def action_toggle_version(self) -> None:
        self.api_version = "v2" if self.api_version == "v3" else "v3"
        self.refresh_status(self.api_version)
        self.notify(f"Project users now use API {self.api_version}.", markup=False)
        self.load()

    def action_copy(self) -> None:
        user: ProjectUser | None = self.table.highlighted_record
        if user is None or not user.user.email:
            self.notify("The selected user has no email to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(user.user.email)
        self.notify(f"Copied {inert(user.user.email)}", markup=False)


def user_key(user: ProjectUser) -> str:
    return str(user.user.id)


def user_row(user: ProjectUser) -> Row:
    limited = limited_cell(user)
    teams = ", ".join([inert(t.name or f"team {t.id}") for t in user.teams]) if user.teams else ""
    if user.is_limited:
        group = "limited"
    elif user.is_limited is False:
        group = "member"
    else:
        group = "unknown"
    return Row(
        key=str(user.user.id),
        cells=(
            user_name(user),
            inert(user.user.email or ""),
            inert(user.role),
            "yes" if user.is_reviewer else "",
            limited,
            teams,
        ),
        tone="limited" if user.is_limited else None,
        badges=frozenset({LIMITED_COLUMN}) if limited else frozenset(),
        group=group,
    )


def explain_access(user: ProjectUser, project: Project | None) -> Content:
    """Why this user can do what they can in the project, in words."""
    name = user_name(user)
    domain = inert(user.user.email_domain or "unknown domain")
    if user.is_limited:
        return Content.assemble(
            (f" {LIMITED_BADGE} READER ", "bold reverse"),
            " ",
            (name, "bold"),
            f" can only read this project: their email domain {domain} is whitelisted at hub "
            "level and the project's access is Limited. ",
            ("They are not a direct member", "bold"),
            " and have no role of their own; to give them a role, add them as a member.",
        )
    role = inert(user.role)
    reviewer = " They are a reviewer." if user.is_reviewer else ""
    if user.is_limited is None:
        return Content.assemble(
            (" UNKNOWN ", "bold reverse"),
            " ",
            (name, "bold"),
            f": the server did not say whether they are a limited reader (it predates the "
            f"IsLimited field). Their role is {role}: {role_meaning(user.role)}.{reviewer}",
        )
    return Content.assemble(
        (" DIRECT MEMBER ", "bold"),
        " ",
        (name, "bold"),
        f" is a member of the project with the role {role}: {role_meaning(user.role)}.{reviewer}",
    )
