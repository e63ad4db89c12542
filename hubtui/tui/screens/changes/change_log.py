"""`c`: the changes made in this session, newest first, where the log file is, and every batch
the file holds for this server (this run's, a headless `apply`'s, yesterday's): `R` reverts the
one chosen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hubtui.core.presenting import amount
from hubtui.core.workflows.engine import (
    Change,
    ChangeLog,
    batches_in,
    batches_of,
    changes_logged,
    revert_of,
)
from hubtui.text import inert
from hubtui.tui.glyphs import WARNING
from hubtui.tui.messages import RevertBatch
from hubtui.tui.widgets.chrome import KeyFooter


class ChangeLogScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,c,q", "dismiss", "Close"),
        Binding(
            "R",
            "revert",
            "Revert batch",
            tooltip="put back what the batch chosen below changed (previewed first)",
        ),
    ]

    def __init__(self, log: ChangeLog, team: str | None = None) -> None:
        super().__init__()
        self.change_log = log
        #: The team store's address, whose changes (every operator's) are listed too.
        self.team = team
        #: Every batch of this server in the file and the team store (and this session's),
        #: newest first. With a team store, read off the event loop once the screen is up.
        self.batches = _batches(log) if team is None else []
        #: With a team store: its latest changes of this server not made in this session
        #: (None: being read).
        self.team_changes: list[Change] | None = None if team is not None else []
        self._revert_when_read = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            # The batches first: the list R acts on is in view when the dialog opens.
            yield Static(self._batches_title(), id="batches-title")
            yield _Batches(*self._batch_options(), id="batches")
            yield Static(self._text(), id="change-log-text")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._show_batches()
        if self.team_changes is None:
            self.run_worker(self._read_team, thread=True, group="team", exit_on_error=False)

    def _read_team(self) -> None:
        """The batches and the team's changes, read with the team store's (in a thread)."""
        log = self.change_log
        logged = changes_logged(log)  # the file and the team store, read once for both
        mine = {c.id for c in log.changes}
        team = [c for c in logged if c.id not in mine][-TEAM_SHOWN:]
        self.app.call_from_thread(self._show_team, _batches(log, logged), team)

    def _show_team(self, batches: list[tuple[str, list[Change]]], team: list[Change]) -> None:
        """The team's changes and batches, shown in the widgets already up."""
        self.batches, self.team_changes = batches, team
        self.query_one("#change-log-text", Static).update(self._text())
        self.query_one("#batches-title", Static).update(self._batches_title())
        self.query_one("#batches", OptionList).set_options(self._batch_options())
        self._show_batches()
        if self._revert_when_read:
            self.call_after_refresh(self.action_revert)

    def _batches_title(self) -> Content:
        return Content.styled(
            "Batches in the change log (this server), newest first: R reverts the one highlighted"
            if self.batches
            else "No batch in the change log for this server.",
            "bold",
        )

    def _batch_options(self) -> list[Option]:
        # Content, never markup: a batch row names what a server sent (an email, a project).
        return [Option(Content(_batch_words(b, changes)), id=b) for b, changes in self.batches]

    def _show_batches(self) -> None:
        """The batches' list, shown when there is one and focused: ↑ ↓ choose the batch R
        reverts."""
        options = self.query_one("#batches", OptionList)
        options.display = bool(self.batches)
        if self.batches:
            options.focus()  # above the changes: in view as the dialog opens

    @property
    def newest_batch(self) -> str | None:
        return self.batches[0][0] if self.batches else None

    @property
    def chosen_batch(self) -> str | None:
        """The batch highlighted below (the newest until another is chosen)."""
        if not self.batches:
            return None
        options = self.query_one("#batches", OptionList)
        if options.highlighted is not None:
            return options.get_option_at_index(options.highlighted).id
        return self.newest_batch

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "revert":  # while the team's batches are read, R waits for them
            return self.newest_batch is not None or self.team_changes is None
        return True

    def action_revert(self) -> None:
        if self.team_changes is None:
            self._revert_when_read = True  # typed ahead: it lands once the batches are here
            return
        batch = self.chosen_batch
        if batch is None:
            return
        self.dismiss()
        self.app.post_message(RevertBatch(batch))

    def _text(self) -> Content:
        lines: list[Content] = [Content(""), Content.styled("Changes in this session", "bold")]
        if not self.change_log.changes:
            lines.append(Content("None yet."))
        for change in reversed(self.change_log.changes):
            lines.extend(_change_lines(change))
        if self.team is not None:
            lines.append(Content(""))
            lines.append(
                Content.styled(
                    f"The team's changes in {inert(self.team)} (the latest {TEAM_SHOWN}, every "
                    "operator), newest first",
                    "bold",
                )
            )
            if self.team_changes is None:
                lines.append(Content("Reading…"))
            elif not self.team_changes:
                lines.append(Content("None yet."))
            for change in reversed(self.team_changes or []):
                lines.extend(_change_lines(change, by=True))
        lines.append(Content(""))
        if self.change_log.path is not None:
            lines.append(Content(f"Appended as JSON lines to {self.change_log.path}"))
        if self.change_log.write_error:
            lines.append(Content(f"{WARNING} {self.change_log.write_error}"))
        return Content("\n").join(lines)


class _Batches(OptionList):
    """The batches R reverts, below the changes: focused, the list is brought into view each
    time it is laid out at a new size (it shows once the team's batches are read, below a
    text that grew with the team's changes), when its place is known."""

    def on_resize(self) -> None:
        if self.has_focus:
            self.scroll_visible(animate=False)


#: How many of the team's changes ``c`` lists.
TEAM_SHOWN = 50


def _change_lines(change: Change, *, by: bool = False) -> list[Content]:
    """A change in words, then its batch, detail, request and redirect, each on a line of its
    own; ``by``: a change of the team's, which names its operator (its request was another
    process's, not in this request log)."""
    who = inert(change.email or change.user_id or "?")
    operator = f"{inert(change.operator or '?')}: " if by else ""
    lines = [
        Content.assemble(
            (f"{change.time} ", "bold"),
            (f"{change.outcome.upper():<8}", "bold"),
            f"{operator}{change.action} {who} in {inert(change.where)} "
            f"(hub {inert(change.hub_name)}): ",
            inert(change.summary),
        )
    ]
    if change.batch:
        reverts = f", reverting {inert(change.reverts)}" if change.reverts else ""
        lines.append(Content(f"    batch {inert(change.batch)}{reverts}"))
    if change.detail:
        lines.append(Content(f"    {inert(change.detail)}"))
    if change.request_id and not by:
        lines.append(Content(f"    request {inert(change.request_id)} (ctrl+l shows it)"))
    if change.sent_to:
        lines.append(Content(f"    redirected, answered at {inert(change.sent_to)}"))
    return lines


def _batches(log: ChangeLog, logged: list[Change] | None = None) -> list[tuple[str, list[Change]]]:
    """The batches the log's file holds for its server and profile (of ``logged``, the changes
    already read from it, when given), with this session's (a log with no file), newest
    first."""
    # In the order the file first names them: oldest first.
    found = dict(batches_in(log) if logged is None else batches_of(logged))
    for change in log.changes:
        if change.batch and change.batch not in found:
            found.setdefault(change.batch, []).append(change)
    return list(reversed(found.items()))


def _batch_words(batch: str, changes: list[Change]) -> str:
    """``b3f2… 2026-11-24T14:02:00Z · 12 changes: 11 done, 1 failed (reverts b1…)``."""
    outcomes: dict[str, int] = {}
    for change in changes:
        outcomes[change.outcome] = outcomes.get(change.outcome, 0) + 1
    said = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
    reverts = next((c.reverts for c in changes if c.reverts), None)
    back = f" (reverts {inert(reverts)})" if reverts else ""
    when = min(c.time for c in changes)
    by = sorted({c.operator for c in changes if c.operator})
    who = f" by {inert(', '.join(by))}" if by else ""
    first = changes[0]
    what = f"{first.action} {first.email or first.user_id or '?'} in {first.where}: {first.summary}"
    if len(changes) > 1:
        what += f" (and {len(changes) - 1:,} more)"
    undo = "R puts it back" if revert_of(changes)[0] else "nothing R can put back"
    return (
        f"{inert(batch)} {when} · {inert(what, limit=160)} · "
        f"{amount(len(changes), 'change')}: {said}{back}{who} · {undo}"
    )
