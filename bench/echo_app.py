"""The floor of a filter keystroke in a terminal: a bare Textual app whose filter box only says
what was typed (no list, no filtering), measured in tmux as the others are.

Run:  python -m bench.echo_app
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input, Static


class Echo(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", priority=True),
        Binding("q", "quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("/ filters", id="summary")
        yield Input(placeholder="Filter", id="filter")
        yield Footer()

    def action_filter(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Changed)
    def _echo(self, event: Input.Changed) -> None:
        self.query_one("#summary", Static).update(f"matching “{event.value}”")


if __name__ == "__main__":
    Echo().run()
