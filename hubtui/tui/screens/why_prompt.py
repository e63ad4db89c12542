"""The palette's "Why can't … get in?": whose access to explain, and where (a project's Id or
part of its name; empty, every project where they have access)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from hubtui.core.emails import email_problem
from hubtui.text import inert
from hubtui.tui.widgets.chrome import KeyFooter


class WhyPromptScreen(ModalScreen["tuple[str, str | None] | None"]):
    """Asks for an email and, optionally, a project; enter on the email goes to the project."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    ("Why can't … get in? ", "bold"),
                    (f"({inert(self.scope)})", "bold"),
                    "\nTheir email, then a project's Id or part of its name (case and accents "
                    "ignored), or nothing for every project where they have access.",
                )
            )
            yield Input(placeholder="their email, then enter", id="why-email")
            yield Input(placeholder="project Id or name (optional), then enter", id="why-project")
            yield Static(id="why-message")
        yield KeyFooter(compact=True)

    @on(Input.Submitted, "#why-email")
    def _email_given(self, event: Input.Submitted) -> None:
        if self._checked_email() is not None:
            self.query_one("#why-project", Input).focus()

    @on(Input.Submitted, "#why-project")
    def _project_given(self, event: Input.Submitted) -> None:
        email = self._checked_email()
        if email is not None:
            self.dismiss((email, event.value.strip() or None))

    def _checked_email(self) -> str | None:
        field = self.query_one("#why-email", Input)
        email = field.value.strip()
        problem = email_problem(email)
        if problem:
            self.query_one("#why-message", Static).update(problem)
            field.focus()
            return None
        self.query_one("#why-message", Static).update("")
        return email

    def action_cancel(self) -> None:
        self.dismiss(None)
