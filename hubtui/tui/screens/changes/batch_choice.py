"""What ``m`` does to the marked rows: one choice of
:data:`~hubtui.tui.screens.changes.marking.CHOICES`."""

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
from hubtui.core.workflows.engine import Intent
from hubtui.tui.present import amount
from hubtui.tui.widgets.chrome import KeyFooter

#: What ``m`` offers for marked people: (label, intent, role, reviewer).
CHOICES: tuple[tuple[str, Intent, str | None, bool | None], ...] = (
    *((f"Set role: {role}", Intent.SET, role, None) for role in ROLES),
    ("Reviewer on", Intent.SET, None, True),
    ("Reviewer off", Intent.SET, None, False),
    *(
        (f"Make direct member (limited readers) as {role}", Intent.ADD, role, None)
        for role in ROLES
    ),
)


class BatchChoiceScreen(ModalScreen["int | None"]):
    """``m``: what to do to the marked rows; dismisses with the index in :data:`CHOICES`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    (f"Change {amount(self.count, 'marked row')}", "bold"),
                    "\nStaged, not sent: b previews every staged change before it goes out.",
                )
            )
            yield OptionList(
                *(Option(label, id=str(n)) for n, (label, *_) in enumerate(CHOICES)),
                id="batch-choices",
            )
        yield KeyFooter(compact=True)

    @on(OptionList.OptionSelected, "#batch-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
