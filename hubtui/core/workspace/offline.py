"""Reading offline: the store answers the client's reads in place of the server.

:class:`StoredAnswers` is an httpx transport. A read of the hub list, a hub, a hub's projects or a
project's users is answered with the list as it was last read (its latest state, or the newest
snapshot that read it), exactly as the server sent it, so every screen and command reads stored
data the way it reads the server. Nothing is ever sent: a change is answered 403, and a list never
read is answered 404 saying so. Each answer remembers when its list was read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from hubtui.api.errors import NOT_KEPT_HEADER, STORE_UNREADABLE_HEADER
from hubtui.api.paths import Read, read_of
from hubtui.core.store import ListKey, Store, StoreError, open_store
from hubtui.core.store.server_store import stored_words

__all__ = ["OFFLINE_TOKEN", "StoredAnswers", "open_offline"]

#: The client sends a token with each call; offline none leaves the process.
OFFLINE_TOKEN = "offline"  # noqa: S105


class StoredAnswers(httpx.AsyncBaseTransport):
    """Answers reads from the store of one server and profile; refuses every change."""

    def __init__(
        self, store: Store, origin: str, profile: str | None, *, at: int | None = None
    ) -> None:
        self.store = store
        self.origin = origin
        self.profile = profile
        #: A snapshot: every list as it read it (None: each list as last read).
        self.at = at
        self._reads: dict[ListKey, Any] | None = None
        #: When the list of the last answer was read (``stored 14:02``), for the screen showing it.
        self.last_words: str | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            return _problem(
                403,
                "Offline",
                "hubtui is reading stored data offline: nothing is sent to the server.",
            )
        path = request.url.raw_path.decode("ascii").split("?", 1)[0]
        read = read_of(path)
        if read is None:
            return _problem(404, "Not stored", f"hubtui keeps no answer for {path} offline.")
        try:
            return self._answer(read)
        except (StoreError, sqlite3.Error) as error:
            response = _problem(500, "Store unreadable", f"Offline: {error}")
            response.headers[STORE_UNREADABLE_HEADER] = "1"
            return response

    def _answer(self, read: Read) -> httpx.Response:
        """The kept answer to one read of the contract."""
        if read.kind == "hubs":
            return self._list(ListKey("hubs"), "the hub list")
        if read.kind == "hub_by_name":
            return self._hub(lambda hub: hub.get("Name") == read.name, read.name)
        if read.kind == "hub":
            return self._hub(lambda found: found.get("Id") == read.hub, read.hub)
        if read.kind == "hub_users":
            return self._list(ListKey("hub_users", read.hub), "this hub's users")
        if read.kind == "projects":
            return self._list(ListKey("projects", read.hub), "this hub's projects")
        if read.kind == "users":
            return self._list(ListKey("users", read.hub, read.project), "this project's users")
        return self._user(read.hub, read.project, read.user)

    def _kept(self, key: ListKey) -> list[dict[str, Any]] | None:
        if self.at is not None:
            return self._as_of(key, self.at)
        found = self.store.last_known(self.origin, self.profile, key)
        if found is None:
            return None
        records, read_at = found
        self.last_words = stored_words(read_at)
        return records

    def _as_of(self, key: ListKey, snapshot_id: int) -> list[dict[str, Any]] | None:
        """The list as snapshot ``snapshot_id`` read it (None: it did not read it, or failed)."""
        if self._reads is None:
            info = self.store.snapshot(snapshot_id)
            if (info.origin, info.profile) != (self.origin, self.profile or ""):
                raise StoreError(f"Snapshot #{snapshot_id} is not of this server and profile.")
            self._reads = dict(self.store.reads(snapshot_id))
            self.last_words = f"snapshot #{snapshot_id}, {info.taken}"
        read = self._reads.get(key)
        if read is None and key.kind == "hub":  # a snapshot of all hubs: the hub from its list
            hubs = self._as_of(ListKey("hubs"), snapshot_id) or []
            found = [h for h in hubs if isinstance(h, dict) and h.get("Id") == key.hub]
            return found or None
        if read is None or not read.ok:
            return None
        return self.store.records(read.hashes)

    def _list(self, key: ListKey, what: str) -> httpx.Response:
        records = self._kept(key)
        if records is None:
            return _not_read(what)
        return _json(records)

    def _hub(self, matches: Callable[[dict[str, Any]], bool], given: str) -> httpx.Response:
        hubs = self._kept(ListKey("hubs")) or []
        if self.at is not None and self._reads is not None:  # a snapshot of chosen hubs
            for key, read in self._reads.items():
                if key.kind == "hub" and read.ok:
                    hubs += self.store.records(read.hashes)
        elif self.at is None:  # each hub a snapshot of chosen hubs kept
            for hub_id in self.store.kept_hubs(self.origin, self.profile):
                hubs += self._kept(ListKey("hub", hub_id)) or []
        for hub in hubs:
            if isinstance(hub, dict) and matches(hub):
                return _json(hub)
        return _not_read(f"the hub {given!r}")

    def _user(self, hub: str, project: str, user: str) -> httpx.Response:
        for record in self._kept(ListKey("users", hub, project)) or []:
            person = record.get("User") if isinstance(record, dict) else None
            if isinstance(person, dict) and str(person.get("Id")) == user:
                return _json(record)
        return _not_read(f"user {user!r} of this project")


def _json(body: object) -> httpx.Response:
    return httpx.Response(
        200,
        content=json.dumps(body, ensure_ascii=False).encode(),
        headers={"content-type": "application/json"},
    )


def _problem(status: int, title: str, detail: str) -> httpx.Response:
    return httpx.Response(
        status,
        content=json.dumps({"title": title, "status": status, "detail": detail}).encode(),
        headers={"content-type": "application/problem+json"},
    )


def _not_read(what: str) -> httpx.Response:
    """A list never kept: the client says so in hubtui's own words (NotKeptError)."""
    response = _problem(404, "Not kept", what)
    response.headers[NOT_KEPT_HEADER] = "1"
    return response


def open_offline(
    path: Path, origin: str, profile: str | None, *, at: int | None = None
) -> StoredAnswers:
    """The stored answers of a server (``at``: as snapshot ``at`` read them), its store opened
    read only (:class:`StoreError` when it cannot be)."""
    return StoredAnswers(open_store(path, read_only=True), origin, profile, at=at)
