"""Where hubtui keeps its files: ``HUBTUI_DATA_DIR``, or the person's data directory."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_path

__all__ = [
    "DEMO_FOLDER",
    "DEMO_STORE",
    "default_change_log_path",
    "default_store_path",
    "default_team_cursor_path",
]

#: The demo API's folder in the data directory: its change log and its store, apart from every
#: real server's, never copied to a team store.
DEMO_FOLDER = "demo"
#: The demo API's store, in its folder.
DEMO_STORE = f"{DEMO_FOLDER}/store.sqlite3"


def data_dir() -> Path:
    """``HUBTUI_DATA_DIR`` or the user data directory."""
    if os.environ.get("HUBTUI_DATA_DIR"):
        return Path(os.environ["HUBTUI_DATA_DIR"]).expanduser()
    return user_data_path("hubtui")


def default_change_log_path(*, demo: bool = False) -> Path:
    """The change log: ``changes.jsonl`` in the data directory; the demo API's in its own
    folder (``demo/changes.jsonl``), so that its changes never reach a real server's history."""
    return data_dir() / (f"{DEMO_FOLDER}/changes.jsonl" if demo else "changes.jsonl")


def default_store_path(*, demo: bool = False) -> Path:
    """``store.sqlite3`` beside the change log; the demo API's in its own folder
    (``demo/store.sqlite3``), so that the demo never mixes with real servers."""
    return data_dir() / (DEMO_STORE if demo else "store.sqlite3")


def default_team_cursor_path() -> Path:
    """How far the change log was copied to each team store: beside the change log."""
    return data_dir() / "team-copy.json"
