"""The staged changes as one preview, read again from the server, and their apply (``b``, or the
palette's "Staged changes"); marking and staging rows live in
:mod:`~hubtui.tui.screens.changes.marking`.

One idea: the preview is one screen whose states (read, preview, sending, checking the
unknown rows, results, retry) share its rows; split, each would reach into the others. What it
sends, it sends through :func:`~hubtui.core.workflows.reviewed.send_reviewed`; where a use case
handed it its preview (an offboarding), it hands back what was sent (``answer``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import ProgressBar

from hubtui.core.presenting import Cell
from hubtui.core.workflows.engine import (
    FILE_COLUMNS,
    LIMITED_WORDS,
    MADE_ON_COLUMNS,
    SETTLING,
    TYPE_THE_COUNT_ABOVE,
    Applied,
    Batch,
    ChangeSet,
    DecidedRow,
    Intent,
    Outcome,
    Preview,
    Result,
    Verdict,
    prepare,
)
from hubtui.core.workflows.ports import NotSent
from hubtui.core.workflows.reviewed import Kept
from hubtui.text import inert
from hubtui.tui.messages import SendStaged
from hubtui.tui.present import amount
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.screens.dialogs.type_count import TypeCountScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hubtui.api import HubClient
    from hubtui.core.people import Review

STAGED_COLUMNS = (
    Column("project", "Project", min_width=10, priority=0),
    Column("email", "Email", min_width=18, priority=0, keep=True),
    Column("state", "State", width=9, priority=0),
    Column("change", "Change", min_width=24, priority=0, meaning=True),
)


@dataclass
class Line:
    """A row of the staged screen: a step of the preview, and its outcome once sent."""

    key: str
    step: DecidedRow
    result: Result | None = None


def line_state(line: Line) -> tuple[str, str]:
    """Where a row stands (``send``, ``no change``, ``done``, ``failed``…) and its words: the
    difference, or the reason it is not sent or failed."""
    step = line.step
    if line.result is not None:
        done = line.result.ended is Outcome.DONE
        return line.result.ended.value, step.words if done else line.result.message
    return ("send" if step.verdict is Verdict.SEND else step.verdict.value), step.words


def line_row(line: Line) -> Row:
    step = line.step
    state, words = line_state(line)
    if line.result is not None:
        tone = None if line.result.ended in (Outcome.DONE, Outcome.ALREADY) else "failed"
    else:
        tone = None if step.verdict in (Verdict.SEND, Verdict.SAME) else "limited"
    wanted = step.wanted
    # The project's Id first: where the name is cut ("Harbou…"), the row still says which.
    where = (
        f"{wanted.project_id} {wanted.project_name}"
        if wanted.project_name and not wanted.of_hub
        else wanted.where
    )
    return Row(
        cells=(
            inert(where),
            inert(step.wanted.email),
            state,
            inert(words, limit=300),
        ),
        tone=tone,
    )


class StagedScreen(ListScreen[Preview]):
    """The staged changes as one preview, read again now; ``a`` applies them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back / stop", key_display="esc"),
        Binding("y", "copy", "Copy summary", tooltip="copy the summary, for a ticket"),
        Binding("d", "drop", "Drop row", tooltip="drop the highlighted change from the staged"),
        Binding(
            "D",
            "drop_all",
            "Drop all",
            show=False,
            tooltip="drop every staged change shown here (asked first); nothing of them is sent",
        ),
        Binding("r", "reload", "Read again / retry", tooltip="read again; after a batch, retry"),
        # The footer ranks it near its start (FOOTER_ORDER), however narrow the terminal.
        Binding("a", "apply", "Apply", tooltip="send the changes to send (asked first)"),
    ]
    NOUN = "change"
    LEGEND = (
        "Every staged change, read again from the server just now: send (a difference such as "
        "Role: Reader → Editor), no change (already so), skipped (and why), changed since "
        "staged (look again), not read (the project's users could not be read).",
        "a applies: each change is logged before it leaves, under one batch id; a batch of more "
        "than 50 asks for the count. escape stops sending: the changes in flight are checked "
        "by reading the list again. r then retries only the failed and unknown rows.",
        "y copies the summary for a ticket; x writes the rows as a batch file (hub, project, "
        "email, role, reviewer) with each outcome and message: corrected, hubtui apply sends it.",
        "The change log (c) reverts a batch: roles and reviewer flags are put back.",
    )

    def __init__(
        self,
        changes: ChangeSet,
        *,
        reverts: str | None = None,
        reviews: Sequence[Review] = (),
        on_kept: Callable[[list[int]], None] | None = None,
        title: str | None = None,
        incomplete: str = "",
        preview: Preview | None = None,
    ) -> None:
        super().__init__()
        self.changes = changes
        #: A preview a use case read already: shown first, not read again (``r`` reads again).
        self._given = preview
        #: Where a workflow's run waits for the answer (:meth:`answer`), and the answer given
        #: before a run of this screen's own asked for it.
        self._asked: asyncio.Future[Preview] | None = None
        self._given_yes: Preview | None = None
        self.reverts = reverts
        #: What the breadcrumb calls it (None: a revert, a review or the staged changes).
        self.title = title
        #: What could not be read before it was staged (they may have access there too): said
        #: on the preview and in the question that sends it, never only in a passing note.
        self.incomplete = incomplete
        #: The reviews whose decisions these are: kept in the store, with each outcome, once
        #: the batch has been sent (or at once, when nothing is to be sent).
        self.reviews = list(reviews)
        self.on_kept = on_kept
        self.preview: Preview | None = None
        self.sent_batch: Batch | None = None
        self.lines: list[Line] = []
        #: The batch being sent (None: none is).
        self._sending: Batch | None = None
        self._by_step: dict[int, Line] = {}
        #: Whether escape stopped the batch being sent (not the screen or app going away).
        self._stop = asyncio.Event()
        #: The batch ``r`` then ``a`` retries (its failed and unknown rows), under its id.
        self.retry_of: str | None = None
        self._summary = ""

    def compose_body(self) -> ComposeResult:
        yield RecordTable(STAGED_COLUMNS, id="records", empty_text="Nothing is staged.")
        yield ProgressBar(id="batch-progress", show_eta=False)
        yield AccessPanel(id="access")

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, line: Line | None) -> None:
        """The highlighted row in full: where, who, and the whole difference or reason."""
        if line is None:
            self.query_one(AccessPanel).explain("")
            return
        wanted = line.step.wanted
        words = line.step.words
        state = line.step.verdict.value
        if line.result is not None:
            state = line.result.ended.value
            words = line.result.message or words
        asked, said = inert(wanted.words()), inert(words, limit=400)
        # What was asked, unless the row's words already say it ("removed from the hub (was
        # Guest)" after "asked removed from the hub" said it twice).
        asking = () if said.startswith(asked) else ("asked ", asked, ". ")
        self.query_one(AccessPanel).explain(
            Content.assemble(
                (f" {state.upper()} ", "bold reverse"),
                " ",
                (inert(wanted.email), "bold"),
                f" in {inert(wanted.where)} (hub {inert(wanted.hub_name)}): ",
                *asking,
                said,
            )
        )

    def start(self) -> None:
        self.table.can_open = False
        title = f"Revert of batch {self.reverts}" if self.reverts else "Staged changes"
        if self.reviews:
            title = f"Review of {', '.join(r.hub_name for r in self.reviews)}"
        self.query_one(Breadcrumb).show_path(self.title or title)
        self.query_one(ProgressBar).display = False
        self.load()

    def loading_words(self) -> str:
        return f"Reading the users of {amount(self.changes.projects(), 'project')} again…"

    async def fetch(self, client: HubClient) -> Preview:
        if self._given is not None:
            given, self._given = self._given, None
            return given
        workspace = self.workspace
        return await prepare(
            client,
            self.changes.rows,
            workspace.change_log,
            read_only=workspace.read_only,
            concurrency=workspace.concurrency,
        )

    def show_loaded(self, loaded: Preview) -> None:
        self.preview = loaded
        self.sent_batch = None
        # Grouped by project, in the order each project was first staged.
        grouped = [step for steps in loaded.groups().values() for step in steps]
        self.lines = [Line(str(n), step) for n, step in enumerate(grouped)]
        self.table.set_records(self.lines, line_row, key=lambda line: line.key)
        for change in loaded.settled:
            self.notify(
                f"An earlier add of {inert(change.email)} was checked: {inert(change.detail)}",
                markup=False,
            )
        self._summary = self._preview_words(loaded)
        if self.incomplete:
            self._summary = (
                f"INCOMPLETE · {self._summary} · not read, they may have access there too: "
                f"{self.incomplete}"
            )

    @staticmethod
    def _preview_words(preview: Preview) -> str:
        groups = preview.groups()
        projects = sum(1 for _, project_id in groups if project_id)
        places = [amount(projects, "project")] if projects else []
        if any(not project_id for _, project_id in groups):
            places.append("the hub")
        where = f" · over {' and '.join(places)}" if len(groups) > 1 else ""
        return preview.summary() + where

    def refresh_summary(self) -> None:
        if self.is_loading or self.preview is None:
            super().refresh_summary()
            return
        self.query_one(Summary).say(self._summary)

    def export_what(self) -> str:
        return f"batch {self.sent_batch.id}" if self.sent_batch else "staged changes"

    def export_context(self) -> dict[str, str]:
        context = {"summary": self._summary}
        if self.sent_batch is not None:
            context["batch"] = self.sent_batch.id
        if self.reverts:
            context["reverts"] = self.reverts
        return context

    def export_table(self) -> tuple[list[str], list[list[Cell]]]:
        """The rows shown as a batch file (``hub, project, email, role, reviewer``) with each
        one's ``outcome`` and ``message``: corrected, it can be applied again headless."""
        rows: list[list[Cell]] = []
        server = self.workspace.identity.server
        for line in self.table.shown_records:
            wanted = line.step.wanted
            outcome, message = line_state(line)
            access = LIMITED_WORDS if wanted.intent is Intent.LIMITED else ""
            reviewer: Cell = "" if wanted.reviewer is None else wanted.reviewer
            rows.append(
                [
                    wanted.hub_name,
                    wanted.project_id,
                    wanted.email,
                    wanted.role or "",
                    reviewer,
                    access,
                    wanted.hub_id,  # where it was made: applied only there
                    server,
                    outcome,
                    message,
                ]
            )
        return [*FILE_COLUMNS, "access", *MADE_ON_COLUMNS, "outcome", "message"], rows

    def status_note(self) -> str | None:
        if self.sent_batch is not None:
            return f"batch {self.sent_batch.id}"
        return super().status_note()

    # Apply ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply":
            return not self.workspace.read_only and self._sending is None
        if action in ("drop", "drop_all"):
            return self._sending is None and self.sent_batch is None
        return super().check_action(action, parameters)

    def action_apply(self) -> None:
        """Ask before the preview is sent; yes hands it to the run that waits for it (a
        workflow's), else to a run of its own (the staged changes, a revert, a retry)."""
        if self.preview is None or self.is_loading or self._sending is not None:
            return
        if self.sent_batch is not None:
            self.notify("This batch was applied: r reads again (and retries).", markup=False)
            return
        preview = self.preview
        count = sum(1 for step in preview.steps if step.verdict is Verdict.SEND)
        if not count:
            if self.reviews:  # kept as decided, by the run
                self._yes(preview)
                return
            self.notify("Nothing to send: no row differs from the server.", markup=False)
            return
        words = preview.summary()

        def answered(yes: bool | None) -> None:
            if yes:
                self._yes(preview)

        if count > TYPE_THE_COUNT_ABOVE:
            self.app.push_screen(TypeCountScreen(count, words), answered)
            return
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        question = Content.assemble(
            (f"Send {amount(count, 'change')}?", "bold"),
            f"\n{inert(words)}\n",
            (
                f"Incomplete: not read, they may have access there too: "
                f"{inert(self.incomplete, limit=None)}\n"
                if self.incomplete
                else "",
                "bold",
            ),
            "Each is logged before it leaves. y sends, n goes back.",
        )
        self.app.push_screen(ConfirmScreen(question), answered)

    def _yes(self, preview: Preview) -> None:
        """Answered yes: to the run waiting for it, else to a new run of this preview."""
        if self._asked is not None and not self._asked.done():
            self._asked.set_result(preview)
            return
        self._given_yes = preview
        self.post_message(SendStaged(self))

    async def answer(self) -> Preview:
        """The preview to send, once the person says yes here (at once, when they did before
        the run asked); :class:`~hubtui.core.workflows.ports.NotSent` when it is left."""
        if self._given_yes is not None:
            given, self._given_yes = self._given_yes, None
            return given
        self._asked = asyncio.get_running_loop().create_future()
        return await self._asked

    # The run's progress, shown -----------------------------------------------------------------

    def nothing_to_send(self) -> None:
        self.notify("Nothing to send: no row differs from the server.", markup=False)

    def sending(self, batch: Batch, stop: asyncio.Event) -> None:
        """The batch leaves: its rows follow it, escape sets ``stop``."""
        self.sent_batch = batch
        self._sending = batch
        self._stop = stop
        self._by_step = {id(line.step): line for line in self.lines}
        bar = self.query_one(ProgressBar)
        bar.update(total=len(batch.steps), progress=0)
        bar.display = True
        self._summary = f"Sending batch {batch.id}: {amount(len(batch.steps), 'change')}…"
        self.refresh_summary()
        self.refresh_status()
        self.refresh_bindings()

    def came(self, batch: Batch, result: Result) -> None:
        line = self._by_step.get(id(result.step))
        if line is not None:
            line.result = result
            self.table.update_record(line, key=line.key)
            self._explain(self.table.highlighted_record)
        self.query_one(ProgressBar).advance(1)
        self._summary = f"Sending batch {batch.id}: {batch.summary()}"
        self.refresh_summary()

    def settling(self) -> None:
        self._summary = SETTLING
        self.refresh_summary()

    def interrupted(self) -> None:
        """Sending ended without an outcome (the screen going away, a failure said by the
        app): no longer "Sending…"; what the rows show stays, the change log has each."""
        self._sending = None
        if self.is_attached:
            self.query_one(ProgressBar).display = False
            self.refresh_bindings()

    def sent(self, applied: Applied, kept: Kept | None) -> None:
        """How the batch ended; what is left staged is what ``r`` sends again."""
        batch = applied.batch
        self._sending = None
        self.query_one(ProgressBar).display = False
        self.session.batches_sent += 1
        again = applied.again
        self.changes.drop([line.step.wanted for line in self.lines])
        self.changes.stage(again)
        self.session.staged_changed()
        self.retry_of = batch.id if again else None
        ended = "Stopped. " if applied.stopped else ""
        self._summary = f"{ended}Batch {batch.id}: {batch.summary()}" + (
            " · r retries the failed and unknown rows" if again else ""
        )
        self.refresh_summary()
        self.refresh_bindings()
        self.notify(inert(self._summary), markup=False, timeout=10)
        if kept is not None:
            self.said_kept(kept)

    def on_unmount(self) -> None:
        if self._asked is not None and not self._asked.done():
            self._asked.set_exception(NotSent("left without sending"))

    def said_kept(self, kept: Kept) -> None:
        if kept.problem is not None:
            self.notify(kept.words(), severity="warning", markup=False, timeout=15)
            return
        self.reviews = []
        self.notify(kept.words(), markup=False, timeout=10)
        if self.on_kept is not None:
            self.on_kept(kept.numbers)

    def action_back(self) -> None:
        if self._sending is not None:
            self._stop.set()
            self.notify(
                "Stopping: no new change is sent; the ones in flight are checked.", markup=False
            )
            return
        super().action_back()

    def action_reload(self) -> None:
        if self._sending is not None:
            return
        super().action_reload()

    def action_drop(self) -> None:
        line: Line | None = self.table.highlighted_record
        if line is None:
            return
        self.changes.drop([line.step.wanted])
        self.session.staged_changed()
        self.lines = [x for x in self.lines if x is not line]
        if self.preview is not None:
            self.preview.steps = [x.step for x in self.lines]
            self._summary = self._preview_words(self.preview)
        self.table.set_records(self.lines, line_row, key=lambda x: x.key)
        self.refresh_summary()

    def action_drop_all(self) -> None:
        """Every staged change shown here dropped, once confirmed: nothing of them is sent."""
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        count = len(self.lines)
        if not count:
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            self.changes.drop([line.step.wanted for line in self.lines])
            self.session.staged_changed()
            self.lines = []
            if self.preview is not None:
                self.preview.steps = []
                self._summary = self._preview_words(self.preview)
            self.table.set_records(self.lines, line_row, key=lambda x: x.key)
            self.refresh_summary()
            words = f"{amount(count, 'staged change')} dropped; nothing was sent."
            self.notify(words, markup=False)

        question = Content(f"Drop {amount(count, 'staged change')}? Nothing of them is sent.")
        self.app.push_screen(ConfirmScreen(question), answered)

    def action_copy(self) -> None:
        self.copy_value(self._summary or "Nothing staged.", "summary")
