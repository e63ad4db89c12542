"""`?`: every key of the screen below, and what its badges and markers mean."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.tui.screens.base import ListScreen

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
    """Keys and legend for one screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close help"),
    ]

    def __init__(self, screen: ListScreen) -> None:
        super().__init__()
        self.for_screen = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._text(), id="help-text")

    def _text(self) -> Content:
        screen = self.for_screen
        keys: list[tuple[str, str]] = list(GLOBAL_KEYS)
        for cls in type(screen).__mro__:
            for binding in cls.__dict__.get("BINDINGS", []):
                if not isinstance(binding, Binding) or binding.action == "back":
                    continue  # back is among the keys every screen shares, above
                if binding.show and binding.description:
                    entry = (
                        binding.key.replace("slash", "/").replace("question_mark", "?"),
                        binding.description,
                    )
                    if entry[0] not in {k for k, _ in keys}:
                        keys.append(entry)
        lines: list[Content] = [Content.styled("Keys", "bold")]
        lines += [Content.assemble((f"  {key:<24}", "bold"), text) for key, text in keys]
        if screen.LEGEND:
            lines += [Content(""), Content.styled("What the marks mean", "bold")]
            lines += [Content(f"  {line}") for line in screen.LEGEND]
        lines += [Content(""), Content("escape or ? closes this help.")]
        return Content("\n").join(lines)
