"""Stores, change lines and snapshot files as hubtui writes them, for the tests to start from."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hubtui.core.store import SCHEMA, Store
from tests.harness.postgres import PostgresServer


def change_line(change_id: str, server: str = "https://a:443", **fields: object) -> str:
    """A change log's line, whole (as the change log writes one): an add to project 1001."""
    import json

    change = {
        "time": "2026-11-25T09:00:00Z", "action": "add", "hub_id": "h1",
        "hub_name": "acme-build", "project_id": "1001", "project_name": None, "user_id": None,
        "email": "chloe.moreau@acme-build.com", "before": None, "after": {"Role": "Reader"},
        "outcome": "done", "server": server, "id": change_id, **fields,
    }  # fmt: skip
    return json.dumps(change)


@dataclass
class StoreAt:
    """Where one test's store is, on one engine: a file, or a schema of its own on the team
    server."""

    engine: str
    target: str
    """The file's path or the team store's address, as a process of its own takes it."""
    server: PostgresServer | None = None

    def open(self, *, read_only: bool = False) -> Store:
        return open_target(self.target, read_only=read_only)

    @property
    def named(self) -> str:
        """What the store's messages name it by."""
        return self.target

    def run_as_owner(self, statement: str) -> None:
        """Change the store behind hubtui's back (a tampering, a fault)."""
        if self.server is None:
            with sqlite3.connect(self.target) as db:
                db.executescript(statement)
        else:
            schema = self.target.split("search_path%3D", 1)[1].split("&", 1)[0]
            self.server.sql(f"SET search_path = {schema}; {statement}")


def open_target(target: str, *, read_only: bool = False) -> Store:
    """A store by its file or its team address (what a process of its own is given), opened
    as hubtui opens it."""
    from hubtui.core.store import open_store

    where = target if target.startswith("postgresql://") else Path(target)
    return open_store(where, read_only=read_only)


def lying_store(path: Path) -> None:
    """A store file that says it is of this schema and holds none of its tables."""
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA}")
    path.chmod(0o600)


def snapshot_file(
    path: Path, lines: Sequence[dict[str, Any] | str | bytes], server: str = "demo"
) -> Path:
    """A snapshot file as hubtui writes one, of ``server``, holding ``lines`` (records, or text
    or bytes as they are) after its manifest (with the sha256 of the rest); private."""
    import hashlib

    body = b"".join(
        (x if isinstance(x, bytes) else (x if isinstance(x, str) else json.dumps(x)).encode())
        + b"\n"
        for x in lines
    )
    manifest = {
        "hubtui_snapshot": 1,
        "server": server,
        "profile": "",
        "scope": "all hubs",
        "taken": "2026-11-25T09:00:00Z",
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    path.write_bytes(json.dumps(manifest).encode() + b"\n" + body)
    path.chmod(0o600)
    return path


def users_list(records: Any, project: str = "1001") -> dict[str, Any]:
    """A snapshot file's line: a project's users read."""
    return {
        "kind": "users",
        "hub": "h",
        "project": project,
        "ok": True,
        "why": "",
        "records": records,
    }
