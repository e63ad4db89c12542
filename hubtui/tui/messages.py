"""What screens ask of the app, as messages: attributes go down, messages go up.

A screen never imports the app. It posts one of these; the message bubbles from the screen to
the app, which navigates or keeps what was loaded (the command palette's catalog). The screens
then depend on the app's :class:`~hubtui.tui.session.Session` only as a description of what
they read from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    "UsersLoaded",
    "WorkerFailed",
]


@dataclass
class PrepareFix(Message):
    """Prepare the change a ticket's next step names, through its preview: never sent before
    it is confirmed there."""

    answer: Answer
    step: NextStep


@dataclass
class Offboard(Message):
    """Take this person out of every hub they are in: ask why, find them, open the preview."""

    email: str


@dataclass
class RevertBatch(Message):
    """Preview the inverse of this batch of the change log, to apply it as a batch of its own."""

    batch: str


@dataclass
class OpenHub(Message):
    """Show this hub's detail, directly above the hub list."""

    hub: Hub


@dataclass
class OpenProject(Message):
    """Show a project's users (by its record, or by its id alone), above its hub's detail, or
    (``above``) above the screen that asked, so that escape goes back to it."""

    hub: Hub
    project: Project | None
    project_id: str | None = None
    select_user: str | None = None
    above: bool = False


@dataclass
class ShowChanges(Message):
    """Show what changed since a snapshot (chosen next) in all hubs (``hub`` None), a hub, or
    one project of it."""

    hub: Hub | None
    project_id: str | None = None
    scope: str = "all hubs"


@dataclass
class FindPerson(Message):
    """Search the projects of ``hubs`` for a person (``query`` None: ask whom first)."""

    hubs: list[Hub]
    scope: str
    query: str | None = None


@dataclass
class Reconnect(Message):
    """Read the settings and the token again, for ``profile``; ``fresh_start`` goes back to a
    new hub list (another server), otherwise the screen shown loads again."""

    profile: str | None
    fresh_start: bool = False


@dataclass
class HubsLoaded(Message):
    """The hub list was read: the palette can offer these hubs."""

    hubs: list[Hub]


@dataclass
class ProjectsLoaded(Message):
    """A hub's projects were read."""

    hub: Hub
    projects: list[Project]


@dataclass
class HubPeopleLoaded(Message):
    """A hub's users and every project's users were read (the hub's people, ``P``)."""

    answer: HubPeople


@dataclass
class UsersLoaded(Message):
    """A project's users were read (or changed by a form)."""

    hub: Hub
    project: Project | None
    project_id: str
    users: list[ProjectUser] = field(default_factory=list)


@dataclass
class UsersReadAsSent(Message):
    """A project's users were read by a search, as the server sent them: kept as any list read
    is (offline, ``w`` finds them again), never shown from here."""

    hub: Hub
    project: Project
    sent: list[dict[str, Any]]


@dataclass
class WorkerFailed(Message):
    """A screen's worker ended in an error nobody expected (a bug): the app says so, in one
    wording, and the screen puts itself back in a usable state (:class:`RecoversFromBugs`)."""

    screen: Screen[Any]
    worker: Worker[Any]
