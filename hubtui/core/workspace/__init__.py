"""The Workspace: one server and profile, and everything hubtui works with for it.

- :mod:`~hubtui.core.workspace.identity`: which server and profile, and where its files are;
- :mod:`~hubtui.core.workspace.connection`: how its server is reached (over HTTP, the demo API
  in-process, or the store's answers offline: :mod:`~hubtui.core.workspace.offline`);
- :mod:`~hubtui.core.workspace.workspace`: the Workspace itself;
- :mod:`~hubtui.core.workspace.opening`: :func:`open_workspace`, the one way one is built.
"""

from __future__ import annotations

from hubtui.core.workspace.connection import DEMO_BASE_URL, client_factory
from hubtui.core.workspace.identity import DataPlaces, Identity
from hubtui.core.workspace.opening import open_workspace
from hubtui.core.workspace.workspace import Connection, StoreOff, Workspace

__all__ = [
    "DEMO_BASE_URL",
    "Connection",
    "DataPlaces",
    "Identity",
    "StoreOff",
    "Workspace",
    "client_factory",
    "open_workspace",
]
