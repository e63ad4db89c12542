"""Changes in batches: marking rows, staging changes, and the staged changes' preview and apply.

``space`` marks a row, ``*`` every row shown, ``-`` clears the marks; ``m`` changes the marked
rows (a role, the reviewer flag, direct membership for limited readers) and ``A`` adds pasted
emails. Those stage changes in the session's one change set; ``b`` (or the palette's "Staged
changes") shows them as one preview, read again from the server, and applies them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, ProgressBar, Select, Static, TextArea
from textual.widgets.option_list import Option

from hubtui.core.batch import (
    ROLES,
    TYPE_THE_COUNT_ABOVE,
    Batch,
    ChangeSet,
    Ended,
    Intent,
    Preview,
    Result,
    Step,
    Verdict,
    Wanted,
    prepare,
)
from hubtui.core.batch_file import FILE_COLUMNS, LIMITED_WORDS
from hubtui.core.emails import email_problem
from hubtui.core.export import Cell
from hubtui.core.text import inert
from hubtui.tui.present import amount
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, KeyFooter, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient

#: What ``m`` offers for marked people: (label, intent, role, reviewer).
CHOICES: tuple[tuple[str, Intent, str | None, bool | None], ...] = (
    *((f"Set role: {role}", Intent.SET, role, None) for role in ROLES),
    ("Reviewer on", Intent.SET, None, True),
    ("Reviewer off", Intent.SET, None, False),
    *(
        (f"Make direct member (limited readers) as {role}", Intent.ADD, role, None)
        for role in ROLES
    ),
)

#: ``m``, bound on the list itself while rows are marked (see :meth:`Marking.install_mark_key`).
MARKED_BINDING = Binding(
    "m",
    "screen.change_marked",
    "Marked",
    tooltip="change the marked rows: role, reviewer, direct membership (staged first)",
)
MARK_BINDINGS: list[BindingType] = [
    Binding(
        "space",
        "mark",
        "Mark",
        show=False,
        tooltip="mark the highlighted row (or unmark it) and move down to the next",
    ),
    Binding("asterisk", "mark_shown", "Mark shown", show=False, tooltip="mark every row shown"),
    Binding("minus", "clear_marks", "Clear marks", show=False, tooltip="clear every mark"),
    Binding(
        "b",
        "app.staged",
        "Staged",
        show=False,
        tooltip="the staged changes: one preview, read again, then applied",
    ),
]


class Marking:
    """What a list screen that marks rows adds: the keys, the count, and staging.

    The screen gives :meth:`wanted_for`: the change a choice asks of one of its records."""

    MORE_KEYS: ClassVar[tuple[Binding, ...]] = (MARKED_BINDING,)
    table: RecordTable[Any]
    refresh_summary: Callable[[], None]
    notify: Callable[..., None]
    app: Any
    session: Any
    _bindings: Any

    def wanted_for(
        self, record: Any, intent: Intent, role: str | None, reviewer: bool | None
    ) -> Wanted | None:
        raise NotImplementedError

    def marks_words(self) -> str:
        """``3 marked``, for the summary (empty without marks)."""
        count = len(self.table.marks)
        return f"{count:,} marked" if count else ""

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

    def install_mark_key(self) -> None:
        """``m`` on the list itself, so that the footer shows it first (``m 3 marked``) while
        rows are marked: a full footer at 80 columns cuts the keys at its end."""
        self.table._bindings.key_to_bindings["m"] = [MARKED_BINDING]

    def _marks_changed(self) -> None:
        count = len(self.table.marks)
        # The footer says how many are marked: the binding's words, in the list's own copy.
        bindings = self.table._bindings.key_to_bindings
        if "m" in bindings:
            words = f"{count:,} marked" if count else "Marked"
            bindings["m"] = [replace(b, description=words) for b in bindings["m"]]
        self.refresh_bindings()  # type: ignore[attr-defined]
        self.refresh_summary()

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
                wanted_rows(
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
        staged_keys = {row.key for row in self.session.staged.rows}
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


class BatchChoiceScreen(ModalScreen["int | None"]):
    """``m``: what to do to the marked rows; dismisses with the index in :data:`CHOICES`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (f"Change {amount(self.count, 'marked row')}", "bold"),
                    "\nStaged, not sent: b previews every staged change before it goes out.",
                )
            )
            yield OptionList(
                *(Option(label, id=str(n)) for n, (label, *_) in enumerate(CHOICES)),
                id="batch-choices",
            )
        yield KeyFooter(compact=True)

    @on(OptionList.OptionSelected, "#batch-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)


def pasted_emails(text: str) -> tuple[list[str], list[str], int]:
    """(emails, problems, duplicates folded) of a pasted list: one a line (commas, semicolons
    and spaces also part them), each checked, the same address once whatever its case."""
    emails: dict[str, str] = {}
    problems: list[str] = []
    duplicates = 0
    for part in text.replace(",", "\n").replace(";", "\n").split():
        address = part.strip().strip("<>")
        if not address:
            continue
        problem = email_problem(address)
        if problem:
            problems.append(f"“{inert(address, limit=60)}”: {problem}")
        elif address.casefold() in emails:
            duplicates += 1
        else:
            emails[address.casefold()] = address
    return list(emails.values()), problems, duplicates


class AddPeopleScreen(ModalScreen["tuple[list[str], str] | None"]):
    """``A``: paste emails, pick a role; dismisses with them once every line is an address.
    Nothing typed is lost: a line that is not an address is named, and the text stays."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "stage", "Stage", priority=True),
    ]

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="add-people"):
            yield Static(
                Content.assemble(
                    ("Add people ", "bold"),
                    f"to {inert(self.where, limit=80)}: paste their emails, one a line.",
                )
            )
            yield TextArea(id="emails", soft_wrap=False)
            with Horizontal(id="add-people-role"):
                yield Static("Role ")
                yield Select(
                    [(role, role) for role in ROLES], value="Reader", allow_blank=False, id="role"
                )
            yield Static("", id="add-people-problem")
            yield Static("ctrl+s stages them (nothing is sent) · escape cancels")
        yield KeyFooter(compact=True)

    def action_stage(self) -> None:
        emails, problems, duplicates = pasted_emails(self.query_one("#emails", TextArea).text)
        problem = self.query_one("#add-people-problem", Static)
        if problems:
            shown = "\n".join(problems[:4])
            more = f"\n…and {len(problems) - 4} more" if len(problems) > 4 else ""
            problem.update(Content(f"Not an address: fix or remove these lines.\n{shown}{more}"))
            return
        if not emails:
            problem.update(Content("Paste at least one email address."))
            return
        role = str(self.query_one("#role", Select).value)
        if duplicates:
            self.notify(f"{amount(duplicates, 'duplicate')} folded into one.", markup=False)
        self.dismiss((emails, role))

    def action_cancel(self) -> None:
        self.dismiss(None)


class TypeCountScreen(ModalScreen[bool]):
    """A batch of more than :data:`TYPE_THE_COUNT_ABOVE` changes: the count is typed to send."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, count: int, words: str) -> None:
        super().__init__()
        self.count = count
        self.words = words

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (f"Send {self.count:,} changes?", "bold"),
                    f"\n{inert(self.words)}\nType {self.count} and press enter to send them.",
                )
            )
            yield Input(placeholder=str(self.count), id="count")
        yield KeyFooter(compact=True)

    @on(Input.Submitted, "#count")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip() == str(self.count):
            self.dismiss(True)
        else:
            self.notify(f"Type {self.count} to send, or escape.", severity="warning")

    def action_cancel(self) -> None:
        self.dismiss(False)


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
    step: Step
    result: Result | None = None


def line_state(line: Line) -> tuple[str, str]:
    """Where a row stands (``send``, ``no change``, ``done``, ``failed``…) and its words: the
    difference, or the reason it is not sent or failed."""
    step = line.step
    if line.result is not None:
        done = line.result.ended is Ended.DONE
        return line.result.ended.value, step.words if done else line.result.message
    return ("send" if step.verdict is Verdict.SEND else step.verdict.value), step.words


def line_row(line: Line) -> Row:
    step = line.step
    state, words = line_state(line)
    if line.result is not None:
        tone = None if line.result.ended is Ended.DONE else "failed"
    else:
        tone = None if step.verdict in (Verdict.SEND, Verdict.SAME) else "limited"
    return Row(
        cells=(
            inert(step.wanted.where),
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

    def __init__(self, changes: ChangeSet, *, reverts: str | None = None) -> None:
        super().__init__()
        self.changes = changes
        self.reverts = reverts
        self.preview: Preview | None = None
        self.sent_batch: Batch | None = None
        self.lines: list[Line] = []
        self._sending: asyncio.Task[None] | None = None
        #: Whether escape stopped the batch being sent (not the screen or app going away).
        self._stopping = False
        self._retry_of: str | None = None
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
        self.query_one(AccessPanel).explain(
            Content.assemble(
                (f" {state.upper()} ", "bold reverse"),
                " ",
                (inert(wanted.email), "bold"),
                f" in {inert(wanted.where)} (hub {inert(wanted.hub_name)}): asked ",
                inert(wanted.words()),
                ". ",
                inert(words, limit=400),
            )
        )

    def start(self) -> None:
        self.table.can_open = False
        # On the list itself, so that the footer shows it first, however narrow.
        self.table._bindings.key_to_bindings["a"] = [
            Binding("a", "screen.apply", "Apply", tooltip="send the changes to send (asked first)")
        ]
        title = f"Revert of batch {self.reverts}" if self.reverts else "Staged changes"
        self.query_one(Breadcrumb).show_path(title)
        self.query_one(ProgressBar).display = False
        self.load()

    def loading_words(self) -> str:
        return f"Reading the users of {amount(self.changes.projects(), 'project')} again…"

    async def fetch(self, client: HubClient) -> Preview:
        session = self.session
        return await prepare(
            client,
            self.changes.rows,
            session.change_log,
            read_only=session.read_only,
            concurrency=session.concurrency,
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

    @staticmethod
    def _preview_words(preview: Preview) -> str:
        projects = len(preview.groups())
        where = f" · over {amount(projects, 'project')}" if projects > 1 else ""
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
                    outcome,
                    message,
                ]
            )
        return [*FILE_COLUMNS, "access", "outcome", "message"], rows

    def status_note(self) -> str | None:
        if self.sent_batch is not None:
            return f"batch {self.sent_batch.id}"
        return super().status_note()

    # Apply ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply":
            return not self.session.read_only and self._sending is None
        if action in ("drop", "drop_all"):
            return self._sending is None and self.sent_batch is None
        return super().check_action(action, parameters)

    def action_apply(self) -> None:
        if self.preview is None or self.is_loading or self._sending is not None:
            return
        if self.sent_batch is not None:
            self.notify("This batch was applied: r reads again (and retries).", markup=False)
            return
        batch = Batch(self.preview.steps, batch_id=self._retry_of)
        batch.reverts = self.reverts
        count = len(batch.steps)
        if not count:
            self.notify("Nothing to send: no row differs from the server.", markup=False)
            return
        words = self.preview.summary()

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._send(batch), group="batch", exclusive=True)

        if count > TYPE_THE_COUNT_ABOVE:
            self.app.push_screen(TypeCountScreen(count, words), answered)
            return
        from hubtui.tui.screens.confirm import ConfirmScreen

        question = Content.assemble(
            (f"Send {amount(count, 'change')}?", "bold"),
            f"\n{inert(words)}\nEach is logged before it leaves. y sends, n goes back.",
        )
        self.app.push_screen(ConfirmScreen(question), answered)

    async def _send(self, batch: Batch) -> None:
        self.sent_batch = batch
        by_step = {id(line.step): line for line in self.lines}
        bar = self.query_one(ProgressBar)
        bar.update(total=len(batch.steps), progress=0)
        bar.display = True
        self._summary = f"Sending batch {batch.id}: {amount(len(batch.steps), 'change')}…"
        self.refresh_summary()
        self.refresh_status()
        self.refresh_bindings()

        def came(_: int, result: Result) -> None:
            line = by_step.get(id(result.step))
            if line is not None:
                line.result = result
                self.table.update_record(line, key=line.key)
                self._explain(self.table.highlighted_record)
            bar.advance(1)
            self._summary = f"Sending batch {batch.id}: {batch.summary()}"
            self.refresh_summary()

        client = await self.client()
        self._sending = asyncio.ensure_future(
            batch.send(
                client,
                self.session.change_log,
                concurrency=self.session.concurrency,
                on_result=came,
            )
        )
        self._stopping = False
        try:
            await self._sending
        except asyncio.CancelledError:
            if not self._stopping:  # not escape: the screen or the app is going away
                raise
        finally:
            self._sending = None
        stopped = self._stopping
        if batch.outcome_counts()[Ended.UNKNOWN]:
            self._summary = "Checking the rows whose outcome is unknown: reading their lists…"
            self.refresh_summary()
            for position in await batch.check(
                client, self.session.change_log, concurrency=self.session.concurrency
            ):
                came(position, batch.results[position])
        bar.display = False
        self.session.batches_sent += 1
        # What is left staged: the rows r sends again (failed, unknown, not sent).
        again = batch.again()
        self.changes.drop([line.step.wanted for line in self.lines])
        self.changes.stage(again)
        self.session.staged_changed()
        self._retry_of = batch.id if again else None
        ended = "Stopped. " if stopped else ""
        self._summary = f"{ended}Batch {batch.id}: {batch.summary()}" + (
            " · r retries the failed and unknown rows" if again else ""
        )
        self.refresh_summary()
        self.refresh_bindings()
        self.notify(inert(self._summary), markup=False, timeout=10)

    def action_back(self) -> None:
        if self._sending is not None:
            self._stopping = True
            self._sending.cancel()
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
        from hubtui.tui.screens.confirm import ConfirmScreen

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


def wanted_rows(
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
