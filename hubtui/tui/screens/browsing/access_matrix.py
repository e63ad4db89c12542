"""`M`: the access matrix of a hub, people × projects, each cell the role, ``LIMITED`` or empty.

A :class:`~hubtui.tui.widgets.matrix_view.MatrixView`: it scrolls both ways at 80×24 with the
person (the first column) and the project names (the header) frozen, and draws only the cells on
screen, so a hub of 500 projects shows at once. Every cell is plain text, made inert: a server's
name is never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar, overload

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from hubtui.api.memory import give_back_freed
from hubtui.core.access import LIMITED_CELL
from hubtui.core.people import HubPeople, Matrix, access_matrix
from hubtui.core.presenting import seen_words
from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter
from hubtui.tui.widgets.matrix_view import MatrixView


class _Rows(Sequence[list[str]]):
    """The matrix's rows as the view draws them, each made when it is drawn."""

    def __init__(self, matrix: Matrix, now: datetime) -> None:
        self.matrix = matrix
        self.now = now

    def __len__(self) -> int:
        return len(self.matrix.rows)

    @overload
    def __getitem__(self, index: int) -> list[str]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[str]]: ...
    def __getitem__(self, index: int | slice) -> list[str] | list[list[str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        person, cells = self.matrix.rows[index]
        return [
            inert(person.email or person.name),
            inert(person.hub_role or "—"),
            seen_words(person.seen, self.now),
            *(inert(cell) for cell in cells),  # a role is the server's text, as any other
        ]


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
    AccessMatrixScreen MatrixView { height: 1fr; }
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
        labels = ["Person", "Hub role", "Last sign-in"]
        labels += [inert(project.name) for project in self.matrix.projects]
        yield MatrixView(labels, _Rows(self.matrix, self.now), id="matrix")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one(MatrixView).focus()
        give_back_freed()  # what building the matrix freed (a firm's hub: its cells' lists)

    def action_back(self) -> None:
        self.dismiss()

    @on(MatrixView.CellChosen)
    def _cell(self, event: MatrixView.CellChosen) -> None:
        """enter: the highlighted cell in words (who, where, what), whatever the columns' width."""
        row, column = event.row, event.column
        if not (0 <= row < len(self.matrix.rows)):
            return
        person, cells = self.matrix.rows[row]
        who = inert(person.email or person.name)
        if column < 3:
            self.notify(f"{who}: {inert(person.projects_words())} projects.", markup=False)
            return
        project = self.matrix.projects[column - 3]
        cell = cells[column - 3]
        what = {"": "no access", LIMITED_CELL: "a limited reader"}.get(cell, inert(cell))
        self.notify(f"{who} in {inert(project.name)}: {what}.", markup=False)
