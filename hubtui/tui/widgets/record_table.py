"""RecordTable: a keyboard-driven table that renders only the lines on screen.

One idea: one table widget (drawing, cursor, marks, filter, sort, virtual scrolling) that
every list uses.

Textual's stock DataTable builds every row up front (seconds for 50,000 rows). This table keeps
the records it is given in a :class:`~hubtui.tui.record_view.RecordView` (which rows are shown,
in what order: no Textual there), turns a record into a row of already-safe strings only when
that row is painted, builds the rest in small chunks after the first paint, and filters and
sorts lists of indexes: the first rows of 50,000 show at once and a keystroke filters in
milliseconds. Moving the cursor repaints two lines, not the list.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from hubtui.tui.collection import collector_paused, release_frozen
from hubtui.tui.glyphs import ASCENDING, DESCENDING, ELLIPSIS, MARK, STAGED_MARK
from hubtui.tui.record_view import WISH_CAP, Column, RecordView, Row, cell_indexes, fit_columns

__all__ = ["FREEZE_AT_LEAST", "Column", "RecordTable", "Row", "cell_indexes", "fit_columns"]

T = TypeVar("T")

#: From this many records, a list's objects are left out of garbage collections once indexed.
FREEZE_AT_LEAST = 10_000
#: Narrower than this, the list shows no scrollbar: its column goes to the Name and the email.
NARROW_BELOW = 80
#: After a change of the filter, indexing waits this long: the keystroke is painted first.
KEY_QUIET = 0.03


class RowMessage(Message):
    """A message about one row of a :class:`RecordTable` and the record behind it."""

    def __init__(self, table: RecordTable[Any], row: Row | None, record: Any) -> None:
        super().__init__()
        self.table = table
        self.row = row
        self.record = record

    @property
    def control(self) -> RecordTable[Any]:
        return self.table


class RecordTable(ScrollView, Generic[T], can_focus=True, inherit_bindings=False):
    """A table of records of type ``T`` under a header line: a cursor, filter, groups, sorting."""

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
    # Under NO_COLOR the badge and the cursor are reverse video instead (render_line).
    DEFAULT_CSS = """
    RecordTable {
        height: 1fr;
        min-height: 4;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        &.-narrow { scrollbar-size-vertical: 0; }
        & > .record-table--header { text-style: bold; background: $panel; }
        & > .record-table--cursor { background: $primary-darken-2; color: $text; text-style: bold; }
        & > .record-table--badge { text-style: bold; background: $warning; color: auto 90%; }
        & > .record-table--limited { color: $text-warning; }
        & > .record-table--failed { color: $error; }
        & > .record-table--placeholder { color: $text-muted; text-style: italic; }
        & > .record-table--muted { color: $text-muted; text-style: italic; }
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

    class Highlighted(RowMessage):
        """The cursor moved to ``row`` of ``record`` (both None when the table is empty)."""

    class Selected(RowMessage):
        """The person opened ``row`` of ``record`` (enter, or a click on the highlighted row)."""

    class ViewChanged(Message):
        """The rows shown changed: new rows, filter, group or sort."""

        def __init__(self, table: RecordTable[Any]) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> RecordTable[Any]:
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
        self.view: RecordView[T] = RecordView(columns, on_widen=self._widened)
        self.empty_text = empty_text
        #: Said instead of ``empty_text`` while nothing is loaded: loading, or why not.
        self.note: str | None = None
        #: Whether enter opens a row here (and says so in the footer).
        self.can_open = True
        self._column_layout: tuple[int, list[tuple[int, int]]] | None = None
        # Which list of shown rows was last painted in full (a new view repaints everything).
        self._view_serial = 0
        self._quiet_until = 0.0
        #: Whether the search keys are being made (a worker is under way).
        self._indexing = False
        self._painted_view = -1
        #: The keys of the rows marked (space, *), kept through filter, sort and reload.
        self.marks: set[str] = set()
        #: The keys of the rows with a change staged (``±`` in the gutter), not yet sent.
        self.staged: set[str] = set()

    # What is shown ----------------------------------------------------------------------------

    @property
    def columns(self) -> tuple[Column, ...]:
        return self.view.columns

    @property
    def filter_text(self) -> str:
        return self.view.filter_text

    @property
    def group(self) -> str | None:
        return self.view.group

    @property
    def visible_count(self) -> int:
        return len(self.view.shown)

    @property
    def total_count(self) -> int:
        return self.view.total

    @property
    def filter_complete(self) -> bool:
        """Whether the rows shown were chosen from every row (False while a large list is
        still being indexed: more matches come as it goes)."""
        return self.view.complete

    @property
    def empty_message(self) -> str:
        """What an empty list says: never that there are none when they were only hidden."""
        total = self.view.total
        if total:
            if self.view.filter_text.strip():
                return f"None of the {total:,} match; escape clears the filter."
            return f"None of the {total:,} are in this group."
        if self.note is not None:
            return self.note
        return self.empty_text

    def set_note(self, note: str | None) -> None:
        self.note = note
        self.refresh()

    @property
    def sort_label(self) -> str | None:
        """The sorted column's label with its direction, or None when unsorted."""
        column = self.view.sort_column
        if column is None:
            return None
        arrow = "descending" if self.view.sort_reverse else "ascending"
        label = f"{self.columns[column].label} {arrow}"
        if self._width and column not in dict(self.column_widths(self._columns_width)):
            label += " (a column hidden at this width)"
        return label

    @property
    def _highlighted_index(self) -> int | None:
        """The index of the record under the cursor, or None when nothing is shown."""
        shown = self.view.shown
        return shown[min(self.cursor, len(shown) - 1)] if shown else None

    @property
    def highlighted_row(self) -> Row | None:
        index = self._highlighted_index
        return None if index is None else self.view.row(index)

    @property
    def highlighted_record(self) -> T | None:
        """The record under the cursor, or None when nothing is shown."""
        index = self._highlighted_index
        return None if index is None else self.view.record(index)

    def row(self, index: int) -> Row:
        """The row of record ``index``."""
        return self.view.row(index)

    def row_was_painted(self, position: int) -> bool:
        """Whether the row shown at ``position`` has been built (it is built when painted)."""
        shown = self.view.shown
        return position < len(shown) and self.view.is_built(shown[position])

    @property
    def rows(self) -> list[Row]:
        """Every row."""
        return self.view.rows(range(self.view.total))

    @property
    def shown_rows(self) -> list[Row]:
        """The rows shown, in the order shown: after filter, group and sort."""
        return self.view.rows(self.view.shown)

    @property
    def shown_records(self) -> list[T]:
        """The records shown, in the order shown."""
        view = self.view
        return [view.record(index) for index in view.shown]

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Show these columns; a sort by a column that is still there (by key) is kept."""
        self.view.set_columns(columns)
        self._column_layout = None
        self.refresh()

    def set_records(
        self,
        records: Sequence[T],
        make_row: Callable[[T], Row],
        *,
        key: Callable[[T], str],
        keep_key: str | None = None,
        index: bool = True,
    ) -> None:
        """Show ``records``, each turned into a row by ``make_row`` only when it is needed.

        The cursor stays on ``keep_key`` (or on the current row) if it is still shown.
        ``index``: their search keys made in the background once the first screenful is shown;
        False (a list shown while its whole is still read, soon replaced): only once a filter
        or a group asks.
        """
        keep = keep_key if keep_key is not None else self._highlighted_key()
        self.note = None
        if self.view.total >= FREEZE_AT_LEAST:
            release_frozen()  # the list replaced may be collected now
        self._column_layout = None
        self.view.replace(records, make_row, key)
        self._shown_changed(keep)
        if self.view.total and self.is_mounted and (index or self.view.choosing):
            # Paint first; build the rest of the rows once the first screenful is shown.
            self.call_after_refresh(self._start_indexing)

    def update_record(self, record: T, *, key: str) -> None:
        """Replace the record with this key, or add it; the cursor moves to it."""
        self.view.update(record, key)
        self._shown_changed(key)

    def set_filter(self, text: str) -> None:
        """Show only rows whose cells contain every word of ``text`` (case and accents ignored)."""
        keep = self._highlighted_key()
        self.view.set_filter(text)
        self._shown_changed(keep)
        self._index_when_asked()
        self._quiet_until = time.monotonic() + KEY_QUIET

    def show_group(self, group: str | None) -> None:
        """Show only rows of this group (None for all)."""
        keep = self._highlighted_key()
        self.view.show_group(group)
        self._shown_changed(keep)
        self._index_when_asked()

    def sort_by(self, column: int | None, *, reverse: bool = False) -> None:
        keep = self._highlighted_key()
        self.view.sort_by(column, reverse=reverse)
        self._shown_changed(keep)

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row with this key, if it is shown."""
        position = self.view.position_of(key)
        if position is None:
            return False
        self.cursor = position
        return True

    # Marks ------------------------------------------------------------------------------------

    #: Which records can be marked (None: every one): a row that is no person (a project that
    #: could not be read) is never marked, by one key or by ``*``.
    markable: Callable[[Any], bool] | None = None

    def toggle_mark(self) -> bool:
        """Mark the highlighted row, or unmark it; False when no row is shown (or it is not one
        that can be marked)."""
        key = self._highlighted_key()
        if key is None:
            return False
        record = self.highlighted_record
        if self.markable is not None and key not in self.marks and not self.markable(record):
            return False
        self.marks.symmetric_difference_update({key})
        self._marks_changed()
        return True

    def mark_shown(self) -> int:
        """Mark every row shown (after filter and group); how many are marked now."""
        view, markable = self.view, self.markable
        self.marks.update(
            view.key(index)
            for index in view.shown
            if markable is None or markable(view.record(index))
        )
        self._marks_changed()
        return len(self.marks)

    def show_staged(self, keys: set[str]) -> None:
        """Mark these rows as having a change staged (``±``); the others not."""
        if keys != self.staged:
            self.staged = keys
            self._lay_out_again()  # the gutter may come or go

    def clear_marks(self) -> None:
        self.marks.clear()
        self._marks_changed()

    def marked_records(self) -> list[T]:
        """The records marked that are still in the list, in the list's order."""
        if not self.marks:
            return []
        view = self.view
        return [view.record(i) for i in range(view.total) if view.key(i) in self.marks]

    def _marks_changed(self) -> None:
        self._lay_out_again()  # the gutter comes and goes with the first and last mark
        self.post_message(self.ViewChanged(self))

    def _lay_out_again(self) -> None:
        """Lay the columns out again on the next paint (the gutter came or went)."""
        self._column_layout = None
        self._painted_view = -1
        self.refresh()

    @property
    def _gutter(self) -> int:
        """The cells before the first column: two while any row is marked, else none."""
        return 2 if self.marks or self.staged else 0

    def _highlighted_key(self) -> str | None:
        index = self._highlighted_index
        return None if index is None else self.view.key(index)

    def _shown_changed(self, keep_key: str | None) -> None:
        """The rows shown changed: the cursor stays on its record if it can; tell the screen."""
        self._view_serial += 1
        self.virtual_size = Size(self._width, len(self.view.shown) + 1)
        self.cursor = self.view.position_of(keep_key) or 0
        self.refresh()
        self.post_message(self.ViewChanged(self))

    # Indexing after the first paint -----------------------------------------------------------

    def _start_indexing(self) -> None:
        if not self.view.indexed:
            # The function, not a coroutine: a worker the app never starts (it is quitting)
            # leaves no coroutine behind that was never awaited.
            self.run_worker(
                self._index_rest,  # type: ignore[arg-type]
                group="index",
                exclusive=True,
                exit_on_error=False,
            )

    def _index_when_asked(self) -> None:
        """A list shown without its search keys (``set_records(index=False)``) has them made
        once a filter or a group asks; one worker at a time (a keystroke does not start one)."""
        if self.view.choosing and not self._indexing:
            self._start_indexing()  # which starts none once every key is made

    async def _index_rest(self) -> None:
        self._indexing = True
        try:
            if self.view.total < FREEZE_AT_LEAST:
                await self._index_in_chunks()
                return
            with collector_paused():  # see hubtui/tui/collection.py
                await self._index_in_chunks()
        finally:
            self._indexing = False

    async def _index_in_chunks(self, chunk: int = 500) -> None:
        """Build rows and search keys, yielding to input between chunks.

        A keystroke crosses the event loop several times (key, input, filter, paint) and waits
        behind a chunk at each: chunks are a few milliseconds long, and a millisecond's pause
        after each leaves the processor to the keystroke's path and the terminal. After a
        change of the filter the pause lasts KEY_QUIET, so the keystroke is painted before the
        next chunk; one chunk always runs between pauses, so a held key slows indexing but never
        stops it. The figures: docs/performance.md, "Typing while a list is indexed".
        """
        shown_at = time.monotonic()
        while True:
            keep = self._highlighted_key()
            more = self.view.index_next(chunk)
            # A filter typed before indexing finished: the matches of each chunk joined. They
            # are shown ten times a second, and at the end.
            if self.view.choosing and (not more or time.monotonic() - shown_at >= 0.1):
                self._shown_changed(keep)
                shown_at = time.monotonic()
            if not more:
                return
            await asyncio.sleep(max(0.001, self._quiet_until - time.monotonic()))

    # Keys -------------------------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.size.height - 1)

    def action_cursor(self, delta: int) -> None:
        self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        self.cursor = self.cursor + direction * self._page

    def action_edge(self, end: int) -> None:
        self.cursor = len(self.view.shown) - 1 if end else 0

    def action_select(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.post_message(self.Selected(self, row, self.highlighted_record))

    def action_sort(self) -> None:
        """Sort by the next column shown (a column hidden at this width is skipped)."""
        shown = [index for index, _ in self.column_widths(self._columns_width)] or list(
            range(len(self.columns))
        )
        if not shown:
            return
        current = self.view.sort_column
        later = [index for index in shown if current is None or index > current]
        self.sort_by(later[0] if later else shown[0])

    def action_reverse(self) -> None:
        self.sort_by(self.view.sort_column or 0, reverse=not self.view.sort_reverse)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select":
            return self.can_open
        return True

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, len(self.view.shown) - 1))

    def watch_cursor(self, old: int, cursor: int) -> None:
        page = self._page
        top = new_top = self._top
        if cursor < top:
            new_top = cursor
        elif cursor >= top + page:
            new_top = cursor - page + 1
        new_top = max(0, min(new_top, max(0, len(self.view.shown) - page)))
        if new_top != top:
            # The header stays; the rows scroll (and the scrollbar says where they are).
            self.scroll_to(y=new_top, animate=False, immediate=True)
        if new_top == top and self._painted_view == self._view_serial:
            # Only the two rows whose cursor style changed are sent to the terminal: a move
            # costs a few hundred bytes over SSH, not a repaint of the whole list.
            width = self._width
            self.refresh(Region(0, old - top + 1, width, 1), Region(0, cursor - top + 1, width, 1))
        else:
            self._painted_view = self._view_serial
            self.refresh()
        self.post_message(self.Highlighted(self, self.highlighted_row, self.highlighted_record))

    def on_resize(self, event: events.Resize) -> None:
        # Below 80 columns every cell goes to the identifiers: no scrollbar (the counts line
        # still says how many rows there are).
        self.set_class(event.size.width < NARROW_BELOW, "-narrow")
        self.virtual_size = Size(event.size.width, len(self.view.shown) + 1)
        self._column_layout = None
        self._painted_view = -1
        self.cursor = self.cursor

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            self._header_clicked(event.x)
            return
        position = self._top + event.y - 1
        if position >= len(self.view.shown):
            return
        if position == self.cursor:
            self.action_select()
        else:
            self.cursor = position

    def _header_clicked(self, x: int) -> None:
        """A click on a column's label sorts by it; a second click reverses the order."""
        left = self._gutter
        for index, width in self.column_widths(self._columns_width):
            if left <= x < left + width:
                same = index == self.view.sort_column
                self.sort_by(index, reverse=same and not self.view.sort_reverse)
                return
            left += width + 1

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.prevent_default()  # the wheel moves the cursor; the rows follow it
        self.cursor = self.cursor + 3

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.prevent_default()
        self.cursor = self.cursor - 3

    def on_unmount(self) -> None:
        if self.view.total >= FREEZE_AT_LEAST:
            release_frozen()  # the screen is closed: its list may be collected

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # Painting ---------------------------------------------------------------------------------

    @property
    def _width(self) -> int:
        """The cells a row has: the widget's width less its scrollbar, when it shows one."""
        return self.scrollable_content_region.width

    @property
    def _columns_width(self) -> int:
        """The cells the columns share: the row's, less the marks' gutter."""
        return self._width - self._gutter

    @property
    def _top(self) -> int:
        """The position of the first row shown, below the header."""
        return round(self.scroll_y)

    def column_widths(self, width: int) -> list[tuple[int, int]]:
        """(column index, width) of the columns that fit, in column order."""
        if self._column_layout and self._column_layout[0] == width:
            return self._column_layout[1]
        widths = fit_columns(self.columns, self.view.natural, width)
        self._column_layout = (width, widths)
        return widths

    def _widened(self, index: int) -> None:
        """A row built needs more room in column ``index`` than any before it."""
        layout = self._column_layout
        need = min(self.view.natural[index], WISH_CAP)
        if layout is not None:
            laid = dict(layout[1]).get(index)
            if (laid is None and self.columns[index].keep) or (laid is not None and laid < need):
                # This row would be cut (or a kept column is not shown): lay out again on the
                # next paint, so that nothing is cut while there is room (asked after this
                # paint: a row is built while it is painted, and the lines painted after it in
                # this pass still had the old layout).
                self._column_layout = None
                self._painted_view = -1
                self.call_after_refresh(self.refresh)

    def render_line(self, y: int) -> Strip:
        gutter = self._gutter
        width = self._columns_width
        base = self.rich_style
        layout = self.column_widths(width)
        if y == 0:
            header = base + self.get_component_rich_style("record-table--header")
            labels = []
            for index, cell_width in layout:
                label = self.columns[index].label
                if index == self.view.sort_column:
                    # The arrow stays however narrow the column: the label gives way to it.
                    arrow = f" {DESCENDING}" if self.view.sort_reverse else f" {ASCENDING}"
                    if cell_len(label) + 2 > cell_width:
                        label = set_cell_size(label, max(0, cell_width - 3)) + ELLIPSIS
                    label += arrow
                labels.append((label, cell_width, self.columns[index].numeric))
            return self._guttered(self._strip(labels, header, width, cell_styles={}), "", header)
        position = self._top + y - 1
        shown = self.view.shown
        if position >= len(shown):
            if position == 0 and y == 1:
                muted = base + self.get_component_rich_style("record-table--muted")
                text = f" {self.empty_message}"
                return Strip([Segment(set_cell_size(text, width + gutter), muted)], width + gutter)
            return Strip.blank(width + gutter, base)
        row = self.view.row(shown[position])
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
        strip = self._strip(cells, style, width, cell_styles=cell_styles)
        if not gutter:
            return strip
        key = self.view.key(shown[position])
        mark = MARK if key in self.marks else STAGED_MARK if key in self.staged else ""
        return self._guttered(strip, mark, style)

    def _guttered(self, strip: Strip, mark: str, style: Style) -> Strip:
        """``strip`` after the marks' gutter (two cells, while any row is marked)."""
        if not self._gutter:
            return strip
        cell = Segment(set_cell_size(mark, 1) + " ", style + Style(bold=True))
        return Strip([cell, *strip], strip.cell_length + 2).simplify()

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
