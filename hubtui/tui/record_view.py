"""RecordView: which records a list shows, in what order, without any widget.

The model behind :class:`~hubtui.tui.widgets.record_table.RecordTable`: the records it was
given, their rows (built from a record only when first needed), the search keys built after the
first paint, and the filter, group and sort that choose the rows shown. It never imports
Textual, so every rule of what is shown is tested on its own (tests/unit/test_record_view.py);
the widget adds the cursor, the painting and the keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Generic, TypeVar

from rich.cells import cell_len

from hubtui.core.presenting import WISH_CAP, Column, fit_columns
from hubtui.text import fold, inert

__all__ = ["INDEX_NOW_AT_MOST", "WISH_CAP", "Column", "RecordView", "Row", "fit_columns"]

T = TypeVar("T")

#: A filter typed before indexing finished builds the rest at once only when this few are left.
INDEX_NOW_AT_MOST = 5000
#: How many built rows are kept (those on the screen and near it); any other is built again
#: from its record when it is needed. Keeping all of a 50,000-user list's would take 14 MB.
ROWS_KEPT = 2048


@dataclass(frozen=True, slots=True)
class Row:
    """One row: safe display strings (one per column) and how it is marked. (Its record's key
    is the view's: :meth:`RecordView.key`.)"""

    cells: tuple[str, ...]
    tone: str | None = None
    """A row style: ``record-table--<tone>`` (for example ``limited``)."""
    badges: frozenset[int] = frozenset()
    """Indexes of cells shown in the badge style (their text is a word, never colour alone)."""
    placeholders: frozenset[int] = frozenset()
    """Indexes of cells holding hubtui's own words for a missing value, not a server's text:
    shown dim and italic, a style no server string is ever given."""
    group: str | None = None
    """What :meth:`RecordView.show_group` selects on (for example member or limited)."""


@cache
def cell_indexes(*indexes: int) -> frozenset[int]:
    """These cells, as :attr:`Row.badges` or :attr:`Row.placeholders` name them: one set shared
    by every row that has them (a set per row would be 10 MB for 50,000 rows)."""
    return frozenset(indexes)


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


def _row_sort_key(
    row: Row, column: int, key: Callable[[str], tuple[int, float | str]]
) -> tuple[int, float | str]:
    """A cell's sort key; hubtui's own words for a missing value (``(none set = Name)``) sort
    after every value, among themselves by the row's other words, never in the order before."""
    if column in row.placeholders:
        return (2, fold(" ".join(row.cells)))
    return key(row.cells[column])


class RecordView(Generic[T]):
    """Records of type ``T``, each shown as a :class:`Row`; filtered, grouped and sorted.

    Positions (what the cursor counts) are places in :attr:`shown`; indexes are places in the
    records as given. ``on_widen`` is told when a row built needs more room in a column than
    any row before it (the widget lays its columns out again).
    """

    def __init__(
        self, columns: Sequence[Column] = (), *, on_widen: Callable[[int], None] | None = None
    ) -> None:
        self.columns: tuple[Column, ...] = tuple(columns)
        self._on_widen = on_widen
        self._records: list[T] = []
        self._make_row: Callable[[T], Row] = _no_row
        self._keys: list[str] = []
        # Rows lately built, oldest first; the others are built again from their records.
        self._kept: dict[int, Row] = {}
        self._search: list[str | None] = []
        self._groups: list[str | None] = []
        # The sort keys of every record, for the column last sorted by.
        self._sort_keys: tuple[int, list[tuple[int, float | str]]] | None = None
        self._indexed_up_to = 0
        self._order: list[int] = []
        #: The indexes of the records shown, in the order shown.
        self.shown: list[int] = []
        self._filter = ""
        self._group: str | None = None
        self._sort_column: int | None = None
        self._sort_reverse = False
        self._shown_complete = True
        #: The longest text seen in each column, for the layout (see :func:`fit_columns`).
        self.natural: list[int] = [0] * len(self.columns)

    # Records ----------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return len(self._records)

    def record(self, index: int) -> T:
        return self._records[index]

    def key(self, index: int) -> str:
        return self._keys[index]

    def row(self, index: int) -> Row:
        """The row of record ``index``; the rows lately asked for are kept."""
        row = self._kept.get(index)
        if row is None:
            row = self._build(index)
            if len(self._kept) >= ROWS_KEPT:
                del self._kept[next(iter(self._kept))]  # the one kept longest
            self._kept[index] = row
        return row

    def rows(self, indexes: Iterable[int]) -> list[Row]:
        """The rows of these records, built for the caller and not kept."""
        kept, build = self._kept, self._build
        return [kept.get(i) or build(i) for i in indexes]

    def _build(self, index: int) -> Row:
        try:
            row = self._make_row(self._records[index])
        except Exception as exc:  # a value no rule foresaw costs its own row, never the list
            row = unreadable_row(len(self.columns), exc)
        self._note_widths(row)
        return row

    def is_built(self, index: int) -> bool:
        """Whether the row of record ``index`` was lately built (shown, for one)."""
        return index in self._kept

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Show these columns; a sort by a column that is still there (by key) is kept."""
        sorted_key = None if self._sort_column is None else self.columns[self._sort_column].key
        self.columns = tuple(columns)
        keys = [column.key for column in self.columns]
        self._sort_column = keys.index(sorted_key) if sorted_key in keys else None
        self.natural = [0] * len(self.columns)
        self._sort_keys = None
        seen = [i for i in range(len(self._records)) if self._search[i] is not None]
        self.rows(sorted({*seen, *self._kept}))  # their widths, in the new columns

    def replace(
        self, records: Sequence[T], make_row: Callable[[T], Row], key: Callable[[T], str]
    ) -> None:
        """Show ``records``; each becomes a row by ``make_row`` only when it is needed."""
        self._records = list(records)
        self._make_row = make_row
        self._keys = [key(record) for record in self._records]
        self._kept = {}
        self._search = [None] * len(self._records)
        self._groups = [None] * len(self._records)
        self._sort_keys = None
        self.natural = [0] * len(self.columns)
        self._indexed_up_to = 0
        self._order = list(range(len(self._records)))
        if self._sort_column is not None:
            self._apply_sort()
        self.refilter()

    def update(self, record: T, key: str) -> None:
        """Replace the record with this key, or add it."""
        try:
            index = self._keys.index(key)
        except ValueError:
            index = len(self._records)
            self._records.append(record)
            self._keys.append(key)
            self._search.append(None)
            self._groups.append(None)
            self._order.append(index)
        else:
            self._records[index] = record
            self._kept.pop(index, None)
            self._search[index] = None
            if index < self._indexed_up_to:
                self._search_key(index)
        if self._sort_keys is not None:
            column, keys = self._sort_keys
            sort_key = _row_sort_key(
                self.row(index), column, _sort_key(self.columns[column].numeric)
            )
            if index < len(keys):
                keys[index] = sort_key
            else:
                keys.append(sort_key)
        if self._sort_column is not None:
            self._apply_sort()
        self.refilter()

    def position_of(self, key: str | None) -> int | None:
        """Where the record with this key is shown, if it is."""
        if key is None:
            return None
        keys = self._keys
        for position, index in enumerate(self.shown):
            if keys[index] == key:
                return position
        return None

    # What is shown ----------------------------------------------------------------------------

    @property
    def filter_text(self) -> str:
        return self._filter

    @property
    def group(self) -> str | None:
        return self._group

    @property
    def sort_column(self) -> int | None:
        return self._sort_column

    @property
    def sort_reverse(self) -> bool:
        return self._sort_reverse

    def set_filter(self, text: str) -> None:
        """Show only rows whose cells contain every word of ``text`` (case and accents ignored)."""
        narrowing = bool(self._filter) and text.startswith(self._filter) and " " not in text
        self._filter = text
        self.refilter(narrowing=narrowing)

    def show_group(self, group: str | None) -> None:
        """Show only rows of this group (None for all)."""
        self._group = group
        self.refilter()

    def sort_by(self, column: int | None, *, reverse: bool = False) -> None:
        self._sort_column = column
        self._sort_reverse = reverse
        self._order = list(range(len(self._records)))
        if column is not None:
            self._apply_sort()
        self.refilter()

    def _apply_sort(self) -> None:
        assert self._sort_column is not None
        column = self._sort_column
        if self._sort_keys is None or self._sort_keys[0] != column:
            key = _sort_key(self.columns[column].numeric)
            every = self.rows(range(len(self._records)))
            self._sort_keys = (column, [_row_sort_key(row, column, key) for row in every])
        self._order.sort(key=self._sort_keys[1].__getitem__, reverse=self._sort_reverse)

    def refilter(self, *, narrowing: bool = False) -> None:
        """Choose the rows shown again, from the rows indexed so far."""
        if not self.choosing:
            self.shown = list(self._order)
        else:
            self._index_now()
            indexed = self._indexed_up_to
            # Typing more of the same filter only narrows: look within what is shown.
            candidates = self.shown if narrowing and self._shown_complete else self._order
            if indexed < len(self._records):
                candidates = [i for i in candidates if i < indexed]
            self.shown = self._matching(candidates)
        self._shown_complete = self.complete

    def _matching(self, candidates: Iterable[int]) -> list[int]:
        """The indexes among ``candidates`` (all indexed) that the filter and group choose."""
        chosen = list(candidates)
        search, groups, group = self._search, self._groups, self._group
        if group is not None:
            chosen = [i for i in chosen if groups[i] == group]
        for word in fold(self._filter).split():
            chosen = [i for i in chosen if word in search[i]]  # type: ignore[operator]
        return chosen

    @property
    def choosing(self) -> bool:
        """Whether a filter or a group chooses among the rows (more come as indexing goes)."""
        return bool(self._filter.split()) or self._group is not None

    @property
    def complete(self) -> bool:
        """Whether the rows shown were chosen from every row (False while a large list is
        still being indexed under a filter or group: more matches come as it goes)."""
        return self._indexed_up_to >= len(self._records) or not self.choosing

    # Indexing ---------------------------------------------------------------------------------

    @property
    def indexed(self) -> bool:
        return self._indexed_up_to >= len(self._records)

    def _search_key(self, index: int) -> str:
        text = self._search[index]
        if text is None:
            row = self._kept.get(index) or self._build(index)
            self._groups[index] = row.group
            # Cell by cell: most cells are ASCII and fold without Unicode normalisation.
            text = self._search[index] = "\x1f".join([fold(c) for c in row.cells])
        return text

    def index_next(self, chunk: int) -> bool:
        """Build the rows and search keys of the next ``chunk`` records; whether any are left.

        Under a filter or a group, the matches of this chunk join the rows shown.
        """
        total, start = len(self._records), self._indexed_up_to
        stop = min(total, start + chunk)
        self._index_to(stop)
        if self.choosing and self._sort_column is None and not self._shown_complete:
            # In the records' own order the chunk's matches come after every match so far:
            # only the chunk is searched (a keystroke never waits behind a search of them all).
            self.shown.extend(self._matching(range(start, stop)))
            self._shown_complete = self.complete
        elif self.choosing:
            self.refilter()
        return self._indexed_up_to < total

    def _index_now(self) -> None:
        """Finish building rows and search keys, when few are left (a large rest is left to the
        background: a keystroke never waits for tens of thousands of rows)."""
        if len(self._records) - self._indexed_up_to <= INDEX_NOW_AT_MOST:
            self._index_to(len(self._records))

    def _index_to(self, stop: int) -> None:
        """Build the search keys of the records not indexed yet, up to ``stop``."""
        for index in range(self._indexed_up_to, stop):
            self._search_key(index)
        self._indexed_up_to = max(self._indexed_up_to, stop)

    def _note_widths(self, row: Row) -> None:
        natural = self.natural
        for index, text in enumerate(row.cells[: len(natural)]):
            # Most cells are ASCII, one cell per character: len() in C instead of a scan.
            need = len(text) if text.isascii() else cell_len(text)
            if need > natural[index]:
                natural[index] = need
                if self._on_widen is not None:
                    self._on_widen(index)


def unreadable_row(width: int, problem: BaseException) -> Row:
    """The row of a record that could not be drawn: ``unreadable`` and why, in hubtui's own
    words (never the record's text), so the rows around it are still shown."""
    why = f"unreadable: {inert(problem, limit=80) or type(problem).__name__}"
    if width < 2:
        return Row(cells=(why,)[:width], tone="failed")
    cells = ("!", why, *("?" for _ in range(width - 2)))
    return Row(cells=cells, tone="failed", placeholders=cell_indexes(*range(2, width)))


def _no_row(record: object) -> Row:
    raise LookupError("a view with no records has no rows")
