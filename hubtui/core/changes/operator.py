"""Who is at the keyboard: the operator named in each change logged and each review kept.

The ``operator`` setting (config file, or ``HUBTUI_OPERATOR``) when given, else the OS user at
the host (``ann@desk-12``). Never a token, never a password: only what names a person to the
colleagues who read the history.
"""

from __future__ import annotations

import getpass
import socket

__all__ = ["operator_name", "who_words"]


def operator_name(configured: str | None = None) -> str:
    """The operator's name: ``configured``, else the OS user at the host."""
    if configured:
        return configured
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def who_words(operator: str | None, db_role: str | None) -> str:
    """Who made a change or kept a review, as the line says (the operator) and, where it
    differs, as the database knows them: ``alice.ops (database role ann)``."""
    said = operator or "someone"
    if db_role and db_role != operator:
        return f"{said} (database role {db_role})"
    return said
