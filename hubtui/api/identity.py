"""The service's roles and how two of its records name one person, without pydantic: read by
``hubtui.core.access`` (the one home of these rules) on paths that load no record type."""

from __future__ import annotations

#: The project roles the service documents, in order of growing rights.
KNOWN_ROLES: tuple[str, ...] = ("Reader", "Editor", "Admin")


def email_key(email: str | None) -> str:
    """An email as two records of one person agree on it: spaces stripped, case folded."""
    return (email or "").strip().casefold()
