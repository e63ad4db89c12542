"""Every change hubtui tried, with its outcome: shown in the app, appended as JSON lines.

Each line can be pasted into a ticket. It holds what changed and where, never the token.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

DONE, FAILED, UNKNOWN = "done", "failed", "unknown"


def default_change_log_path() -> Path:
    """``HUBTUI_DATA_DIR`` or the user data directory, then ``changes.jsonl``."""
    if os.environ.get("HUBTUI_DATA_DIR"):
        return Path(os.environ["HUBTUI_DATA_DIR"]).expanduser() / "changes.jsonl"
    from platformdirs import user_data_path

    return user_data_path("hubtui") / "changes.jsonl"


@dataclass(frozen=True)
class Change:
    time: str
    action: str
    """``add`` or ``update``."""
    hub_id: str
    hub_name: str
    project_id: str
    project_name: str | None
    user_id: str | None
    email: str | None
    before: dict[str, object] | None
    after: dict[str, object]
    outcome: str
    """``done``, ``failed`` or ``unknown`` (the request may or may not have taken effect)."""
    detail: str = ""
    api_version: str = "v3"

    @property
    def summary(self) -> str:
        """``Role: Reader → Editor`` style, one line."""
        parts = []
        for field, value in self.after.items():
            old = None if self.before is None else self.before.get(field)
            if self.before is None:
                parts.append(f"{field}: {_word(value)}")
            elif old != value:
                parts.append(f"{field}: {_word(old)} → {_word(value)}")
        return ", ".join(parts) or "no change"


def _word(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class ChangeLog:
    """The session's changes, newest last, also appended to a JSON-lines file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.changes: list[Change] = []
        self.write_error: str | None = None

    def record(self, change: Change) -> None:
        self.changes.append(change)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(change), ensure_ascii=True) + "\n")
        except OSError as exc:
            self.write_error = f"Could not write the change log {self.path}: {exc.strerror}."


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
