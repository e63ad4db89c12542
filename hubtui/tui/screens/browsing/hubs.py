"""The first screen: every hub, by URL name or by display name."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.binding import Binding, BindingType

from hubtui.core.workflows.kept import StoredHub
from hubtui.text import inert
from hubtui.tui.messages import FindPerson, HubsLoaded, OpenHub, ShowChanges
from hubtui.tui.present import (
    DIFFERENT_NAMES_MARK,
    LOOKALIKE_MARK,
    NO_DISPLAY_NAME,
    amount,
    count,
    display_name_cell,
    hub_label,
    name_warnings,
    when,
)
from hubtui.tui.screens.base import CHANGES_SINCE, ListScreen
from hubtui.tui.widgets.chrome import Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.api.errors import HubError

NAME_COLUMN = Column("name", "Name (URL name)", min_width=18, priority=0, keep=True)
# The DisplayName is what gives way at 80 columns: it shrinks, and is never hidden.
DISPLAY_COLUMN = Column("display_name", "DisplayName", min_width=12, priority=0)
OTHER_COLUMNS = (
    Column("region", "Region", min_width=7, priority=3),
    Column("users", "Users", width=6, numeric=True, priority=4),
    Column("projects", "Projects", width=8, numeric=True, priority=4),
    Column("created", "Created", width=10, priority=5),
)
MARK_COLUMN = Column(
    "mark", DIFFERENT_NAMES_MARK, width=len(DIFFERENT_NAMES_MARK) + 1, priority=0, boolean=True
)


class HubListScreen(ListScreen["list[Hub]"]):
    """Hubs, with Name and DisplayName side by side and the difference marked."""

    shows_changes = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "n", "toggle_lead", "Names", tooltip="put DisplayName first, or Name (URL name) again"
        ),
        Binding("g", "go_to_hub", "Go to", tooltip="open a hub by its Name (URL name)"),
        Binding("w", "who", "Who", tooltip="find a person (email, domain or name) in every hub"),
        Binding("y", "copy", "Copy", tooltip="copy the highlighted hub's Name, Id or DisplayName"),
        CHANGES_SINCE,
    ]
    CAN_GO_BACK = False
    NOUN = "hub"
    LEGEND = (
        f"{DIFFERENT_NAMES_MARK}  the hub's DisplayName differs from its Name (URL name).",
        f"{LOOKALIKE_MARK}  the Name or DisplayName may pass for another: it mixes scripts (a "
        "Cyrillic а in acme), holds invisible characters or reads like hubtui's own words. "
        "The hub detail says which.",
        "Name: the URL identifier, lowercase and DNS-safe; links and 'go to URL name' use it.",
        "DisplayName: what the hub's owner chose to show; it is never used to look a hub up.",
        f"{NO_DISPLAY_NAME} (dim, italic): the owner set no display name, so it equals Name.",
        "(not sent by server): the server predates DisplayName; hubtui shows Name instead.",
        "s sorts by the next column, S reverses the order.",
    )

    def __init__(self) -> None:
        super().__init__()
        self.hubs: dict[str, Hub] = {}
        self.display_name_leads = False
        #: While the rows are the hub list kept from an earlier run: ``stored 14:02``.
        self.stored: str | None = None
        #: Whether the refresh of the stored list failed (until the next load).
        self._unrefreshed = False

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path()
        self.table.empty_text = "No hubs yet."
        self._apply_columns()
        if self._paint_stored():
            # The stored rows are painted first: the refresh (and the import of the client it
            # starts, which holds the interpreter a while) waits for that frame.
            self.call_after_refresh(self.load)
        else:
            self.load()

    def start_afresh(self) -> None:
        """Start again on another server (or on the store in its place): from this frame no
        row or count of the last one is shown under the new one's name."""
        self.hubs = {}
        self.stored = None
        self._fill()
        self.show_loading()
        self.refresh_status()
        self.start()

    def _paint_stored(self) -> bool:
        """The hub list kept from the last run on this server, at once (standard library only:
        httpx and pydantic are not imported yet); the load that follows replaces it."""
        server_store = self.workspace.server_store
        kept = None if server_store is None else server_store.start_list()
        if server_store is not None and server_store.problem:
            self.notify(
                inert(server_store.problem, limit=None),
                title="Store off",
                severity="warning",
                markup=False,
                timeout=15,
            )
        if kept is None:
            return False
        self.stored = kept.words
        # A stored hub shows like a hub; it becomes one (pydantic) only when it is opened.
        self.hubs = {hub.id: cast("Hub", hub) for hub in kept.hubs()}
        self._fill()
        self.refresh_status()
        return True

    def covers_while_loading(self) -> bool:
        return self.stored is None

    def begin_loading(self) -> None:
        self._unrefreshed = False
        super().begin_loading()

    def loading_words(self) -> str:
        return self._stored_head() if self.stored is not None else super().loading_words()

    def _stored_head(self) -> str:
        """``2 hubs stored 14:02, refreshing…``, or why they were not refreshed."""
        state = "not refreshed: the message below says why" if self._unrefreshed else "refreshing…"
        return f"{amount(len(self.hubs), 'hub')} {self.stored}, {state}"

    def status_note(self) -> str | None:
        if self.stored is None:
            return super().status_note()
        return f"{self.stored}, {'not refreshed' if self._unrefreshed else 'refreshing…'}"

    async def fetch(self, client: HubClient) -> list[Hub]:
        return await client.list_hubs()

    def show_loaded(self, loaded: list[Hub]) -> None:
        self.stored = None
        self.hubs = {hub.id: hub for hub in loaded}
        self.post_message(HubsLoaded(loaded))
        self._fill()
        self.refresh_status()

    def show_failed(self, error: HubError) -> None:
        super().show_failed(error)
        if self.stored is not None:
            # The stored list stays, and says that it is stored and why it was not refreshed.
            self._unrefreshed = True
            self.refresh_summary()

    def _real(self, hub: Hub) -> Hub:
        """The hub itself for a stored row (read as the server sent it)."""
        if isinstance(hub, StoredHub):
            from hubtui.api.models import Hub  # the models: after the stored list is painted

            return Hub.model_validate(hub.sent)
        return hub

    def _hub_list(self) -> list[Hub]:
        return [self._real(hub) for hub in self.hubs.values()]

    def _apply_columns(self) -> None:
        lead, second = (
            (DISPLAY_COLUMN, NAME_COLUMN)
            if self.display_name_leads
            else (NAME_COLUMN, DISPLAY_COLUMN)
        )
        self.table.set_columns((MARK_COLUMN, lead, second, *OTHER_COLUMNS))

    def _row(self, hub: Hub) -> Row:
        name, shown = inert(hub.name), display_name_cell(hub)
        lead, second = (shown, name) if self.display_name_leads else (name, shown)
        different = DIFFERENT_NAMES_MARK if hub.has_custom_display_name else " "
        warned = any(name_warnings(hub))
        mark = (different + (LOOKALIKE_MARK if warned else "")).rstrip()
        shown_index = 1 if self.display_name_leads else 2
        placeholder = not hub.display_name_sent or not hub.has_custom_display_name
        return Row(
            cells=(
                mark,
                lead,
                second,
                inert(hub.region_name or ""),
                count(hub.number_of_users),
                count(hub.number_of_projects),
                when(hub.creation_date),
            ),
            badges=cell_indexes(0) if mark else cell_indexes(),
            placeholders=cell_indexes(shown_index) if placeholder else cell_indexes(),
        )

    def _fill(self) -> None:
        self.table.set_records(list(self.hubs.values()), self._row, key=_hub_key)
        if self.table.sort_label is None:
            self.table.sort_by(1)

    def refresh_summary(self) -> None:
        table = self.table
        total = len(self.hubs)
        if self.is_loading and not total:
            return  # nothing read yet: the summary says it is loading, not "0 hubs"
        lead = "DisplayName" if self.display_name_leads else "Name (URL name)"
        other = "Name" if self.display_name_leads else "DisplayName"
        parts = [amount(total, "hub") if self.stored is None else self._stored_head()]
        if table.filter_text:
            parts.append(f"{amount(table.visible_count, 'match')} “{table.filter_text}”")
        parts.append(f"{lead} leads (n: {other} first)")
        if table.sort_label:
            parts.append(f"sorted by {table.sort_label}")
        self.query_one(Summary).say(" · ".join(parts))

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        self.post_message(OpenHub(self._real(event.record)))

    def action_toggle_lead(self) -> None:
        self.display_name_leads = not self.display_name_leads
        # The sort follows its column (sorted by Name stays sorted by Name), so a second n
        # gives back exactly the list of before.
        self._apply_columns()
        self.table.set_records(list(self.hubs.values()), self._row, key=_hub_key)

    def action_go_to_hub(self) -> None:
        from hubtui.tui.screens.browsing.go_to_hub import GoToHubScreen

        def opened(hub: Hub | None) -> None:
            if hub is not None:
                self.post_message(OpenHub(hub))

        self.app.push_screen(GoToHubScreen(self._hub_list()), opened)

    def export_what(self) -> str:
        return "hubs"

    def action_changes_since(self) -> None:
        self.post_message(ShowChanges(None))

    def action_who(self) -> None:
        self.post_message(FindPerson(self._hub_list(), "all hubs"))

    def action_copy(self) -> None:
        hub: Hub | None = self.table.highlighted_record
        if hub is None:
            return
        from hubtui.tui.screens.dialogs.copy_choice import CopyChoiceScreen

        choices = [("Name (URL name)", hub.name), ("Id", hub.id)]
        if hub.has_custom_display_name:
            choices.append(("DisplayName", hub.display_name))

        def chosen(choice: tuple[str, str] | None) -> None:
            if choice is not None:
                label, value = choice
                # The Name is the value itself: said once ("the Name (URL name) acme-build").
                of = "" if value == hub.name else f" of hub {hub_label(hub)}"
                self.copy_value(value, f"{label}{of}")

        self.app.push_screen(CopyChoiceScreen(f"from hub {hub.name}", choices), chosen)


def _hub_key(hub: Hub) -> str:
    return hub.id
