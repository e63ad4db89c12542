"""A project's users: direct members and limited readers, and why each can do what they can.

One idea: the main screen: the list, its panel, groups, API versions, the forms' outcomes
and the marking hooks.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content

from hubtui.api.errors import HubError
from hubtui.core.presenting import Cell, role_cell
from hubtui.core.workflows.engine import (
    USERS_CSV_COLUMNS,
    Intent,
    ListedAccess,
    Wanted,
    users_csv_cells,
)
from hubtui.text import inert, skipped_words
from hubtui.tui.collection import collector_paused
from hubtui.tui.messages import ShowChanges, UsersLoaded
from hubtui.tui.present import (
    ACCESS_NOT_SENT,
    LIMITED_BADGE,
    amount,
    hub_label,
    limited_cell,
    role_meaning,
    user_name,
)
from hubtui.tui.screens.base import CHANGES_SINCE, ListScreen
from hubtui.tui.screens.changes.marking import MARK_BINDINGS, Marking
from hubtui.tui.screens.changes.user_form import FormResult, Mode, UserFormScreen
from hubtui.tui.screens.people.why import WHY_BINDING, WhyScreen
from hubtui.tui.session import workspace_of
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, HubClient, Project, ProjectUser
    from hubtui.api.parsing import Records

USER_COLUMNS = (
    Column("name", "Name", min_width=12, priority=0),
    Column("email", "Email", min_width=18, priority=0, keep=True),
    Column("role", "Role", width=7, priority=0),
    Column("reviewer", "Reviewer", width=8, priority=3, boolean=True),
    Column("limited", "Limited", width=8, priority=0, boolean=True),
    Column("teams", "Teams", min_width=6, priority=4),
)
LIMITED_COLUMN = 4
#: What `l` cycles through: all users, direct members only, limited readers only.
GROUPS: tuple[tuple[str | None, str], ...] = (
    (None, "all users"),
    ("member", "direct members"),
    ("limited", "limited readers"),
)


class ProjectUsersScreen(Marking, ListScreen["Records[ProjectUser]"]):
    """Who is in a project, and whether each is a direct member or a limited reader."""

    shows_changes = True

    @property
    def scope_hub(self) -> Hub | None:
        return self.hub

    @property
    def highlighted_email(self) -> str | None:
        user: ProjectUser | None = self.table.highlighted_record
        return None if user is None else user.user.email

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", tooltip="add a person to this project, with a role"),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="change the highlighted person's role (a limited reader becomes a member)",
        ),
        Binding(
            "l", "cycle_group", "Members", tooltip="show all users, members only or limited readers"
        ),
        Binding("v", "toggle_version", "v2/v3", tooltip="switch this list between API v3 and v2"),
        CHANGES_SINCE,
        Binding("y", "copy", "Copy email", show=False, tooltip="copy the highlighted email"),
        WHY_BINDING,
        Binding(
            "c",
            "changes",
            "Change log",
            show=False,
            tooltip="the changes made in this session, and their outcome",
        ),
        *MARK_BINDINGS,
        Binding(
            "A",
            "add_people",
            "Add people",
            show=False,
            tooltip="paste emails to add, with a role (staged, previewed with b)",
        ),
    ]
    EDIT_KEYS = ("a", "e", "m", "A")
    NOUN = "user"
    LEGEND = (
        f"{LIMITED_BADGE}: a limited reader. They can only read, because their email domain is "
        "whitelisted at hub level and the project's access is Limited. They are not a direct "
        "member and have no role of their own in the project.",
        f"{ACCESS_NOT_SENT} (in Limited): the server did not say (it predates the IsLimited "
        "field).",
        "Role: Reader views; Editor views and changes; Admin also manages users and settings.",
        "l shows all users, only direct members, or only limited readers.",
        "v switches this screen between API v2 and v3 (same data, both supported).",
        "a adds a user; e changes the selected member's role, or offers to add a limited reader "
        "as a direct member. c lists the changes made in this session.",
        "space marks a row, * every row shown, - clears the marks; m changes the marked rows "
        "(role, reviewer, direct membership) and A adds pasted emails: both are staged, and b "
        "previews every staged change, read again, before it is sent.",
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
        #: How many users a large list shows while the rest is read (None: the whole list).
        self._first_shown: int | None = None
        #: What a load holds until it ends (the collector's pause, for a large list).
        self._load_pauses = ExitStack()
        self._batches_seen = 0

    def compose_body(self) -> ComposeResult:
        yield RecordTable(USER_COLUMNS, id="records", empty_text="This project has no users.")
        yield AccessPanel(id="access")

    @property
    def project_title(self) -> str:
        return self.project.name if self.project else f"project {self.project_id}"

    def start(self) -> None:
        self.table.can_open = False
        self.query_one(Breadcrumb).show_path(hub_label(self.hub), self.project_title)
        self.refresh_status()
        self.load()

    @property
    def screen_api_version(self) -> str:
        return self.api_version

    def loading_words(self) -> str:
        return f"Loading users ({self.api_version})…"

    def resumed(self) -> None:
        if self.session.batches_sent != self._batches_seen and not self.is_loading:
            self.load()  # a batch was sent since this list was read: it may be stale

    async def fetch(self, client: HubClient) -> Records[ProjectUser]:
        self._batches_seen = self.session.batches_sent
        if self.project is None:  # opened by id (from what changed, say): its name and access
            await self._find_project(client)
        return await client.list_project_users(
            self.hub.id, self.project_id, api_version=self.api_version, first=self._first_users
        )

    async def _find_project(self, client: HubClient) -> None:
        """The project this id names, from its hub's list, so that the breadcrumb names it and
        the summary says its access; a server that cannot list projects leaves the id."""
        try:
            projects = await client.list_projects(self.hub.id)
        except HubError:
            return
        found = next((p for p in projects if str(p.id) == self.project_id), None)
        if found is not None and self.is_attached:
            self.project = found
            self.query_one(Breadcrumb).show_path(hub_label(self.hub), self.project_title)

    def show_failed(self, error: HubError) -> None:
        if self._first_shown is not None:
            # The first records of a list that then failed are not kept.
            self._first_shown = None
            self.table.set_records(self.users, user_row, key=user_key)
        super().show_failed(error)

    def show_loaded(self, loaded: Records[ProjectUser]) -> None:
        self._first_shown = None
        self.users = loaded
        self._settle_unknown_adds(loaded)
        if loaded.skipped_count:
            self.show_problem(skipped_words(loaded.skipped_count, loaded.skipped), hint="")
        self._recount()
        self.post_message(UsersLoaded(self.hub, self.project, self.project_id, loaded))
        self.table.set_records(loaded, user_row, key=user_key, keep_key=self._select_user)
        self._select_user = None

    def load_ended(self) -> None:
        self._load_pauses.close()
        super().load_ended()

    def _first_users(self, users: Records[ProjectUser]) -> None:
        """A large list's first records, shown while the rest is read (not yet filterable)."""
        self._first_shown = len(users)
        # A large list: the collector waits while the rest is read (see tui/collection.py).
        self._load_pauses.enter_context(collector_paused())
        self.table.loading = False  # the rows show; the summary says the rest is on its way
        self.table.set_records(users, user_row, key=user_key, keep_key=self._select_user)

    def _settle_unknown_adds(self, users: list[ProjectUser]) -> None:
        """A fresh list is the check an add of unknown outcome waits for: log what it shows."""
        members = (u.user.email or "" for u in users if u.is_direct_member)
        for change in self.workspace.change_log.settle_adds(self.hub.id, self.project_id, members):
            self.notify(
                f"The add of {inert(change.email)} whose outcome was unknown: {change.detail}",
                markup=False,
                timeout=8,
            )

    def _recount(self) -> None:
        users = self.users
        limited = sum(1 for u in users if u.is_limited)
        members = sum(1 for u in users if u.is_direct_member)
        self._counts = (members, limited, len(users) - members - limited)

    def refresh_summary(self) -> None:
        if self._first_shown is not None:
            self.query_one(Summary).say(
                f"Reading every user… the first {self._first_shown:,} are shown; counts follow."
            )
            self._explain(self.table.highlighted_record)
            return
        members, limited, unknown = self._counts
        parts = [
            amount(len(self.users), "user"),
            amount(members, "member"),
            amount(limited, "limited reader"),
        ]
        if unknown:
            parts.append(f"{unknown:,} unknown")
        label = GROUPS[self._group_index][1]
        table = self.table
        shown = f"showing {label}"
        if table.filter_text:
            shown += f" matching “{table.filter_text}”"
        if not table.filter_complete:
            shown += " so far (indexing the rest)"
        parts.append(f"{shown}: {table.visible_count:,}")
        if self.project and self.project.is_access_limited:
            parts.append("access Limited")
        if self.table.marks:
            parts.append(self.marks_words())
        self.query_one(Summary).say(" · ".join(parts))
        self._explain(table.highlighted_record)

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, user: ProjectUser | None) -> None:
        self.query_one(AccessPanel).explain(explain_access(user, self.project) if user else "")

    def action_cycle_group(self) -> None:
        self._group_index = (self._group_index + 1) % len(GROUPS)
        self.table.show_group(GROUPS[self._group_index][0])

    def action_changes_since(self) -> None:
        self.post_message(ShowChanges(self.hub, self.project_id, scope=self.project_title))

    def action_toggle_version(self) -> None:
        self.api_version = "v2" if self.api_version == "v3" else "v3"
        self.refresh_status()
        self.notify(f"Project users now use API {self.api_version}.", markup=False)
        self.load()

    # Edits ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add", "edit", "add_people") and self.workspace.read_only:
            return False  # hidden from the footer; on_key says why
        marking = self.marking_check(action, self.workspace.read_only)
        if marking is not None:
            return marking
        return super().check_action(action, parameters)

    def wanted_for(
        self, record: ProjectUser, intent: Intent, role: str | None, reviewer: bool | None
    ) -> Wanted | None:
        if not record.user.email:
            return None
        return Wanted(
            hub_id=self.hub.id,
            hub_name=self.hub.name,
            project_id=self.project_id,
            project_name=self.project.name if self.project else None,
            email=record.user.email,
            intent=intent,
            role=role,
            reviewer=reviewer,
            seen=ListedAccess.of(record),
        )

    def export_table(self) -> tuple[list[str], list[list[Cell]]]:
        """The users shown, in the users export's columns (``hubtui users --format csv``): the
        five ``hubtui apply`` reads first, so an export edited in a spreadsheet applies."""
        project_name = self.project.name if self.project else None
        made_on = (self.hub.id, workspace_of(self.app).identity.server)
        rows = [
            list(users_csv_cells(self.hub.name, self.project_id, project_name, u, made_on=made_on))
            for u in self.table.shown_records
        ]
        return list(USERS_CSV_COLUMNS), rows

    def action_add_people(self) -> None:
        project_name = self.project.name if self.project else None
        self.add_people(self.hub, [(self.project_id, project_name)], self.project_title)

    def on_key(self, event: events.Key) -> None:
        if event.key in self.EDIT_KEYS and self.workspace.read_only:
            event.stop()
            why = (
                "Offline: the rows are stored data, and nothing is sent to the server."
                if self.workspace.offline is not None
                else "Read-only is on (--read-only, HUBTUI_READ_ONLY or read_only in the config "
                "file): changes are off."
            )
            self.notify(why, severity="warning", markup=False)

    def action_add(self) -> None:
        self._open_form(Mode.ADD, None)

    def action_edit(self) -> None:
        user: ProjectUser | None = self.table.highlighted_record
        if user is None:
            self.notify("Select a user to change first.", severity="warning", markup=False)
            return
        self._open_form(Mode.PROMOTE if user.is_limited else Mode.EDIT, user)

    def _open_form(self, mode: Mode, user: ProjectUser | None) -> None:
        form = UserFormScreen(
            mode=mode,
            hub=self.hub,
            project=self.project,
            project_id=self.project_id,
            api_version=self.api_version,
            user=user,
        )
        self.app.push_screen(form, self._form_done)

    def _form_done(self, result: FormResult | None) -> None:
        if result is None:
            return
        user = result.user
        if user is None:  # made, but not read back: the list shows it
            self.notify(result.message, markup=False)
            self.load()
            return
        key = user_key(user)
        for index, existing in enumerate(self.users):
            if user_key(existing) == key:
                self.users[index] = user
                break
        else:
            self.users.append(user)
        self._recount()
        self.post_message(UsersLoaded(self.hub, self.project, self.project_id, self.users))
        self.table.update_record(user, key=key)
        if not self.table.select_key(key):
            # The changed row is outside the current filter or group: show everyone again.
            self._group_index = 0
            self.table.show_group(None)
            self.action_back()
            self.table.select_key(key)
        self.refresh_summary()
        self.notify(result.message, markup=False)

    def export_what(self) -> str:
        return f"users {self.project_title}"

    def export_context(self) -> dict[str, str]:
        return {
            "hub Name": self.hub.name,
            "hub DisplayName": self.hub.display_name,
            "project": f"{self.project_title} (id {self.project_id})",
            "showing": GROUPS[self._group_index][1],
            "API": self.api_version,
        }

    def action_changes(self) -> None:
        from hubtui.tui.screens.changes.change_log import ChangeLogScreen

        self.app.push_screen(ChangeLogScreen(self.workspace.change_log, self.workspace.team))

    def action_why(self) -> None:
        user: ProjectUser | None = self.table.highlighted_record
        if user is None or not user.user.email:
            self.notify("No person with an email is highlighted.", severity="warning")
            return
        account = str(user.user.id)  # the row's account leads, of several with this address
        self.app.push_screen(WhyScreen(user.user.email, [self.hub], self.project_id, account))

    def action_copy(self) -> None:
        user: ProjectUser | None = self.table.highlighted_record
        if user is None or not user.user.email:
            self.notify("The selected user has no email to copy.", severity="warning")
            return
        self.copy_value(user.user.email, "email")


def user_key(user: ProjectUser) -> str:
    return str(user.user.id)


def user_row(user: ProjectUser) -> Row:
    limited = limited_cell(user)
    teams = ", ".join([inert(t.name or f"team {t.id}") for t in user.teams]) if user.teams else ""
    if user.is_limited:
        group = "limited"
    elif user.is_direct_member:
        group = "member"
    else:
        group = "unknown"
    return Row(
        cells=(
            user_name(user),
            inert(user.user.email or ""),
            # A limited reader has no role of their own (the server says Reader): say so.
            role_cell(user),
            "yes" if user.is_reviewer else "",
            limited,
            teams,
        ),
        tone="limited" if user.is_limited else None,
        badges=cell_indexes(LIMITED_COLUMN) if limited else cell_indexes(),
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
