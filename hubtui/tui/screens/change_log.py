"""`c`: the changes made in this session, newest first, and where the log file is."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.core.changelog import ChangeLog
from hubtui.core.text import inert
from hubtui.tui.glyphs import WARNING
from hubtui.tui.messages import RevertBatch
from hubtui.tui.widgets.chrome import KeyFooter


class ChangeLogScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,c,q", "dismiss", "Close"),
        Binding(
            "R",
            "revert",
            "Revert last batch",
            tooltip="put back what the newest batch changed (previewed first)",
        ),
    ]

    def __init__(self, log: ChangeLog) -> None:
        super().__init__()
        self.change_log = log

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            yield Static(self._text(), id="change-log-text")
        yield KeyFooter(compact=True)

    @property
    def newest_batch(self) -> str | None:
        return next((c.batch for c in reversed(self.change_log.changes) if c.batch), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "revert":
            return self.newest_batch is not None
        return True

    def action_revert(self) -> None:
        batch = self.newest_batch
        if batch is None:
            return
        self.dismiss()
        self.app.post_message(RevertBatch(batch))

    def _text(self) -> Content:
        lines: list[Content] = [Content.styled("Changes in this session", "bold")]
        if not self.change_log.changes:
            lines.append(Content("None yet."))
        for change in reversed(self.change_log.changes):
            who = inert(change.email or change.user_id or "?")
            where = inert(change.project_name or f"project {change.project_id}")
            lines.append(
                Content.assemble(
                    (f"{change.time} ", "bold"),
                    (f"{change.outcome.upper():<8}", "bold"),
                    f"{change.action} {who} in {where} (hub {inert(change.hub_name)}): ",
                    inert(change.summary),
                )
            )
            if change.batch:
                reverts = f", reverting {inert(change.reverts)}" if change.reverts else ""
                lines.append(Content(f"    batch {inert(change.batch)}{reverts}"))
            if change.detail:
                lines.append(Content(f"    {inert(change.detail)}"))
            if change.request_id:
                lines.append(Content(f"    request {inert(change.request_id)} (ctrl+l shows it)"))
            if change.sent_to:
                lines.append(Content(f"    redirected, answered at {inert(change.sent_to)}"))
        lines.append(Content(""))
        if self.change_log.path is not None:
            lines.append(Content(f"Appended as JSON lines to {self.change_log.path}"))
        if self.change_log.write_error:
            lines.append(Content(f"{WARNING} {self.change_log.write_error}"))
        if self.newest_batch:
            lines.append(Content(f"R reverts batch {self.newest_batch} (previewed first)."))
        lines.append(Content("escape closes."))
        return Content("\n").join(lines)
