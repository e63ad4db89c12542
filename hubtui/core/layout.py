"""How columns share a terminal's width: the same priorities in the app's lists and in the
headless commands' tables (identifiers whole while anything else can give way)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len

__all__ = ["WISH_CAP", "Column", "fit_columns"]

WISH_CAP = 48
"""No column asks for more than this many cells, whatever one row holds (a server can send a
200-character email; it is cut rather than pushing every other column off the screen)."""


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
    """Right-aligned and sorted as a number; exported as one."""
    boolean: bool = False
    """A yes/no shown as a mark (``LIMITED``, ``yes``): exported as true or false."""


#: The narrowest a column that may give way is squeezed to before an identifier is cut.
SQUEEZED_WIDTH = 4


def fit_columns(
    columns: Sequence[Column],
    natural: Sequence[int],
    width: int,
    *,
    gap: int = 1,
    spread: bool = True,
) -> list[tuple[int, int]]:
    """(column index, width) of the columns shown in ``width`` cells, in column order.

    Columns of priority 0 are always shown; the others join by priority while they fit at their
    smallest width. Then the ``keep`` columns
    (the identifiers a person must read exactly) get room for their longest text: columns that
    may give way are dropped for it (those with no text at all first, then highest priority
    number first), then the others are squeezed below their smallest width, before a kept one
    is cut. What is left widens the other flexible columns towards their longest text, then
    evenly (unless ``spread`` is False: a printed table ends where its text does). ``gap``
    cells stand between two columns.
    """

    def base(i: int) -> int:
        return columns[i].width or columns[i].min_width

    def text(i: int) -> int:
        return natural[i] if i < len(natural) else 0

    def wish(i: int) -> int:
        column = columns[i]
        if column.width is not None:
            return column.width
        label = cell_len(column.label) + 2  # room for the sort arrow
        longest = max(label, text(i))
        return max(column.min_width, min(longest, WISH_CAP))

    chosen: list[int] = []
    used = 0
    for index in sorted(range(len(columns)), key=lambda i: columns[i].priority):
        need = base(index) + (gap if chosen else 0)
        if used + need > width and chosen and columns[index].priority > 0:
            continue  # priority 0 is never left out: it is squeezed below instead
        chosen.append(index)
        used += need
    given = {i: base(i) for i in chosen}

    def short() -> int:
        return sum(max(0, wish(i) - given[i]) for i in chosen if columns[i].keep)

    while short() > width - used:
        droppable = [i for i in chosen if not columns[i].keep and columns[i].priority > 0]
        if not droppable:
            break
        drop = max(droppable, key=lambda i: (text(i) == 0, columns[i].priority, i))
        chosen.remove(drop)
        used -= given.pop(drop) + gap
    squeezable = [i for i in chosen if not columns[i].keep and columns[i].width is None]
    while short() > width - used:
        widest = max(squeezable, key=lambda i: given[i], default=None)
        if widest is None or given[widest] <= SQUEEZED_WIDTH:
            break
        given[widest] -= 1
        used -= 1
    chosen.sort()
    spare = max(0, width - used)
    for kept_first in (True, False):
        for i in chosen:
            if columns[i].keep != kept_first or columns[i].width is not None:
                continue
            extra = min(spare, max(0, wish(i) - given[i]))
            given[i] += extra
            spare -= extra
    flexible = [i for i in chosen if columns[i].width is None]
    others = ([i for i in flexible if not columns[i].keep] or flexible) if spread else []
    for n, i in enumerate(others):
        share = spare // len(others) + (1 if n < spare % len(others) else 0)
        given[i] += share
    return [(i, given[i]) for i in chosen]
