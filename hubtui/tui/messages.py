"""What screens ask of the app, as messages: attributes go down, messages go up.

A screen never imports the app. It posts one of these; the message bubbles from the screen to
the app, which navigates or keeps what was loaded (the command palette's catalog). The screens
then depend on the app's :class:`~hubtui.tui.session.Session` only as a description of what
they read from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from hubtui.api import Hub, Project, ProjectUser
    from hubtui.core.people import HubPeople
    from hubtui.core.people.advice import NextStep
    from hubtui.core.people.why import Answer

__all__ = [
    "FindPerson",
    "HubPeopleLoaded",
    "HubsLoaded",
    "Offboard",
    "PrepareFix",
    "OpenHub",
    "OpenProject",
    "ProjectsLoaded",
    "Reconnect",
    "RevertBatch",
    "SendStaged",
    "UsersLoaded",
    "WorkerFailed",
]


class PrepareFix(Message):
    """Prepare the change a ticket's next step names, through its preview: never sent before
    it is confirmed there."""

    def __init__(self, answer: Answer, step: NextStep) -> None:
        self.answer = answer
        self.step = step
        super().__init__()


class Offboard(Message):
    """Take this person out of every hub they are in: ask why, find them, open the preview."""

    def __init__(self, email: str) -> None:
        self.email = email
        super().__init__()


class CloseCampaign(Message):
    """Close this review campaign (or finish its interrupted close): read the hub again, open
    the preview; ``on_ended`` is told once the close has ended, however it ended."""

    def __init__(self, number: int, on_ended: Callable[[], None] | None = None) -> None:
        self.number, self.on_ended = number, on_ended
        super().__init__()


class SendStaged(Message):
    """Send the preview this staged screen was answered yes on, as a run of its own (the
    staged changes, a review, a revert, a retry): the app's front runs it on the screen."""

    def __init__(self, screen: Screen[Any]) -> None:
        self.screen = screen
        super().__init__()


class RevertBatch(Message):
    """Preview the inverse of this batch of the change log, to apply it as a batch of its own."""

    def __init__(self, batch: str) -> None:
        self.batch = batch
        super().__init__()


class OpenHub(Message):
    """Show this hub's detail, directly above the hub list."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        super().__init__()


class OpenProject(Message):
    """Show a project's users (by its record, or by its id alone), above its hub's detail, or
    (``above``) above the screen that asked, so that escape goes back to it."""

    def __init__(
        self,
        hub: Hub,
        project: Project | None,
        project_id: str | None = None,
        select_user: str | None = None,
        above: bool = False,
    ) -> None:
        self.hub = hub
        self.project = project
        self.project_id = project_id
        self.select_user = select_user
        self.above = above
        super().__init__()


class ShowChanges(Message):
    """Show what changed since a snapshot (chosen next) in all hubs (``hub`` None), a hub, or
    one project of it."""

    def __init__(
        self,
        hub: Hub | None,
        project_id: str | None = None,
        scope: str = "all hubs",
    ) -> None:
        self.hub = hub
        self.project_id = project_id
        self.scope = scope
        super().__init__()


class FindPerson(Message):
    """Search the projects of ``hubs`` for a person (``query`` None: ask whom first)."""

    def __init__(self, hubs: list[Hub], scope: str, query: str | None = None) -> None:
        self.hubs = hubs
        self.scope = scope
        self.query = query
        super().__init__()


class Reconnect(Message):
    """Read the settings and the token again, for ``profile``; ``fresh_start`` goes back to a
    new hub list (another server), otherwise the screen shown loads again."""

    def __init__(self, profile: str | None, fresh_start: bool = False) -> None:
        self.profile = profile
        self.fresh_start = fresh_start
        super().__init__()


class HubsLoaded(Message):
    """The hub list was read: the palette can offer these hubs."""

    def __init__(self, hubs: list[Hub]) -> None:
        self.hubs = hubs
        super().__init__()


class ProjectsLoaded(Message):
    """A hub's projects were read."""

    def __init__(self, hub: Hub, projects: list[Project]) -> None:
        self.hub = hub
        self.projects = projects
        super().__init__()


class HubPeopleLoaded(Message):
    """A hub's users and every project's users were read (the hub's people, ``P``)."""

    def __init__(self, answer: HubPeople) -> None:
        self.answer = answer
        super().__init__()


class UsersLoaded(Message):
    """A project's users were read (or changed by a form)."""

    def __init__(
        self,
        hub: Hub,
        project: Project | None,
        project_id: str,
        users: list[ProjectUser] | None = None,
    ) -> None:
        self.hub = hub
        self.project = project
        self.project_id = project_id
        self.users: list[ProjectUser] = [] if users is None else users
        super().__init__()


class UsersReadAsSent(Message):
    """A project's users were read by a search, as the server sent them: kept as any list read
    is (offline, ``w`` finds them again), never shown from here."""

    def __init__(self, hub: Hub, project: Project, sent: list[dict[str, Any]]) -> None:
        self.hub = hub
        self.project = project
        self.sent = sent
        super().__init__()


class WorkerFailed(Message):
    """A screen's worker ended in an error nobody expected (a bug): the app says so, in one
    wording, and the screen puts itself back in a usable state (:class:`RecoversFromBugs`)."""

    def __init__(self, screen: Screen[Any], worker: Worker[Any]) -> None:
        self.screen = screen
        self.worker = worker
        super().__init__()
