"""``d`` on a hub's people: a reviewer's decision for the marked people (or the highlighted one),
with an optional reason. ``k``, ``r`` or ``x`` chooses and moves to the reason; ``enter`` there
decides (``enter`` twice: the highlighted decision, no reason)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from hubtui.core.people import Decision
from hubtui.tui.widgets.chrome import KeyFooter

#: Each decision offered, its key and its words on the dialog.
OFFERED: tuple[tuple[Decision, str, str], ...] = (
    (Decision.KEEP, "k", "keep: nothing is sent"),
    (Decision.READER, "r", "set Reader in each project they are a direct member of"),
    (Decision.REMOVE, "x", "remove from the hub (and so from its projects)"),
)


class DecisionScreen(ModalScreen["tuple[Decision, str] | None"]):
    """Dismisses with the decision and its reason (None: nothing decided)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        *(
            Binding(key, f"choose('{decision.value}')", decision.value, show=False)
            for decision, key, _ in OFFERED
        ),
    ]

    def __init__(self, who: str, now: Decision | None = None) -> None:
        super().__init__()
        self.who = who
        self.now = now

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    ("Decide for ", "bold"),
                    (self.who, "bold"),
                    "\nNothing is sent yet: v previews every decision, read again, before it goes.",
                )
            )
            yield OptionList(
                *(
                    Option(Content.assemble((f"{key}  ", "bold"), words), id=decision.value)
                    for decision, key, words in OFFERED
                ),
                id="decisions",
            )
            yield Input(placeholder="reason (optional), then enter", id="reason")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        chosen = [d for d, _, _ in OFFERED].index(self.now) if self.now is not None else 0
        options.highlighted = chosen
        options.focus()

    def action_choose(self, value: str) -> None:
        options = self.query_one(OptionList)
        options.highlighted = [d.value for d, _, _ in OFFERED].index(value)
        self.query_one(Input).focus()

    @on(OptionList.OptionSelected, "#decisions")
    def _selected(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#reason")
    def _decided(self, event: Input.Submitted) -> None:
        highlighted = self.query_one(OptionList).highlighted or 0
        self.dismiss((OFFERED[highlighted][0], " ".join(event.value.split())))

    def action_cancel(self) -> None:
        self.dismiss(None)
