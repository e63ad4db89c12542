"""The store as the app uses it: the last hub list at start, and what is read kept as it comes.

Standard library only, like :mod:`hubtui.core.store`: the app paints the stored hub list before
httpx and pydantic are imported. Nothing here is ever the basis of a change: every edit reads
the server first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from hubtui.core.store import ListKey, Snapshot, Store, StoreError, open_store

__all__ = ["ServerStore", "StoredHub", "StoredList", "stored_words"]

_T = TypeVar("_T")

#: Seconds after a failure of the team store before it is asked again (the app never waits out
#: a connection timeout at every screen).
TEAM_RETRY_AFTER = 30.0

#: What the ``store`` setting keeps of each kind of list as its latest state.
KEPT = {
    "hubs": frozenset({"hubs"}),
    "all": frozenset({"hubs", "projects", "users", "hub_users"}),
}


def stored_words(read_at: str, *, today: datetime | None = None) -> str:
    """``stored 14:02`` (today, local time) or ``stored 2026-11-17 14:02``."""
    try:
        moment = datetime.fromisoformat(read_at.replace("Z", "+00:00")).astimezone()
    except (ValueError, OverflowError):
        return "stored (time unknown)"
    today = (today or datetime.now(UTC)).astimezone()
    if moment.date() == today.date():
        return f"stored {moment:%H:%M}"
    return f"stored {moment:%Y-%m-%d %H:%M}"


@dataclass(frozen=True)
class StoredHub:
    """A hub as kept in the store, read without pydantic: what the hub list's rows show, and
    the record as sent (turned into a :class:`~hubtui.api.Hub` when the row is opened)."""

    sent: Mapping[str, Any]
    id: str
    name: str
    display_name: str
    display_name_sent: bool
    region_name: str | None
    number_of_users: int | None
    number_of_projects: int | None
    creation_date: datetime | None

    @property
    def has_custom_display_name(self) -> bool:
        return self.display_name != self.name

    @classmethod
    def from_sent(cls, record: object) -> StoredHub | None:
        """The hub, or None when the record is not one (the others are still shown)."""
        if not isinstance(record, Mapping):
            return None
        hub_id, name, shown = record.get("Id"), record.get("Name"), record.get("DisplayName")
        if not isinstance(hub_id, str) or not isinstance(name, str) or not hub_id:
            return None
        region = record.get("RegionSummary")
        location = region.get("Location") if isinstance(region, Mapping) else None
        return cls(
            sent=record,
            id=hub_id,
            name=name,
            display_name=shown if isinstance(shown, str) else name,
            display_name_sent=isinstance(shown, str),
            region_name=location if isinstance(location, str) else None,
            number_of_users=_count(record.get("NumberOfUsers")),
            number_of_projects=_count(record.get("NumberOfProjects")),
            creation_date=_moment(record.get("CreationDate")),
        )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


@dataclass(frozen=True)
class StoredList:
    """A list as last kept: its records as sent, and when they were read."""

    records: list[dict[str, Any]]
    read_at: str

    @property
    def words(self) -> str:
        return stored_words(self.read_at)

    def hubs(self) -> list[StoredHub]:
        return [hub for hub in map(StoredHub.from_sent, self.records) if hub is not None]


class ServerStore:
    """The store of one server and profile, as the app keeps what it reads.

    Opened on first use; a store that cannot be used turns keeping off for the run, with the
    reason in :attr:`problem` (the app runs on without it). Thread-safe: lists are kept from
    worker threads, one at a time.
    """

    def __init__(
        self,
        path: Path,
        origin: str,
        profile: str | None,
        setting: str,
        team: str | None = None,
    ) -> None:
        self.path = path
        self.origin = origin
        self.profile = profile
        self.setting = setting
        #: The team store's address (None: the local file keeps everything). Snapshots,
        #: reviews and the audit trail live there; the latest lists stay in the local file, so
        #: the start never waits on a network.
        self.team = team
        #: Why the store is off this run (None: it is on, or off by the setting).
        self.problem: str | None = None
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._team_store: Store | None = None
        self._team_lock = threading.Lock()
        #: The team store's breaker, open after a failure: until when it is not asked again,
        #: and why (None: closed, the team store is asked).
        self._breaker: tuple[float, StoreError] | None = None

    def has_store(self) -> bool:
        """Whether there may be anything kept to read (a team store always may)."""
        return self.team is not None or self.path.exists()

    @property
    def on(self) -> bool:
        return self.setting in KEPT and self.problem is None

    def keeps(self, kind: str) -> bool:
        """Whether a list of this kind is kept as its latest state."""
        return self.on and kind in KEPT.get(self.setting, ())

    def start_list(self) -> StoredList | None:
        """The hub list kept for this server and profile, read only; None when there is none.
        A store that cannot be read says why in :attr:`problem`."""
        if self.setting == "off" or not self.path.exists():
            return None
        try:
            with open_store(self.path, read_only=True) as store:
                found = store.latest(self.origin, self.profile, ListKey("hubs"))
        except StoreError as error:
            self.problem = str(error)
            return None
        return None if found is None else StoredList(*found)

    def keep(self, key: ListKey, records: Iterable[Mapping[str, Any]]) -> None:
        """Keep this list as last read (from a worker thread). :class:`StoreError` once, then
        keeping is off for the run."""
        self.keep_lists([(key, records)])

    def keep_lists(self, lists: Iterable[tuple[ListKey, Iterable[Mapping[str, Any]]]]) -> None:
        """:meth:`keep` of each of these lists (those of a kind kept), in one transaction."""
        kept = [(key, records) for key, records in lists if self.keeps(key.kind)]
        if not kept:
            return
        with self._lock:
            try:
                if self._store is None:
                    self._store = open_store(self.path)
                self._store.save_latest_lists(self.origin, self.profile, kept)
            except StoreError as error:
                self.problem = str(error)
                raise

    def keep_read(self, snapshot: Snapshot) -> None:
        """With a team store, the lists a snapshot read kept here too as their latest state (as
        the setting keeps them), so that the start and offline read them from this machine.
        :class:`StoreError` as :meth:`keep`."""
        if self.team is None:
            return  # the local file's snapshot keeps them already
        for key, (ok, _, records) in sorted(snapshot.lists.items()):
            if ok:
                self.keep(key, records)

    def open(self, *, read_only: bool = False) -> Store:
        """A connection of its own to where snapshots and reviews are kept (the team store, or
        the file); close it. A team store that failed a moment ago is not asked again."""
        if self.team is None:
            return open_store(self.path, read_only=read_only)
        self._unless_breaker_open()
        try:
            return open_store(self.team, read_only=read_only)
        except StoreError as error:
            self._open_breaker(error)
            raise

    def _unless_breaker_open(self) -> None:
        if self._breaker is not None and time.monotonic() < self._breaker[0]:
            raise self._breaker[1]  # it failed a moment ago: said again, not waited for

    def _open_breaker(self, error: StoreError) -> None:
        self._breaker = (time.monotonic() + TEAM_RETRY_AFTER, error)

    def with_team(self, use: Callable[[Store], _T]) -> _T:
        """``use`` the team store on the connection held here (one at a time, from any thread),
        connecting again after a failure. :class:`StoreError` when it cannot be."""
        assert self.team is not None
        with self._team_lock:
            self._unless_breaker_open()
            try:
                if self._team_store is None:
                    self._team_store = open_store(self.team)
                found = use(self._team_store)
            except StoreError as error:
                if self._team_store is not None:
                    self._team_store.close()
                    self._team_store = None
                self._open_breaker(error)
                raise
            self._breaker = None
            return found

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
        with self._team_lock:
            if self._team_store is not None:
                self._team_store.close()
                self._team_store = None
