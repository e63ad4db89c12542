"""Marking rows on a list and staging changes for them: ``space`` marks a row, ``*`` every row
shown, ``-`` clears the marks; ``m`` changes the marked rows (a role, the reviewer flag, direct
membership for limited readers) and ``A`` adds pasted emails. Staged in the session's one change
set, shown and applied by ``b`` (``tui.screens.batch``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType

from hubtui.core.workflows.engine import (
    ChangeSet,
    Intent,
    Wanted,
)
from hubtui.tui.present import amount
from hubtui.tui.screens.changes.add_people import AddPeopleScreen
from hubtui.tui.screens.changes.batch_choice import CHOICES, BatchChoiceScreen
from hubtui.tui.widgets.record_table import RecordTable

if TYPE_CHECKING:
    from textual.app import App

    from hubtui.api import Hub
    from hubtui.tui.session import Session

#: ``m``: the footer says how many rows are marked (``m 3 marked``, :meth:`Marking.footer_words`).
MARKED_BINDING = Binding(
    "m",
    "change_marked",
    "Marked",
    tooltip="change the marked rows: role, reviewer, direct membership (staged first)",
)
#: ``space``, ``*`` and ``-``: the marks themselves (:class:`MarkKeys`).
MARK_KEYS: list[BindingType] = [
    Binding(
        "space",
        "mark",
        "Mark",
        show=False,
        tooltip="mark the highlighted row (or unmark it) and move down to the next",
    ),
    Binding("asterisk", "mark_shown", "Mark shown", show=False, tooltip="mark every row shown"),
    Binding("minus", "clear_marks", "Clear marks", show=False, tooltip="clear every mark"),
]
MARK_BINDINGS: list[BindingType] = [
    *MARK_KEYS,
    MARKED_BINDING,
    Binding(
        "b",
        "app.staged",
        "Staged",
        show=False,
        tooltip="the staged changes: one preview, read again, then applied",
    ),
]


class MarkKeys:
    """``space``, ``*`` and ``-`` on a list: a row marked (the cursor moving on), every row
    shown, none; the summary, and the keys that act on the marks, follow."""

    table: RecordTable[Any]
    refresh_summary: Callable[[], None]

    def action_mark(self) -> None:
        if self.table.toggle_mark():
            self.table.action_cursor(1)
        self._marks_changed()

    def action_mark_shown(self) -> None:
        self.table.mark_shown()
        self._marks_changed()

    def action_clear_marks(self) -> None:
        self.table.clear_marks()
        self._marks_changed()

    def _marks_changed(self) -> None:
        self.refresh_bindings()  # type: ignore[attr-defined]
        self.refresh_summary()


class Marking(MarkKeys):
    """What a list screen that marks rows adds: the keys, the count, and staging.

    The screen gives :meth:`wanted_for`: the change a choice asks of one of its records."""

    table: RecordTable[Any]
    refresh_summary: Callable[[], None]
    notify: Callable[..., None]
    app: App[object]
    session: Session

    def wanted_for(
        self, record: Any, intent: Intent, role: str | None, reviewer: bool | None
    ) -> Wanted | None:
        raise NotImplementedError

    def marks_words(self) -> str:
        """``3 marked``, for the summary (empty without marks)."""
        count = len(self.table.marks)
        return f"{count:,} marked" if count else ""

    def footer_words(self, action: str) -> str | None:
        """``m 3 marked``: the footer counts the marks (it ranks ``m`` near its start, so a
        full footer at 80 columns never cuts it)."""
        if action != "change_marked":
            return None
        count = len(self.table.marks)
        return f"{count:,} marked" if count else "Marked"

    def marking_check(self, action: str, read_only: bool) -> bool | None:
        """The marking keys' state: None when not this mixin's action."""
        if action == "change_marked":
            return bool(self.table.marks) and not read_only
        return None

    def action_change_marked(self) -> None:
        records = self.table.marked_records()
        if not records:
            self.notify("Mark rows first: space marks one, * every row shown.", markup=False)
            return

        def chosen(choice: int | None) -> None:
            if choice is None:
                return
            _, intent, role, reviewer = CHOICES[choice]
            rows = [self.wanted_for(r, intent, role, reviewer) for r in records]
            staged = [row for row in rows if row is not None]
            self.stage(staged, left_out=len(rows) - len(staged))
            self.table.clear_marks()
            self._marks_changed()

        self.app.push_screen(BatchChoiceScreen(len(records)), chosen)

    def add_people(
        self,
        hub: Hub,
        projects: Sequence[tuple[str, str | None]],
        where: str,
        *,
        then: Callable[[], None] | None = None,
    ) -> None:
        """``A``: ask for pasted emails and a role, and stage an add of each email to each of
        ``projects`` (id, name); ``then`` runs once they are staged."""

        def pasted(answer: tuple[list[str], str] | None) -> None:
            if answer is None:
                return
            emails, role = answer
            self.stage(
                wanted_of_pasted(
                    hub_id=hub.id,
                    hub_name=hub.name,
                    projects=projects,
                    emails=emails,
                    role=role,
                )
            )
            if then is not None:
                then()

        self.app.push_screen(AddPeopleScreen(where), pasted)

    def refresh_staged(self) -> None:
        """Mark the rows of this list with a change staged (``±``), as the staged set is now."""
        staged_keys = (
            {row.key for row in self.session.staged.rows} if self.session.staged_count else set()
        )
        view = self.table.view
        keys: set[str] = set()
        if staged_keys:
            for index in range(view.total):
                wanted = self.wanted_for(view.record(index), Intent.SET, None, None)
                if wanted is not None and wanted.key in staged_keys:
                    keys.add(view.key(index))
        self.table.show_staged(keys)

    def stage(self, rows: Sequence[Wanted], *, left_out: int = 0) -> None:
        staged: ChangeSet = self.session.staged
        staged.stage(rows)
        self.refresh_staged()
        words = f"{amount(len(rows), 'change')} staged ({len(staged):,} in all)."
        if left_out:
            words += f" {amount(left_out, 'row')} left out: no person to change."
        self.notify(f"{words} b shows them, read again, before anything is sent.", markup=False)
        self.session.staged_changed()


def wanted_of_pasted(
    *,
    hub_id: str,
    hub_name: str,
    projects: Sequence[tuple[str, str | None]],
    emails: Sequence[str],
    role: str,
) -> list[Wanted]:
    """An add of each email to each project, as pasted."""
    return [
        Wanted(
            hub_id=hub_id,
            hub_name=hub_name,
            project_id=project_id,
            project_name=project_name,
            email=email,
            intent=Intent.ADD,
            role=role,
        )
        for project_id, project_name in projects
        for email in emails
    ]
