"""RecordTable: a keyboard-driven table that renders only the lines on screen.

Textual's stock DataTable builds every row up front (seconds for 50,000 rows). This table keeps
the records it is given, turns a record into a row of already-safe strings only when that row is
painted, builds the rest in small chunks after the first paint, and filters and sorts lists of
indexes: the first rows of 50,000 show at once and a keystroke filters in milliseconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from hubtui.text import fold
from hubtui.tui.collection import collector_paused, release_frozen
from hubtui.tui.glyphs import ASCENDING, DESCENDING, ELLIPSIS

__all__ = ["Column", "RecordTable", "Row"]


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its label and how it gives way when the terminal is narrow."""

    key: str
    label: str
    width: int | None = None
    """A fixed width; None to share the room left over."""
    min_width: int = 6
    priority: int = 0
    """Columns with the highest priority number are dropped first when space runs out; 0 is
    never dropped."""
    keep: bool = False
    """Never cut while a column that is not kept can shrink or hide (URL names, emails)."""
    numeric: bool = False
    """Right-aligned and sorted as a number."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row: a key, safe display strings (one per column) and how it is marked."""

    key: str
    cells: tuple[str, ...]
    tone: str | None = None
    """A row style: ``record-table--<tone>`` (for example ``limited``)."""
    badges: frozenset[int] = frozenset()
    """Indexes of cells shown in the badge style (their text is a word, never colour alone)."""
    placeholders: frozenset[int] = frozenset()
    """Indexes of cells holding hubtui's own words for a missing value, not a server's text:
    shown dim and italic, a style no server string is ever given."""
    group: str | None = None
    """What :meth:`RecordTable.show_group` selects on (for example member or limited)."""


class RowMessage(Message):
    """A message about one row of a :class:`RecordTable` and the record behind it."""

    def __init__(self, table: RecordTable, row: Row | None, record: Any) -> None:
        super().__init__()
        self.table = table
        self.row = row
        self.record = record

    @property
    def control(self) -> RecordTable:
        return self.table


def _sort_key(numeric: bool) -> Callable[[str], tuple[int, float | str]]:
    def key(text: str) -> tuple[int, float | str]:
        if numeric:
            digits = "".join(ch for ch in text if ch.isdigit() or ch == ".")
            try:
                return (0, float(digits))
            except ValueError:
                return (1, 0.0)
        return (0 if text else 1, fold(text))

    return key


class RecordTable(Widget, can_focus=True):
    """A table of :class:`Row` under a header line, with a cursor, filter, groups and sorting."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "record-table--header",
        "record-table--cursor",
        "record-table--badge",
        "record-table--limited",
        "record-table--muted",
        "record-table--placeholder",
        "record-table--failed",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Open"),
        Binding("s", "sort", "Sort", show=False),
        Binding("S", "reverse", "Reverse sort", show=False),
    ]
    DEFAULT_CSS = """
    RecordTable { height: 1fr; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

    class Highlighted(RowMessage):
        """The cursor moved to ``row`` of ``record`` (both None when the table is empty)."""

    class Selected(RowMessage):
        """The person opened ``row`` of ``record`` (enter, or a click on the highlighted row)."""

    class ViewChanged(Message):
        """The rows shown changed: new rows, filter, group or sort."""

        def __init__(self, table: RecordTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> RecordTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column] = (),
        *,
        empty_text: str = "Nothing to show.",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: tuple[Column, ...] = tuple(columns)
        self.empty_text = empty_text
        #: Said instead of ``empty_text`` while nothing is loaded: loading, or why not.
        self.note: str | None = None
        #: Whether enter opens a row here (and says so in the footer).
        self.can_open = True
        self._records: list[Any] = []
        self._make_row: Callable[[Any], Row] = _same_row
        self._keys: list[str] = []
        self._rows: list[Row | None] = []
        self._search: list[str | None] = []
        self._indexed_up_to = 0
        self._order: list[int] = []
        self._view: list[int] = []
        self._filter = ""
        self._group: str | None = None
        self._sort_column: int | None = None
        self._sort_reverse = False
        self._top = 0
        self._column_layout: tuple[int, list[tuple[int, int]]] | None = None
        # Which list of shown rows was last painted in full (a new view repaints everything).
        self._view_serial = 0
        self._painted_view = -1
        self._view_complete = True
        # The longest text seen in each column, for the layout (see fit_columns).
        self._natural: list[int] = [0] * len(self.columns)

    # What is shown ----------------------------------------------------------------------------

    @property
    def filter_text(self) -> str:
        return self._filter

    @property
    def group(self) -> str | None:
        return self._group

    @property
    def visible_count(self) -> int:
        return len(self._view)

    @property
    def empty_message(self) -> str:
        """What an empty list says: never that there are none when they were only hidden."""
        if self._records:
            if self._filter.strip():
                return f"None of the {len(self._records):,} match; escape clears the filter."
            return f"None of the {len(self._records):,} are in this group."
        if self.note is not None:
            return self.note
        return self.empty_text

    def set_note(self, note: str | None) -> None:
        self.note = note
        self.refresh()

    @property
    def sort_label(self) -> str | None:
        """The sorted column's label with its direction, or None when unsorted."""
        if self._sort_column is None:
            return None
        arrow = "descending" if self._sort_reverse else "ascending"
        label = f"{self.columns[self._sort_column].label} {arrow}"
        if self.size.width and self._sort_column not in dict(self._layout(self.size.width)):
            label += " (a column hidden at this width)"
        return label

    @property
    def highlighted_row(self) -> Row | None:
        if not self._view:
            return None
        return self.row(self._view[min(self.cursor, len(self._view) - 1)])

    @property
    def highlighted_record(self) -> Any:
        """The record under the cursor, or None when nothing is shown."""
        if not self._view:
            return None
        return self._records[self._view[min(self.cursor, len(self._view) - 1)]]

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Show these columns; a sort by a column that is still there (by key) is kept."""
        sorted_key = None if self._sort_column is None else self.columns[self._sort_column].key
        self.columns = tuple(columns)
        keys = [column.key for column in self.columns]
        self._sort_column = keys.index(sorted_key) if sorted_key in keys else None
        self._natural = [0] * len(self.columns)
        for row in self._rows:
            if row is not None:
                self._note_widths(row)
        self._column_layout = None
        self.refresh()

    def set_records(
        self,
        records: Sequence[Any],
        make_row: Callable[[Any], Row],
        *,
        key: Callable[[Any], str],
        keep_key: str | None = None,
    ) -> None:
        """Show ``records``, each turned into a row by ``make_row`` only when it is needed.

        The cursor stays on ``keep_key`` (or on the current row) if it is still shown.
        """
        keep = keep_key if keep_key is not None else self._highlighted_key()
        self.note = None
        if len(self._records) >= FREEZE_AT_LEAST:
            release_frozen()  # the list replaced may be collected now
        self._records = list(records)
        self._make_row = make_row
        self._keys = [key(record) for record in self._records]
        self._rows = [None] * len(self._records)
        self._search = [None] * len(self._records)
        self._natural = [0] * len(self.columns)
        self._column_layout = None
        self._indexed_up_to = 0
        self._order = list(range(len(self._records)))
        if self._sort_column is not None:
            self._apply_sort()
        self._refilter(keep)
        if self._records and self.is_mounted:
            # Paint first; build the rest of the rows once the first screenful is shown.
            self.call_after_refresh(self._start_indexing)

    def _start_indexing(self) -> None:
        if self._indexed_up_to < len(self._records):
            # The function, not a coroutine: a worker the app never starts (it is quitting)
            # leaves no coroutine behind that was never awaited.
            self.run_worker(self._index_rest, group="index", exclusive=True)  # type: ignore[arg-type]

    async def _index_rest(self) -> None:
        await self._index_in_chunks()

    def update_record(self, record: Any, *, key: str) -> None:
        """Replace the record with this key, or add it; the cursor moves to it."""
        try:
            index = self._keys.index(key)
        except ValueError:
            self._records.append(record)
            self._keys.append(key)
            self._rows.append(None)
            self._search.append(None)
            self._order.append(len(self._records) - 1)
        else:
            self._records[index] = record
            self._rows[index] = None
            self._search[index] = None
            if index < self._indexed_up_to:
                self._search_key(index)
        if self._sort_column is not None:
            self._apply_sort()
        self._refilter(key)

    @property
    def total_count(self) -> int:
        return len(self._records)

    def row(self, index: int) -> Row:
        """The row of record ``index``, built on first use."""
        row = self._rows[index]
        if row is None:
            row = self._rows[index] = self._make_row(self._records[index])
            self._note_widths(row)
        return row

    def row_was_painted(self, position: int) -> bool:
        """Whether the row shown at ``position`` has been built (it is built when painted)."""
        return position < len(self._view) and self._rows[self._view[position]] is not None

    @property
    def rows(self) -> list[Row]:
        """Every row (builds any not built yet)."""
        return [self.row(i) for i in range(len(self._records))]

    @property
    def shown_rows(self) -> list[Row]:
        """The rows shown, in the order shown: after filter, group and sort."""
        return [self.row(i) for i in self._view]

    def _search_key(self, index: int) -> str:
        text = self._search[index]
        if text is None:
            # Cell by cell: most cells are ASCII and fold without Unicode normalisation.
            text = self._search[index] = "\x1f".join([fold(c) for c in self.row(index).cells])
        return text

    def _index_now(self) -> None:
        """Finish building rows and search keys, when few are left (a large rest is left to the
        background: a keystroke never waits for tens of thousands of rows)."""
        if len(self._records) - self._indexed_up_to > INDEX_NOW_AT_MOST:
            return
        for index in range(self._indexed_up_to, len(self._records)):
            self._search_key(index)
        self._indexed_up_to = len(self._records)

    @property
    def filter_complete(self) -> bool:
        """Whether the rows shown were chosen from every row (False while a large list is
        still being indexed: more matches come as it goes)."""
        return self._indexed_up_to >= len(self._records) or not (
            self._filter.split() or self._group is not None
        )

    async def _index_in_chunks(self, chunk: int = 2000) -> None:
        """Build rows and search keys after the first paint, yielding to input between chunks."""
        total = len(self._records)
        if total < FREEZE_AT_LEAST:
            await self._index_chunks(total, chunk)
            return
        with collector_paused():  # see hubtui/tui/collection.py
            await self._index_chunks(total, chunk)

    async def _index_chunks(self, total: int, chunk: int) -> None:
        while self._indexed_up_to < total:
            stop = min(total, self._indexed_up_to + chunk)
            for index in range(self._indexed_up_to, stop):
                self._search_key(index)
            self._indexed_up_to = max(self._indexed_up_to, stop)
            if self._filter.split() or self._group is not None:
                # A filter typed before indexing finished: add the matches of this chunk.
                self._refilter(self._highlighted_key())
            await asyncio.sleep(0)

    def set_filter(self, text: str) -> None:
        """Show only rows whose cells contain every word of ``text`` (case and accents ignored)."""
        narrowing = bool(self._filter) and text.startswith(self._filter) and " " not in text
        self._filter = text
        self._refilter(self._highlighted_key(), narrowing=narrowing)

    def show_group(self, group: str | None) -> None:
        """Show only rows of this group (None for all)."""
        self._group = group
        self._refilter(self._highlighted_key())

    def sort_by(self, column: int | None, *, reverse: bool = False) -> None:
        self._sort_column = column
        self._sort_reverse = reverse
        keep = self._highlighted_key()
        self._order = list(range(len(self._records)))
        if column is not None:
            self._apply_sort()
        self._refilter(keep)

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row with this key, if it is shown."""
        for position, index in enumerate(self._view):
            if self._keys[index] == key:
                self.cursor = position
                return True
        return False

    def _highlighted_key(self) -> str | None:
        row = self.highlighted_row
        return row.key if row else None

    def _apply_sort(self) -> None:
        assert self._sort_column is not None
        column = self._sort_column
        key = _sort_key(self.columns[column].numeric)
        self._order.sort(key=lambda i: key(self.row(i).cells[column]), reverse=self._sort_reverse)

    def _refilter(self, keep_key: str | None, *, narrowing: bool = False) -> None:
        words = fold(self._filter).split()
        group = self._group
        if not words and group is None:
            self._view = list(self._order)
        else:
            self._index_now()
            indexed = self._indexed_up_to
            # Typing more of the same filter only narrows: look within what is shown.
            candidates = self._view if narrowing and self._view_complete else self._order
            if indexed < len(self._records):
                candidates = [i for i in candidates if i < indexed]
            search, rows = self._search, self._rows
            if group is not None:
                candidates = [i for i in candidates if rows[i].group == group]  # type: ignore[union-attr]
            for word in words:
                candidates = [i for i in candidates if word in search[i]]  # type: ignore[operator]
            self._view = candidates
        self._view_complete = self.filter_complete
        self._view_serial += 1
        position = 0
        if keep_key is not None:
            keys = self._keys
            for n, index in enumerate(self._view):
                if keys[index] == keep_key:
                    position = n
                    break
        self.cursor = position
        self.refresh()
        self.post_message(self.ViewChanged(self))

    # Keys -------------------------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.size.height - 1)

    def action_cursor(self, delta: int) -> None:
        self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        self.cursor = self.cursor + direction * self._page

    def action_edge(self, end: int) -> None:
        self.cursor = len(self._view) - 1 if end else 0

    def action_select(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.post_message(self.Selected(self, row, self.highlighted_record))

    def action_sort(self) -> None:
        """Sort by the next column shown (a column hidden at this width is skipped)."""
        shown = [index for index, _ in self._layout(self.size.width)] or list(
            range(len(self.columns))
        )
        if not shown:
            return
        current = self._sort_column
        later = [index for index in shown if current is None or index > current]
        self.sort_by(later[0] if later else shown[0])

    def action_reverse(self) -> None:
        self.sort_by(self._sort_column or 0, reverse=not self._sort_reverse)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select":
            return self.can_open
        return True

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, len(self._view) - 1))

    def watch_cursor(self, old: int, cursor: int) -> None:
        page = self._page
        top = self._top
        if cursor < self._top:
            self._top = cursor
        elif cursor >= self._top + page:
            self._top = cursor - page + 1
        self._top = max(0, min(self._top, max(0, len(self._view) - page)))
        if self._top == top and self._painted_view == self._view_serial:
            # Only the two rows whose cursor style changed are sent to the terminal: a move
            # costs a few hundred bytes over SSH, not a repaint of the whole list.
            width = self.size.width
            self.refresh(Region(0, old - top + 1, width, 1), Region(0, cursor - top + 1, width, 1))
        else:
            self._painted_view = self._view_serial
            self.refresh()
        self.post_message(self.Highlighted(self, self.highlighted_row, self.highlighted_record))

    def on_resize(self, event: events.Resize) -> None:
        self._column_layout = None
        self._painted_view = -1
        self.cursor = self.cursor

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            self._header_clicked(event.x)
            return
        position = self._top + event.y - 1
        if position >= len(self._view):
            return
        if position == self.cursor:
            self.action_select()
        else:
            self.cursor = position

    def _header_clicked(self, x: int) -> None:
        """A click on a column's label sorts by it; a second click reverses the order."""
        left = 0
        for index, width in self._layout(self.size.width):
            if left <= x < left + width:
                same = index == self._sort_column
                self.sort_by(index, reverse=same and not self._sort_reverse)
                return
            left += width + 1

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.cursor = self.cursor + 3

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.cursor = self.cursor - 3

    def on_unmount(self) -> None:
        if len(self._records) >= FREEZE_AT_LEAST:
            release_frozen()  # the screen is closed: its list may be collected

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # Painting ---------------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._view) + 1

    def _layout(self, width: int) -> list[tuple[int, int]]:
        """(column index, width) of the columns that fit, in column order."""
        if self._column_layout and self._column_layout[0] == width:
            return self._column_layout[1]
        widths = fit_columns(self.columns, self._natural, width)
        self._column_layout = (width, widths)
        return widths

    def _note_widths(self, row: Row) -> None:
        """Widen a column's wish when a row needs more room than any row before it."""
        natural = self._natural
        layout = self._column_layout
        for index, text in enumerate(row.cells[: len(natural)]):
            need = cell_len(text)
            if need > natural[index]:
                natural[index] = need
                if layout is not None and need <= WISH_CAP and self.columns[index].keep:
                    laid = dict(layout[1]).get(index)
                    if laid is None or laid < need:
                        # A kept column would cut this row: lay out again on the next paint.
                        self._column_layout = None
                        self._painted_view = -1
                        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        layout = self._layout(width)
        if y == 0:
            header = base + self.get_component_rich_style("record-table--header")
            labels = []
            for index, cell_width in layout:
                label = self.columns[index].label
                if index == self._sort_column:
                    # The arrow stays however narrow the column: the label gives way to it.
                    arrow = f" {DESCENDING}" if self._sort_reverse else f" {ASCENDING}"
                    if cell_len(label) + 2 > cell_width:
                        label = set_cell_size(label, max(0, cell_width - 3)) + ELLIPSIS
                    label += arrow
                labels.append((label, cell_width, self.columns[index].numeric))
            return self._strip(labels, header, width, cell_styles={})
        position = self._top + y - 1
        if position >= len(self._view):
            if position == 0 and y == 1:
                muted = base + self.get_component_rich_style("record-table--muted")
                text = f" {self.empty_message}"
                return Strip([Segment(set_cell_size(text, width), muted)], width)
            return Strip.blank(width, base)
        row = self.row(self._view[position])
        style = base
        if row.tone:
            style += self.get_component_rich_style(f"record-table--{row.tone}")
        if position == self.cursor:
            cursor = self.get_component_rich_style("record-table--cursor")
            if self.app.no_color:
                # Without colour the cursor is reverse video, focused or not.
                style += Style(reverse=True, bold=self.has_focus)
            else:
                style += cursor if self.has_focus else Style(reverse=True)
        cells = [
            (row.cells[index] if index < len(row.cells) else "", w, self.columns[index].numeric)
            for index, w in layout
        ]
        cell_styles: dict[int, Style] = {}
        if row.badges or row.placeholders:
            badge = self.get_component_rich_style("record-table--badge")
            placeholder = self.get_component_rich_style("record-table--placeholder")
            for n, (index, _) in enumerate(layout):
                if index in row.badges:
                    cell_styles[n] = style + badge
                    if self.app.no_color:
                        cell_styles[n] += Style(reverse=True)
                elif index in row.placeholders:
                    cell_styles[n] = style + placeholder
        return self._strip(cells, style, width, cell_styles=cell_styles)

    @staticmethod
    def _strip(
        cells: list[tuple[str, int, bool]],
        style: Style,
        width: int,
        *,
        cell_styles: dict[int, Style],
    ) -> Strip:
        segments: list[Segment] = []
        for n, (text, cell_width, numeric) in enumerate(cells):
            if n:
                segments.append(Segment(" ", style))
            if cell_len(text) > cell_width:
                text = set_cell_size(text, max(0, cell_width - 1)) + ELLIPSIS
            pad = " " * max(0, cell_width - cell_len(text))
            fitted = pad + text if numeric else text + pad
            segments.append(Segment(fitted, cell_styles.get(n, style)))
        used = sum(cell_len(s.text) for s in segments)
        if used < width:
            segments.append(Segment(" " * (width - used), style))
        # One run of text per style: far fewer escape sequences per line sent to the terminal.
        return Strip(segments, width).crop(0, width).simplify()


#: From this many records, a list's objects are left out of garbage collections once indexed.
FREEZE_AT_LEAST = 10_000
#: A filter typed before indexing finished builds the rest at once only when this few are left.
INDEX_NOW_AT_MOST = 5000
WISH_CAP = 48
"""No column asks for more than this many cells, whatever one row holds (a server can send a
200-character email; it is cut rather than pushing every other column off the screen)."""


def fit_columns(
    columns: Sequence[Column], natural: Sequence[int], width: int
) -> list[tuple[int, int]]:
    """(column index, width) of the columns shown in ``width`` cells, in column order.

    Columns join by priority while they fit at their smallest width. Then the ``keep`` columns
    (the identifiers a person must read exactly) get room for their longest text: columns that
    may give way are dropped for it, highest priority number first, before a kept one is cut.
    What is left widens the other flexible columns towards their longest text, then evenly.
    """

    def base(i: int) -> int:
        return columns[i].width or columns[i].min_width

    def wish(i: int) -> int:
        column = columns[i]
        if column.width is not None:
            return column.width
        label = cell_len(column.label) + 2  # room for the sort arrow
        longest = max(label, natural[i] if i < len(natural) else 0)
        return max(column.min_width, min(longest, WISH_CAP))

    chosen: list[int] = []
    used = 0
    for index in sorted(range(len(columns)), key=lambda i: columns[i].priority):
        need = base(index) + (1 if chosen else 0)
        if used + need > width and chosen:
            continue
        chosen.append(index)
        used += need
    while True:
        spare = width - used
        short = sum(wish(i) - base(i) for i in chosen if columns[i].keep)
        droppable = [i for i in chosen if not columns[i].keep and columns[i].priority > 0]
        if short <= spare or not droppable:
            break
        drop = max(droppable, key=lambda i: (columns[i].priority, i))
        chosen.remove(drop)
        used -= base(drop) + 1
    chosen.sort()
    given = {i: base(i) for i in chosen}
    spare = max(0, width - used)
    for kept_first in (True, False):
        for i in chosen:
            if columns[i].keep != kept_first or columns[i].width is not None:
                continue
            extra = min(spare, wish(i) - given[i])
            given[i] += extra
            spare -= extra
    flexible = [i for i in chosen if columns[i].width is None]
    others = [i for i in flexible if not columns[i].keep] or flexible
    for n, i in enumerate(others):
        share = spare // len(others) + (1 if n < spare % len(others) else 0)
        given[i] += share
    return [(i, given[i]) for i in chosen]


def _same_row(row: Row) -> Row:
    return row
