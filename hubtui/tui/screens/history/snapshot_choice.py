"""``D``: which snapshot kept to compare with now, newest first."""

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
    from hubtui.core.workflows.kept import SnapshotInfo


class SnapshotChoiceScreen(ModalScreen["SnapshotInfo | None"]):
    """Which snapshot to compare with now: the newest first."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, scope: str, snapshots: list[SnapshotInfo]) -> None:
        super().__init__()
        self.scope = scope
        self.snapshots = list(reversed(snapshots))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(("Changes in ", "bold"), (inert(self.scope), "bold"), " since…")
            )
            yield OptionList(
                *(Option(inert(info.label), id=str(n)) for n, info in enumerate(self.snapshots)),
                id="snapshot-choices",
            )
        yield KeyFooter(compact=True)

    @on(OptionList.OptionSelected, "#snapshot-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.snapshots[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)
