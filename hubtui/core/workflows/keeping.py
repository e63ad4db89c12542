"""What is kept of a server, written and read for both front ends: a snapshot recorded (every
project's users of a hub, or of every hub, read and kept as one), the snapshots kept, a review
kept and the reviews kept read back. Each reads or writes the store off the event loop (a team
store may be far away); the Workspace only says which store is this server's and whether it is
on (:meth:`~hubtui.core.workspace.Workspace.snapshot_store`,
:meth:`~hubtui.core.workspace.Workspace.review_store`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from hubtui.core.store import StoreOff

if TYPE_CHECKING:
    from hubtui.api import Hub
    from hubtui.core.people.review import Review
    from hubtui.core.store import ReviewInfo, SnapshotInfo
    from hubtui.core.store.server_store import ServerStore
    from hubtui.core.workspace import Workspace

__all__ = ["keep_review", "record_snapshot", "review_kept", "reviews_kept", "snapshots_kept"]


async def snapshots_kept(workspace: Workspace) -> tuple[ServerStore, list[SnapshotInfo]]:
    """This server's snapshots, newest last (:class:`StoreOff`, StoreError)."""
    server_store = workspace.snapshot_store()
    if workspace.last_week is not None:  # the demo: its own file, its week-old data first
        with server_store.open() as store:
            await workspace.seed(store)
            return server_store, store.snapshots(server_store.origin, server_store.profile)

    def read() -> list[SnapshotInfo]:  # off the event loop: a team store may be far away
        with server_store.open() as store:
            return store.snapshots(server_store.origin, server_store.profile)

    return server_store, await asyncio.to_thread(read)


async def record_snapshot(workspace: Workspace, hub: Hub | None) -> SnapshotInfo:
    """Read every project's users of ``hub`` (None: of every hub) and keep them as one
    snapshot (:class:`StoreOff`, HubError, StoreError)."""
    from hubtui.core.history import take_snapshot

    server_store = workspace.snapshot_store()
    if workspace.last_week is not None:  # the demo's week-old data first, as ``snapshot`` does
        with server_store.open() as store:
            await workspace.seed(store)
    client = await workspace.client()
    hubs = [hub] if hub is not None else list(await client.list_hubs())
    snapshot = await take_snapshot(
        client,
        hubs,
        every_hub=hub is None,
        origin=server_store.origin,
        profile=server_store.profile,
        concurrency=workspace.concurrency,
        deadline=workspace.search_deadline,
    )

    def write() -> SnapshotInfo:
        with server_store.open() as store:
            info = store.write_snapshot(snapshot)
        server_store.keep_read(snapshot)
        return info

    return await asyncio.to_thread(write)


async def keep_review(workspace: Workspace, review: Review) -> int:
    """Keep a review of this server and profile, whole; its number (StoreOff,
    StoreError)."""
    server_store = workspace.review_store()

    def write() -> int:
        with server_store.open() as store:
            return store.save_review(
                server_store.origin, server_store.profile, review.head(), review.kept_rows()
            )

    return await asyncio.to_thread(write)


async def reviews_kept(workspace: Workspace) -> list[ReviewInfo]:
    """The reviews kept of this server and profile, oldest first (StoreOff,
    StoreError)."""
    server_store = workspace.review_store()

    def read() -> list[ReviewInfo]:
        if not server_store.has_store():
            return []
        with server_store.open() as store:
            return store.reviews(server_store.origin, server_store.profile)

    return await asyncio.to_thread(read)


async def review_kept(workspace: Workspace, number: int) -> tuple[ReviewInfo, list[dict[str, str]]]:
    """A kept review of this server and profile, with its rows: another server's review is
    not this one's to show (StoreOff names the ones there are)."""
    server_store = workspace.review_store()

    def read() -> tuple[ReviewInfo, list[dict[str, str]]]:
        with server_store.open() as store:
            kept = store.reviews(server_store.origin, server_store.profile)
            found = next((r for r in kept if r.id == number), None)
            if found is None:
                there = ", ".join(f"#{r.id}" for r in kept[-5:]) or "none"
                raise StoreOff(
                    f"There is no review #{number} of this server (the latest: {there})."
                )
            return found, store.review_rows(number)

    return await asyncio.to_thread(read)
