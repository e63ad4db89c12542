"""A review on a hub's people: ``i`` sends invitations again, ``d`` decides for the marked
people, ``v`` previews the decisions and keeps the review once applied, ``O`` offboards a person
from every hub (``core.people.review`` decides and keeps; this asks and shows)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from textual import work
from textual.binding import Binding
from textual.content import Content

from hubtui.core.clock import now
from hubtui.core.people import (
    Decision,
    Review,
    ReviewRow,
    row_of,
    rows_of,
)
from hubtui.core.presenting import seen_words
from hubtui.core.workflows.engine import ChangeSet
from hubtui.core.workflows.resend import ReadOnly, Resending, prepare_resend, resend_all
from hubtui.text import inert
from hubtui.tui.messages import Offboard
from hubtui.tui.present import amount

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.message import Message

    from hubtui.api import Hub
    from hubtui.core.people import HubPerson
    from hubtui.core.workspace import Workspace
    from hubtui.tui.widgets.record_table import RecordTable


class Reviewing:
    """What the hub's people screen adds for a review: the decisions, the preview, offboarding."""

    hub: Hub
    now: datetime
    table: RecordTable[HubPerson]
    workspace: Workspace
    app: App[object]
    notify: Callable[..., None]
    post_message: Callable[[Message], bool]
    load: Callable[[], None]
    refresh_summary: Callable[[], None]
    #: The review's decisions so far, by person (kept across a reload).
    decisions: dict[str, ReviewRow]
    review_started: str

    def _chosen(self) -> list[HubPerson]:
        """The marked people, else the highlighted one."""
        return self.table.marked_records() or [
            p for p in [self.table.highlighted_record] if p is not None
        ]

    def action_decide(self) -> None:
        """A decision (and a reason) for the marked people, or the highlighted one."""
        from hubtui.tui.screens.people.decision import DecisionScreen

        chosen = self._chosen()
        if not chosen:
            return
        who = (
            inert(chosen[0].email or chosen[0].name, limit=60)
            if len(chosen) == 1
            else amount(len(chosen), "marked person", "marked people")
        )
        before = self.decisions.get(chosen[0].key)

        def decided(answer: tuple[Decision, str] | None) -> None:
            if answer is None:
                return
            self._decided(chosen, *answer)

        self.app.push_screen(
            DecisionScreen(who, before.decision if before is not None else None), decided
        )

    def _decided(self, people: list[HubPerson], decision: Decision, reason: str) -> None:
        self.review_started = self.review_started or now()
        days = self.workspace.settings.inactive_after
        here = self.table.highlighted_record
        for person in people:
            marks = "; ".join(person.marks(self.now, days))
            seen = seen_words(person.seen, self.now)
            self.decisions[person.key] = row_of(person, decision, reason, seen=seen, marks=marks)
            self.table.update_record(person, key=person.key)
        if here is not None:  # the cursor stays where the reviewer was
            self.table.select_key(here.key)
        self.table.clear_marks()
        self.refresh_summary()

    def action_review(self) -> None:
        """The decisions as one preview of their own, read again; applied, the review is kept."""
        from hubtui.tui.screens.changes.batch import StagedScreen

        if not self.decisions:
            self.notify(
                "No decision yet: d decides for the marked people (space marks, l shows those "
                "who need a look).",
                markup=False,
            )
            return
        days = self.workspace.settings.inactive_after
        review = Review(
            hub_id=self.hub.id,
            hub_name=self.hub.name,
            reviewer=self.workspace.change_log.operator,
            started=self.review_started,
            rows=tuple(self.decisions.values()),
            criteria=f"the hub's people (inactive after {days} days)",
        )
        changes = ChangeSet()
        changes.stage(rows_of(self.hub, review.rows))
        self.app.push_screen(StagedScreen(changes, reviews=[review], on_kept=self._review_kept))

    def _review_kept(self, numbers: list[int]) -> None:
        """The decisions are the review's now: this screen starts the next one afresh."""
        self.decisions.clear()
        self.review_started = ""
        self.load()

    def action_offboard(self) -> None:
        person = self.table.highlighted_record
        if person is not None:
            self.post_message(Offboard(person.email))

    def action_resend(self) -> None:
        """Ask, then send the invitation again to the marked (or highlighted) people whose
        invitation is not accepted (:mod:`hubtui.core.workflows.resend`, the one use case)."""
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        chosen: list[HubPerson] = self.table.marked_records() or [
            p for p in [self.table.highlighted_record] if p is not None
        ]
        try:
            resending = prepare_resend(self.hub, chosen, read_only=self.workspace.read_only)
        except ReadOnly as refused:
            self.notify(f"Nothing was sent: {refused}", severity="warning", markup=False)
            return
        pending = resending.people
        if not pending:
            self.notify(
                "Nobody chosen has an invitation waiting: i sends it again only to people "
                "whose invitation is not accepted (mark them with space, or l to see them).",
                markup=False,
            )
            return
        names = ", ".join(inert(p.email, limit=60) for p in pending[:3])
        more = f" and {len(pending) - 3} more" if len(pending) > 3 else ""
        question = Content.assemble(
            (f"Send the invitation to hub {inert(self.hub.name)} again", "bold"),
            f" to {amount(len(pending), 'person', 'people')} ({names}{more})? Each gets an "
            "email. y sends, n does not.",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._resend(resending)

        self.app.push_screen(ConfirmScreen(question, enter_says_yes=False), answered)

    @work(exclusive=True, group="resend", exit_on_error=False)
    async def _resend(self, resending: Resending) -> None:
        ended = await resend_all(self.workspace, resending)
        severity = "information" if ended.done else "warning" if ended.tried else "error"
        self.notify(ended.words, severity=severity, markup=False, timeout=15)
        if ended.tried:  # nothing could be sent: the marks stay for another try
            self.table.clear_marks()
            self.load()


#: The offboarding key, on the hub's people and on a person search's results.
OFFBOARD_BINDING = Binding(
    "O",
    "offboard",
    "Offboard",
    show=False,
    tooltip="the person out of every hub they are in (found by the person search), as one "
    "preview kept as a review; the change log (c) reverts it",
)
