"""What a screen reads from the app it runs in: the app's Workspace (``hubtui.core.workspace``).

Screens import this, never ``hubtui.tui.app``, so the app can import every screen without a
circle. What a screen asks the app to *do* goes up as a message (``hubtui.tui.messages``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from hubtui.core.workspace import Workspace

    #: The session of a screen: the Workspace of the app it runs in.
    Session = Workspace


def session_of(app: App[Any]) -> Workspace:
    """The Workspace the app runs (a :class:`~hubtui.tui.app.HubTuiApp`: the one app of hubtui)."""
    workspace: Workspace = app.workspace  # type: ignore[attr-defined]
    return workspace
