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
    """One column: its label and how it gives way when the terminal is narrow.

    Three kinds share the width, in this order: the identifiers a person types or pastes
    (``keep``: a URL name, an email, an Id) are whole; the column that says what the row means
    (``meaning``: Access, What, Change, Path) has the spare width next; descriptive text (names,
    a DisplayName, a project's name) gives way first.
    """

    key: str
    label: str
    width: int | None = None
    """A fixed width; None to share the room left over."""
    min_width: int = 6
    priority: int = 0
    """Columns with the highest priority number are dropped first when space runs out; 0 is
    never dropped (the column that tells rows apart is 0)."""
    keep: bool = False
    """An identifier: never cut while a column that is not one can shrink or hide."""
    meaning: bool = False
    """Says what the row means: widened right after the identifiers, cut after descriptive text."""
    numeric: bool = False
    """Right-aligned and sorted as a number; exported as one."""
    boolean: bool = False
    """A yes/no shown as a mark (``LIMITED``, ``yes``): exported as true or false."""


#: The narrowest a column that may give way is squeezed to before an identifier is cut.
SQUEEZED_WIDTH = 4
#: The narrowest descriptive text is squeezed to so that what a row means is whole.
GIVES_WAY_TO_MEANING = 7
#: The narrowest an identifier's column is made while another is cut, however short its values:
#: its label's first letters stay readable.
LABEL_AT_LEAST = 6
#: How wide a description (a name, a project's name) grows before what a row means is whole:
#: most names fit, and one long name does not cost every row its reason.
DESCRIBED_FIRST = 24
#: How wide what a row means may grow at the cost of other columns (it takes more only from
#: room no other column wants: a long reason never starves the names).
MEANING_CAP = 40


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
    smallest width. The identifiers (``keep``) then get room for their longest text (up to
    :data:`WISH_CAP`; their labels may be cut for it): columns that may give way are dropped for
    it (those with no text at all first, then the highest priority number first), then
    descriptive columns are squeezed, then the ``meaning`` ones, before an identifier is cut.
    What is left widens, in turn, the ``meaning`` columns to :data:`MEANING_CAP`, the
    descriptive ones to :data:`DESCRIBED_FIRST`, the ``meaning`` ones to their longest text,
    the descriptive ones to theirs, and the identifiers to their labels: nothing is cut while
    there is room, and no column is wider than what it holds while another is cut. The rest is
    spread over the columns that are not identifiers (unless ``spread`` is False: a printed
    table ends where its text does). The columns never take more than ``width`` (a printed row
    is one line): past every squeeze, the widest is cut. ``gap`` cells stand between two
    columns.
    """

    def base(i: int) -> int:
        fixed = columns[i].width
        if fixed is not None:
            return fixed
        if columns[i].keep and text(i):  # no wider than its values need, to start with
            return min(columns[i].min_width, whole(i))
        return columns[i].min_width

    def text(i: int) -> int:
        return natural[i] if i < len(natural) else 0

    def full(i: int) -> int:
        column = columns[i]
        if column.width is not None:
            return column.width
        return max(column.min_width, cell_len(column.label) + 2, text(i))  # + the sort arrow

    def wish(i: int) -> int:
        return min(full(i), max(WISH_CAP, columns[i].min_width)) if columns[i].keep else full(i)

    def whole(i: int) -> int:
        """What an identifier needs for its values whole (its label may be cut for them):
        never more than it asks for, never less than a label's first letters."""
        if not text(i):
            return wish(i)
        return min(wish(i), max(text(i), LABEL_AT_LEAST))

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
        return sum(max(0, whole(i) - given[i]) for i in chosen if columns[i].keep)

    dropped: set[int] = set()

    def drop_one(droppable: list[int]) -> bool:
        """Leave out the one of ``droppable`` to go first (no text, then the highest priority
        number); False when there is none."""
        nonlocal used
        if not droppable:
            return False
        drop = max(droppable, key=lambda i: (text(i) == 0, columns[i].priority, i))
        chosen.remove(drop)
        dropped.add(drop)
        used -= given.pop(drop) + gap
        return True

    # Columns that may be left out go first (an identifier too: left out, never cut).
    while short() > width - used:
        if not drop_one([i for i in chosen if columns[i].priority > 0]):
            break

    def described_first(i: int) -> int:  # what a description takes before the rest is shared
        values = text(i) if text(i) else wish(i)  # its values, not its label, while others cut
        return min(max(values, columns[i].min_width), max(DESCRIBED_FIRST, columns[i].min_width))

    def meaning_wish(i: int) -> int:  # what the row means may push others only this far
        return min(wish(i), max(MEANING_CAP, columns[i].min_width))

    def meaning_short() -> int:
        return sum(
            max(0, meaning_wish(i) - given[i])
            for i in chosen
            if columns[i].meaning and not columns[i].keep
        )

    # What the row means before what may be left out: such a column is, rather than cut it.
    while meaning_short() > width - used - short():
        if not drop_one([i for i in chosen if columns[i].priority > 0 and not columns[i].keep]):
            break

    descriptive = [
        i
        for i in chosen
        if not columns[i].keep and not columns[i].meaning and columns[i].width is None
    ]
    while meaning_short() > width - used - short():  # then descriptive text gives way
        widest = max(descriptive, key=lambda i: given[i], default=None)
        if widest is None or given[widest] <= GIVES_WAY_TO_MEANING:
            break
        given[widest] -= 1
        used -= 1

    def wanted() -> int:
        return sum(max(0, wish(i) - given[i]) for i in chosen)

    if dropped:  # what a wide column left out for the others may leave room for more
        for index in sorted(range(len(columns)), key=lambda i: columns[i].priority):
            if index in chosen or index in dropped:
                continue
            if base(index) + gap <= width - used - wanted():
                chosen.append(index)
                given[index] = base(index)
                used += base(index) + gap
    for meaning in (False, True):  # descriptive text gives way first, then the meaning
        squeezable = [
            i
            for i in chosen
            if not columns[i].keep and columns[i].meaning == meaning and columns[i].width is None
        ]
        while short() > width - used or used > width:
            widest = max(squeezable, key=lambda i: given[i], default=None)
            if widest is None or given[widest] <= SQUEEZED_WIDTH:
                break
            given[widest] -= 1
            used -= 1
    chosen.sort()
    spare = max(0, width - used)
    identifiers = [i for i in chosen if columns[i].keep]
    meanings = [i for i in chosen if not columns[i].keep and columns[i].meaning]
    described = [i for i in chosen if not columns[i].keep and not columns[i].meaning]
    # Identifiers whole, what the row means (to a point), the descriptions (to a point), then
    # the rest of what the row means, of the descriptions, and an identifier's label: a long
    # reason never starves a name of the room it needs, and one long name never takes the room
    # that would show every row's reason whole.
    for tier, wanted_width in (
        (identifiers, whole),
        (meanings, meaning_wish),
        (described, described_first),
        (meanings, wish),
        (described, wish),
        (identifiers, wish),
    ):
        for i in tier:
            if columns[i].width is not None:
                continue
            extra = min(spare, max(0, wanted_width(i) - given[i]))
            given[i] += extra
            spare -= extra
    flexible = [i for i in chosen if columns[i].width is None]
    others = ([i for i in flexible if not columns[i].keep] or flexible) if spread else []
    for n, i in enumerate(others):
        share = spare // len(others) + (1 if n < spare % len(others) else 0)
        given[i] += share
    over = sum(given.values()) + gap * max(0, len(chosen) - 1) - width
    while over > 0:  # nothing left to give way: cut the widest, so that a row stays one line
        widest = max(chosen, key=lambda i: (not columns[i].keep, given[i]))
        if given[widest] <= 1:
            widest = max(chosen, key=lambda i: given[i])
        if given[widest] <= 1:
            break
        given[widest] -= 1
        over -= 1
    return [(i, given[i]) for i in chosen]
