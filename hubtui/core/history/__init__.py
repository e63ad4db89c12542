"""What changed in access and when: snapshots taken (:mod:`~hubtui.core.history.snapshots`),
carried in files (:mod:`~hubtui.core.history.files`) and compared
(:mod:`~hubtui.core.history.diff`); kept in the store (:mod:`hubtui.core.store`) beside it."""

from __future__ import annotations

from hubtui.core.history.files import (
    FILE_SCHEMA,
    SnapshotFileError,
    read_snapshot_file,
    snapshot_file_lists,
    write_snapshot_file,
)
from hubtui.core.history.snapshots import ALL_HUBS, seed_last_week, take_snapshot

__all__ = [
    "ALL_HUBS",
    "FILE_SCHEMA",
    "SnapshotFileError",
    "read_snapshot_file",
    "seed_last_week",
    "snapshot_file_lists",
    "take_snapshot",
    "write_snapshot_file",
]
