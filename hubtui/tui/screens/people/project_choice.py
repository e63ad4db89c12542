"""Which project a ticket is about, when the name typed names several: each listed with its Id
and its hub, the first highlighted; enter takes it."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

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

if TYPE_CHECKING:
    from hubtui.api import Hub

#: A project a name names: its hub, its Id and its name.
Named = tuple["Hub", str, "str | None"]


class ProjectChoiceScreen(ModalScreen["Named | None"]):
    """Which of the projects ``typed`` names; dismisses with it (None: none)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        # A key typed ahead lands here even before the list has focus.
        Binding("enter", "choose", "Choose", show=False),
    ]

    def __init__(self, typed: str, found: list[Named]) -> None:
        super().__init__()
        self.typed = typed
        self.found = list(found)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (f"{inert(self.typed, limit=80)!r} names {len(self.found)} projects", "bold"),
                    ": which one?",
                )
            )
            yield OptionList(
                *(
                    Option(
                        f"{inert(name or '')}  (Id {inert(pid)}, hub {inert(hub.name)})", id=str(n)
                    )
                    for n, (hub, pid, name) in enumerate(self.found)
                ),
                id="project-choices",
            )
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        choices = self.query_one("#project-choices", OptionList)
        choices.highlighted = 0
        choices.focus()

    @on(OptionList.OptionSelected, "#project-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[int(event.option.id or 0)])

    def action_choose(self) -> None:
        choices = self.query("#project-choices").first(OptionList) if self.is_mounted else None
        index = None if choices is None else choices.highlighted
        if index is not None:
            self.dismiss(self.found[index])

    def action_cancel(self) -> None:
        self.dismiss(None)
