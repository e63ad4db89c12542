"""MatrixView: people × projects, drawing only the cells on screen.

Textual's DataTable renders every cell of a row to draw it (a hub of 100 people × 500 projects
took seconds to show its first rows, and 50,000 people × 500 projects gigabytes). This view keeps
the matrix as it is given and draws the visible slice of each visible line: the person's column
frozen on the left, the header (the projects' names, whole) frozen on top, a cell cursor that the
arrows move and the view follows. ``enter`` posts :class:`MatrixView.CellChosen`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from hubtui.core.access import LIMITED_CELL

#: The widest a project's column is drawn (a longer project name ends in …). The frozen column
#: holds each person's address, an identifier: it is never capped (two people who differ only
#: past the 40th character never look alike).
MOST_COLUMN_WIDTH = 40
#: A cell drawn in reverse video, whatever the theme (a limited reader's).
EMPHASISED = LIMITED_CELL


class MatrixView(ScrollView, can_focus=True, inherit_bindings=False):
    """Rows of cells under a header; the first column frozen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "matrix-view--header",
        "matrix-view--cursor",
        "matrix-view--frozen",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(0, -1)", "Up", show=False),
        Binding("down,j", "move(0, 1)", "Down", show=False),
        Binding("left", "move(-1, 0)", "Left", show=False),
        Binding("right,l", "move(1, 0)", "Right", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First column", show=False),
        Binding("end", "edge(1)", "Last column", show=False),
        Binding("enter", "choose", "Cell in words"),
    ]
    DEFAULT_CSS = """
    MatrixView {
        height: 1fr;
        overflow-x: auto;
        overflow-y: auto;
        & > .matrix-view--header { text-style: bold; background: $panel; }
        & > .matrix-view--frozen { text-style: bold; }
        & > .matrix-view--cursor { background: $primary-darken-2; color: $text; text-style: bold; }
    }
    """

    class CellChosen(Message):
        """``enter`` on a cell: its row and its column (0 is the frozen column)."""

        def __init__(self, row: int, column: int) -> None:
            super().__init__()
            self.row = row
            self.column = column

    def __init__(
        self, labels: Sequence[str], rows: Sequence[Sequence[str]], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.labels = list(labels)
        self.rows = rows
        # Each column as wide as its label and its first 2,000 cells (rows are built when
        # asked: a sequence of 50,000 rows need not be made to be drawn).
        sample = [rows[i] for i in range(min(2000, len(rows)))]
        self.widths = [
            min(
                MOST_COLUMN_WIDTH if n else 10**6,
                max([cell_len(label), *(cell_len(r[n]) for r in sample)]),
            )
            for n, label in enumerate(self.labels)
        ]
        #: Where each scrolling column starts, in cells from the first after the frozen one.
        self.starts: list[int] = []
        at = 0
        for width in self.widths[1:]:
            self.starts.append(at)
            at += width + 1
        self.scrolling_width = at
        self.cursor = (1 if len(self.labels) > 1 else 0, 0)  # (column, row)

    @property
    def frozen_width(self) -> int:
        return self.widths[0] + 1

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def on_mount(self) -> None:
        self.virtual_size = Size(self.frozen_width + self.scrolling_width, len(self.rows) + 1)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.frozen_width + self.scrolling_width, len(self.rows) + 1)

    # Drawing -----------------------------------------------------------------------------------

    def _cell(self, text: str, width: int) -> str:
        if cell_len(text) > width:
            return set_cell_size(text, max(0, width - 1)) + "…" + " "
        return set_cell_size(text, width) + " "

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        cells: Sequence[str]
        if y == 0:
            style = base + self.get_component_rich_style("matrix-view--header")
            cells, row_index = self.labels, None
        else:
            row_index = int(self.scroll_offset.y) + y - 1
            if row_index >= len(self.rows):
                return Strip.blank(width, base)
            cells, style = self.rows[row_index], base
        cursor = base + self.get_component_rich_style("matrix-view--cursor")
        if self.app.no_color:
            cursor = base + Style(reverse=True, bold=True)
        column, row = self.cursor
        frozen_style = style
        if row_index is not None:
            frozen_style = style + self.get_component_rich_style("matrix-view--frozen")
            if row == row_index and column == 0:
                frozen_style = cursor
        segments = [Segment(self._cell(cells[0], self.widths[0]), frozen_style)]
        left = int(self.scroll_offset.x)
        room = max(0, width - self.frozen_width)
        right = left + room
        for n in range(1, len(self.labels)):
            start = self.starts[n - 1]
            end = start + self.widths[n] + 1
            if end <= left:
                continue
            if start >= right:
                break
            text = self._cell(cells[n] if n < len(cells) else "", self.widths[n])
            cell_style = style
            if row_index is not None:
                if row == row_index and column == n:
                    cell_style = cursor
                elif cells[n] == EMPHASISED:
                    cell_style = style + Style(bold=True, reverse=True)
            if start < left:  # a column cut at the left says nothing whole: blank instead
                text = " " * (end - left)
                cell_style = style
            segments.append(Segment(text, cell_style))
        strip = Strip(segments).crop(0, self.frozen_width + room)
        return strip.extend_cell_length(width, base)

    # Moving ------------------------------------------------------------------------------------

    def _place(self, column: int, row: int) -> None:
        column = max(0, min(len(self.labels) - 1, column))
        row = max(0, min(len(self.rows) - 1, row))
        before = self.cursor
        self.cursor = (column, row)
        self._follow()
        self.refresh_line(before[1] - int(self.scroll_offset.y) + 1)
        self.refresh()

    def _follow(self) -> None:
        """Scroll so that the cursor's cell is in view (the frozen column needs no scroll)."""
        column, row = self.cursor
        height = max(1, self.scrollable_content_region.height - 1)
        top = int(self.scroll_offset.y)
        y = top
        if row < top:
            y = row
        elif row >= top + height:
            y = row - height + 1
        x = int(self.scroll_offset.x)
        if column > 0:
            room = max(1, self.scrollable_content_region.width - self.frozen_width)
            start = self.starts[column - 1]
            end = start + self.widths[column] + 1
            if start < x:
                x = start
            elif end > x + room:
                # The first column start that shows the cursor's column whole: whole columns.
                x = next((s for s in self.starts if s >= end - room), start)
        self.scroll_to(x, y, animate=False, immediate=True)

    def action_move(self, columns: int, rows: int) -> None:
        column, row = self.cursor
        self._place(column + columns, row + rows)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        column, row = self.cursor
        self._place(column, row + direction * height)

    def action_edge(self, direction: int) -> None:
        column, row = self.cursor
        self._place(0 if direction < 0 else len(self.labels) - 1, row)

    def action_choose(self) -> None:
        if self.rows:
            column, row = self.cursor
            self.post_message(self.CellChosen(row, column))
