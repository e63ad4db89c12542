"""Find a person across projects: where they have access, and why they can only read.

Textual-free, so that the app's ``w`` and a headless command share one engine. The projects of
the hubs in scope are listed, then every project's users are fetched concurrently under one
limiter; each project's users are reduced to the matches at once, so a search holds its matching
rows, not every project's users. A project that cannot be read becomes a finding of its own and
never stops the search.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hubtui.text import fold

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, HubClient, HubError, Project, ProjectUser

__all__ = ["DEFAULT_CONCURRENCY", "Finding", "PersonQuery", "Progress", "search_people"]

#: How many project-user lists are fetched at once by default.
DEFAULT_CONCURRENCY = 8

#: The users of a project already loaded in the session, and when (``time.monotonic()``).
Loaded = Callable[[str, str], "tuple[Sequence[ProjectUser], float] | None"]


@dataclass(frozen=True)
class PersonQuery:
    """What was typed: an email, a domain (``@northwind-eng.com``) or part of a name."""

    text: str

    @cached_property
    def kind(self) -> str:
        text = self.text.strip()
        if text.startswith("@"):
            return "domain"
        return "email" if "@" in text else "name"

    @cached_property
    def _folded(self) -> str:
        return fold(self.text.strip())

    def matches(self, user: ProjectUser) -> bool:
        person = user.user
        return self._matches(person.first_name, person.last_name, person.user_name, person.email)

    def matches_sent(self, record: Mapping[str, Any]) -> bool:
        """:meth:`matches` on a project user as the server sent it, before validation."""
        person = record.get("User")
        if not isinstance(person, dict):
            return False
        if self.kind != "name":  # the common case, kept short: it runs once per user listed
            email = person.get("Email")
            return isinstance(email, str) and self._address_matches(fold(email))
        keys = ("FirstName", "LastName", "UserName", "Email")
        return self._matches(*(person.get(key) for key in keys))

    def _address_matches(self, address: str) -> bool:
        if self.kind == "email":
            return address == self._folded
        return address.endswith(self._folded)

    def _matches(self, first: object, last: object, user_name: object, email: object) -> bool:
        address = fold(email) if isinstance(email, str) else ""
        if self.kind != "name":
            return self._address_matches(address)
        names = [n for n in (first, last) if isinstance(n, str) and n]
        extra = user_name if isinstance(user_name, str) else ""
        haystack = fold(f"{' '.join(names)} {extra} {address}")
        return all(word in haystack for word in self._folded.split())


@dataclass(frozen=True)
class Finding:
    """A person found in a project, or a project (or hub) that could not be read."""

    hub: Hub
    project: Project | None
    user: ProjectUser | None = None
    error: HubError | None = None
    loaded_at: float | None = None
    """When the users were loaded, if they were reused from the session (monotonic seconds)."""

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class Progress:
    """How far a search is, and what it found so far."""

    projects_total: int = 0
    projects_done: int = 0
    hubs_listed: int = 0
    hubs_total: int = 0
    matches: int = 0
    failures: int = 0
    reused: int = 0
    oldest_reuse: float | None = None
    started: float = field(default_factory=time.monotonic)
    first_match_after: float | None = None
    finished_after: float | None = None
    projects_with_match: set[tuple[str, int]] = field(default_factory=set)
    roles: Counter[str] = field(default_factory=Counter)
    limited_projects: set[tuple[str, int]] = field(default_factory=set)
    people: set[str] = field(default_factory=set)

    @property
    def done(self) -> bool:
        return self.finished_after is not None

    def line(self) -> str:
        """``37 / 120 projects · 9 matches · 2 could not be read``."""
        listing = ""
        if self.hubs_listed < self.hubs_total:
            listing = f" (listing hubs {self.hubs_listed} / {self.hubs_total})"
        parts = [
            f"{self.projects_done:,} / {self.projects_total:,} projects{listing}",
            f"{self.matches:,} {'match' if self.matches == 1 else 'matches'}",
        ]
        if self.failures:
            parts.append(f"{self.failures:,} could not be read")
        return " · ".join(parts)

    def summary(self, query: PersonQuery) -> str:
        """One sentence a ticket can hold."""
        member_projects = len(self.projects_with_match - self.limited_projects)
        roles = ", ".join(f"{role} {n}" for role, n in sorted(self.roles.items()))
        absent = self.projects_done - len(self.projects_with_match) - self.failures
        who = query.text.strip()
        if query.kind != "email":
            people = len(self.people)
            who += f" ({people} {'person' if people == 1 else 'people'})"
        text = (
            f"{who}: member of {_projects(member_projects)}"
            + (f" ({roles})" if roles else "")
            + f", limited reader in {len(self.limited_projects)}, absent from {max(absent, 0)}"
        )
        if self.failures:
            text += f"; {_projects(self.failures)} could not be read"
        return text


def _projects(n: int) -> str:
    return f"{n:,} project" if n == 1 else f"{n:,} projects"


async def search_people(
    client: HubClient,
    query: PersonQuery,
    hubs: Iterable[Hub],
    *,
    on_finding: Callable[[Finding], None],
    on_progress: Callable[[Progress], None] = lambda progress: None,
    concurrency: int = DEFAULT_CONCURRENCY,
    api_version: ApiVersion | None = None,
    loaded: Loaded | None = None,
    only: set[tuple[str, int | None]] | None = None,
) -> Progress:
    """Search the projects of ``hubs`` for ``query``; report each finding as it comes.

    ``loaded`` gives users already loaded in the session (reused, not fetched again); ``only``
    limits the search to these (hub id, project id) pairs, a project id of None meaning every
    project of that hub, as when retrying the failures.
    Cancelling the task cancels every request under way.
    """
    from hubtui.api import HubError

    hubs = list(hubs)
    progress = Progress(hubs_total=len(hubs))
    limiter = asyncio.Semaphore(max(1, concurrency))

    def report(finding: Finding) -> None:
        if finding.failed:
            progress.failures += 1
        elif finding.user is not None and finding.project is not None:
            key = (finding.hub.id, finding.project.id)
            if progress.first_match_after is None:
                progress.first_match_after = time.monotonic() - progress.started
            progress.matches += 1
            progress.projects_with_match.add(key)
            progress.people.add((finding.user.user.email or str(finding.user.user.id)).lower())
            if finding.user.is_limited:
                progress.limited_projects.add(key)
            else:
                progress.roles[finding.user.role] += 1
        on_finding(finding)

    async def one_project(hub: Hub, project: Project) -> None:
        reused = loaded(hub.id, str(project.id)) if loaded is not None else None
        try:
            if reused is not None:
                users, loaded_at = reused
                progress.reused += 1
                progress.oldest_reuse = min(progress.oldest_reuse or loaded_at, loaded_at)
            else:
                async with limiter:
                    # Only the matches are validated: a search wants a few records of many.
                    users = await client.list_project_users(
                        hub.id, project.id, api_version=api_version, where=query.matches_sent
                    )
                loaded_at = None
        except HubError as error:
            report(Finding(hub, project, error=error))
        else:
            for user in users:
                if query.matches(user):
                    report(Finding(hub, project, user, loaded_at=loaded_at))
        progress.projects_done += 1
        on_progress(progress)

    async def one_hub(hub: Hub, group: asyncio.TaskGroup) -> None:
        try:
            async with limiter:
                projects = await client.list_projects(hub.id)
        except HubError as error:
            progress.hubs_listed += 1
            report(Finding(hub, None, error=error))
            on_progress(progress)
            return
        whole = only is None or (hub.id, None) in only
        chosen = [p for p in projects if whole or (hub.id, p.id) in (only or ())]
        progress.hubs_listed += 1
        progress.projects_total += len(chosen)
        on_progress(progress)
        for project in chosen:
            group.create_task(one_project(hub, project))

    async with asyncio.TaskGroup() as group:
        for hub in hubs:
            if only is None or any(h == hub.id for h, _ in only):
                group.create_task(one_hub(hub, group))
            else:
                progress.hubs_listed += 1
    progress.finished_after = time.monotonic() - progress.started
    on_progress(progress)
    return progress
