"""How records are put into words: hub labels, role meanings, dates, access explanations."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import TYPE_CHECKING

from hubtui.core.presenting import (
    ACCESS_NOT_SENT,
    DISPLAY_NAME_NOT_SENT,
    LIMITED_BADGE,
    LOOKALIKE_MARK,
    NO_DISPLAY_NAME,
    amount,
    count,
    display_name_cell,
    name_warnings,
    when,
    when_both,
)
from hubtui.text import copy_lines, inert
from hubtui.tui.glyphs import NOT_EQUAL

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from textual.app import App

    from hubtui.api import Hub, ProjectUser

#: The marker of a hub whose display name differs from its URL name (a symbol, not colour).
DIFFERENT_NAMES_MARK = NOT_EQUAL

__all__ = [
    "ACCESS_NOT_SENT",
    "DIFFERENT_NAMES_MARK",
    "amount",
    "count",
    "display_name_cell",
    "when",
    "when_both",
    "DISPLAY_NAME_NOT_SENT",
    "LIMITED_BADGE",
    "LOOKALIKE_MARK",
    "NO_DISPLAY_NAME",
    "name_warnings",
]

ROLE_MEANINGS = {
    "Reader": "can view the project's content, but not change it",
    "Editor": "can view and change the project's content",
    "Admin": "can change content and manage the project's users and settings",
}


def hub_label(hub: Hub) -> str:
    """A hub named by both of its names, each labelled."""
    name = inert(hub.name, limit=60)
    if hub.has_custom_display_name:
        return f"{name} (display name: {inert(hub.display_name, limit=60)})"
    return f"{name} (no display name)"


def user_name(project_user: ProjectUser) -> str:
    user = project_user.user
    return inert(user.full_name or user.user_name or f"user {user.id}")


def role_meaning(role: str) -> str:
    known = ROLE_MEANINGS.get(role)
    if known:
        return known
    return "a role hubtui does not know; shown exactly as the server sent it"


def limited_cell(project_user: ProjectUser) -> str:
    if project_user.is_limited is None:
        return ACCESS_NOT_SENT
    return LIMITED_BADGE if project_user.is_limited else ""


@functools.lru_cache(maxsize=1)
def tmux_clipboard_words() -> str:
    """What a copy notice adds inside tmux: nothing where tmux passes OSC 52 on (its
    ``set-clipboard`` is ``on`` or ``external``), else that it must be turned on; nothing outside
    tmux. Asked of tmux once a session."""
    if not os.environ.get("TMUX") or shutil.which("tmux") is None:
        return ""
    try:
        said = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "; in tmux it needs set-clipboard on"
    return "" if said in ("on", "external") else "; in tmux, set-clipboard is off: turn it on"


def copy_lines_for_a_ticket(app: App[Any], lines: Sequence[str], what: str) -> None:
    """Copy several lines for a ticket, each through :func:`hubtui.text.copy_lines`, and say
    so (where tmux would not pass it on, that too)."""
    app.copy_to_clipboard(copy_lines(lines))
    app.notify(
        f"Sent the {what} ({amount(len(lines), 'line')}) to the terminal's clipboard (OSC 52"
        f"{tmux_clipboard_words()}).",
        markup=False,
    )
