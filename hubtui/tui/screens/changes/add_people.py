"""``A``: emails pasted one a line, checked and folded, with the role to add them as."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Select, Static, TextArea

from hubtui.core.access import email_problem
from hubtui.core.workflows.engine import (
    ROLES,
)
from hubtui.text import inert
from hubtui.tui.present import amount
from hubtui.tui.widgets.chrome import KeyFooter


def pasted_emails(text: str) -> tuple[list[str], list[str], int]:
    """(emails, problems, duplicates folded) of a pasted list: one a line (commas, semicolons
    and spaces also part them), each checked, the same address once whatever its case."""
    emails: dict[str, str] = {}
    problems: list[str] = []
    duplicates = 0
    for part in text.replace(",", "\n").replace(";", "\n").split():
        address = part.strip().strip("<>")
        if not address:
            continue
        problem = email_problem(address)
        if problem:
            problems.append(f"“{inert(address, limit=60)}”: {problem}")
        elif address.casefold() in emails:
            duplicates += 1
        else:
            emails[address.casefold()] = address
    return list(emails.values()), problems, duplicates


class AddPeopleScreen(ModalScreen["tuple[list[str], str] | None"]):
    """``A``: paste emails, pick a role; dismisses with them once every line is an address.
    Nothing typed is lost: a line that is not an address is named, and the text stays."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "stage", "Stage", priority=True),
    ]

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="add-people"):
            yield Static(
                Content.assemble(
                    ("Add people ", "bold"),
                    f"to {inert(self.where, limit=80)}: paste their emails, one a line.",
                )
            )
            yield TextArea(id="emails", soft_wrap=False)
            with Horizontal(id="add-people-role"):
                yield Static("Role ")
                yield Select(
                    [(role, role) for role in ROLES], value="Reader", allow_blank=False, id="role"
                )
            yield Static("", id="add-people-problem")
            yield Static("ctrl+s stages them (nothing is sent) · escape cancels")
        yield KeyFooter(compact=True)

    def action_stage(self) -> None:
        emails, problems, duplicates = pasted_emails(self.query_one("#emails", TextArea).text)
        problem = self.query_one("#add-people-problem", Static)
        if problems:
            shown = "\n".join(problems[:4])
            more = f"\n…and {len(problems) - 4} more" if len(problems) > 4 else ""
            problem.update(Content(f"Not an address: fix or remove these lines.\n{shown}{more}"))
            return
        if not emails:
            problem.update(Content("Paste at least one email address."))
            return
        role = str(self.query_one("#role", Select).value)
        if duplicates:
            self.notify(f"{amount(duplicates, 'duplicate')} folded into one.", markup=False)
        self.dismiss((emails, role))

    def action_cancel(self) -> None:
        self.dismiss(None)
