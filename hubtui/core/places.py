"""Where hubtui keeps its files: ``HUBTUI_DATA_DIR``, or the person's data directory."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DEMO_STORE",
    "default_change_log_path",
    "default_store_path",
    "default_team_cursor_path",
]

#: The demo API's store, apart from every real server's.
DEMO_STORE = "demo-store.sqlite3"


def data_dir() -> Path:
    """``HUBTUI_DATA_DIR`` or the user data directory."""
    if os.environ.get("HUBTUI_DATA_DIR"):
        return Path(os.environ["HUBTUI_DATA_DIR"]).expanduser()
    from platformdirs import user_data_path

    return user_data_path("hubtui")


def default_change_log_path() -> Path:
    """The change log: ``changes.jsonl`` in the data directory."""
    return data_dir() / "changes.jsonl"


def default_store_path(*, demo: bool = False) -> Path:
    """``store.sqlite3`` beside the change log; the demo API's is ``demo-store.sqlite3``, so
    that the demo never mixes with real servers."""
    return data_dir() / (DEMO_STORE if demo else "store.sqlite3")


def default_team_cursor_path() -> Path:
    """How far the change log was copied to each team store: beside the change log."""
    return data_dir() / "team-copy.json"
