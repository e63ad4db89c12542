"""Who is at the keyboard: the operator named in each change logged and each review kept.

The ``operator`` setting (config file, or ``HUBTUI_OPERATOR``) when given, else the OS user at
the host (``ann@desk-12``). Never a token, never a password: only what names a person to the
colleagues who read the history.
"""

from __future__ import annotations

import getpass
import socket

__all__ = ["operator_name"]


def operator_name(configured: str | None = None) -> str:
    """The operator's name: ``configured``, else the OS user at the host."""
    if configured:
        return configured
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"
