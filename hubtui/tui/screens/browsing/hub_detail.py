"""A hub's every field, and its projects below."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static

from hubtui.api.errors import ApiStatusError, HubError
from hubtui.core.presenting import hub_facts
from hubtui.text import inert
from hubtui.tui.glyphs import NOT_EQUAL
from hubtui.tui.messages import FindPerson, OpenProject, ProjectsLoaded, ShowChanges
from hubtui.tui.present import amount, hub_label, name_warnings, when
from hubtui.tui.screens.base import CHANGES_SINCE, ListScreen
from hubtui.tui.screens.changes.marking import MARK_BINDINGS, Marking
from hubtui.tui.widgets.chrome import Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project, RegionalRoute

PROJECT_COLUMNS = (
    Column("name", "Project", min_width=18, priority=0),
    Column("access", "Access", width=9, priority=0),
    Column("status", "Status", width=10, priority=1),
    Column("id", "Id", width=7, numeric=True, priority=2),
    Column("number", "Number", width=8, priority=3),
    Column("start", "Start", width=10, priority=4),
)
#: Below this many rows the names lose their frame and the facts scroll in a short box, so the
#: breadcrumb, the counts, both names and some projects stay on screen down to 60×16.
COMPACT_BELOW_ROWS = 24
#: Statuses with which a server says it does not offer the (assumed) list-projects operation.
NO_PROJECT_LISTING = (404, 405, 501)


class ProjectIdInput(Input):
    """Where a project id is typed: digits go in; any other key is the screen's (``P``, ``w``,
    ``D``…), so that the prompt a server without a project list opens never eats them."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not (event.character or "").isdigit():
            # Not a digit: not typed (Input's own handler is skipped), and it goes on up to
            # the screen's keys.
            event.prevent_default()


class HubDetailScreen(Marking, ListScreen["list[Project] | None"]):
    """One hub: its names side by side, region, author, dates, restrictions; its projects."""

    shows_changes = True

    @property
    def scope_hub(self) -> Hub | None:
        return self.hub

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "project_by_id", "By id", tooltip="open a project by typing its id"),
        Binding("w", "who", "Who", tooltip="find a person (email, domain or name) in this hub"),
        Binding(
            "P",
            "people",
            "People",
            tooltip="everyone with access to this hub: last sign-in, what needs a look; M: the "
            "access matrix",
        ),
        Binding("y", "copy", "Copy", tooltip="copy the highlighted project's id (or the hub's)"),
        CHANGES_SINCE,
        *(b for b in MARK_BINDINGS if isinstance(b, Binding) and b.action != "change_marked"),
        Binding(
            "A",
            "add_people",
            "Add people",
            show=False,
            tooltip="paste emails to add to the marked projects (or this one), with a role",
        ),
    ]
    LEGEND = (
        "Name: the URL identifier (lowercase, DNS-safe). Links and 'go to URL name' match it.",
        "DisplayName: chosen by the hub's owner; equals Name when the owner set none.",
        "Limited (access, highlighted): whitelisted hub users can read the project as limited "
        "readers without being members.",
        "Regional API: where this hub's project and user calls go, if hubtui trusts it.",
        "p opens a project by typing its id (for servers that cannot list projects).",
        "space marks a project, * every one shown, - clears the marks; A adds pasted emails to "
        "the marked projects (or the highlighted one), staged: b previews them.",
    )
    NOUN = "project"

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self.projects: dict[str, Project] = {}
        self._route: RegionalRoute | None = None
        #: Whether the hub itself could not be read (its region is then not being checked).
        self._hub_failed = False
        self._compact = False

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="hub-names"):
            yield Static(id="hub-name", classes="name-card")
            yield Static(id="hub-display-name", classes="name-card")
        with VerticalScroll(id="hub-facts-box"):
            yield Static(id="hub-facts")
        yield ProjectIdInput(placeholder="Project id (digits), then enter", id="project-id")
        yield RecordTable(PROJECT_COLUMNS, id="records", empty_text="This hub has no projects.")

    def start(self) -> None:
        self._show_hub(None)
        self.load()

    async def fetch(self, client: HubClient) -> list[Project] | None:
        """The hub read again (its facts and region), then its projects; None when this
        server cannot list them (the person is asked for a project id instead)."""
        self._hub_failed = False
        try:
            self.hub = await client.get_hub(self.hub.id)
        except HubError:
            if self._route is None:
                # Its region is not being checked: the hub itself could not be read.
                self._hub_failed = True
                self._show_hub(None)
            raise
        self._route = client.regional_route(self.hub)
        self._show_hub(self._route)
        try:
            return await client.list_projects(self.hub.id)
        except ApiStatusError as error:
            if error.status_code not in NO_PROJECT_LISTING or self.workspace.offline is not None:
                raise  # offline, a 404 is a list never stored, not a server that cannot list
            self._ask_for_project_id(str(error))
            return None

    def show_loaded(self, loaded: list[Project] | None) -> None:
        if loaded is None:
            return
        self.projects = {str(p.id): p for p in loaded}
        self.post_message(ProjectsLoaded(self.hub, loaded))
        self.table.set_records(loaded, _project_row, key=_project_key)

    def _ask_for_project_id(self, why: str) -> None:
        self.show_problem(
            f"{why} This server cannot list a hub's projects.",
            hint="Type a project id below and press enter to open its users.",
        )
        self.query_one(Summary).say("Projects cannot be listed here: open one by its id.")
        prompt = self.query_one("#project-id", Input)
        prompt.display = True
        prompt.focus()

    def resumed(self) -> None:
        # Back from a screen above: where you are and the counts stay at the top (focus coming
        # back to the project-id prompt once scrolled them off at 80×24).
        self.call_after_refresh(self.scroll_home, animate=False)

    def action_back(self) -> None:
        prompt = self.query_one("#project-id", Input)
        if prompt.has_focus:
            # Leave the prompt first (keeping what was typed), as escape leaves the filter.
            prompt.display = False
            self.table.focus()
            return
        super().action_back()

    def action_project_by_id(self) -> None:
        prompt = self.query_one("#project-id", Input)
        prompt.display = True
        prompt.focus()

    @on(Input.Submitted, "#project-id")
    def _project_id_given(self, event: Input.Submitted) -> None:
        project_id = event.value.strip()
        if not project_id:
            self.notify("Type a project id first.", severity="warning", markup=False)
            return
        project = self.projects.get(project_id)
        # Done with the prompt: coming back, keys go to the list again, not into old text.
        prompt = self.query_one("#project-id", Input)
        prompt.value = ""
        prompt.display = False
        self.table.focus()
        self.post_message(OpenProject(self.hub, project, project_id=project_id))

    def on_resize(self, event: events.Resize) -> None:
        compact = event.size.height < COMPACT_BELOW_ROWS
        if compact != self._compact:
            self._compact = compact
            self.set_class(compact, "-compact")
            self._show_hub(self._route)

    def _show_hub(self, route: RegionalRoute | None) -> None:
        hub = self.hub
        name_warning, shown_warning = name_warnings(hub)
        # Small windows: each name on one line with its label; the warnings always show.
        explain = not self._compact
        self.query_one(Breadcrumb).show_path(hub_label(hub))
        self.query_one("#hub-name", Static).update(
            Content.assemble(
                ("Name", "bold"),
                " (URL name)\n" if explain else " (URL name) ",
                (inert(hub.name), "bold"),
                "\nIn links; 'go to URL name' matches it." if explain else "",
                *_warning(name_warning),
            )
        )
        if not hub.display_name_sent:
            shown, meaning = inert(hub.name), "Not sent by the server; showing Name."
        elif hub.has_custom_display_name:
            shown = inert(hub.display_name)
            meaning = f"{NOT_EQUAL} differs from Name; never used to look up."
        else:
            shown, meaning = inert(hub.display_name), "None set: it equals Name."
        if not explain and hub.has_custom_display_name:
            meaning = f"{NOT_EQUAL} Name"
        self.query_one("#hub-display-name", Static).update(
            Content.assemble(
                ("DisplayName", "bold"),
                "\n" if explain else " ",
                (shown, "bold"),
                "\n" if explain else " · ",
                meaning,
                *_warning(shown_warning),
            )
        )
        self.query_one("#hub-facts", Static).update(_facts(hub, route, failed=self._hub_failed))

    def refresh_summary(self) -> None:
        table = self.table
        limited = sum(1 for p in self.projects.values() if p.is_access_limited)
        parts = [amount(len(self.projects), "project"), f"{limited} with Limited access"]
        if table.filter_text:
            parts.append(f"{amount(table.visible_count, 'match')} “{table.filter_text}”")
        if table.sort_label:
            parts.append(f"sorted by {table.sort_label}")
        if table.marks:
            parts.append(self.marks_words())
        self.query_one(Summary).say(" · ".join(parts))

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        self.post_message(OpenProject(self.hub, event.record))

    def export_what(self) -> str:
        return f"projects {self.hub.name}"

    def export_context(self) -> dict[str, str]:
        return {"hub Name": self.hub.name, "hub DisplayName": self.hub.display_name}

    def action_changes_since(self) -> None:
        self.post_message(ShowChanges(self.hub, scope=f"hub {self.hub.name}"))

    def action_add_people(self) -> None:
        if self.workspace.read_only:
            self.notify("Read-only: no change is staged or sent.", severity="warning")
            return
        projects: list[Project] = self.table.marked_records()
        if not projects:
            highlighted: Project | None = self.table.highlighted_record
            projects = [highlighted] if highlighted is not None else []
        if not projects:
            self.notify("Mark projects first (space), or highlight one.", markup=False)
            return
        where = projects[0].name if len(projects) == 1 else f"{len(projects)} marked projects"
        self.add_people(
            self.hub,
            [(str(p.id), p.name) for p in projects],
            where,
            then=self.action_clear_marks,
        )

    def action_people(self) -> None:
        from hubtui.tui.screens.people.hub_people import HubPeopleScreen

        self.app.push_screen(HubPeopleScreen(self.hub))

    def action_who(self) -> None:
        self.post_message(FindPerson([self.hub], f"hub {self.hub.name}"))

    def action_copy(self) -> None:
        project: Project | None = self.table.highlighted_record
        text, what = (str(project.id), "project id") if project else (self.hub.id, "hub id")
        self.copy_value(text, what)


def _warning(why: str | None) -> tuple[str | tuple[str, str], ...]:
    if why is None:
        return ()
    return ("\n", ("! LOOKALIKE", "bold reverse"), f" {why}")


def _project_row(project: Project) -> Row:
    return Row(
        cells=(
            inert(project.name),
            inert(project.project_access or ""),
            inert(project.project_status or ""),
            str(project.id),
            inert(project.number or ""),
            when(project.start_date),
        ),
        badges=cell_indexes(1) if project.is_access_limited else cell_indexes(),
    )


def _project_key(project: Project) -> str:
    return str(project.id)


def _facts(hub: Hub, route: RegionalRoute | None, *, failed: bool = False) -> Content:
    return Content("\n").join(
        Content.assemble((f"{label:<13}", "bold"), words)
        for label, words in hub_facts(hub, route, failed=failed)
    )
