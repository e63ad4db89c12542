"""A yes-or-no question over the current screen: y says yes, n or escape says no, and enter
says yes unless the yes loses something (a discard asks for y itself)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.tui.widgets.chrome import KeyFooter


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question`` (already safe Content); dismisses with the answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("enter", "enter", "Yes", show=False),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: Content, *, enter_says_yes: bool = True) -> None:
        super().__init__()
        self.question = question
        self.enter_says_yes = enter_says_yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(self.question)
        yield KeyFooter(compact=True)

    def action_enter(self) -> None:
        if self.enter_says_yes:
            self.dismiss(True)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
