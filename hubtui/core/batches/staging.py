"""The changes staged in a session, across projects and screens, until applied or dropped."""

from __future__ import annotations

from collections.abc import Iterable

from hubtui.core.batches.wanted import Wanted


class ChangeSet:
    """The changes staged in a session, across projects and screens, until applied or dropped.

    One row per person and project: staging the same person in the same project again replaces
    the earlier row (the latest wish wins), so a preview never holds two rows for one person.
    """

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str, str, str], Wanted] = {}

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> list[Wanted]:
        return list(self._rows.values())

    def stage(self, rows: Iterable[Wanted]) -> int:
        """Stage ``rows``; how many were staged."""
        count = 0
        for row in rows:
            self._rows[row.key] = row
            count += 1
        return count

    def drop(self, rows: Iterable[Wanted] | None = None) -> None:
        """Drop these rows (None: every row)."""
        if rows is None:
            self._rows.clear()
            return
        for row in rows:
            self._rows.pop(row.key, None)

    def projects(self) -> int:
        return len({(row.hub_id, row.project_id) for row in self._rows.values()})
