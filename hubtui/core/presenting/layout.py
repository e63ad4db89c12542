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
    fit = _Fitting(columns, natural, width, gap)
    fit.choose()
    fit.drop_for_identifiers()
    fit.drop_for_meaning()
    fit.squeeze_descriptions_for_meaning()
    fit.take_back_what_fits()
    fit.squeeze()
    fit.widen()
    if spread:
        fit.spread()
    fit.cut_to_width()
    return [(i, fit.given[i]) for i in fit.chosen]


class _Fitting:
    """The columns being fitted: which are chosen, each one's width so far, the cells used; each
    rule of :func:`fit_columns` is one method, applied in its order."""

    def __init__(
        self, columns: Sequence[Column], natural: Sequence[int], width: int, gap: int
    ) -> None:
        self.columns, self.natural, self.width, self.gap = columns, natural, width, gap
        self.chosen: list[int] = []
        self.given: dict[int, int] = {}
        self.used = 0
        self.dropped: set[int] = set()
        self.spare = 0
        """The cells left once every rule that takes room has."""

    # What each column asks for -------------------------------------------------------------

    def text(self, i: int) -> int:
        return self.natural[i] if i < len(self.natural) else 0

    def base(self, i: int) -> int:
        fixed = self.columns[i].width
        if fixed is not None:
            return self.fixed(i)
        if self.columns[i].keep and self.text(i):  # no wider than its values need, to start
            return min(self.columns[i].min_width, self.whole(i))
        return self.columns[i].min_width

    def fixed(self, i: int) -> int:
        """A column of a fixed width; a number wider than it (100,002 users) widens it: a
        number is never cut while there is room."""
        column = self.columns[i]
        assert column.width is not None
        return max(column.width, self.text(i)) if column.numeric else column.width

    def full(self, i: int) -> int:
        column = self.columns[i]
        if column.width is not None:
            return self.fixed(i)
        return max(column.min_width, cell_len(column.label) + 2, self.text(i))  # + sort arrow

    def wish(self, i: int) -> int:
        column = self.columns[i]
        return min(self.full(i), max(WISH_CAP, column.min_width)) if column.keep else self.full(i)

    def whole(self, i: int) -> int:
        """What an identifier needs for its values whole (its label may be cut for them):
        never more than it asks for, never less than a label's first letters."""
        if not self.text(i):
            return self.wish(i)
        return min(self.wish(i), max(self.text(i), LABEL_AT_LEAST))

    def described_first(self, i: int) -> int:
        """What a description takes before the rest is shared: its values, not its label,
        while others are cut."""
        values = self.text(i) if self.text(i) else self.wish(i)
        minimum = self.columns[i].min_width
        return min(max(values, minimum), max(DESCRIBED_FIRST, minimum))

    def meaning_wish(self, i: int) -> int:
        """What the row means may push others only this far."""
        return min(self.wish(i), max(MEANING_CAP, self.columns[i].min_width))

    def short(self) -> int:
        """How much the identifiers chosen lack of their values whole."""
        return sum(
            max(0, self.whole(i) - self.given[i]) for i in self.chosen if self.columns[i].keep
        )

    def meaning_short(self) -> int:
        """How much what the row means lacks of its :meth:`meaning_wish`."""
        return sum(
            max(0, self.meaning_wish(i) - self.given[i])
            for i in self.chosen
            if self.columns[i].meaning and not self.columns[i].keep
        )

    def wanted(self) -> int:
        return sum(max(0, self.wish(i) - self.given[i]) for i in self.chosen)

    # The rules, in their order -------------------------------------------------------------

    def choose(self) -> None:
        """Priority 0 always; the others by priority while they fit at their smallest."""
        for index in sorted(range(len(self.columns)), key=lambda i: self.columns[i].priority):
            need = self.base(index) + (self.gap if self.chosen else 0)
            if self.used + need > self.width and self.chosen and self.columns[index].priority > 0:
                continue  # priority 0 is never left out: it is squeezed below instead
            self.chosen.append(index)
            self.used += need
        self.given = {i: self.base(i) for i in self.chosen}

    def _drop_one(self, droppable: list[int]) -> bool:
        """Leave out the one of ``droppable`` to go first (no text, then the highest priority
        number); False when there is none."""
        if not droppable:
            return False
        columns = self.columns
        drop = max(droppable, key=lambda i: (self.text(i) == 0, columns[i].priority, i))
        self.chosen.remove(drop)
        self.dropped.add(drop)
        self.used -= self.given.pop(drop) + self.gap
        return True

    def drop_for_identifiers(self) -> None:
        """Columns that may be left out go first (an identifier too: left out, never cut)."""
        while self.short() > self.width - self.used:
            if not self._drop_one([i for i in self.chosen if self.columns[i].priority > 0]):
                break

    def drop_for_meaning(self) -> None:
        """What the row means before what may be left out: such a column is, rather than cut."""
        while self.meaning_short() > self.width - self.used - self.short():
            droppable = [
                i for i in self.chosen if self.columns[i].priority > 0 and not self.columns[i].keep
            ]
            if not self._drop_one(droppable):
                break

    def squeeze_descriptions_for_meaning(self) -> None:
        """Then descriptive text gives way to what the row means, to a point."""
        descriptive = [
            i
            for i in self.chosen
            if not self.columns[i].keep
            and not self.columns[i].meaning
            and self.columns[i].width is None
        ]
        while self.meaning_short() > self.width - self.used - self.short():
            widest = max(descriptive, key=lambda i: self.given[i], default=None)
            if widest is None or self.given[widest] <= GIVES_WAY_TO_MEANING:
                break
            self.given[widest] -= 1
            self.used -= 1

    def take_back_what_fits(self) -> None:
        """What a wide column left out for the others may leave room for more."""
        if not self.dropped:
            return
        for index in sorted(range(len(self.columns)), key=lambda i: self.columns[i].priority):
            if index in self.chosen or index in self.dropped:
                continue
            if self.base(index) + self.gap <= self.width - self.used - self.wanted():
                self.chosen.append(index)
                self.given[index] = self.base(index)
                self.used += self.base(index) + self.gap

    def squeeze(self) -> None:
        """Descriptive text gives way first, then the meaning, before an identifier is cut."""
        for meaning in (False, True):
            squeezable = [
                i
                for i in self.chosen
                if not self.columns[i].keep
                and self.columns[i].meaning == meaning
                and self.columns[i].width is None
            ]
            while self.short() > self.width - self.used or self.used > self.width:
                widest = max(squeezable, key=lambda i: self.given[i], default=None)
                if widest is None or self.given[widest] <= SQUEEZED_WIDTH:
                    break
                self.given[widest] -= 1
                self.used -= 1

    def widen(self) -> None:
        """Identifiers whole, what the row means (to a point), the descriptions (to a point),
        then the rest of what the row means, of the descriptions, and an identifier's label: a
        long reason never starves a name of the room it needs, and one long name never takes
        the room that would show every row's reason whole."""
        self.chosen.sort()
        self.spare = max(0, self.width - self.used)
        columns = self.columns
        identifiers = [i for i in self.chosen if columns[i].keep]
        meanings = [i for i in self.chosen if not columns[i].keep and columns[i].meaning]
        described = [i for i in self.chosen if not columns[i].keep and not columns[i].meaning]
        for tier, wanted_width in (
            (identifiers, self.whole),
            (meanings, self.meaning_wish),
            (described, self.described_first),
            (meanings, self.wish),
            (described, self.wish),
            (identifiers, self.wish),
        ):
            for i in tier:
                if columns[i].width is not None:
                    continue
                extra = min(self.spare, max(0, wanted_width(i) - self.given[i]))
                self.given[i] += extra
                self.spare -= extra

    def spread(self) -> None:
        """The rest over the columns that are not identifiers (all of them, where every one
        is)."""
        flexible = [i for i in self.chosen if self.columns[i].width is None]
        others = [i for i in flexible if not self.columns[i].keep] or flexible
        for n, i in enumerate(others):
            share = self.spare // len(others) + (1 if n < self.spare % len(others) else 0)
            self.given[i] += share

    def cut_to_width(self) -> None:
        """Nothing left to give way: the widest cut, so that a row stays one line."""
        over = sum(self.given.values()) + self.gap * max(0, len(self.chosen) - 1) - self.width
        while over > 0:
            widest = max(self.chosen, key=lambda i: (not self.columns[i].keep, self.given[i]))
            if self.given[widest] <= 1:
                widest = max(self.chosen, key=lambda i: self.given[i])
            if self.given[widest] <= 1:
                break
            self.given[widest] -= 1
            over -= 1
