"""What was read from a server, kept: the last hub list (for an instant start) and snapshots.

A package of its parts: :mod:`~hubtui.core.store.schema` (the named steps, applied and
pending), :mod:`~hubtui.core.store.engines` (what both engines share, and SQLite's),
:mod:`~hubtui.core.store.postgres` (a team's), :mod:`~hubtui.core.store.records` (what is kept,
as values), :mod:`~hubtui.core.store.repository` (every query, written once) and
:mod:`~hubtui.core.store.server_store` (a server's store as the app keeps it, with the team store's
breaker). Opened one way: :func:`open_store`.

One SQLite file (``store.sqlite3`` in the user data directory, or ``HUBTUI_DATA_DIR``), the
person's alone (file 0600, folder 0700, a symbolic link refused), in WAL mode with a busy timeout
so that the app and a headless command use it at once. Standard library only: the app reads its
last hub list from here before httpx and pydantic are imported.

What is kept is each record as the server sent it (unknown fields kept, an absent field absent),
keyed by the server's origin and the profile, with when it was read; never the token.

- A **record** is stored once, by the hash of its canonical JSON: the same user in ten
  projects, or unchanged across a hundred snapshots, costs its bytes once. A snapshot's new
  records are compressed many together (a pack, 64 KB of them, its own row keyed by 17 bytes),
  each record's row pointing into its pack; one larger than a pack, and those a store of schema
  7 or before kept, are compressed alone against a dictionary of the contract's field names.
- A **list** is one thing read: the hubs, a hub's projects, a project's users.
- A **snapshot** reads lists in one transaction; a list's membership is kept as intervals
  (``members``: present from snapshot ``since`` to ``until``), so a snapshot where little changed
  costs the changes, not a copy.
- The **latest** state of a list (the hub list by default) is kept whole, for the start.

Two engines keep it, with one schema, one set of queries and one list of migration steps: this
file's SQLite (the default, nothing to set up) and a team's PostgreSQL
(:mod:`hubtui.core.store.postgres`, the ``store_url`` setting). The queries are written once in the
SQL both speak (``ON CONFLICT``, no engine's own words); an engine (:class:`Engine`) says only
what differs: its placeholder, its byte and key types, where the schema's version is kept, how a
writer takes the store to itself, and its errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from pathlib import Path

    from hubtui.core.clock import now
    from hubtui.core.store.engines import Engine, Rows, SQLiteEngine, StoreError, StoreOff
    from hubtui.core.store.records import (
        ListKey,
        ListRead,
        ReviewInfo,
        Snapshot,
        SnapshotInfo,
        StoreInfo,
        body_hash,
        canonical,
        record_hash,
    )
    from hubtui.core.store.repository import Store
    from hubtui.core.store.schema import (
        MIGRATIONS,
        REVIEW_COLUMNS,
        REVIEW_HEAD,
        SCHEMA,
        Migration,
        applied,
        migrate,
        pending,
        schema_of,
    )

# Each name is imported when first asked for: the error a front end catches (StoreError) costs
# no part of the store (sqlite3, zlib, the repository) before the store is used.
_EXPORTS: dict[str, str] = {
    "now": "hubtui.core.changes.log",
    **dict.fromkeys(
        ("Engine", "Rows", "SQLiteEngine", "StoreError", "StoreOff"), "hubtui.core.store.engines"
    ),
    **dict.fromkeys(
        (
            "ListKey",
            "ListRead",
            "ReviewInfo",
            "Snapshot",
            "SnapshotInfo",
            "StoreInfo",
            "body_hash",
            "canonical",
            "record_hash",
        ),
        "hubtui.core.store.records",
    ),
    "Store": "hubtui.core.store.repository",
    **dict.fromkeys(
        (
            "MIGRATIONS",
            "REVIEW_COLUMNS",
            "REVIEW_HEAD",
            "SCHEMA",
            "Migration",
            "applied",
            "migrate",
            "pending",
            "schema_of",
        ),
        "hubtui.core.store.schema",
    ),
}

__all__ = [
    "MIGRATIONS",
    "REVIEW_COLUMNS",
    "REVIEW_HEAD",
    "SCHEMA",
    "Engine",
    "ListKey",
    "ListRead",
    "Migration",
    "ReviewInfo",
    "Rows",
    "SQLiteEngine",
    "Snapshot",
    "SnapshotInfo",
    "Store",
    "StoreError",
    "StoreOff",
    "StoreInfo",
    "applied",
    "body_hash",
    "canonical",
    "migrate",
    "now",
    "open_store",
    "pending",
    "record_hash",
    "schema_of",
]


def open_store(where: Path | str, *, read_only: bool = False) -> Store:
    """The one way a store is opened: a file (a path), or a team's on PostgreSQL (its
    ``store_url``); migrated unless ``read_only``. :class:`StoreError` names it and says why it
    cannot be used."""
    from hubtui.core.store.repository import Store

    if isinstance(where, str):
        return Store.open_url(where, read_only=read_only)
    return Store.open(where, read_only=read_only)


__getattr__ = names_from(__name__, _EXPORTS)
