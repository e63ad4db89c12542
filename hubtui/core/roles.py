"""The roles a person can be given in a project, and one rule for reading a role typed or read
from a file: any case is taken, the server's spelling is sent (``editor`` → ``Editor``)."""

from __future__ import annotations

__all__ = ["ROLES", "role_named"]

#: The roles the service documents, in order of growing rights.
ROLES: tuple[str, ...] = ("Reader", "Editor", "Admin")


def role_named(text: str) -> str | None:
    """The role ``text`` names, in the server's spelling; None when it names none."""
    wanted = text.strip().casefold()
    return next((role for role in ROLES if role.casefold() == wanted), None)
