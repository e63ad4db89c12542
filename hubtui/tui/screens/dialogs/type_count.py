"""A batch of more than 50 changes is sent once its count is typed."""

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
