"""What screens ask of the app, as messages: attributes go down, messages go up.

A screen never imports the app. It posts one of these; the message bubbles from the screen to
the app, which navigates or keeps what was loaded (the command palette's catalog). The screens
then depend on the app's :class:`~hubtui.tui.session.Session` only as a description of what
they read from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from hubtui.api import Hub, Project, ProjectUser

__all__ = [
    "FindPerson",
    "HubsLoaded",
    "OpenHub",
    "OpenProject",
    "ProjectsLoaded",
    "Reconnect",
    "UsersLoaded",
]


class OpenHub(Message):
    """Show this hub's detail, directly above the hub list."""

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub


class OpenProject(Message):
    """Show a project's users (by its record, or by its id alone), above its hub's detail."""

    def __init__(
        self,
        hub: Hub,
        project: Project | None,
        *,
        project_id: str | None = None,
        select_user: str | None = None,
    ) -> None:
        super().__init__()
        self.hub = hub
        self.project = project
        self.project_id = project_id
        self.select_user = select_user


class FindPerson(Message):
    """Search the projects of ``hubs`` for a person (``query`` None: ask whom first)."""

    def __init__(self, hubs: Sequence[Hub], scope: str, query: str | None = None) -> None:
        super().__init__()
        self.hubs = list(hubs)
        self.scope = scope
        self.query = query


class Reconnect(Message):
    """Read the settings and the token again, for ``profile``; ``fresh_start`` goes back to a
    new hub list (another server), otherwise the screen shown loads again."""

    def __init__(self, profile: str | None, *, fresh_start: bool) -> None:
        super().__init__()
        self.profile = profile
        self.fresh_start = fresh_start


class HubsLoaded(Message):
    """The hub list was read: the palette can offer these hubs."""

    def __init__(self, hubs: Sequence[Hub]) -> None:
        super().__init__()
        self.hubs = list(hubs)


class ProjectsLoaded(Message):
    """A hub's projects were read."""

    def __init__(self, hub: Hub, projects: Sequence[Project]) -> None:
        super().__init__()
        self.hub = hub
        self.projects = list(projects)


class UsersLoaded(Message):
    """A project's users were read (or changed by a form)."""

    def __init__(
        self, hub: Hub, project: Project | None, project_id: str, users: list[ProjectUser]
    ) -> None:
        super().__init__()
        self.hub = hub
        self.project = project
        self.project_id = project_id
        self.users = users
