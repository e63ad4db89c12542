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

from hubtui.api import HubError
from hubtui.core.access import person_key, sent_field
from hubtui.text import fold, inert

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, HubClient, Project, ProjectUser

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SEARCH_DEADLINE",
    "EVERY_USER",
    "Finding",
    "PersonQuery",
    "Progress",
    "search_people",
    "summary",
]

#: How many project-user lists are fetched at once by default.
DEFAULT_CONCURRENCY = 8
#: How long a whole search may take by default (seconds), retries and waits included.
DEFAULT_SEARCH_DEADLINE = 300.0

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
        if person is None:  # a field by the other name the records accept (``user``)
            person = sent_field(record, "User")
        if not isinstance(person, dict):
            return False
        if self.kind != "name":  # the common case, kept short: it runs once per user listed
            email = person.get("Email")
            if email is None:
                email = sent_field(person, "Email")
            return isinstance(email, str) and self._address_matches(fold(email))
        keys = ("FirstName", "LastName", "UserName", "Email")
        return self._matches(*(sent_field(person, key) for key in keys))

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


class EveryUser:
    """Every user of every project: what a snapshot reads, through the search's fan-out."""

    matches_sent = None  # no pre-filter: a snapshot keeps every record (as sent: ``on_sent``)

    def matches(self, user: ProjectUser) -> bool:
        return True


EVERY_USER = EveryUser()


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
    """How far a search is: what was listed, what answered, and the counts of its live line.

    The summary is never kept here: :func:`summary` counts it from the findings the rows show.
    """

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
    listed: dict[str, dict[int, Project]] = field(default_factory=dict)
    """Each listed hub's projects by id (each once, however often the server lists it)."""
    answered: set[tuple[str, int]] = field(default_factory=set)
    """The projects whose users were read."""
    stopped: bool = False
    """The search was stopped before every project answered."""

    @property
    def done(self) -> bool:
        return self.finished_after is not None

    def unanswered(self, hubs: Iterable[Hub]) -> set[tuple[str, int | None]]:
        """What a search has no answer from yet: (hub, project), or (hub, None) for a hub whose
        projects were never listed. ``r`` asks exactly these."""
        left: set[tuple[str, int | None]] = set()
        for hub in hubs:
            if hub.id not in self.listed:
                left.add((hub.id, None))
                continue
            left.update(
                (hub.id, p) for p in self.listed[hub.id] if (hub.id, p) not in self.answered
            )
        return left

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

    def summary(self, query: PersonQuery, findings: Iterable[Finding]) -> str:
        """One sentence a ticket can hold, counted from ``findings`` (the rows shown)."""
        return summary(query, findings, self)


def summary(query: PersonQuery, findings: Iterable[Finding], progress: Progress) -> str:
    """``priya@…: member of 2 projects (Admin 1, Editor 1), limited reader in 3, absent from
    18; 1 project could not be read``: every count is of the rows a person sees."""
    members: set[tuple[str, int]] = set()
    limited: set[tuple[str, int]] = set()
    not_read: set[tuple[str, int | None]] = set()
    roles: Counter[str] = Counter()
    people: set[str] = set()
    for finding in findings:
        hub_id = finding.hub.id
        if finding.error is not None:
            not_read.add((hub_id, finding.project.id if finding.project else None))
        elif finding.user is not None and finding.project is not None:
            key = (hub_id, finding.project.id)
            people.add(person_key(finding.user.user.email) or str(finding.user.user.id))
            if finding.user.is_limited:
                limited.add(key)
            else:
                members.add(key)
                roles[inert(finding.user.role)] += 1
    found_in = members | limited
    # One bucket a project: one where someone is a member counts as a member's, never also as a
    # limited reader's, so the buckets add up to the projects searched.
    limited -= members
    absent = len(progress.answered - found_in)
    who = inert(query.text.strip())
    if query.kind != "email":
        who += f" ({len(people)} {'person' if len(people) == 1 else 'people'})"
    role_words = ", ".join(f"{role} {n}" for role, n in sorted(roles.items()))
    text = (
        f"{who}: member of {_projects(len(members))}"
        + (f" ({role_words})" if role_words else "")
        + f", limited reader in {len(limited)}, absent from {absent}"
    )
    projects_not_read = sum(1 for _, project in not_read if project is not None)
    hubs_not_listed = len(not_read) - projects_not_read
    if projects_not_read:
        text += f"; {_projects(projects_not_read)} could not be read"
    if hubs_not_listed:
        hubs = "1 hub" if hubs_not_listed == 1 else f"{hubs_not_listed:,} hubs"
        text += f"; the projects of {hubs} could not be listed"
    if progress.stopped:
        total = sum(len(projects) for projects in progress.listed.values())
        searched = len(progress.answered) + projects_not_read
        text += f"; stopped: {searched:,} of {total:,} projects searched"
    return text


def _projects(n: int) -> str:
    return f"{n:,} project" if n == 1 else f"{n:,} projects"


async def search_people(
    client: HubClient,
    query: PersonQuery | EveryUser,
    hubs: Iterable[Hub],
    *,
    on_finding: Callable[[Finding], None],
    on_progress: Callable[[Progress], None] = lambda progress: None,
    concurrency: int = DEFAULT_CONCURRENCY,
    api_version: ApiVersion | None = None,
    loaded: Loaded | None = None,
    resume: Progress | None = None,
    deadline: float | None = DEFAULT_SEARCH_DEADLINE,
    on_sent: Callable[[Hub, Project, list[dict[str, Any]]], None] | None = None,
    on_read: Callable[[Hub, Project, list[dict[str, Any]]], None] | None = None,
    on_listed: Callable[[Hub, Sequence[Project]], None] | None = None,
    sent_held: bool = True,
) -> Progress:
    """Search the projects of ``hubs`` for ``query``; report each finding as it comes.

    ``loaded`` gives users already loaded in the session (reused, not fetched again).
    ``resume`` continues an earlier search: only what has no answer in it is asked (projects
    that failed or were never asked, hubs never listed), and it goes on counting.
    ``deadline`` bounds the whole search (seconds): what has not answered by then becomes a
    "not read" finding saying so, and a server's wait beyond it is not waited out.
    A project the server lists twice is searched once. Cancelling the task cancels every
    request under way. ``on_sent``, for keeping every user (a snapshot): each project's users
    are handed over as the server sent them, unvalidated, instead of being searched (held
    compactly, unless not ``sent_held``: ``on_sent`` reads each once and lets it go).
    ``on_read`` and ``on_listed``, for keeping every list a search reads: each project's users
    as sent (beside the search, which still validates only its matches), each hub's projects.
    """
    hubs = list({hub.id: hub for hub in hubs}.values())
    progress, only = _progress_of(hubs, resume)
    search = _Search(
        client,
        query,
        progress,
        only,
        on_finding=on_finding,
        on_progress=on_progress,
        concurrency=concurrency,
        api_version=api_version,
        loaded=loaded,
        on_sent=on_sent,
        on_read=on_read,
        on_listed=on_listed,
        sent_held=sent_held,
    )
    with client.within(deadline):
        async with asyncio.TaskGroup() as group:
            asked = None if only is None else {hub_id for hub_id, _ in only}
            for hub in hubs:
                if asked is None or hub.id in asked:
                    group.create_task(search.one_hub(hub, group))
    progress.finished_after = time.monotonic() - progress.started
    on_progress(progress)
    return progress


def _progress_of(
    hubs: Sequence[Hub], resume: Progress | None
) -> tuple[Progress, set[tuple[str, int | None]] | None]:
    """A new search's progress, or the one it resumes (counting on), with what it has no
    answer to (None: a new search asks everything)."""
    if resume is None:
        return Progress(hubs_total=len(hubs)), None
    only = resume.unanswered(hubs)
    resume.stopped = False
    resume.finished_after = None
    resume.failures = 0
    resume.projects_done = len(resume.answered)
    resume.hubs_listed = len(resume.listed)
    return resume, only


class _Search:
    """One search's fan-out: each hub's projects listed, each project's users read (or
    reused, or handed over as sent) under one limiter, each finding reported and counted."""

    def __init__(
        self,
        client: HubClient,
        query: PersonQuery | EveryUser,
        progress: Progress,
        only: set[tuple[str, int | None]] | None,
        *,
        on_finding: Callable[[Finding], None],
        on_progress: Callable[[Progress], None],
        concurrency: int,
        api_version: ApiVersion | None,
        loaded: Loaded | None,
        on_sent: Callable[[Hub, Project, list[dict[str, Any]]], None] | None,
        on_read: Callable[[Hub, Project, list[dict[str, Any]]], None] | None,
        on_listed: Callable[[Hub, Sequence[Project]], None] | None,
        sent_held: bool = True,
    ) -> None:
        self.sent_held = sent_held
        self.client, self.query, self.progress, self.only = client, query, progress, only
        self.on_finding, self.on_progress = on_finding, on_progress
        self.limiter = asyncio.Semaphore(max(1, concurrency))
        self.api_version, self.loaded = api_version, loaded
        self.on_sent, self.on_read, self.on_listed = on_sent, on_read, on_listed

    def report(self, finding: Finding) -> None:
        progress = self.progress
        if finding.failed:
            progress.failures += 1
        elif finding.user is not None and finding.project is not None:
            if progress.first_match_after is None:
                progress.first_match_after = time.monotonic() - progress.started
            progress.matches += 1
        self.on_finding(finding)

    async def one_project(self, hub: Hub, project: Project) -> None:
        progress = self.progress
        try:
            users, loaded_at = await self._users(hub, project)
        except HubError as error:
            self.report(Finding(hub, project, error=error))
        else:
            progress.answered.add((hub.id, project.id))
            for user in users:
                if self.query.matches(user):
                    self.report(Finding(hub, project, user, loaded_at=loaded_at))
        progress.projects_done += 1
        self.on_progress(progress)

    async def _users(self, hub: Hub, project: Project) -> tuple[Sequence[ProjectUser], Any]:
        """A project's users to search, and when they were loaded: reused from the session,
        handed over as sent (none to search), or read."""
        reused = self.loaded(hub.id, str(project.id)) if self.loaded is not None else None
        if reused is not None:
            users, loaded_at = reused
            self.progress.reused += 1
            self.progress.oldest_reuse = min(self.progress.oldest_reuse or loaded_at, loaded_at)
            return users, loaded_at
        if self.on_sent is not None:
            async with self.limiter:
                sent = await self.client.list_project_users_as_sent(
                    hub.id, project.id, api_version=self.api_version, held=self.sent_held
                )
            self.on_sent(hub, project, [record.root for record in sent])
            return [], None
        async with self.limiter:
            read = await _matches_read(
                self.client, self.query, hub, project, self.api_version, self.on_read
            )
        return read, None

    async def one_hub(self, hub: Hub, group: asyncio.TaskGroup) -> None:
        progress = self.progress
        if hub.id not in progress.listed:  # a resumed search has listed it already
            try:
                async with self.limiter:
                    projects = await self.client.list_projects(hub.id)
            except HubError as error:
                progress.hubs_listed += 1
                self.report(Finding(hub, None, error=error))
                self.on_progress(progress)
                return
            progress.listed[hub.id] = {p.id: p for p in projects}
            if self.on_listed is not None:
                self.on_listed(hub, projects)
            progress.projects_total += len(progress.listed[hub.id])
            progress.hubs_listed += 1
        only = self.only
        chosen = [
            project
            for key, project in progress.listed[hub.id].items()
            if only is None or (hub.id, key) in only or (hub.id, None) in only
        ]
        self.on_progress(progress)
        for project in chosen:
            group.create_task(self.one_project(hub, project))


async def _matches_read(
    client: HubClient,
    query: PersonQuery | EveryUser,
    hub: Hub,
    project: Project,
    api_version: ApiVersion | None,
    on_read: Callable[[Hub, Project, list[dict[str, Any]]], None] | None,
) -> Sequence[ProjectUser]:
    """A project's users read, only the matches validated (a search wants a few records of
    many); with ``on_read``, every record as sent handed over too, for keeping the list."""
    read: list[dict[str, Any]] = []

    def where(record: Mapping[str, Any]) -> bool:
        read.append(dict(record))
        matches = query.matches_sent
        return True if matches is None else matches(record)

    users = await client.list_project_users(
        hub.id,
        project.id,
        api_version=api_version,
        where=query.matches_sent if on_read is None else where,
    )
    if on_read is not None:
        on_read(hub, project, read)
    return users
