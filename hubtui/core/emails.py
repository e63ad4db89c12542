"""Whether a typed email can be sent: checked before anything goes out, in the app and headless."""

from __future__ import annotations

import re

from hubtui.text import hidden_character

__all__ = ["email_problem"]

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


def email_problem(email: str) -> str | None:
    """Why ``email`` cannot be sent, or None when it can."""
    if not email.strip():
        return "Type the person's email address."
    if email != email.strip():
        return "Remove the spaces around the address."
    hidden = hidden_character(email)
    if hidden is not None:
        return (
            f"The address holds the control or invisible character U+{ord(hidden):04X}, which "
            "no address has: type it again."
        )
    if not EMAIL.match(email):
        return "This is not an email address (name@domain.example)."
    return None
