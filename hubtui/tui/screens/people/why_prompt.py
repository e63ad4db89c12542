"""The palette's "Why can't … get in?": whose access to explain, and where (a project's Id or
part of its name; empty, every project where they have access)."""

from __future__ import annotations

from collections.abc import Iterable

from textual import on
from textual.widgets import Input

from hubtui.core.access import email_problem
from hubtui.tui.screens.dialogs.prompt import PromptScreen


class WhyPromptScreen(PromptScreen["tuple[str, str | None]"]):
    """Asks for an email and, optionally, a project; enter on the email goes to the project."""

    MESSAGE_ID = "why-message"

    def __init__(self, scope: str, email: str | None = None) -> None:
        self.email = email
        super().__init__(
            "Why can't … get in? ",
            f"({scope})",
            "Their email, then a project's Id or part of its name (case and accents ignored), "
            "or nothing for every project where they have access.",
        )

    def fields(self) -> Iterable[Input]:
        # The highlighted person's address, selected: enter takes it, typing replaces it.
        yield Input(
            self.email or "",
            placeholder="their email, then enter",
            id="why-email",
            select_on_focus=True,
        )
        yield Input(placeholder="project Id or name (optional), then enter", id="why-project")

    @on(Input.Submitted, "#why-email")
    def _email_given(self, event: Input.Submitted) -> None:
        if self._checked_email() is not None:
            # At once, not on the app's next turn: a project typed ahead lands in its field.
            self.set_focus(self.query_one("#why-project", Input))

    @on(Input.Submitted, "#why-project")
    def _project_given(self, event: Input.Submitted) -> None:
        email = self._checked_email()
        if email is not None:
            self.dismiss((email, event.value.strip() or None))

    def _checked_email(self) -> str | None:
        field = self.query_one("#why-email", Input)
        email = field.value.strip()
        problem = email_problem(email)
        self.say(problem or "")
        if problem:
            self.set_focus(field)
            return None
        return email
