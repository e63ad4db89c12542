"""A support team's shared history: the change log's lines shared with the team store (whose
address is checked by :mod:`hubtui.store_address`).

Standard library only. The local
change log stays the guard: a change's ``pending`` line is written and flushed there before its
request leaves. Its lines are then copied to the team store's audit trail, each once (keyed by
the line's hash), from where the last copy stopped; a team store that cannot be reached leaves
them waiting in the local log, and the next run copies them.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from hubtui.core.files import create_new, open_reading
from hubtui.core.store.records import Snapshot

if TYPE_CHECKING:
    from hubtui.core.store.repository import Store

__all__ = ["HistoryMoved", "TeamCopy", "copy_history", "share_lines"]

#: Lines copied to the team store in one transaction, and the most of the log read at once.
BATCH_LINES = 2_000
CHUNK_BYTES = 4 * 1024 * 1024
#: The log's first bytes whose digest tells a log replaced from the one copied.
HEAD_BYTES = 4096


@dataclass(frozen=True)
class TeamCopy:
    """What a copy of the change log to the team store did."""

    new: int
    """Lines the team store did not have yet."""
    read: int
    """Lines read from the local log since the last copy."""


def _cursor_key(where: str) -> str:
    return f"team_copy:{where}"


def share_lines(
    log_path: Path, team: Store, cursor: Path | None, *, everything: bool = False
) -> TeamCopy:
    """Copy the change log's lines written since the last copy into ``team``'s audit trail,
    each once; ``cursor`` is the file that remembers how far the last copy got (None, or
    ``everything``: the whole log, which doubles nothing). :class:`StoreError` when the team
    store cannot take them: they wait in the local log."""
    start, file_id, head = (0, None, "") if everything else _where_we_were(cursor, team.where)
    new = read = 0
    try:
        with open_reading(log_path) as handle:
            info = os.fstat(handle.fileno())
            here = (info.st_ino, info.st_dev)
            if file_id != here or info.st_size < start or _head(handle, start) != head:
                start = 0  # the log was replaced or cut: from its start (nothing doubles)
            handle.seek(start)
            while chunk := handle.read(CHUNK_BYTES):  # a long log in bounded pieces
                complete = chunk.rfind(b"\n") + 1
                if complete == 0 and len(chunk) == CHUNK_BYTES:
                    complete = len(chunk)  # one line longer than a piece: not a change, passed
                if complete == 0:
                    break  # a line still being written waits for the next copy
                lines = chunk[:complete].decode("utf-8", "replace").splitlines()
                lines = [line for line in lines if line]
                for at in range(0, len(lines), BATCH_LINES):
                    new += team.add_audit_lines(lines[at : at + BATCH_LINES])
                read += len(lines)
                start += complete
                if cursor is not None:
                    _remember(cursor, team.where, start, here, _head(handle, start))
                handle.seek(start)
    except FileNotFoundError:
        return TeamCopy(0, 0)
    return TeamCopy(new, read)


def waiting(log_path: Path, cursor: Path | None, where: str) -> bool:
    """Whether the log has lines the last copy to ``where`` did not reach (cheap: a stat)."""
    start, file_id, _ = _where_we_were(cursor, where)
    try:
        info = log_path.stat()
    except OSError:
        return False
    return file_id != (info.st_ino, info.st_dev) or info.st_size > start


def _head(handle: BinaryIO, upto: int) -> str:
    """A digest of the log's first bytes up to ``upto`` (at most :data:`HEAD_BYTES`): a log
    replaced by another of the same name, inode and size is told apart by it."""
    handle.seek(0)
    return hashlib.blake2b(handle.read(min(upto, HEAD_BYTES)), digest_size=16).hexdigest()


def _where_we_were(cursor: Path | None, where: str) -> tuple[int, tuple[int, int] | None, str]:
    """How far the last copy to ``where`` got: the offset, the log's inode and device, and the
    digest of its head; from the start when the cursor cannot be read."""
    if cursor is None:
        return 0, None, ""
    try:
        with open_reading(cursor) as handle:
            kept = json.loads(handle.read(64 * 1024)).get(_cursor_key(where))
        offset, inode, device, head = kept
        return int(offset), (int(inode), int(device)), str(head)
    except (OSError, ValueError, TypeError, AttributeError):
        return 0, None, ""  # from the start: the audit trail keeps each line once


def _remember(cursor: Path, where: str, offset: int, file_id: tuple[int, int], head: str) -> None:
    """Keep how far the copy to ``where`` got (written whole, then moved into place)."""
    try:
        with open_reading(cursor) as handle:
            kept = json.loads(handle.read(64 * 1024))
        if not isinstance(kept, dict):
            kept = {}
    except (OSError, ValueError):
        kept = {}
    kept[_cursor_key(where)] = [offset, *file_id, head]
    fresh = cursor.with_name(f".{cursor.name}.{os.getpid()}")
    try:
        fresh.unlink(missing_ok=True)
        descriptor, fresh = create_new(fresh)
        try:
            os.write(descriptor, json.dumps(kept).encode())
        finally:
            os.close(descriptor)
        os.replace(fresh, cursor)
    except OSError:
        pass  # the next copy starts again from an older place: nothing doubles


@dataclass(frozen=True)
class HistoryMoved:
    """What moving a person's local history into the team store did."""

    snapshots: int
    snapshots_there: int
    reviews: int
    reviews_there: int
    lines: TeamCopy


def copy_history(local: Store, team: Store, change_log: Path | None) -> HistoryMoved:
    """Copy the local store's snapshots and reviews and the change log's lines into the team
    store. Run twice, nothing doubles: a snapshot the team store holds (the same server,
    profile, time and scope) and a review it holds (the same server, hub, reviewer, times and
    batch) are not copied again, and each change line is kept once."""
    held = {(s.origin, s.profile, s.taken, s.scope) for s in team.snapshots()}
    snapshots = there = 0
    for info in local.snapshots():
        if (info.origin, info.profile, info.taken, info.scope) in held:
            there += 1
            continue
        lists = {
            key: (read.ok, read.why, local.records(sorted(read.hashes)))
            for key, read in sorted(local.reads(info.id).items())
        }
        team.write_snapshot(Snapshot(info.origin, info.profile, info.scope, info.taken, lists))
        snapshots += 1

    def review_key(r: object) -> tuple[str, ...]:
        keys = ("origin", "profile", "hub", "reviewer", "started", "ended", "batch")
        return tuple(str(getattr(r, k)) for k in keys)

    kept = {review_key(r) for r in team.reviews(None, None)}
    reviews = reviews_there = 0
    for review in local.reviews(None, None):
        if review_key(review) in kept:
            reviews_there += 1
            continue
        head = {k: getattr(review, k) for k in ("hub", "hub_name", "reviewer", "started")}
        head |= {k: getattr(review, k) for k in ("ended", "batch", "criteria")}
        team.save_review(review.origin, review.profile, head, local.review_rows(review.id))
        reviews += 1
    lines = TeamCopy(0, 0)
    if change_log is not None:
        lines = share_lines(change_log, team, None, everything=True)
    return HistoryMoved(snapshots, there, reviews, reviews_there, lines)
