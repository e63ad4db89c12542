"""`?`: every key of the screen below, and what its badges and markers mean."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.tui.screens.base import ListScreen
from hubtui.tui.widgets.chrome import KeyFooter

GLOBAL_KEYS = (
    ("enter", "open the selected row"),
    ("escape backspace ← h", "clear the filter; otherwise back one screen"),
    ("/", "filter the list (case and accents ignored)"),
    ("↑ ↓ pgup pgdn home end", "move in the list"),
    ("s / S", "sort by the next column / reverse the order"),
    ("ctrl+p", "jump to any loaded hub, project or user"),
    ("q", "quit"),
)


class HelpScreen(ModalScreen[None]):
    """Keys and legend for one screen: each key with a sentence that wraps beside it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close help"),
    ]

    def __init__(self, screen: ListScreen[Any]) -> None:
        super().__init__()
        self.for_screen = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            yield Static(Content.styled("Keys", "bold"), classes="help-heading")
            for key, sentence in self.keys():
                with Horizontal(classes="help-row"):
                    yield Static(Content.styled(key, "bold"), classes="help-key")
                    yield Static(sentence, classes="help-what")
            if self.for_screen.LEGEND:
                yield Static(Content.styled("What the marks mean", "bold"), classes="help-heading")
                for line in self.for_screen.LEGEND:
                    yield Static(line, classes="help-legend")
            yield Static("escape or ? closes this help.", classes="help-heading")
        yield KeyFooter(compact=True)

    def keys(self) -> list[tuple[str, str]]:
        """(keys, what they do) for the screen below: shared keys first, then its own."""
        keys: list[tuple[str, str]] = list(GLOBAL_KEYS)
        seen = {key for key, _ in keys}
        for cls in type(self.for_screen).__mro__:
            for binding in cls.__dict__.get("BINDINGS", []):
                if not isinstance(binding, Binding) or binding.action == "back":
                    continue  # back is among the keys every screen shares, above
                if not binding.tooltip and not (binding.show and binding.description):
                    continue
                action = binding.action.split("(")[0]
                if self.for_screen.check_action(action, ()) is False:
                    continue  # not on this screen now (the edit keys under read-only)
                key = binding.key_display or _key_names(binding.key)
                if key not in seen:
                    seen.add(key)
                    keys.append((key, binding.tooltip or binding.description))
        return keys


def _key_names(keys: str) -> str:
    names = {"slash": "/", "question_mark": "?", "backspace": "⌫"}
    return " ".join(names.get(key, key) for key in keys.split(","))
