"""The latest state of each list, as the app keeps what it reads: the start paints it, offline
reads it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hubtui.core.clock import now
from hubtui.core.store.base import StoreBase, read_errors
from hubtui.core.store.engines import (
    StoreError,
)
from hubtui.core.store.records import (
    ListKey,
    kept_text,
    list_body,
)
from hubtui.core.store.schema import (
    STORED_LIST_BYTES,
)


class LatestLists(StoreBase):
    # The latest state of a list ---------------------------------------------------------------

    def save_latest(
        self,
        origin: str,
        profile: str | None,
        key: ListKey,
        records: Iterable[Mapping[str, Any]],
        read_at: str | None = None,
    ) -> None:
        """Keep this list as last read (replacing what was kept)."""
        self.save_latest_lists(origin, profile, [(key, records)], read_at)

    def save_latest_lists(
        self,
        origin: str,
        profile: str | None,
        lists: Iterable[tuple[ListKey, Iterable[Mapping[str, Any]]]],
        read_at: str | None = None,
    ) -> None:
        """:meth:`save_latest` of each of these lists, in one transaction: what one read took
        in (``P``'s 2,001 lists) is one commit, not a commit a list. Each list is encoded
        before the store is taken."""
        bodies = [(key, list_body(records)) for key, records in lists]
        when = read_at or now()
        with self.writing() as db:
            db.run_many(
                "INSERT INTO latest (list, read_at, body) VALUES (?,?,?) ON CONFLICT (list) "
                "DO UPDATE SET read_at = excluded.read_at, body = excluded.body, "
                "records_digest = NULL, read_by = NULL",
                [
                    (self._list_id(db, origin, profile or "", key), when, body)
                    for key, body in bodies
                ],
            )

    @read_errors
    def latest(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, and when; None if it was never kept."""
        row = self.engine.run(
            "SELECT latest.body, latest.read_at FROM latest JOIN lists ON lists.id = latest.list "
            "WHERE origin=? AND profile=? AND kind=? AND hub=? AND project=?",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None:
            return None
        records = self._decode(row[0], "the list", STORED_LIST_BYTES)
        if not isinstance(records, list):
            raise StoreError(f"The list kept in {self.where} is not a list.")
        return records, str(row[1])

    @read_errors
    def last_known(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, from its latest state or the newest snapshot that read it,
        whichever is newer, and when; None if it was never read."""
        kept = self.latest(origin, profile, key)
        row = self.engine.run(
            "SELECT reads.snapshot, snapshots.taken, lists.id FROM reads "
            "JOIN lists ON lists.id = reads.list JOIN snapshots ON snapshots.id = reads.snapshot "
            "WHERE lists.origin=? AND lists.profile=? AND kind=? AND hub=? AND project=? AND ok=1 "
            "ORDER BY reads.snapshot DESC LIMIT 1",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None or (kept is not None and kept[1] >= row[1]):
            return kept
        snapshot_id, taken, list_id = row
        return self.records(self._members(list_id, snapshot_id)), str(taken)

    @read_errors
    def kept_hubs(self, origin: str, profile: str | None) -> list[str]:
        """The Ids of the hubs kept one by one (a snapshot of chosen hubs keeps each hub it
        read): what names a hub offline when the hub list was never read."""
        rows = self.engine.run(
            "SELECT DISTINCT hub FROM lists WHERE origin=? AND profile=? AND kind='hub' "
            "ORDER BY hub",
            (origin, profile or ""),
        )
        return [kept_text(row[0]) for row in rows]
