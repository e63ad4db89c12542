"""``w``: whom to find (an email, ``@domain`` or part of a name), in every project shown."""

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


class WhoPromptScreen(ModalScreen[str | None]):
    """Asks whom to look for."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    ("Find a person in ", "bold"),
                    (inert(self.scope), "bold"),
                    "\nAn email (jane@acme.com), a domain (@northwind-eng.com) or part of a name; "
                    "case and accents are ignored.",
                )
            )
            yield Input(placeholder="email, @domain or name, then enter", id="who-input")
            yield Static(id="who-message")
        yield KeyFooter(compact=True)

    @on(Input.Submitted, "#who-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or text == "@":
            self.query_one("#who-message", Static).update("Type an email, a domain or a name.")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
