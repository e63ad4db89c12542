"""The Workspace: one server and profile, and everything hubtui works with for it.

One idea: the Workspace is one object whose parts (client, change log, store, offline answers)
change together on a reconnect, a profile switch or going offline: on a reconnect its change log
is built again, whole, for the new identity (never one changed in place).

Both front ends work through one: the app is its shell, a headless command receives one, and
``serve`` runs the app. It holds the settings, the client (built on first use), the change log
and the store of this server (both keyed by one identity: :class:`Identity`) and offline
answers; it switches profile, reconnects, goes offline and closes. The workflows that use more
than one of these (a snapshot recorded, the snapshots kept, a list kept, a batch reverted) are
its methods, so each front end only says what happened. What only the app keeps (what was read,
to jump to; the staged changes) is the app's (``hubtui.tui.session``).

Textual-free.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hubtui.api.memory import give_back_freed
from hubtui.config import Settings
from hubtui.core.places import default_team_cursor_path
from hubtui.core.store import StoreError, StoreOff
from hubtui.core.workspace.identity import DataPlaces, Identity
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, HubClient
    from hubtui.api.models import ApiModel
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.changes.record import Change
    from hubtui.core.store import Store
    from hubtui.core.store.server_store import ServerStore
    from hubtui.core.workspace.offline import StoredAnswers

    #: Settings (the token read again) for a profile (None: the top-level settings).
    SettingsFor = Callable[[str | None], Settings]
    #: For a profile: how to connect, the server's name, and the settings (token read again).
    Reconnector = Callable[[str | None], tuple[Callable[[], HubClient], str, Settings]]
    #: The store's answers in place of the server: how to connect, the name, the answers.
    OfflineSwitch = Callable[[], tuple[Callable[[], HubClient], str, StoredAnswers]]


#: How many records the store's thread writes out as sent between two pauses, and the pause.
GENTLY_RECORDS = 200
GENTLY_PAUSE = 0.002
#: How long after a key the lists being kept wait (:meth:`Workspace.make_way`).
MAKE_WAY = 0.5
#: How often a list that waits looks again whether the person has stopped typing.
WAY_LOOKS = 0.05


@dataclass
class Connection:
    """How a Workspace reaches its server now, and how it may reach it otherwise: what
    :func:`open_workspace` builds from the settings."""

    #: Builds the API client (called once, off the event loop).
    connect: Callable[[], HubClient]
    #: How the server is named on the screen and in messages.
    label: str
    #: Offline: the store answers every read, and nothing is sent (None: the server does).
    offline: StoredAnswers | None = None
    #: The demo only: its data as it was a week ago, the first snapshot of its store.
    last_week: Callable[[], HubClient] | None = None
    #: The settings read again for a profile, and how to reach its server (None: not possible).
    reconnect: Reconnector | None = None
    #: The store's answers in place of the server (None: not possible).
    go_offline: OfflineSwitch | None = None
    #: Whether there is a token to read again (not on the demo API, whose token is fixed).
    rereads_token: bool = True


class Workspace:
    """One server and profile, and what hubtui works with for it (see the module). Built by
    :func:`open_workspace`, from its parts."""

    def __init__(
        self,
        settings: Settings,
        identity: Identity,
        connection: Connection,
        places: DataPlaces,
        *,
        on_unlogged: Callable[[str], None] | None = None,
    ) -> None:
        self._settings = settings
        self.identity = identity
        self.connect = connection.connect
        self._client_task: asyncio.Future[HubClient] | None = None
        self.server_label = connection.label
        #: Offline: the store answers every read, and nothing is sent (None: the server does).
        self.offline = connection.offline
        #: The demo only: its data as it was a week ago, the first snapshot of its store.
        self.last_week = connection.last_week
        self._reconnect = connection.reconnect
        self._go_offline = connection.go_offline
        #: Whether there is a token to read again (not on the demo API, whose token is fixed).
        self.rereads_token = connection.rereads_token
        #: The store's file (a team store, when there is one, is named by the settings).
        self.store_path = places.store
        self._change_log_path = places.change_log
        self._on_unlogged = on_unlogged
        # Offline, nothing read is kept again as if read now; otherwise the store is built when
        # first asked for (a command that keeps nothing never loads the store's code).
        self._server_store: ServerStore | None = None
        self._server_store_due = connection.offline is None
        #: Why the team store could not be read last (None: it could, or there is none).
        self.team_problem: str | None = None
        self._on_team_note: Callable[[str], None] | None = None
        self._on_changed: Callable[[Change], None] | None = None
        self._sharing: asyncio.Future[None] | None = None
        #: The lists being kept in the background: each is kept before :meth:`close` shuts
        #: the store, however soon after its read the session ends.
        self._keeping: set[asyncio.Task[None]] = set()
        #: Until when (``time.monotonic``) the lists being kept wait: the person is typing.
        self._make_way_until = 0.0
        self._share_again = False
        self._told_waiting = False
        self._change_log: ChangeLog | None = None
        #: The change logs of the servers this one was reconnected from: what is in flight on
        #: them is logged unknown at the end of the session too.
        self._earlier_logs: list[ChangeLog] = []

    @property
    def change_log(self) -> ChangeLog:
        """Handed down to where a change is made: a change is logged before its request leaves.
        Built whole when first asked for (the first frame does not wait for its code)."""
        if self._change_log is None:
            self._change_log = self._log_of()
        return self._change_log

    def _log_of(self) -> ChangeLog:
        """The change log of this server and profile (its identity now), built whole: the
        team's lines are read with this machine's (a colleague's unknown add is checked, their
        batches listed), and each outcome copied to the team store soon after."""
        from hubtui.core.changes.log import ChangeLog

        identity = self.identity
        return ChangeLog(
            self._change_log_path,
            server=identity.server,
            profile=identity.profile,
            aliases=identity.aliases,
            operator=self._settings.operator,
            on_write_error=self._not_logged,
            team_lines=self._team_lines,
            team_on=lambda: self.team is not None,
            on_outcome=self._changed,
        )

    def _not_logged(self, message: str) -> None:
        if self._on_unlogged is not None:
            self._on_unlogged(message)

    def listen(
        self,
        *,
        not_logged: Callable[[str], None],
        team_note: Callable[[str], None],
        changed: Callable[[Change], None],
    ) -> None:
        """Who is told, on the event loop: an outcome the change log could not take (with the
        line to add by hand), change lines not copied to the team store, a change that ended
        (what was read of its project is then read again)."""
        self._on_unlogged = not_logged
        self._on_team_note = team_note
        self._on_changed = changed

    # Derived from the settings ---------------------------------------------------------------

    @property
    def read_only(self) -> bool:
        """Nothing is sent: by the settings, or offline."""
        return self.settings.read_only or self.offline is not None

    @property
    def api_version(self) -> ApiVersion:
        return self.settings.api_version

    @property
    def concurrency(self) -> int:
        """How many project-user lists a search across projects fetches at once."""
        return self.settings.concurrency

    @property
    def search_deadline(self) -> float | None:
        """Seconds a whole search across projects may take (None: no bound)."""
        return self.settings.search_deadline

    @property
    def server_store(self) -> ServerStore | None:
        """The store of what is read, for this server and profile (None: none this run)."""
        if self._server_store_due:
            self._server_store, self._server_store_due = self._build_server_store(), False
        return self._server_store

    def _build_server_store(self) -> ServerStore:
        """The store of this server and profile (the demo API: a file of its own, and never a
        team's)."""
        from hubtui.core.store.server_store import ServerStore

        team = None if self.identity.demo else self.settings.store_url
        return ServerStore(
            self.store_path, self.identity.server, self.identity.profile, self.settings.store, team
        )

    def _close_server_store(self, *, again: bool) -> None:
        """The store shut; built again for the settings now when ``again`` (not offline)."""
        if self._server_store is not None:
            self._server_store.close()
        self._server_store, self._server_store_due = None, again

    # The server ---------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings of this server and profile (read again on a reconnect)."""
        return self._settings

    @property
    def profile(self) -> str | None:
        """The config file's profile in use (None: its top-level settings, or the demo)."""
        return self.identity.profile

    async def client(self) -> HubClient:
        """The API client, built on first use (off the event loop)."""
        task = self._client_task
        if task is None or (task.done() and task.exception() is not None):
            task = self._client_task = asyncio.ensure_future(asyncio.to_thread(self.connect))
        return await asyncio.shield(task)

    async def _swap_client(self, connect: Callable[[], HubClient]) -> None:
        old, self._client_task = self._client_task, None
        self.connect = connect
        if old is not None and old.done() and old.exception() is None:
            await old.result().aclose()

    @property
    def can_reconnect(self) -> bool:
        """Whether the token can be read again or another profile chosen: never offline, where
        nothing is sent to any server, whatever is asked."""
        return self._reconnect is not None and self.offline is None

    @property
    def can_go_offline(self) -> bool:
        return self._go_offline is not None and self.offline is None

    async def reconnect(self, profile: str | None) -> str:
        """Read the settings and the token again (for another profile, or the same one): the
        server's name. :class:`~hubtui.config.ConfigError` when they are wrong; ``ValueError``
        when reconnecting is not possible (offline, or no settings to read)."""
        if self.offline is not None:
            raise ValueError(
                "Offline: nothing is sent to any server. Start hubtui without --offline to "
                "reach one."
            )
        if self._reconnect is None:
            raise ValueError("Reconnecting is not possible here.")
        connect, label, settings = await asyncio.to_thread(self._reconnect, profile)
        await self._swap_client(connect)
        self.server_label, self._settings = label, settings
        # the demo API stays the demo's
        self.identity = Identity.of(settings.base_url, settings.profile, demo=self.identity.demo)
        if self._change_log is not None:
            self._earlier_logs.append(self._change_log)
            self._change_log = None  # this server's and profile's, built when next asked for
        self._close_server_store(again=True)  # this server's and profile's store, when next asked
        return label

    async def go_offline(self) -> None:
        """Read the store in place of the server from now on (read-only).
        :class:`~hubtui.config.ConfigError` when the store holds nothing to read."""
        assert self._go_offline is not None
        connect, label, answers = await asyncio.to_thread(self._go_offline)
        await self._swap_client(connect)
        self.server_label, self.offline = label, answers
        self._close_server_store(again=False)  # nothing read offline is kept again as if read now

    def abandon_in_flight(self, why: str) -> None:
        """What is in flight logged unknown, with ``why``, in every change log of this session
        (those of the servers it was reconnected from too)."""
        logs = self._earlier_logs + ([self._change_log] if self._change_log else [])
        for log in logs:
            log.abandon_in_flight(why)

    async def close(self, why: str = "hubtui quit before the answer came.") -> None:
        """The end of the session: what is in flight logged unknown, the change log's lines
        copied to the team store, the client and store shut."""
        self.abandon_in_flight(why)
        self.make_way(0)  # nobody types any more: the lists go on at once
        await self.all_kept()  # every list read is kept before the store is shut
        task = self._client_task
        if task is not None and task.done() and task.exception() is None:
            await task.result().aclose()
        if self._sharing is not None:
            await asyncio.shield(self._sharing)
        if self.team is not None:
            await asyncio.to_thread(self.share_changes)
        if self._server_store is not None:  # a store never asked for is not built to be shut
            self._server_store.close()

    # The team store ------------------------------------------------------------------------

    @property
    def team(self) -> str | None:
        """The team store's address (None: none, or the store is off)."""
        if self._server_store is None and not self.settings.store_url:
            return None  # none configured: the store's code is not even loaded
        server_store = self.server_store
        return None if server_store is None or server_store.setting == "off" else server_store.team

    def _team_lines(self, hub: str | None, project: str | None, what: str | None) -> list[str]:
        """The team's change lines of this server (none when the team store cannot be read:
        :attr:`team_problem` says why)."""
        if self.team is None:
            return []  # checked first: without a team store, the store's code is not loaded
        server_store = self.server_store
        assert server_store is not None
        servers = [self.identity.server, *self.identity.aliases]
        try:
            lines = server_store.with_team(
                lambda store: store.audit_lines(servers, hub=hub, project=project, what=what)
            )
        except StoreError as error:
            self.team_problem = str(error)
            return []
        self.team_problem = None
        return lines

    def trail_check(self) -> str | None:
        """Whether the team's trail is as it was written (None: it is, or there is no team
        store); else where it was changed, in words. Blocking: call it off the event loop."""
        if self.team is None:
            return None
        server_store = self.server_store
        assert server_store is not None
        try:
            return server_store.with_team(lambda store: store.audit_check())
        except StoreError as error:
            return f"the team trail could not be checked: {error}"

    def _changed(self, change: Change) -> None:
        """A change ended: what was read of its project (of its hub, for a change of the hub's
        users) is not reused as if it were still so, and its line goes to the team store."""
        if self._on_changed is not None:
            self._on_changed(change)
        self.share_soon()

    def share_soon(self) -> None:
        """Copy the change lines to the team store in the background, one copy at a time (the
        outcomes of a batch of 500 start a few copies, not 500)."""
        if self.team is None or self.change_log.path is None:
            return
        if self._sharing is not None and not self._sharing.done():
            self._share_again = True
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the copy at the end of the run takes them

        def copy() -> None:
            while True:
                self._share_again = False
                note = self.share_changes()
                if note is None:
                    self._told_waiting = False
                elif not self._told_waiting and self._on_team_note is not None:
                    self._told_waiting = True  # said once while the team store is away
                    loop.call_soon_threadsafe(self._on_team_note, note)
                if not self._share_again or note is not None:
                    return

        self._sharing = loop.run_in_executor(None, copy)

    def share_changes(self, *, everything: bool = False) -> str | None:
        """Copy the change log's lines not copied yet to the team store's audit trail (each
        once); what to say when they could not be, as they wait in the local log for the next
        run (None: copied, or nothing to copy)."""
        server_store, path = self.server_store, self.change_log.path
        if server_store is None or self.team is None or path is None:
            return None
        from hubtui.core.store.team import share_lines, waiting

        cursor = default_team_cursor_path()
        if not everything and not waiting(path, cursor, self.team):
            return None
        try:
            server_store.with_team(lambda store: share_lines(path, store, cursor))
        except StoreError as error:
            self.team_problem = str(error)
            return (
                f"{error} The changes not copied wait in the change log {path} and are "
                "copied to the team store on the next run."
            )
        return None

    # The store -----------------------------------------------------------------------------

    def keeps(self, kind: str) -> bool:
        return self.server_store is not None and self.server_store.keeps(kind)

    def make_way(self, seconds: float = MAKE_WAY) -> None:
        """The person is typing: the lists being kept in the background wait until ``seconds``
        after now (each at its next pause, within a couple of milliseconds)."""
        self._make_way_until = time.monotonic() + seconds

    @property
    def making_way(self) -> bool:
        """Whether the lists being kept wait now (:meth:`make_way`)."""
        return self._way_left() > 0

    def _way_left(self) -> float:
        return self._make_way_until - time.monotonic()

    def keep_soon(
        self,
        kind: str,
        hub: str,
        project: str,
        records: Iterable[ApiModel],
        on_error: Callable[[Exception], None],
    ) -> None:
        """Keep a list read as its latest state, when the store keeps its kind: in the
        background (the records taken now), certain to end before :meth:`close` shuts the
        store; a :class:`~hubtui.core.store.StoreError` goes to ``on_error``, once, then keeping
        is off for the run."""
        self.keep_lists_soon([(kind, hub, project, records)], on_error)

    def keep_lists_soon(
        self,
        lists: Iterable[tuple[str, str, str, Iterable[ApiModel]]],
        on_error: Callable[[Exception], None],
    ) -> None:
        """:meth:`keep_soon` of each of these lists (kind, hub, project, records), in one
        transaction: what one read took in is one commit (``P`` of a firm's hub read 2,001
        lists, and their commits a list kept the store's thread 2.4 s)."""
        taken = [
            # Frozen records, taken now and written out as sent on the store's thread, one at
            # a time: 40,000 of them were 0.14 s of the event loop (keys waited), and 25 MB
            # held at once.
            (kind, hub, project, list(records))
            for kind, hub, project, records in lists
            if self.keeps(kind)
        ]

        def sent(records: list[ApiModel]) -> Callable[[], Iterator[Mapping[str, Any]]]:
            return lambda: _gently((record.as_sent() for record in records), self._way_left)

        self._keep_later(
            [(kind, hub, project, sent(records)) for kind, hub, project, records in taken],
            on_error,
        )

    def keep_sent_soon(
        self,
        kind: str,
        hub: str,
        project: str,
        sent: Sequence[Mapping[str, Any]],
        on_error: Callable[[Exception], None],
    ) -> None:
        """:meth:`keep_soon` of records as the server sent them (a search's lists)."""
        self._keep_later([(kind, hub, project, lambda: _gently(sent, self._way_left))], on_error)

    def _keep_later(
        self,
        lists: Sequence[tuple[str, str, str, Callable[[], Iterable[Mapping[str, Any]]]]],
        on_error: Callable[[Exception], None],
    ) -> None:
        """The records each ``sent`` gives, kept on the store's thread in one transaction."""
        server_store = self.server_store
        if server_store is None:
            return
        kept = [entry for entry in lists if server_store.keeps(entry[0])]
        if not kept:
            return

        from hubtui.core.store import ListKey

        def keep() -> None:
            server_store.keep_lists(
                (ListKey(kind, hub, project), sent()) for kind, hub, project, sent in kept
            )
            give_back_freed()  # what encoding them freed (P of a firm's hub: 5-10 MB), here

        async def keeping() -> None:
            try:
                await asyncio.to_thread(keep)
            except StoreError as error:
                on_error(error)

        task = asyncio.get_running_loop().create_task(keeping())
        self._keeping.add(task)
        task.add_done_callback(self._keeping.discard)

    async def all_kept(self) -> None:
        """Until every list handed to :meth:`keep_soon` so far is kept, or said not kept."""
        while self._keeping:
            await asyncio.wait(set(self._keeping))

    def snapshot_store(self) -> ServerStore:
        """The store, when snapshots can be used now (:class:`StoreOff` says why not)."""
        if self.offline is not None:
            raise StoreOff(
                "Offline, now cannot be read. hubtui diff --since #M --until #N compares two "
                "snapshots kept."
            )
        return self._store_on("snapshot")

    def _store_on(self, what: str) -> ServerStore:
        """The store, unless it is off by the settings or this run (:class:`StoreOff`
        says which, naming ``what`` is then not kept)."""
        server_store = self.server_store
        if server_store is None or server_store.setting == "off":
            raise StoreOff(f'The store is off (store = "off" or --no-store): no {what} is kept.')
        if server_store.problem is not None:
            raise StoreOff(f"The store is off this run: {inert(server_store.problem, limit=None)}")
        return server_store

    async def seed(self, store: Store) -> None:
        """The demo only: its week-old data as the store's first snapshot."""
        if self.last_week is not None:
            from hubtui.core.history import seed_last_week

            await seed_last_week(store, self.last_week, self.profile, self.concurrency)

    # Reviews -------------------------------------------------------------------------------

    def review_store(self) -> ServerStore:
        """The store, when reviews can be kept and read (:class:`StoreOff` says why not)."""
        return self._store_on("review")


def _gently(
    records: Iterable[Mapping[str, Any]], way_left: Callable[[], float]
) -> Iterator[Mapping[str, Any]]:
    """The records, on the store's thread, with a pause every 200 (about a millisecond of
    work): the thread holds the interpreter only that long at a time, and the app's thread,
    which waits for it at each key, event and paint, never waits longer. While the person
    types (``way_left`` is how long still), the list waits at its next pause: keeping what
    ``P`` read of 20,000 people took the interpreter and a core for 0.9 s just as they typed
    their filter, and their keys waited 58-86 ms each instead of 26-30."""
    for count, record in enumerate(records, 1):
        yield record
        if count % GENTLY_RECORDS == 0:
            time.sleep(GENTLY_PAUSE)
            while (left := way_left()) > 0:
                time.sleep(min(left, WAY_LOOKS))


__all__ = ["Connection", "StoreOff", "Workspace"]
