"""``O``: why a person is offboarded, asked before the preview and kept with its review."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter


class ReasonPromptScreen(ModalScreen[str | None]):
    """Asks why (enter with nothing typed: no reason given); escape goes back, nothing read."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, email: str) -> None:
        super().__init__()
        self.email = email

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    ("Offboard ", "bold"),
                    (inert(self.email, limit=None), "bold"),
                    "\nWhy? Kept with the review (hubtui reviews shows it). Their access in every "
                    "hub is read next and previewed: nothing is sent before you confirm.",
                )
            )
            yield Input(placeholder="the reason, then enter", id="reason-input")
        yield KeyFooter(compact=True)

    @on(Input.Submitted, "#reason-input")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(" ".join(event.value.split()))

    def action_cancel(self) -> None:
        self.dismiss(None)
