"""Everything loaded so far, for the command palette to jump to.

Loads only record what arrived; the palette's words are built on the first search after a load,
so a 50,000-user project costs nothing until someone searches.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hubtui.core.presenting.words import LIMITED_BADGE
from hubtui.text import fold

if TYPE_CHECKING:
    from hubtui.api import Hub, Project, ProjectUser

#: The user lists of this many projects (the last opened) are kept for the palette and for a
#: search to reuse; an older one is read again when needed. An app open all day visits many.
USER_LISTS_KEPT = 24


@dataclass(frozen=True)
class Entry:
    """One thing the palette can open: its words, and where it lives."""

    kind: str
    text: str
    search: str
    hub: Hub
    project: Project | None = None
    project_id: str | None = None
    user_id: str | None = None


@dataclass
class _UserLoad:
    hub: Hub
    project: Project | None
    project_id: str
    users: list[ProjectUser]
    entries: list[Entry] | None = None
    loaded_at: float = field(default_factory=time.monotonic)


@dataclass
class Catalog:
    hubs: dict[str, Entry] = field(default_factory=dict)
    projects: dict[tuple[str, str], Entry] = field(default_factory=dict)
    _user_loads: dict[tuple[str, str], _UserLoad] = field(default_factory=dict)

    def add_hubs(self, hubs: list[Hub]) -> None:
        for hub in hubs:
            text = f"Hub {hub.name}"
            if hub.has_custom_display_name:
                text += f" · display name {hub.display_name}"
            self.hubs[hub.id] = Entry("hub", text, fold(text), hub)

    def add_projects(self, hub: Hub, projects: list[Project]) -> None:
        for project in projects:
            text = f"Project {project.name} · in hub {hub.name}"
            self.projects[(hub.id, str(project.id))] = Entry(
                "project", text, fold(text), hub, project, str(project.id)
            )

    def add_users(
        self, hub: Hub, project: Project | None, project_id: str, users: list[ProjectUser]
    ) -> None:
        key = (hub.id, project_id)
        self._user_loads.pop(key, None)  # the newest last: the oldest is let go first
        self._user_loads[key] = _UserLoad(hub, project, project_id, users)
        while len(self._user_loads) > USER_LISTS_KEPT:
            del self._user_loads[next(iter(self._user_loads))]

    def forget_users(self, hub_id: str, project_id: str | None = None) -> None:
        """A change was made there: what was read of the project's users (of every project of
        the hub, for a change of the hub's users) is no longer what the server holds, and is
        never reused."""
        for key in [k for k in self._user_loads if k[0] == hub_id]:
            if project_id is None or key[1] == project_id:
                del self._user_loads[key]

    def loaded_users(
        self, hub_id: str, project_id: str
    ) -> tuple[Sequence[ProjectUser], float] | None:
        """A project's users as last loaded in this session, and when (monotonic), if ever."""
        load = self._user_loads.get((hub_id, project_id))
        return (load.users, load.loaded_at) if load is not None else None

    def entries(self) -> list[Entry]:
        found = [*self.hubs.values(), *self.projects.values()]
        for load in self._user_loads.values():
            if load.entries is None:
                load.entries = _user_entries(load)
            found.extend(load.entries)
        return found

    def search(self, query: str, *, limit: int = 40) -> list[tuple[float, Entry]]:
        """Entries containing every word of ``query``; earlier matches score higher."""
        words = fold(query).split()
        if not words:
            return []
        hits: list[tuple[float, Entry]] = []
        for entry in self.entries():
            if all(word in entry.search for word in words):
                position = entry.search.find(words[0])
                hits.append((1.0 / (1 + position / 10), entry))
                if len(hits) >= limit * 5:
                    break
        hits.sort(key=lambda hit: -hit[0])
        return hits[:limit]


def _user_entries(load: _UserLoad) -> list[Entry]:
    where = load.project.name if load.project else f"project {load.project_id}"
    entries = []
    for user in load.users:
        name = user.user.full_name or user.user.user_name or f"user {user.user.id}"
        badge = f" · {LIMITED_BADGE} reader" if user.is_limited else ""
        text = f"User {name} <{user.user.email or ''}> · {where}{badge}"
        entries.append(
            Entry(
                "user",
                text,
                fold(text),
                load.hub,
                load.project,
                load.project_id,
                str(user.user.id),
            )
        )
    return entries
