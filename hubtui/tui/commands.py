"""The command palette's provider: jump to any loaded hub, project or user."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from hubtui.config import profile_names
from hubtui.text import inert
from hubtui.tui.catalog import Entry
from hubtui.tui.messages import FindPerson, OpenHub, OpenProject, Reconnect
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.session import session_of, workspace_of

if TYPE_CHECKING:
    from textual.screen import Screen

    from hubtui.api import Hub
    from hubtui.core.workspace import Workspace
    from hubtui.tui.session import Session


class Shell(Protocol):
    """What the palette's commands call on the app (the palette never imports the app)."""

    workspace: Workspace
    session: Session

    @property
    def front(self) -> ShellFront: ...

    def push_screen(self, screen: Any) -> Any: ...
    def action_requests(self) -> None: ...
    def action_change_log(self) -> None: ...
    def action_staged(self) -> None: ...
    def drop_staged(self) -> None: ...
    def go_offline(self) -> Any: ...
    def ask_why(self, hub: Hub | None, email: str | None = None) -> None: ...


class ShellFront(Protocol):
    """What the palette runs of the app's workflows."""

    def record_snapshot(self, hub: Hub | None) -> None: ...
    def show_reviews(self) -> None: ...
    def start_campaign(self, hub: Hub) -> None: ...


class Profiles(Provider):
    """Switch to another profile of the config file; read the token again."""

    _profiles: list[str] | None = None

    async def startup(self) -> None:
        # The config file is read once each time the palette opens, not on every keystroke.
        self._profiles = profile_names()

    def _commands(self) -> list[tuple[str, str | None, bool]]:
        if self._profiles is None:
            self._profiles = profile_names()
        workspace = workspace_of(self.app)
        if not workspace.can_reconnect:
            return []
        found: list[tuple[str, str | None, bool]] = []
        if workspace.rereads_token:
            text = "Read the token again and retry (token_command or token file)"
            found.append((text, workspace.profile, False))
        for name in self._profiles:
            if name != workspace.profile:
                found.append((f"Switch to profile {name}", name, True))
        return found

    def _run(self, profile: str | None, fresh_start: bool) -> None:
        self.app.post_message(Reconnect(profile, fresh_start=fresh_start))

    async def discover(self) -> Hits:
        for text, profile, fresh in self._commands():
            shown = inert(text)
            yield DiscoveryHit(Content(shown), lambda p=profile, f=fresh: self._run(p, f))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, profile, fresh in self._commands():
            shown = inert(text)
            score = matcher.match(shown)
            if score > 0:
                yield Hit(score, Content(shown), lambda p=profile, f=fresh: self._run(p, f))


class LoadedRecords(Provider):
    """Hubs (by Name and DisplayName), projects and users loaded so far."""

    def _open(self, entry: Entry) -> None:
        if entry.kind == "hub":
            self.app.post_message(OpenHub(entry.hub))
        else:
            self.app.post_message(
                OpenProject(
                    entry.hub, entry.project, project_id=entry.project_id, select_user=entry.user_id
                )
            )

    def _catalog(self) -> list[Entry]:
        return session_of(self.app).catalog.entries()

    async def discover(self) -> Hits:
        for entry in self._catalog()[:30]:
            # Content, not a str: a str would be read as markup, and this text is server data.
            yield DiscoveryHit(Content(inert(entry.text)), lambda e=entry: self._open(e))

    async def search(self, query: str) -> Hits:
        catalog = session_of(self.app).catalog
        found = catalog.search(query)
        for score, entry in found:
            shown = inert(entry.text)
            yield Hit(score, Content(shown), lambda e=entry: self._open(e), text=shown)
        typed = query.strip()
        if not typed:
            return
        hubs = [entry.hub for entry in catalog.hubs.values()]
        # Below the loaded matches; when there are none it says why, and offers the search.
        note = (
            "" if found else " (nothing loaded matches: the palette searches only what is loaded)"
        )
        offer = f"Find {inert(typed, limit=60)} in all hubs{note}"
        yield Hit(
            0.01,
            Content(offer),
            lambda: self.app.post_message(FindPerson(hubs, "all hubs", typed)),
            text=offer,
        )


def _campaigns() -> Screen[Any]:
    from hubtui.tui.screens.people.campaigns import CampaignsScreen

    return CampaignsScreen()


def _mine() -> Screen[Any]:
    from hubtui.tui.screens.people.campaigns import MyPacketsScreen

    return MyPacketsScreen()


def _roster() -> Screen[Any]:
    from hubtui.tui.screens.people.campaigns import RosterScreen

    return RosterScreen()


def app_commands(app: Shell, screen: Screen[Any]) -> Iterable[SystemCommand]:
    """What the palette offers beside the jumps: requests, snapshots, offline, staged changes."""
    yield SystemCommand(
        "Requests",
        "Every request of this session (ctrl+l): copy any one as curl",
        app.action_requests,
    )
    listing = screen if isinstance(screen, ListScreen) else None
    hub = None if listing is None else listing.scope_hub
    if hub is not None:
        yield from _of_the_hub(app, hub)
    yield SystemCommand(
        "Why can't … get in?",
        "Type an email and a project (or none): the verdict, the facts behind it, the next step"
        + (f" (hub {inert(hub.name, limit=40)})" if hub is not None else " (every hub)"),
        lambda: app.ask_why(hub, None if listing is None else listing.highlighted_email),
    )
    yield SystemCommand(
        "Change log",
        "The changes of this session and every batch of this server; R reverts one (c)",
        app.action_change_log,
    )
    yield SystemCommand(
        "Campaigns",
        "The review campaigns of this server: each packet's progress, a packet's people decided "
        "with k, r and x",
        lambda: app.push_screen(_campaigns()),
    )
    yield SystemCommand(
        "My packets",
        "The campaigns' packets with rows waiting on you to decide, with what is left and when "
        "it is due",
        lambda: app.push_screen(_mine()),
    )
    yield SystemCommand(
        "Team roster",
        "Who decides in a campaign on the team store: each database role and its account "
        "(read only)",
        lambda: app.push_screen(_roster()),
    )
    yield SystemCommand(
        "Reviews kept",
        "The access reviews kept of this server: who, when, each decision and its outcome",
        app.front.show_reviews,
    )
    if app.workspace.can_go_offline:
        yield SystemCommand(
            "Read offline (stored data)",
            "The server cannot be reached: read what the store kept of it, read-only",
            app.go_offline,
        )
    if app.session.staged_count:
        yield from _staged(app)
    yield SystemCommand(
        "Record a snapshot of all hubs",
        "Read every project's users of every hub and keep them, to see later what changed",
        lambda: app.front.record_snapshot(None),
    )
    if listing is not None and listing.shows_changes:
        yield SystemCommand(
            "Changes since…",
            "What changed in access here since a snapshot kept (D)",
            listing.action_changes_since,
        )


def _of_the_hub(app: Shell, hub: Hub) -> Iterable[SystemCommand]:
    """What the palette offers on a screen of one hub."""
    from hubtui.tui.screens.people.hub_people import HubPeopleScreen

    yield SystemCommand(
        f"People of this hub ({inert(hub.name, limit=40)})",
        "Everyone with access to the hub: last sign-in, inactive, invitations not accepted (P)",
        lambda: app.push_screen(HubPeopleScreen(hub)),
    )
    yield SystemCommand(
        f"Start a review campaign of this hub ({inert(hub.name, limit=40)})",
        "Read the hub whole and freeze its population: a packet per project for its Admins "
        "(the undecided keep their access at the close)",
        lambda: app.front.start_campaign(hub),
    )
    yield SystemCommand(
        f"Record a snapshot of this hub ({inert(hub.name, limit=40)})",
        "Read every project's users of this hub and keep them, to see later what changed",
        lambda: app.front.record_snapshot(hub),
    )


def _staged(app: Shell) -> Iterable[SystemCommand]:
    """What the palette offers while changes are staged."""
    yield SystemCommand(
        f"Staged changes ({app.session.staged_count:,})",
        "Every staged change as one preview, read again now, then applied (b)",
        app.action_staged,
    )
    yield SystemCommand(
        "Drop every staged change",
        "Forget the staged changes; nothing of them is sent",
        app.drop_staged,
    )
