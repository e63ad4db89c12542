"""``w``: whom to find (an email, ``@domain`` or part of a name), in every project shown."""

from __future__ import annotations

from collections.abc import Iterable

from textual import on
from textual.widgets import Input

from hubtui.tui.screens.dialogs.prompt import PromptScreen


class WhoPromptScreen(PromptScreen[str]):
    """Asks whom to look for."""

    MESSAGE_ID = "who-message"

    def __init__(self, scope: str) -> None:
        super().__init__(
            "Find a person in ",
            scope,
            "An email (jane@acme.com), a domain (@northwind-eng.com) or part of a name; case "
            "and accents are ignored.",
        )

    def fields(self) -> Iterable[Input]:
        yield Input(placeholder="email, @domain or name, then enter", id="who-input")

    @on(Input.Submitted, "#who-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or text == "@":
            self.say("Type an email, a domain or a name.")
            return
        self.dismiss(text)
