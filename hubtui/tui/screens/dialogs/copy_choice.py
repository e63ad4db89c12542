"""`y` on the hub list: which of the hub's identifiers to copy."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter


class CopyChoiceScreen(ModalScreen["tuple[str, str] | None"]):
    """Offers (label, value) pairs; dismisses with the chosen one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content.assemble(("Copy ", "bold"), (inert(self.title_text), "bold")))
            yield OptionList(
                *(
                    Option(Content(f"{label}: {inert(value, limit=80)}"), id=str(n))
                    for n, (label, value) in enumerate(self.choices)
                ),
                id="copy-choices",
            )
        yield KeyFooter(compact=True)

    @on(OptionList.OptionSelected, "#copy-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)
