"""`M`: the access matrix of a hub, people × projects, each cell the role, ``LIMITED`` or empty.

A stock ``DataTable``: it scrolls both ways at 80×24 with the person (the first column) and the
project names (the header) frozen. Every cell is a plain ``Text``: a server's name is never
read as markup.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from hubtui.core.hub_people import LIMITED_CELL, HubPeople, Matrix, access_matrix
from hubtui.core.text import inert
from hubtui.core.words import seen_words
from hubtui.tui.widgets.chrome import KeyFooter


class AccessMatrixScreen(Screen[None]):
    """People × projects of one hub."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", key_display="esc/⌫"),
        Binding("backspace", "back", "Back", show=False),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    AccessMatrixScreen #matrix-title { height: 1; padding: 0 1; text-style: bold; }
    AccessMatrixScreen #matrix-note { height: auto; max-height: 2; padding: 0 1; }
    AccessMatrixScreen DataTable { height: 1fr; }
    """

    def __init__(self, answer: HubPeople, now: datetime) -> None:
        super().__init__()
        self.answer = answer
        self.now = now
        self.matrix: Matrix = access_matrix(answer)

    def compose(self) -> ComposeResult:
        hub = self.answer.hub
        rows, projects = len(self.matrix.rows), len(self.matrix.projects)
        yield Static(
            Text(f"{hub.name} › access matrix: {rows:,} people × {projects:,} projects"),
            id="matrix-title",
        )
        note = "Each cell: the role, LIMITED (a limited reader) or empty (no access)."
        if not self.answer.complete:
            note = f"INCOMPLETE: {inert(self.answer.incomplete_words())}. {note}"
        yield Static(Text(note), id="matrix-note")
        table: DataTable[Text] = DataTable(
            id="matrix", fixed_columns=1, cursor_type="cell", zebra_stripes=True
        )
        yield table
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("Person"), key="person")
        table.add_column(Text("Hub role"), key="role")
        table.add_column(Text("Last sign-in"), key="seen")
        for project in self.matrix.projects:  # whole: the table scrolls sideways instead
            table.add_column(Text(inert(project.name)), key=str(project.id))
        for person, cells in self.matrix.rows:
            table.add_row(
                Text(inert(person.email or person.name)),
                Text(inert(person.hub_role or "—")),
                Text(seen_words(person.seen, self.now)),
                *(
                    Text(cell, style="bold reverse" if cell == LIMITED_CELL else "")
                    for cell in cells
                ),
                key=person.key,
            )
        table.focus()

    def action_back(self) -> None:
        self.dismiss()

    @on(DataTable.CellSelected)
    def _cell(self, event: DataTable.CellSelected) -> None:
        """enter: the highlighted cell in words (who, where, what), whatever the columns' width."""
        row, column = event.coordinate
        if not (0 <= row < len(self.matrix.rows)):
            return
        person, cells = self.matrix.rows[row]
        who = inert(person.email or person.name)
        if column < 3:
            self.notify(f"{who}: {person.projects_words()} projects.", markup=False)
            return
        project = self.matrix.projects[column - 3]
        cell = cells[column - 3]
        what = {"": "no access", LIMITED_CELL: "a limited reader"}.get(cell, cell)
        self.notify(f"{who} in {inert(project.name)}: {what}.", markup=False)
