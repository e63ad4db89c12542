"""The role a fix adds a person with: asked, the one the next step suggests highlighted."""

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

from hubtui.core.access import ROLES
from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter


class RoleChoiceScreen(ModalScreen["str | None"]):
    """Which role to add ``email`` to ``where`` with; dismisses with it (None: not now)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        # A key typed ahead lands here even before the list has focus: enter takes the role
        # highlighted (the suggested one until another is).
        Binding("enter", "choose", "Choose", show=False),
    ]

    def __init__(self, email: str, where: str, suggested: str) -> None:
        super().__init__()
        self.email = email
        self.where = where
        self.suggested = suggested if suggested in ROLES else ROLES[0]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (f"Add {inert(self.email, limit=80)} to {inert(self.where)} as", "bold"),
                    "\nStaged, then read again and previewed: nothing is sent before you "
                    "confirm it there.",
                )
            )
            yield OptionList(*(Option(role, id=role) for role in ROLES), id="roles")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        roles = self.query_one("#roles", OptionList)
        roles.highlighted = ROLES.index(self.suggested)
        roles.focus()

    @on(OptionList.OptionSelected, "#roles")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_choose(self) -> None:
        roles = self.query("#roles").first(OptionList) if self.is_mounted else None
        index = None if roles is None else roles.highlighted
        self.dismiss(self.suggested if index is None else ROLES[index])

    def action_cancel(self) -> None:
        self.dismiss(None)
