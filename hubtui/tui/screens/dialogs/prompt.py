"""The one shape of a question asked in a dialog: a heading in bold, what to type, its fields, a
line that says what is wrong, and escape to go back with nothing (``w``, ``O``, "Why can't … get
in?")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter

Answer = TypeVar("Answer")


class PromptScreen(ModalScreen[Answer | None]):
    """Asks, in a dialog, what its fields say; escape dismisses it with None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    #: The Id of the line that says what is wrong (None: nothing typed can be wrong).
    MESSAGE_ID: ClassVar[str | None] = None

    def __init__(self, title: str, subject: str, explained: str) -> None:
        super().__init__()
        self._title, self._subject, self._explained = title, subject, explained

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (self._title, "bold"),
                    (inert(self._subject), "bold"),
                    f"\n{self._explained}",
                )
            )
            yield from self.fields()
            if self.MESSAGE_ID is not None:
                yield Static(id=self.MESSAGE_ID)
        yield KeyFooter(compact=True)

    def fields(self) -> Iterable[Input]:
        """The fields to fill, in the order they are filled."""
        raise NotImplementedError

    def say(self, words: str) -> None:
        """What is wrong with what was typed ("" when nothing is)."""
        assert self.MESSAGE_ID is not None
        self.query_one(f"#{self.MESSAGE_ID}", Static).update(words)

    def action_cancel(self) -> None:
        self.dismiss(None)
