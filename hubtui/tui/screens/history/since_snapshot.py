"""`D`: what changed in access since a snapshot kept in the store, read against the server now."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.content import Content

from hubtui.core.history import take_snapshot
from hubtui.core.history.diff import Difference, Kind, Side, compare
from hubtui.text import inert
from hubtui.tui.messages import OpenProject
from hubtui.tui.present import amount
from hubtui.tui.screens.base import FanOutScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.people import Progress
    from hubtui.core.workflows.kept import ServerStore, SnapshotInfo

CHANGE_COLUMNS = (
    Column("mark", "±", width=2, priority=0, keep=True),
    Column("level", "Of", width=7, priority=4),
    Column("hub", "Hub (URL name)", min_width=12, priority=0, keep=True),
    Column("project", "Project", min_width=14, priority=0),
    Column("person", "Person", min_width=18, priority=0, keep=True),
    Column("what", "What changed", min_width=24, priority=0, meaning=True),
)


def change_row(difference: Difference) -> Row:
    what = difference.kind.value
    if difference.what:
        what = f"{what}: {difference.what}"
    return Row(
        cells=(
            difference.kind.mark,
            difference.level,
            inert(difference.hub_name),
            inert(difference.project_name or difference.project_id),
            inert(difference.who),
            inert(what, limit=300),
        ),
        badges=cell_indexes(0),
        placeholders=cell_indexes(5) if difference.kind is Kind.NOT_COMPARED else cell_indexes(),
    )


class ChangesScreen(FanOutScreen["list[Difference]"]):
    """Every difference from a snapshot to now, in the scope it was asked from."""

    COLUMNS = CHANGE_COLUMNS
    EMPTY = "No change."

    NOUN = "change"
    LEGEND = (
        "+ added since the snapshot; − removed; → changed (Role: Reader → Editor, limited reader "
        "→ direct member, reviewer, teams, ProjectAccess, Name or DisplayName).",
        "? not compared: the list was not read in the snapshot or now, so nothing is said of "
        "it (never 'everyone removed'). The row says why.",
        "enter opens the project as it is now, with the person selected; escape comes back.",
        "Now is read afresh from the server each time (r reads it again).",
    )

    def __init__(
        self,
        server_store: ServerStore,
        since: SnapshotInfo,
        hub: Hub | None,
        project_id: str | None = None,
        scope: str = "all hubs",
    ) -> None:
        super().__init__()
        self.server_store = server_store
        self.since = since
        self.hub = hub
        self.project_id = project_id
        self.scope = scope
        self.found: list[Difference] = []
        self._hubs: dict[str, Hub] = {}
        self._progress_line = ""

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path(f"Changes in {self.scope} since {self.since.short}")
        self.load()

    def loading_words(self) -> str:
        return f"Reading {self.scope} now, to compare with {self.since.short}…"

    async def fetch(self, client: HubClient) -> list[Difference]:
        workspace = self.workspace
        hubs = [self.hub] if self.hub is not None else list(await client.list_hubs())
        self._hubs = {hub.id: hub for hub in hubs}
        now = await take_snapshot(
            client,
            hubs,
            every_hub=self.hub is None,
            origin=self.server_store.origin,
            profile=self.server_store.profile,
            concurrency=workspace.concurrency,
            deadline=workspace.search_deadline,
            on_progress=self._progressed,
        )
        server_store, since, hub_id = (
            self.server_store,
            self.since.id,
            None if self.hub is None else self.hub.id,
        )

        def against_snapshot() -> list[Difference]:
            with server_store.open(read_only=True) as store:
                return compare(
                    Side.from_store(store, since), Side.from_snapshot(now, "now"), hub=hub_id
                )

        found = await asyncio.to_thread(against_snapshot)
        if self.project_id is not None:
            found = [d for d in found if d.project_id == self.project_id]
        return found

    def _progressed(self, progress: Progress) -> None:
        self.progressed(progress, f"Reading {self.scope} now")

    def show_loaded(self, loaded: list[Difference]) -> None:
        self.found = loaded
        self.table.set_records(
            list(enumerate(loaded)), lambda item: change_row(item[1]), key=lambda i: str(i[0])
        )

    def refresh_summary(self) -> None:
        if self.is_loading:
            return
        changed = [d for d in self.found if d.kind is not Kind.NOT_COMPARED]
        unsure = len(self.found) - len(changed)
        parts = [f"{amount(len(changed), 'change')} since {self.since.short}"]
        if unsure:
            parts.append(f"{amount(unsure, 'list')} not compared (?)")
        if self.table.filter_text:
            parts.append(
                f"{amount(self.table.visible_count, 'row')} shown matching "
                f"“{self.table.filter_text}”"
            )
        self.query_one(Summary).say(" · ".join(parts))
        self._explain(self.table.highlighted_record)

    def action_open(self) -> None:
        item = self.table.highlighted_record
        if item is None:
            return
        difference: Difference = item[1]
        hub = self._hubs.get(difference.hub_id)
        if hub is None or not difference.project_id:
            self.notify(
                "This row is about a hub, not a project: there are no project users to open.",
                severity="warning",
                markup=False,
            )
            return
        self.post_message(
            OpenProject(
                hub,
                None,
                project_id=difference.project_id,
                select_user=difference.user_id or None,
                above=True,
            )
        )

    @on(RecordTable.Selected, "#records")
    def _selected(self) -> None:
        self.action_open()

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, item: tuple[int, Difference] | None) -> None:
        """The highlighted change in full words, whatever the width of the window."""
        if item is None:
            self.query_one(AccessPanel).explain("")
            return
        d: Difference = item[1]
        where = f"hub {inert(d.hub_name)}"
        if d.project_id:
            where += f", project {inert(d.project_name or d.project_id)}"
        if d.who:
            where += f", {inert(d.who)}"
        what = f": {inert(d.what, limit=600)}" if d.what else ""
        self.query_one(AccessPanel).explain(
            Content.assemble((f"{d.kind.mark} {d.kind.value}", "bold"), f" ({where}){what}")
        )

    def export_what(self) -> str:
        return f"changes since {self.since.short}"

    def export_context(self) -> dict[str, str]:
        return {"since": self.since.label, "scope": self.scope}
