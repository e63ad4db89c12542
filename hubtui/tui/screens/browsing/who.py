"""`w`: find a person across every project of the hubs in scope, and why they can only read."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import ProgressBar

from hubtui.api.errors import (
    ApiConnectionError,
    ApiStatusError,
    HubError,
    InvalidResponseError,
    NotKeptError,
)
from hubtui.core.people import Finding, PersonQuery, Progress, search_people
from hubtui.core.presenting import access_cell, access_sentence
from hubtui.core.workflows.engine import Intent, ListedAccess, Wanted
from hubtui.text import inert
from hubtui.tui.messages import Offboard, OpenProject, ProjectsLoaded, UsersReadAsSent
from hubtui.tui.present import LIMITED_BADGE, hub_label, user_name
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.screens.browsing.project_users import explain_access
from hubtui.tui.screens.changes.marking import MARK_BINDINGS, Marking
from hubtui.tui.screens.people.reviewing import OFFBOARD_BINDING
from hubtui.tui.screens.people.why import WHY_BINDING, WhyScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.worker import Worker

    from hubtui.api import Hub, HubClient, Project
    from hubtui.core.presenting import Cell

WHO_COLUMNS = (
    Column("hub", "Hub (URL name)", min_width=12, priority=0, keep=True),
    Column("project", "Project", min_width=14, priority=0),
    Column("person", "Person", min_width=12, priority=2),
    Column("email", "Email", min_width=18, priority=0, keep=True),
    # The role for a member, the whitelisted domain for a limited reader: the answer itself.
    Column("access", "Access", min_width=12, priority=0, meaning=True),
    Column("reviewer", "Reviewer", width=8, priority=4, boolean=True),
    Column("teams", "Teams", min_width=8, priority=5),
)
ACCESS_COLUMN = 4


def _short_reason(error: HubError) -> str:
    if isinstance(error, NotKeptError):
        return "not kept (offline)"
    if isinstance(error, ApiStatusError):
        said = error.code or error.server_message or error.title
        return f"HTTP {error.status_code}" + (f": {said}" if said else "")
    if isinstance(error, InvalidResponseError):
        return f"unreadable answer: {error.problem}"
    if isinstance(error, ApiConnectionError):
        return error.reason
    return str(error)


def finding_row(finding: Finding) -> Row:
    hub = finding.hub
    # The URL name only: never cut, it must stay short; the access panel below names both.
    hub_cell = inert(hub.name)
    project = finding.project
    project_cell = inert(project.name) if project else "(its projects)"
    if finding.error is not None:
        return Row(
            cells=(
                hub_cell,
                project_cell,
                "—",
                inert(_short_reason(finding.error)),
                # Which project, where the row is narrow enough to cut its name.
                "NOT READ" + (f" (project {inert(str(project.id))})" if project else ""),
                "",
                "",
            ),
            tone="failed",
            badges=cell_indexes(ACCESS_COLUMN),
            group="failed",
        )
    user = finding.user
    assert user is not None
    access = access_cell(user, with_role=True)
    teams = ", ".join(inert(t.name or f"team {t.id}") for t in user.teams) if user.teams else ""
    return Row(
        cells=(
            hub_cell,
            project_cell,
            user_name(user),
            inert(user.user.email or ""),
            access,
            "yes" if user.is_reviewer else "",
            teams,
        ),
        tone="limited" if user.is_limited else None,
        badges=cell_indexes(ACCESS_COLUMN) if user.is_limited else cell_indexes(),
        group="limited" if user.is_limited else "member",
    )


def _ago(moment: float) -> str:
    minutes = int((time.monotonic() - moment) // 60)
    return "just now" if minutes < 1 else f"{minutes} min ago"


class WhoScreen(Marking, ListScreen[None]):
    """Where a person (or a domain's people) has access, streamed as each project answers."""

    STREAMS = True

    @property
    def highlighted_email(self) -> str | None:
        record = self.table.highlighted_record
        finding = None if record is None else record[1]
        return None if finding is None or finding.user is None else finding.user.user.email

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "copy", "Copy summary", tooltip="copy the summary of the findings"),
        *MARK_BINDINGS,
        OFFBOARD_BINDING,
        WHY_BINDING,
    ]
    LEGEND = (
        "ROLE (member): a direct member with that role.",
        f"{LIMITED_BADGE} @DOMAIN: a limited reader. They can only read, because that email "
        "domain is whitelisted by the hub and the project's access is Limited; they are not a "
        "member.",
        "NOT READ: the project (or the hub's project list) could not be read; the row says why. "
        "r asks every project without an answer again (those not read, and those a stopped "
        "search never asked); when all answered, r searches again without reusing lists.",
        "enter opens the project's users with the person selected; escape comes back here.",
        "escape while searching stops the search; y copies the summary for a ticket.",
    )

    def __init__(self, query: str, hubs: list[Hub], scope: str) -> None:
        super().__init__()
        self.person = PersonQuery(query)
        self.hubs = hubs
        self.scope = scope
        self.findings: list[Finding] = []
        self.progress = Progress()
        #: What the next load starts from: its progress, and whether loaded lists are reused.
        self._next = (self.progress, True)
        self._pending_rows = False

    def compose_body(self) -> ComposeResult:
        yield ProgressBar(id="who-progress", show_eta=False)
        table: RecordTable[Any] = RecordTable(WHO_COLUMNS, id="records", empty_text="No match yet.")
        # Only a row that is a person is marked: not one saying a project could not be read.
        table.markable = lambda record: record[1].user is not None
        yield table
        yield AccessPanel(id="access")

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path(f"Who: {self.person.text} in {self.scope}")
        self.load()

    @property
    def searching(self) -> bool:
        return any(w.group == "load" and w.is_running for w in self.workers)

    def load(self) -> None:
        progress = self.progress
        if progress.done and not self.searching and progress.unanswered(self.hubs):
            # r after a stop or a failure: every project without an answer is asked, the
            # unreadable and the never asked, and the search goes on counting.
            self.findings = [f for f in self.findings if not f.failed]
            self._next = (progress, True)
        else:
            self.findings = []
            self._next = (Progress(hubs_total=len(self.hubs)), not progress.done)
        super().load()

    def loading_words(self) -> str:
        return f"Searching {self.scope}…"

    def begin_loading(self) -> None:
        super().begin_loading()
        self.query_one(ProgressBar).display = True
        self.progress = self._next[0]
        self._show_findings()

    async def fetch(self, client: HubClient) -> None:
        progress, reuse = self._next
        await search_people(
            client,
            self.person,
            self.hubs,
            on_finding=self._found,
            on_progress=self._progressed,
            concurrency=self.workspace.concurrency,
            api_version=self.workspace.api_version,
            loaded=self.session.catalog.loaded_users if reuse else None,
            resume=progress,
            deadline=self.workspace.search_deadline,
            # Every list the search reads is kept, as any list read is (offline finds it).
            on_read=self._read_as_sent,
            on_listed=self._listed,
        )

    def _read_as_sent(self, hub: Hub, project: Project, sent: list[dict[str, Any]]) -> None:
        self.post_message(UsersReadAsSent(hub, project, sent))

    def _listed(self, hub: Hub, projects: Sequence[Project]) -> None:
        self.post_message(ProjectsLoaded(hub, list(projects)))

    def show_failed(self, error: HubError) -> None:
        self.show_error(error)  # the findings so far stay; the summary counts them

    def load_ended(self) -> None:
        self.query_one(ProgressBar).display = False
        super().load_ended()
        self._show_findings()

    def recover(self, worker: Worker[object], sentence: str) -> None:
        self.query_one(ProgressBar).display = False
        super().recover(worker, sentence)

    def _found(self, finding: Finding) -> None:
        self.findings.append(finding)
        if not self._pending_rows:
            # Many projects answer within one frame: show them together.
            self._pending_rows = True
            self.call_after_refresh(self._show_findings)

    def _progressed(self, progress: Progress) -> None:
        self.progress = progress
        bar = self.query_one(ProgressBar)
        bar.update(total=max(progress.projects_total, 1), progress=progress.projects_done)
        self.refresh_summary()

    def _show_findings(self) -> None:
        self._pending_rows = False
        keyed = list(enumerate(self.findings))
        self.table.set_records(
            keyed,
            lambda item: finding_row(item[1]),
            key=lambda item: str(item[0]),
        )

    def refresh_summary(self) -> None:
        progress = self.progress
        if not progress.stopped and (self.searching or not progress.done):
            text = f"Searching {self.scope}: {progress.line()}"
        else:
            text = progress.summary(self.person, self.findings)
            if progress.reused and progress.oldest_reuse is not None:
                text += (
                    f" · {progress.reused} reused from this session "
                    f"(loaded {_ago(progress.oldest_reuse)}; r searches afresh)"
                )
        if self.table.filter_text:
            text += f" · {self.table.visible_count:,} shown matching “{self.table.filter_text}”"
        if self.table.marks:
            text += f" · {self.marks_words()}"
        self.query_one(Summary).say(text)
        self._explain(self.table.highlighted_record)

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def action_why(self) -> None:
        """Why the highlighted person can, or cannot, get into the row's project."""
        record = self.table.highlighted_record
        finding = None if record is None else record[1]
        if finding is None or finding.user is None or finding.project is None:
            self.notify("No person is highlighted: W explains a person's row.", markup=False)
            return
        email = finding.user.user.email
        if not email:
            self.notify("The highlighted person has no email.", markup=False)
            return
        account = str(finding.user.user.id)  # the row's account leads
        self.app.push_screen(WhyScreen(email, [finding.hub], str(finding.project.id), account))

    def action_offboard(self) -> None:
        """The highlighted person (or the email searched for) out of every hub they are in."""
        record = self.table.highlighted_record
        user = None if record is None else record[1].user
        email = user.user.email if user is not None else None
        if not email and self.person.kind == "email":
            email = self.person.text.strip()
        if not email:
            self.notify("No person is highlighted: O offboards the highlighted one.", markup=False)
            return
        self.post_message(Offboard(email))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "offboard" and self.workspace.read_only:
            return False
        marking = self.marking_check(action, self.workspace.read_only)
        if marking is not None:
            return marking
        return super().check_action(action, parameters)

    def wanted_for(
        self,
        record: tuple[int, Finding],
        intent: Intent,
        role: str | None,
        reviewer: bool | None,
    ) -> Wanted | None:
        finding = record[1]
        user, project = finding.user, finding.project
        if user is None or project is None or not user.user.email:
            return None  # a project not read: nobody to change
        return Wanted(
            hub_id=finding.hub.id,
            hub_name=finding.hub.name,
            project_id=str(project.id),
            project_name=project.name,
            email=user.user.email,
            intent=intent,
            role=role,
            reviewer=reviewer,
            seen=ListedAccess.of(user),
        )

    def _explain(self, item: tuple[int, Finding] | None) -> None:
        panel = self.query_one(AccessPanel)
        if item is None:
            panel.explain("")
            return
        finding = item[1]
        if finding.error is not None:
            panel.explain(
                Content.assemble(
                    (" NOT READ ", "bold reverse"), " ", inert(str(finding.error), limit=600)
                )
            )
            return
        assert finding.user is not None
        # The list shows the hub's URL name; here both of its names.
        text = Content.assemble(
            f"Hub {hub_label(finding.hub)}. ", explain_access(finding.user, finding.project)
        )
        if finding.loaded_at is not None:
            text = Content.assemble(text, f" (Loaded {_ago(finding.loaded_at)}.)")
        panel.explain(text)

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        finding: Finding = event.record[1]
        if finding.project is None or finding.user is None:
            self.notify("This row has no project users to open.", severity="warning")
            return
        self.post_message(
            OpenProject(
                finding.hub, finding.project, select_user=str(finding.user.user.id), above=True
            )
        )

    def action_back(self) -> None:
        if self.searching:
            self.workers.cancel_group(self, "load")
            self.notify(
                "Search stopped; the results so far are kept (r asks the rest).", markup=False
            )
            self.progress.stopped = True
            self.progress.finished_after = self.progress.finished_after or 0.0
            self.refresh_summary()
            return
        super().action_back()

    def export_what(self) -> str:
        return f"who {self.person.text}"

    def export_table(self) -> tuple[list[str], list[list[Cell]]]:
        """As shown, but a project not read has its reason in a column of its own
        (``not_read_reason``), not in the Email column the screen borrows for it."""
        columns, rows = super().export_table()
        view = self.table.view
        email = columns.index("Email")
        for row, index in zip(rows, view.shown, strict=True):
            error = view.record(index)[1].error
            if error is not None:
                row[email] = ""
            row.append("" if error is None else inert(str(error), limit=None))
        return [*columns, "not_read_reason"], rows

    def export_context(self) -> dict[str, str]:
        return {
            "search": f"{self.person.text} in {self.scope}",
            "summary": self.progress.summary(self.person, self.findings),
        }

    def action_copy(self) -> None:
        lines = [self.progress.summary(self.person, self.findings)]
        for finding in self.findings:
            where = f"{inert(finding.hub.name)} / "
            where += inert(finding.project.name) if finding.project else "(projects)"
            if finding.error is not None:
                lines.append(
                    f"- {where}: could not be read ({inert(_short_reason(finding.error))})"
                )
            elif finding.user is not None:
                user = finding.user
                who = f"{user_name(user)} <{inert(user.user.email or '')}>"
                lines.append(f"- {where}: {who}, {access_sentence(user)}")
        self.copy_lines(lines, "summary")
