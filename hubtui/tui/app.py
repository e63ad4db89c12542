"""HubTuiApp: owns the client, the screens, the global keys and the command palette."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.content import Content
from textual.filter import LineFilter
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES

from hubtui.core.batch import ChangeSet
from hubtui.core.changelog import ChangeLog
from hubtui.core.text import inert
from hubtui.core.words import amount
from hubtui.hosts import server_aliases, server_identity
from hubtui.tui import fixes
from hubtui.tui.catalog import Catalog
from hubtui.tui.commands import LoadedRecords, Profiles
from hubtui.tui.glyphs import PLAIN, console_text, plain_keys
from hubtui.tui.messages import (
    FindPerson,
    HubsLoaded,
    OpenHub,
    OpenProject,
    ProjectsLoaded,
    Reconnect,
    RevertBatch,
    ShowChanges,
    UsersLoaded,
    WorkerFailed,
)
from hubtui.tui.screens.hubs import HubListScreen
from hubtui.tui.screens.recovering import RecoveringScreen, bug_sentence
from hubtui.tui.typeahead import TypeAhead

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, HubClient
    from hubtui.api.models import ApiModel
    from hubtui.config import Settings
    from hubtui.core.offline import StoredAnswers
    from hubtui.core.store import ListKey, SnapshotInfo
    from hubtui.core.stored import Keeper

    #: Settings (the token read again) for a profile: how to connect, and the server's name.
    Reconnector = Callable[[str | None], tuple[Callable[[], HubClient], str, Settings]]
    #: The store's answers in place of the server: how to connect, the name, the answers.
    OfflineSwitch = Callable[[], tuple[Callable[[], HubClient], str, StoredAnswers]]


fixes.apply()

logger = logging.getLogger("hubtui.tui")

#: The themes offered (ctrl+p → theme): Textual's own two, with the amber of LIMITED text made
#: dark enough on the light one that every mark passes WCAG AA contrast (tests/tui/test_themes.py).
OFFERED_THEMES = (
    replace(BUILTIN_THEMES["textual-dark"], name="hubtui-dark"),
    replace(
        BUILTIN_THEMES["textual-light"],
        name="hubtui-light",
        variables={**BUILTIN_THEMES["textual-light"].variables, "text-warning": "#6B4500"},
    ),
)
THEMES = tuple(theme.name for theme in OFFERED_THEMES)
#: After SIGTERM or SIGHUP, how long the orderly shutdown may take before the process ends
#: anyway: with the terminal gone, Textual's shutdown can wait forever on output nobody reads.
EXIT_WATCHDOG_SECONDS = 3.0
#: Under NO_COLOR only: the terminal's ANSI colours, which the NoColor filter then removes.
ANSI_THEME = BUILTIN_THEMES["ansi-dark"]


class ConsoleGlyphs(LineFilter):
    """Replaces, in every line drawn, the characters a Linux console cannot show."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(console_text(text), style, control) for text, style, control in segments]


class HubTuiApp(App[None]):
    """Hub list → hub detail with its projects → project users."""

    CSS_PATH = "hubtui.tcss"
    TITLE = "hubtui"
    COMMANDS = App.COMMANDS | {LoadedRecords, Profiles}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding(
            "ctrl+l",
            "requests",
            "Requests",
            show=False,
            tooltip="every request of this session; enter shows one, y copies it as curl",
        ),
    ]

    def __init__(
        self,
        *,
        connect: Callable[[], HubClient],
        server_label: str,
        api_version: ApiVersion = "v3",
        read_only: bool = False,
        change_log_path: Path | None = None,
        concurrency: int = 8,
        search_deadline: float | None = 300.0,
        profile: str | None = None,
        reconnect: Reconnector | None = None,
        rereads_token: bool = True,
        keeper: Keeper | None = None,
        offline: StoredAnswers | None = None,
        last_week: Callable[[], HubClient] | None = None,
        go_offline: OfflineSwitch | None = None,
        server: str | None = None,
        aliases: tuple[str, ...] = (),
    ) -> None:
        # NO_COLOR: the terminal's own colours only, then none at all (Textual's NoColor filter):
        # emphasis is bold, reverse and italic, and every mark is a word.
        no_color = "NO_COLOR" in os.environ
        super().__init__(ansi_color=True if no_color else None)
        for name in list(self.available_themes):
            self.unregister_theme(name)
        for theme in OFFERED_THEMES:
            self.register_theme(theme)
        self.theme = THEMES[0]
        if no_color:
            self.register_theme(ANSI_THEME)
            self.theme = ANSI_THEME.name
        # A Linux console: square ASCII frames instead of rounded ones (hubtui.tcss, .-plain).
        self.set_class(PLAIN, "-plain")
        if PLAIN:
            self._filters.append(ConsoleGlyphs())
        self._connect = connect
        self._client_task: asyncio.Future[HubClient] | None = None
        self.server_label = server_label
        self.api_version: ApiVersion = api_version
        self.read_only = read_only
        #: How many project-user lists a search across projects fetches at once.
        self.concurrency = concurrency
        #: Seconds a whole search across projects may take.
        self.search_deadline = search_deadline
        self.catalog = Catalog()
        self.change_log = ChangeLog(
            change_log_path,
            server=server or server_label,
            profile=profile,
            on_write_error=self._outcome_not_logged,
        )
        self.change_log.aliases = aliases
        #: The config file's profile in use (None: its top-level settings).
        self.profile = profile
        self._reconnect = reconnect
        self.rereads_token = rereads_token
        #: The store of what is read (None: nothing is kept, nothing painted from it).
        self.keeper = keeper
        #: Offline: the store answers every read, and nothing is sent.
        self.offline = offline
        #: The demo only: its data as it was a week ago, the first snapshot of its store.
        self._last_week = last_week
        self._go_offline = go_offline
        #: The changes staged across screens (m, A), until applied or dropped (b).
        self.staged = ChangeSet()
        self.batches_sent = 0
        self._watchdog_armed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._signal_handlers_before: dict[int, Any] = {}
        #: Keys typed ahead of what their key opens wait for it (see tui.typeahead).
        self.type_ahead = TypeAhead(self)  # type: ignore[arg-type]

    async def on_event(self, event: events.Event) -> None:
        if self.type_ahead.intercept(event):
            return
        await super().on_event(event)
        self.type_ahead.handled(event)

    def _outcome_not_logged(self, message: str) -> None:
        """An outcome line could not be written: say so until dismissed, with the line."""
        self.notify(
            f"The change log could not take this outcome. {inert(message, limit=None)}",
            title="Not logged",
            severity="error",
            markup=False,
            timeout=600,
        )

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        """A new screen starts without the notifications of the one below: a message about a
        list never lies over the dialog or the screen opened from it."""
        self.clear_notifications()
        return super().push_screen(*args, **kwargs)

    def get_key_display(self, binding: Binding) -> str:
        return plain_keys(super().get_key_display(binding))

    def get_default_screen(self) -> Screen[None]:
        return HubListScreen()

    async def client(self) -> HubClient:
        """The API client, built on first use (off the event loop, after the first paint)."""
        task = self._client_task
        if task is None or (task.done() and task.exception() is not None):
            task = self._client_task = asyncio.ensure_future(asyncio.to_thread(self._connect))
        return await asyncio.shield(task)

    def on_mount(self) -> None:
        # A terminal closed under hubtui (SSH hang-up) or a kill ends it like a quit: the change
        # log is completed and the terminal restored, instead of dying in raw mode. The handler
        # is Python's own, not the event loop's: it runs even when the loop is stuck writing to
        # a terminal that is gone, and arms a watchdog that ends the process for certain.
        loop = asyncio.get_running_loop()

        def handler(number: int, frame: object) -> None:
            self._arm_exit_watchdog(number)
            loop.call_soon_threadsafe(self._signalled, number)

        for number in (signal.SIGTERM, signal.SIGHUP):
            self._signal_handlers_before[number] = signal.signal(number, handler)
        self._loop = loop

    def watch_terminal(self) -> None:
        """From before the app starts until the process ends: a terminal can go without a
        SIGHUP reaching hubtui (it is not the terminal's controlling process, or SIGHUP is
        ignored), and its input then reads nothing for ever. Its hang-up is seen here and ends
        hubtui as SIGHUP would."""
        import select

        def watch() -> None:
            poll = select.poll()
            poll.register(0, 0)  # hang-up and error are always reported; no input is taken
            gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
            while not any(mask & gone for _, mask in poll.poll()):
                pass
            self._arm_exit_watchdog(signal.SIGHUP)
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._signalled, signal.SIGHUP)

        threading.Thread(target=watch, name="hubtui-terminal-watch", daemon=True).start()

    def _arm_exit_watchdog(self, number: int) -> None:
        """End the process within :data:`EXIT_WATCHDOG_SECONDS`, whatever the shutdown does;
        the change log's in-flight lines are written first if the loop did not get to it."""
        if self._watchdog_armed:
            return
        self._watchdog_armed = True
        why = f"hubtui was stopped ({signal.Signals(number).name}) before the answer came."

        def watch() -> None:
            time.sleep(EXIT_WATCHDOG_SECONDS)
            try:
                self.change_log.abandon_in_flight(why)
            finally:
                os._exit(128 + number)

        threading.Thread(target=watch, name="hubtui-exit-watchdog", daemon=True).start()

    def _signalled(self, number: int) -> None:
        name = signal.Signals(number).name
        self.change_log.abandon_in_flight(f"hubtui was stopped ({name}) before the answer came.")
        self.exit(return_code=128 + number)

    async def action_quit(self) -> None:
        """Quit, asking first while a change is on its way to the server, or staged."""
        from hubtui.tui.screens.confirm import ConfirmScreen

        in_flight = self.change_log.in_flight
        if not in_flight and self.staged:

            def leave(yes: bool | None) -> None:
                if yes:
                    self.exit()

            staged = Content.assemble(
                (f"{len(self.staged):,} staged changes were not applied", "bold"),
                " (nothing of them was sent).\n"
                "Quit and drop them? y quits, n stays (b shows them).",
            )
            self.push_screen(ConfirmScreen(staged, enter_says_yes=False), leave)
            return
        if not in_flight:
            self.exit()
            return

        change = in_flight[0]

        def answered(yes: bool | None) -> None:
            if yes:
                self.change_log.abandon_in_flight("hubtui quit before the answer came.")
                self.exit()

        question = Content.assemble(
            ("A change is being sent", "bold"),
            f" ({change.action} {inert(change.email or change.user_id)} in project "
            f"{inert(change.project_name or change.project_id)}).\n"
            "Quit anyway? Its outcome would be unknown, and logged so. y quits, n stays.",
        )
        self.push_screen(ConfirmScreen(question), answered)

    async def on_unmount(self) -> None:
        # The process may go on (a test run, an embedding program): its own handlers come back.
        for number, before in self._signal_handlers_before.items():
            signal.signal(number, before)
        self._signal_handlers_before.clear()
        self.change_log.abandon_in_flight("hubtui quit before the answer came.")
        task = self._client_task
        if task is not None and task.done() and task.exception() is None:
            await task.result().aclose()
        if self.keeper is not None:
            self.keeper.close()

    @property
    def can_reconnect(self) -> bool:
        """Whether the token can be read again or another profile chosen: never offline, where
        nothing is sent to any server, whatever is asked."""
        return self._reconnect is not None and self.offline is None

    @work(exclusive=True, group="reconnect")
    async def reconnect(self, profile: str | None, *, fresh_start: bool) -> None:
        """Read the settings and the token again (for another profile, or the same one).

        ``fresh_start`` goes back to a new hub list (another server); otherwise the screen
        shown loads again with the new token. The change log keeps going, naming the server.
        """
        if self.offline is not None:
            self.notify(
                "Offline: nothing is sent to any server. Start hubtui without --offline to "
                "reach one.",
                severity="warning",
                markup=False,
            )
            return
        if self._reconnect is None:
            self.notify("Reconnecting is not possible here.", severity="warning", markup=False)
            return
        from hubtui.config import ConfigError

        try:
            connect, label, settings = await asyncio.to_thread(self._reconnect, profile)
        except ConfigError as exc:
            self.notify(inert(str(exc), limit=None), severity="error", markup=False, timeout=10)
            return
        old, self._client_task = self._client_task, None
        self._connect = connect
        if old is not None and old.done() and old.exception() is None:
            await old.result().aclose()
        self.server_label, self.profile = label, settings.profile
        self.api_version = settings.api_version
        self.read_only = settings.read_only
        demo = self.change_log.server == "demo"  # the demo API stays the demo's
        base_url = None if demo else settings.base_url
        self.change_log.server = server_identity(base_url)
        self.change_log.aliases = server_aliases(base_url)
        self.change_log.profile = None if demo else settings.profile
        if self.keeper is not None:
            from hubtui.core.store import store_key
            from hubtui.core.stored import Keeper

            self.keeper.close()
            key = store_key(settings.base_url, settings.profile, demo=demo)
            self.keeper = Keeper(*key, settings.store)
        if fresh_start:
            self.catalog = Catalog()
            await self._start_again()
            self.notify(f"Now on {inert(label)} (profile {inert(profile)}).", markup=False)
            return
        screen = self.screen
        from hubtui.tui.screens.base import ListScreen

        if isinstance(screen, ListScreen):
            screen.refresh_status()
            screen.load()
        self.notify("Read the token again; loading again.", markup=False)

    # What the screens ask (hubtui/tui/messages.py) --------------------------------------------

    def staged_changed(self) -> None:
        refresh = getattr(self.screen, "refresh_status", None)
        if refresh is not None:
            refresh()

    def action_staged(self) -> None:
        """Show the staged changes: one preview, read again now (b, or the palette)."""
        from hubtui.tui.screens.batch import StagedScreen

        if isinstance(self.screen, StagedScreen):
            return
        if not self.staged:
            self.notify(
                "Nothing is staged: mark rows with space, then m changes them (A adds people).",
                markup=False,
            )
            return
        self.push_screen(StagedScreen(self.staged))

    def drop_staged(self) -> None:
        count = len(self.staged)
        self.staged.drop()
        self.staged_changed()
        self.notify(f"{count:,} staged changes dropped; nothing was sent.", markup=False)

    def on_revert_batch(self, message: RevertBatch) -> None:
        self.revert_batch(message.batch)

    def revert_batch(self, batch_id: str) -> None:
        """Stage the inverse of a batch this server's change log holds, in a preview of its own."""
        from hubtui.core.batch import batches_in, revert_of
        from hubtui.tui.screens.batch import StagedScreen

        changes = batches_in(self.change_log).get(batch_id)
        if changes is None:  # no file: the session's own lines
            changes = [c for c in self.change_log.changes if c.batch == batch_id]
        back, cannot = revert_of(changes)
        if cannot:
            who = ", ".join(inert(c.email or c.user_id or "?", limit=40) for c in cannot[:5])
            more = f" and {len(cannot) - 5} more" if len(cannot) > 5 else ""
            self.notify(
                f"Cannot be put back: {who}{more} were added by the batch, and nobody can be "
                "removed through this API.",
                severity="warning",
                markup=False,
                timeout=12,
            )
        if not back:
            self.notify("Nothing of this batch to put back.", markup=False)
            return
        reverting = ChangeSet()
        reverting.stage(back)
        self.push_screen(StagedScreen(reverting, reverts=batch_id))

    def action_requests(self) -> None:
        """Show the request log (above the current screen; escape comes back)."""
        from hubtui.tui.screens.requests import RequestsScreen

        if not isinstance(self.screen, RequestsScreen):
            self.push_screen(RequestsScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Requests",
            "Every request of this session (ctrl+l): copy any one as curl",
            self.action_requests,
        )
        hub = getattr(screen, "hub", None)
        if hub is not None:
            yield SystemCommand(
                f"Record a snapshot of this hub ({inert(hub.name, limit=40)})",
                "Read every project's users of this hub and keep them, to see later what changed",
                lambda: self.record_snapshot(hub),
            )
        if self._go_offline is not None and self.offline is None:
            yield SystemCommand(
                "Read offline (stored data)",
                "The server cannot be reached: read what the store kept of it, read-only",
                self.go_offline,
            )
        if self.staged:
            yield SystemCommand(
                f"Staged changes ({len(self.staged):,})",
                "Every staged change as one preview, read again now, then applied (b)",
                self.action_staged,
            )
            yield SystemCommand(
                "Drop every staged change",
                "Forget the staged changes; nothing of them is sent",
                self.drop_staged,
            )
        yield SystemCommand(
            "Record a snapshot of all hubs",
            "Read every project's users of every hub and keep them, to see later what changed",
            lambda: self.record_snapshot(None),
        )
        if hasattr(screen, "action_changes_since"):
            yield SystemCommand(
                "Changes since…",
                "What changed in access here since a snapshot kept (D)",
                screen.action_changes_since,
            )

    def on_open_hub(self, message: OpenHub) -> None:
        self.open_hub(message.hub)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A screen's worker failed in a way nobody expected: logged, said in one wording, and
        the screen, if still open, makes itself usable again (the app keeps running)."""
        error = message.worker.error
        logger.error("worker %s failed", message.worker.name, exc_info=error)
        screen = message.screen
        if isinstance(screen, RecoveringScreen) and screen.is_attached:
            screen.recover(message.worker, bug_sentence(error))

    def on_open_project(self, message: OpenProject) -> None:
        """Show a project's users, above its hub's detail."""
        from hubtui.tui.screens.hub_detail import HubDetailScreen
        from hubtui.tui.screens.project_users import ProjectUsersScreen

        hub = message.hub
        if not message.above and not (
            isinstance(self.screen, HubDetailScreen) and self.screen.hub.id == hub.id
        ):
            self.open_hub(hub)
        self.push_screen(
            ProjectUsersScreen(
                hub,
                message.project,
                project_id=message.project_id,
                api_version=self.api_version,
                select_user=message.select_user,
            )
        )

    @work(exclusive=True, group="reconnect", exit_on_error=False)
    async def go_offline(self) -> None:
        """Read the store in place of the server from now on (read-only), from the hub list."""
        assert self._go_offline is not None
        from hubtui.config import ConfigError

        try:
            connect, label, answers = await asyncio.to_thread(self._go_offline)
        except ConfigError as exc:
            self.notify(inert(str(exc), limit=None), severity="error", markup=False, timeout=10)
            return
        old, self._client_task = self._client_task, None
        if old is not None and old.done() and old.exception() is None:
            await old.result().aclose()
        self._connect, self.server_label, self.offline = connect, label, answers
        self.read_only = True
        if self.keeper is not None:
            self.keeper.close()
            self.keeper = None  # nothing read offline is kept again as if read now
        self.catalog = Catalog()
        await self._start_again()
        self.notify(
            "Offline: every list is what the store kept, read-only. Restart hubtui to reach "
            "the server again.",
            markup=False,
        )

    async def _start_again(self) -> None:
        """Back to a hub list read afresh (the palette closed first)."""
        from textual.command import CommandPalette

        for _ in range(100):
            if not isinstance(self.screen, CommandPalette):
                break
            await asyncio.sleep(0.01)
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        hub_list = self.screen
        if isinstance(hub_list, HubListScreen):
            hub_list.hubs = {}
            hub_list.stored = None
            hub_list.refresh_status()
            hub_list.load()

    def _snapshot_keeper(self) -> Keeper | None:
        """The store, when snapshots can be used now; otherwise None, having said why."""
        keeper = self.keeper
        if self.offline is not None:
            why = (
                "Offline, now cannot be read. hubtui diff --since #M --until #N compares two "
                "snapshots kept."
            )
        elif keeper is None or keeper.setting == "off":
            why = 'The store is off (store = "off" or --no-store): no snapshot is kept.'
        elif keeper.problem is not None:
            why = f"The store is off this run: {inert(keeper.problem, limit=None)}"
        else:
            return keeper
        self.notify(why, severity="warning", markup=False)
        return None

    def on_show_changes(self, message: ShowChanges) -> None:
        self.show_changes(message.hub, message.project_id, message.scope)

    @work(exclusive=True, group="changes", exit_on_error=False)
    async def show_changes(self, hub: Hub | None, project_id: str | None, scope: str) -> None:
        """Choose a snapshot of this server, then show what changed since it in ``scope``."""
        keeper = self._snapshot_keeper()
        if keeper is None:
            return
        from hubtui.core.store import StoreError

        try:
            with keeper.open() as store:
                if self._last_week is not None:
                    from hubtui.core.history import seed_last_week

                    await seed_last_week(store, self._last_week, keeper.profile, self.concurrency)
                kept = store.snapshots(keeper.origin, keeper.profile)
        except StoreError as error:
            self.notify(inert(str(error), limit=None), severity="error", markup=False)
            return
        if not kept:
            self.notify(
                "No snapshot of this server is kept yet. Record one from the palette (ctrl+p: "
                "Record a snapshot) or with hubtui snapshot; changes are shown since one.",
                severity="warning",
                markup=False,
                timeout=10,
            )
            return
        from hubtui.tui.screens.changes import ChangesScreen, SnapshotChoiceScreen

        def chosen(since: SnapshotInfo | None) -> None:
            if since is not None:
                self.push_screen(ChangesScreen(keeper, since, hub, project_id, scope))

        self.push_screen(SnapshotChoiceScreen(scope, kept), chosen)

    @work(group="snapshot", exit_on_error=False)
    async def record_snapshot(self, hub: Hub | None) -> None:
        """Read every project's users of ``hub`` (or of all hubs) and keep them as a snapshot."""
        keeper = self._snapshot_keeper()
        if keeper is None:
            return
        from hubtui.api.errors import HubError
        from hubtui.core.history import take_snapshot
        from hubtui.core.store import StoreError

        scope = "all hubs" if hub is None else f"hub {inert(hub.name)}"
        self.notify(f"Recording a snapshot of {scope}…", markup=False)
        try:
            client = await self.client()
            hubs = [hub] if hub is not None else list(await client.list_hubs())
            snapshot = await take_snapshot(
                client,
                hubs,
                every_hub=hub is None,
                origin=keeper.origin,
                profile=keeper.profile,
                concurrency=self.concurrency,
                deadline=self.search_deadline,
            )

            def write() -> SnapshotInfo:
                with keeper.open() as store:
                    return store.write_snapshot(snapshot)

            info = await asyncio.to_thread(write)
        except (HubError, StoreError) as error:
            self.notify(
                f"No snapshot was recorded: {inert(str(error), limit=None)}",
                severity="error",
                markup=False,
                timeout=15,
            )
            return
        counts = info.counts
        words = (
            f"Snapshot {info.short} of {scope} kept: {counts['hubs']:,} hubs, "
            f"{counts['projects']:,} projects, {counts['users']:,} users."
        )
        if counts["not_read"]:
            words += f" Incomplete: {amount(counts['not_read'], 'list')} could not be read."
        self.notify(
            words,
            severity="warning" if counts["not_read"] else "information",
            markup=False,
            timeout=15,
        )

    def on_find_person(self, message: FindPerson) -> None:
        if message.query is None:
            self.ask_who(message.hubs, message.scope)
        else:
            self.find_person(message.query, message.hubs, message.scope)

    def on_reconnect(self, message: Reconnect) -> None:
        self.reconnect(message.profile, fresh_start=message.fresh_start)

    def on_hubs_loaded(self, message: HubsLoaded) -> None:
        self.catalog.add_hubs(message.hubs)
        self._keep("hubs", "", "", message.hubs)

    def on_projects_loaded(self, message: ProjectsLoaded) -> None:
        self.catalog.add_projects(message.hub, message.projects)
        self._keep("projects", message.hub.id, "", message.projects)

    def on_users_loaded(self, message: UsersLoaded) -> None:
        self.catalog.add_users(message.hub, message.project, message.project_id, message.users)
        self._keep("users", message.hub.id, str(message.project_id), message.users)

    def _keep(self, kind: str, hub: str, project: str, records: Iterable[ApiModel]) -> None:
        """Keep a list read as its latest state, when the store setting keeps its kind (off the
        event loop); a store that cannot take it is said once, and keeping stops for the run."""
        keeper = self.keeper
        if keeper is None or not keeper.keeps(kind):
            return
        from hubtui.core.store import ListKey

        sent = [record.as_sent() for record in records]
        self.run_worker(
            self._kept(keeper, ListKey(kind, hub, project), sent), group="keep", exit_on_error=False
        )

    async def _kept(self, keeper: Keeper, key: ListKey, sent: list[dict[str, Any]]) -> None:
        from hubtui.core.store import StoreError

        try:
            await asyncio.to_thread(keeper.keep, key, sent)
        except StoreError as error:
            self.notify(
                f"{inert(str(error), limit=None)} Nothing read is kept this run; changes are "
                "logged as before.",
                title="Store off",
                severity="warning",
                markup=False,
                timeout=15,
            )

    def _back_to_hub_list(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def open_hub(self, hub: Hub) -> None:
        """Show a hub's detail, directly above the hub list."""
        from hubtui.tui.screens.hub_detail import HubDetailScreen

        if isinstance(self.screen, HubDetailScreen) and self.screen.hub.id == hub.id:
            return  # already there (a repeated enter)
        self._back_to_hub_list()
        self.push_screen(HubDetailScreen(hub))

    def find_person(self, query: str, hubs: list[Hub], scope: str) -> None:
        """Search the projects of ``hubs`` for a person, above the current screen."""
        from hubtui.tui.screens.who import WhoScreen

        if not hubs:
            self.notify("No hubs are loaded to search in yet.", severity="warning", markup=False)
            return
        if self.offline is not None:
            scope = f"{scope} (stored data, offline)"
        self.push_screen(WhoScreen(query, hubs, scope))

    def ask_who(self, hubs: list[Hub], scope: str) -> None:
        """Ask whom to find, then search for them."""
        from hubtui.tui.screens.who import WhoPromptScreen

        def answered(query: str | None) -> None:
            if query:
                self.find_person(query, hubs, scope)

        self.push_screen(WhoPromptScreen(scope), answered)


if TYPE_CHECKING:
    from hubtui.tui.session import Session

    def _app_is_a_session(app: HubTuiApp) -> Session:
        """Checked by mypy only: the app gives its screens all that :class:`Session` says."""
        return app
