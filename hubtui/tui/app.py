"""HubTuiApp: the shell. Themes, signals, navigation, what is read kept, the staged changes and
the connection; the work is the Workspace's (``hubtui.core.workspace``) and the workflows'
(``hubtui.core.workflows``), which the app runs as their front end (``tui.front``)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.command import CommandPalette
from textual.content import Content
from textual.filter import LineFilter
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES
from textual.worker import Worker, WorkerState

from hubtui.config import ConfigError
from hubtui.core.workspace import Workspace
from hubtui.text import inert
from hubtui.tui import textual_patches
from hubtui.tui.commands import LoadedRecords, Profiles, app_commands
from hubtui.tui.ending import Ending
from hubtui.tui.front import AppFront, AppRun
from hubtui.tui.glyphs import PLAIN, console_text, plain_keys
from hubtui.tui.messages import (
    CloseCampaign,
    FindPerson,
    HubPeopleLoaded,
    HubsLoaded,
    Offboard,
    OpenHub,
    OpenProject,
    PrepareFix,
    ProjectsLoaded,
    Reconnect,
    RevertBatch,
    SendStaged,
    ShowChanges,
    UsersLoaded,
    UsersReadAsSent,
    WorkerFailed,
)
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.screens.browsing.hubs import HubListScreen
from hubtui.tui.screens.recovering import RecoveringScreen, bug_sentence
from hubtui.tui.session import Session
from hubtui.tui.typeahead import TypeAhead

if TYPE_CHECKING:
    from hubtui.api import Hub
    from hubtui.api.models import ApiModel


textual_patches.apply()

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
            "c",
            "change_log",
            "Change log",
            show=False,
            tooltip="the changes of this session and every batch of this server: R reverts one",
        ),
        Binding(
            "ctrl+l",
            "requests",
            "Requests",
            show=False,
            tooltip="every request of this session; enter shows one, y copies it as curl",
        ),
    ]

    def __init__(self, workspace: Workspace) -> None:
        """The app of ``workspace`` (:func:`~hubtui.core.workspace.open_workspace` builds it)."""
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
        self.workspace = workspace
        #: The app as the front end of the workflows.
        self.front = AppFront(self)
        #: What the app keeps beside the workspace: what was read, the staged changes.
        self.session = Session(
            on_staged_changed=self.staged_changed,
            front=lambda **options: AppRun(self.front, **options),
        )
        workspace.listen(
            not_logged=self._outcome_not_logged,
            team_note=self._team_note,
            changed=self.session.changed,
        )
        self.ending = Ending(self.workspace.abandon_in_flight, self._end)
        #: Keys typed ahead of what their key opens wait for it (see tui.typeahead).
        self.type_ahead = TypeAhead(self)  # type: ignore[arg-type]

    def watch_terminal(self) -> None:
        self.ending.watch_terminal()

    # Events ---------------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.Paste):
            self.workspace.make_way()  # the lists being kept wait while the person types
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

    def _team_note(self, message: str) -> None:
        """Change lines could not be copied to the team store: they wait, and it says so."""
        self.notify(inert(message, limit=None), title="Team store", severity="warning", timeout=20)

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        """A new screen starts without the notifications of the one below: a message about a
        list never lies over the dialog or the screen opened from it."""
        self.clear_notifications()
        return super().push_screen(*args, **kwargs)

    def get_key_display(self, binding: Binding) -> str:
        return plain_keys(super().get_key_display(binding))

    def refresh_css(self, animate: bool = True) -> None:
        """Before the first screen, a theme's colours are only set: the stylesheet is parsed
        once, with them, when the first screen mounts. Textual's own refresh would parse it
        whole twice (the theme set in ``__init__``, then the screen's rules): 5 ms of each start."""
        if not self.screen_stack:
            self.stylesheet.set_variables(self.get_css_variables())
            return
        super().refresh_css(animate)

    def get_default_screen(self) -> Screen[None]:
        return HubListScreen()

    def on_mount(self) -> None:
        # A terminal closed under hubtui (SSH hang-up) or a kill ends it like a quit.
        self.ending.install()

    def _end(self, return_code: int) -> None:
        self.exit(return_code=return_code)

    async def action_quit(self) -> None:
        """Quit, asking first while a change is on its way to the server, or staged."""
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        in_flight = self.workspace.change_log.in_flight
        staged = self.session.staged_count
        if not in_flight and staged:

            def leave(yes: bool | None) -> None:
                if yes:
                    self.exit()

            question = Content.assemble(
                (f"{staged:,} staged changes were not applied", "bold"),
                " (nothing of them was sent).\n"
                "Quit and drop them? y quits, n stays (b shows them).",
            )
            self.push_screen(ConfirmScreen(question, enter_says_yes=False), leave)
            return
        if not in_flight:
            self.exit()
            return

        change = in_flight[0]

        def answered(yes: bool | None) -> None:
            if yes:
                self.workspace.change_log.abandon_in_flight("hubtui quit before the answer came.")
                self.exit()

        question = Content.assemble(
            ("A change is being sent", "bold"),
            f" ({change.action} {inert(change.email or change.user_id)} in "
            f"{inert(change.where)}).\n"
            "Quit anyway? Its outcome would be unknown, and logged so. y quits, n stays.",
        )
        self.push_screen(ConfirmScreen(question), answered)

    async def on_unmount(self) -> None:
        self.ending.uninstall()
        await self.workspace.close()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's own workers (a reconnect, the reviews kept, a snapshot) that fail in a way
        nobody expected: logged and said in the one wording; the app keeps running."""
        if event.state is WorkerState.ERROR and event.worker.node is self:
            error = event.worker.error
            logger.error("worker %s failed", event.worker.name, exc_info=error)
            self.notify(bug_sentence(error), severity="error", markup=False)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A screen's worker failed in a way nobody expected: logged, said in one wording, and
        the screen, if still open, makes itself usable again (the app keeps running)."""
        error = message.worker.error
        logger.error("worker %s failed", message.worker.name, exc_info=error)
        screen = message.screen
        if isinstance(screen, RecoveringScreen) and screen.is_attached:
            screen.recover(message.worker, bug_sentence(error))

    # The palette ----------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from app_commands(self, screen)

    # Navigation -----------------------------------------------------------------------------

    def on_open_hub(self, message: OpenHub) -> None:
        self.open_hub(message.hub)

    def on_open_project(self, message: OpenProject) -> None:
        """Show a project's users, above its hub's detail."""
        from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
        from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen

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
                api_version=self.workspace.api_version,
                select_user=message.select_user,
            )
        )

    async def start_again(self) -> None:
        """Back to a hub list read afresh (the palette closed first)."""
        for _ in range(100):
            if not isinstance(self.screen, CommandPalette):
                break
            await asyncio.sleep(0.01)
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        hub_list = self.screen
        if isinstance(hub_list, HubListScreen):
            hub_list.start_afresh()

    def open_hub(self, hub: Hub) -> None:
        """Show a hub's detail, directly above the hub list."""
        from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen

        if isinstance(self.screen, HubDetailScreen) and self.screen.hub.id == hub.id:
            return  # already there (a repeated enter)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(HubDetailScreen(hub))

    def on_find_person(self, message: FindPerson) -> None:
        if message.query is None:
            self.ask_who(message.hubs, message.scope)
        else:
            self.find_person(message.query, message.hubs, message.scope)

    def find_person(self, query: str, hubs: list[Hub], scope: str) -> None:
        """Search the projects of ``hubs`` for a person, above the current screen."""
        from hubtui.tui.screens.browsing.who import WhoScreen

        if not hubs:
            self.notify("No hubs are loaded to search in yet.", severity="warning", markup=False)
            return
        if self.workspace.offline is not None:
            scope = f"{scope} (stored data, offline)"
        self.push_screen(WhoScreen(query, hubs, scope))

    def ask_who(self, hubs: list[Hub], scope: str) -> None:
        """Ask whom to find, then search for them."""
        from hubtui.tui.screens.browsing.who_prompt import WhoPromptScreen

        def answered(query: str | None) -> None:
            if query:
                self.find_person(query, hubs, scope)

        self.push_screen(WhoPromptScreen(scope), answered)

    def action_requests(self) -> None:
        """Show the request log (above the current screen; escape comes back)."""
        from hubtui.tui.screens.dialogs.requests import RequestsScreen

        if not isinstance(self.screen, RequestsScreen):
            self.push_screen(RequestsScreen())

    def action_change_log(self) -> None:
        """The changes of this session and the batches of this server (c): R reverts one."""
        from hubtui.tui.screens.changes.change_log import ChangeLogScreen

        if not isinstance(self.screen, ChangeLogScreen):
            self.push_screen(ChangeLogScreen(self.workspace.change_log, self.workspace.team))

    def ask_why(self, hub: Hub | None, email: str | None = None) -> None:
        """Ask whose access to explain, and where; then explain it (in ``hub``, or every hub).
        ``email``: the highlighted person's, filled in (typing replaces it)."""
        from hubtui.tui.screens.people.why import WhyScreen
        from hubtui.tui.screens.people.why_prompt import WhyPromptScreen

        def answered(given: tuple[str, str | None] | None) -> None:
            if given is not None:
                email, project = given
                self.push_screen(WhyScreen(email, None if hub is None else [hub], project))

        scope = "every hub" if hub is None else f"hub {hub.name}"
        self.push_screen(WhyPromptScreen(scope, email), answered)

    # The workflows: the app's front end runs each ----------------------------------------------

    def on_offboard(self, message: Offboard) -> None:
        self.front.offboard_asked(message.email)

    def on_close_campaign(self, message: CloseCampaign) -> None:
        self.front.close_campaign(message.number, message.on_ended)

    def on_prepare_fix(self, message: PrepareFix) -> None:
        self.front.prepare_fix(message.answer, message.step)

    def on_send_staged(self, message: SendStaged) -> None:
        self.front.send_staged(message.screen)

    def on_revert_batch(self, message: RevertBatch) -> None:
        self.front.revert_batch(message.batch)

    def on_show_changes(self, message: ShowChanges) -> None:
        self.front.show_changes(message.hub, message.project_id, message.scope)

    # Staged changes ---------------------------------------------------------------------------

    def staged_changed(self) -> None:
        if isinstance(self.screen, ListScreen):
            self.screen.refresh_status()

    def action_staged(self) -> None:
        """Show the staged changes: one preview, read again now (b, or the palette)."""
        from hubtui.tui.screens.changes.batch import StagedScreen

        if isinstance(self.screen, StagedScreen):
            return
        if not self.session.staged_count:
            self.notify(
                "Nothing is staged: mark rows with space, then m changes them (A adds people).",
                markup=False,
            )
            return
        self.push_screen(StagedScreen(self.session.staged))

    def drop_staged(self) -> None:
        count = self.session.staged_count
        self.session.staged.drop()
        self.staged_changed()
        self.notify(f"{count:,} staged changes dropped; nothing was sent.", markup=False)

    # What is read, kept -------------------------------------------------------------------------

    def on_hubs_loaded(self, message: HubsLoaded) -> None:
        self.session.catalog.add_hubs(message.hubs)
        self.keep("hubs", "", "", message.hubs)

    def on_projects_loaded(self, message: ProjectsLoaded) -> None:
        self.session.catalog.add_projects(message.hub, message.projects)
        self.keep("projects", message.hub.id, "", message.projects)

    def on_users_loaded(self, message: UsersLoaded) -> None:
        self.session.catalog.add_users(
            message.hub, message.project, message.project_id, message.users
        )
        self.keep("users", message.hub.id, str(message.project_id), message.users)

    def on_users_read_as_sent(self, message: UsersReadAsSent) -> None:
        hub, project = message.hub.id, str(message.project.id)
        self.workspace.keep_sent_soon("users", hub, project, message.sent, self._not_kept)

    def on_hub_people_loaded(self, message: HubPeopleLoaded) -> None:
        """What the hub's people were read from, kept as any list read is: offline, ``P``
        shows them again."""
        answer, hub = message.answer, message.answer.hub
        lists: list[tuple[str, str, str, Iterable[ApiModel]]] = [
            ("users", hub.id, str(project_id), users) for project_id, users in answer.lists.items()
        ]
        if answer.hub_users is not None:
            lists.insert(0, ("hub_users", hub.id, "", answer.hub_users))
        self.workspace.keep_lists_soon(lists, self._not_kept)

    def keep(self, kind: str, hub: str, project: str, records: Iterable[ApiModel]) -> None:
        """Keep a list read, off the event loop, before the session ends however soon; a
        store that cannot take it is said once."""
        self.workspace.keep_soon(kind, hub, project, records, self._not_kept)

    def _not_kept(self, error: Exception) -> None:
        self.notify(
            f"{inert(str(error), limit=None)} Nothing read is kept this run; changes are "
            "logged as before.",
            title="Store off",
            severity="warning",
            timeout=15,
            markup=False,
        )

    # Another token, another profile, or the store in place of the server ------------------------

    def on_reconnect(self, message: Reconnect) -> None:
        self.reconnect(message.profile, fresh_start=message.fresh_start)

    @work(exclusive=True, group="reconnect", exit_on_error=False)
    async def reconnect(self, profile: str | None, *, fresh_start: bool) -> None:
        """Read the settings and the token again (for another profile, or the same one).

        ``fresh_start`` goes back to a new hub list (another server); otherwise the screen
        shown loads again with the new token. The change log keeps going, naming the server.
        """
        try:
            label = await self.workspace.reconnect(profile)
            self.session.elsewhere()
        except ValueError as why:
            self.notify(str(why), severity="warning", markup=False)
            return
        except ConfigError as exc:
            self.notify(inert(str(exc), limit=None), severity="error", timeout=10, markup=False)
            return
        if fresh_start:
            await self.start_again()
            self.notify(f"Now on {inert(label)} (profile {inert(profile)}).", markup=False)
            return
        screen = self.screen
        if isinstance(screen, ListScreen):
            screen.refresh_status()
            screen.load()
        self.notify("Read the token again; loading again.", markup=False)

    @work(exclusive=True, group="reconnect", exit_on_error=False)
    async def go_offline(self) -> None:
        """Read the store in place of the server from now on (read-only), from the hub list."""
        try:
            await self.workspace.go_offline()
            self.session.elsewhere()
        except ConfigError as exc:
            self.notify(inert(str(exc), limit=None), severity="error", timeout=10, markup=False)
            return
        await self.start_again()
        self.notify(
            "Offline: every list is what the store kept, read-only. Restart hubtui to reach "
            "the server again.",
            markup=False,
        )
