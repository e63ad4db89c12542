"""A hub's people: its hub users and every project's users, joined by person, with when each was
last seen, and the access matrix (people × projects).

One rule for who is who (:func:`~hubtui.core.access.person_key`, as search, batches and diff
use it) and one for inactivity, from what the server sent and nothing else:

- a date the server did not send, or sent as null, is **never**;
- a date it sent that cannot be read is **unknown**, and makes the person's last sign-in
  unknown: never "inactive" and never "never signed in";
- otherwise the latest of the three dates (web, add-in, project activity) is when the person
  was last seen, and they are **inactive** after ``inactive_after`` days (90 by default), counted
  in UTC from ``now``.

Textual-free: the app's people and matrix screens and ``hubtui hub-users`` / ``hubtui access``
render these.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal, overload

from hubtui.api import HubError
from hubtui.api.errors import not_offered
from hubtui.api.models import hold_once, one_summary_a_person
from hubtui.core.access import LIMITED_CELL, LIMITED_READER, ROLES, access_cell, person_key
from hubtui.core.changes.actions import Action
from hubtui.core.changes.record import Change
from hubtui.core.clock import now
from hubtui.core.people.search import EVERY_USER, Finding, search_people
from hubtui.core.presenting.export import SparseCsvRow, csv_text, every_cell
from hubtui.core.signins import LastSeen, last_seen

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project, ProjectUser
    from hubtui.api.models import HubUser, UserSummary
    from hubtui.core.changes.record import Change
    from hubtui.core.people.search import Progress

__all__ = [
    "INACTIVE_AFTER_DAYS",
    "HubPeople",
    "HubPerson",
    "Matrix",
    "PeopleJoin",
    "access_matrix",
    "hub_people",
    "pending_invitations",
    "read_hub_people",
    "resend_change",
]

#: How many times as long as the last telling of the people so far took to be taken in (joined,
#: shown and indexed) the next one waits at least: a firm's hub is told a fifth of the time.
SO_FAR_SPACING = 4
#: How often a telling not yet taken in, or one due, is asked after.
SO_FAR_POLL = 0.1
#: After how many days without a sign-in or project activity a person is "inactive".
INACTIVE_AFTER_DAYS = 90
NEVER_SIGNED_IN = "never signed in"
NOT_ACCEPTED = "invitation not accepted"


#: When each hub user was last seen, by the user's record (held, so that its id stays its own).
SeenKept = dict[int, tuple["HubUser", LastSeen]]


@dataclass(slots=True)
class HubPerson:
    """One person with access to the hub or to any of its projects (slots: a firm's hub holds
    100,000)."""

    key: str
    person: UserSummary
    hub_user: HubUser | None = None
    """Their record in the hub's users (None: not listed there, or the list was not read)."""
    memberships: list[tuple[Project, ProjectUser]] = field(default_factory=list)
    _seen: LastSeen | None = field(default=None, repr=False, compare=False)
    _seen_of: HubUser | None = field(default=None, repr=False, compare=False)
    """The hub user :attr:`_seen` was worked out for (two slots, not a tuple a person)."""

    @property
    def email(self) -> str:
        return self.person.email or ""

    @property
    def name(self) -> str:
        return self.person.full_name

    @property
    def hub_role(self) -> str | None:
        return None if self.hub_user is None else self.hub_user.role

    @property
    def seen(self) -> LastSeen | None:
        """When last seen (None: the hub's users were not read, so nobody knows). Worked out
        once for the hub user held (a row, its marks and its group each ask)."""
        user = self.hub_user
        if user is None:
            return None
        seen = self._seen
        if seen is None or self._seen_of is not user:
            seen = self._seen = last_seen(user)
            self._seen_of = user
        return seen

    @property
    def limited_domain(self) -> str | None:
        """The whitelisted domain a limited reader reads through (None: limited nowhere)."""
        for _, user in self.memberships:
            if user.is_limited:
                return self.person.email_domain or "?"
        return None

    def roles(self) -> Counter[str]:
        """How many projects they are in, as what: a role, or LIMITED."""
        return Counter(access_cell(user) for _, user in self.memberships)

    def projects_words(self, *, short: bool = False) -> str:
        """``3 (Admin 1, Editor 1, LIMITED 1)``, or ``0``; ``short``: ``3 Admin, Editor,
        LIMITED`` (the roles without their counts, for a cell)."""
        held = self.memberships
        if len(held) < 2:  # most people of a large hub: no count to make
            if not held:
                return "0"
            role = access_cell(held[0][1])
            return f"1 {role}" if short else f"1 ({role} 1)"
        roles = self.roles()
        order = [*reversed(ROLES), LIMITED_CELL]
        named = [r for r in order if roles[r]] + sorted(r for r in roles if r not in order)
        if short:
            return f"{sum(roles.values())} {', '.join(named)}"
        return f"{sum(roles.values())} ({', '.join(f'{r} {roles[r]}' for r in named)})"

    def marks(
        self,
        now: datetime,
        inactive_after: int = INACTIVE_AFTER_DAYS,
        *,
        domain: str | None | Literal[False] = False,
    ) -> list[str]:
        """What needs a reviewer's eye, in words: never signed in, invitation not accepted,
        inactive N days, last sign-in unknown, limited reader (@domain), hub admin.
        ``domain``: :attr:`limited_domain`, when the caller has it already."""
        found: list[str] = []
        hub_user, seen = self.hub_user, self.seen
        if hub_user is not None and hub_user.is_activated is False:
            found.append(NOT_ACCEPTED)
        if seen is not None:
            if seen.unknown:
                found.append("last sign-in unknown")
            elif seen.never:
                found.append(NEVER_SIGNED_IN)
            else:
                days = seen.days_before(now)
                if days is not None and days >= inactive_after:
                    found.append(f"inactive {days} days")
        if domain is False:
            domain = self.limited_domain
        if domain is not None:
            found.append(f"{LIMITED_READER} @{domain}")
        if self.hub_role == "Admin":
            found.append("hub admin")
        return found

    def is_inactive(self, now: datetime, inactive_after: int = INACTIVE_AFTER_DAYS) -> bool:
        """Never signed in, or not for ``inactive_after`` days (unknown is neither)."""
        seen = self.seen
        if seen is None or seen.unknown:
            return False
        days = seen.days_before(now)
        return seen.never or (days is not None and days >= inactive_after)


def hub_people(
    hub_users: Iterable[HubUser] | None,
    memberships: Iterable[tuple[Project, ProjectUser]],
    seen: SeenKept | None = None,
) -> list[HubPerson]:
    """Hub users and project users joined by person: a project user to the hub's account of
    the same user Id, else by address (:func:`person_key`; a record with no email by its user
    id). Two accounts of one address (``Ann@``, ``ann@``) stay two people, each with its own
    projects. Hub users first in the order sent, then those only in projects. ``seen``: when
    each hub user was last seen, worked out by an earlier join of the same users (and kept
    for the next)."""
    join = PeopleJoin(hub_users, seen)
    join.add(memberships)
    return join.people()


def _key_of(summary: UserSummary) -> str:
    return person_key(summary.email) or f"id:{summary.id}"


class PeopleJoin:
    """:func:`hub_people`, made as the memberships arrive: the hub's users are joined once, and
    each :meth:`add` joins only the memberships it is given, so that the people of a firm's hub
    told again and again while its projects are read cost what came since, not every person
    each time (100,000 hub users: 0.3 s a telling).

    What :meth:`people` gave is never changed after: a person given there who is in a
    membership added later is copied first, and the copy holds it.
    """

    __slots__ = ("_by_id", "_own", "_people")

    def __init__(self, hub_users: Iterable[HubUser] | None, seen: SeenKept | None = None) -> None:
        people: dict[str, HubPerson] = {}
        by_id: dict[object, HubPerson] = {}
        users = list(hub_users or ())
        if seen is not None:  # all worked out first: held apart from the people, who are
            # replaced as their projects arrive (freed together, their memory goes back)
            for hub_user in users:
                if id(hub_user) not in seen:
                    seen[id(hub_user)] = (hub_user, last_seen(hub_user))
        for hub_user in users:
            key = _key_of(hub_user.user)
            person = people.get(key)
            if person is not None and person.hub_user is not None:
                if person.hub_user.user.id == hub_user.user.id:
                    continue  # the same account sent twice
                key = f"{key} (Id {hub_user.user.id})"  # another account of the same address
                person = people.get(key)
            if person is None:
                person = people[key] = HubPerson(key, hub_user.user)
            person.hub_user = hub_user
            if seen is not None:
                person._seen_of, person._seen = seen[id(hub_user)]
            by_id.setdefault(hub_user.user.id, person)
        self._people = people
        self._by_id = by_id
        #: The ids of the people made since :meth:`people` last gave them (alive in
        #: ``_people``, so no id is another's): only they are changed in place.
        self._own: set[int] = {id(person) for person in people.values()}

    def add(self, memberships: Iterable[tuple[Project, ProjectUser]]) -> None:
        """Join these memberships, after those added before."""
        people, by_id, own = self._people, self._by_id, self._own
        for project, user in memberships:
            person = by_id.get(user.user.id)
            if person is None or person_key(person.email) != person_key(user.user.email):
                key = _key_of(user.user)
                person = people.get(key)
                if person is None:
                    person = people[key] = HubPerson(key, user.user)
                    own.add(id(person))
            if id(person) not in own:
                person = self._copied(person)
            # One summary held for the person, not one a list that sends them (a firm's
            # 100,000 people, each in the hub's users and a project's: 70 MB).
            hold_once(user, "user", person.person)
            person.memberships.append((project, user))

    def _copied(self, given: HubPerson) -> HubPerson:
        """``given``'s copy, held from now on in its place: ``given`` stays as it was given."""
        person = HubPerson(given.key, given.person, given.hub_user, list(given.memberships))
        person._seen, person._seen_of = given._seen, given._seen_of
        self._people[given.key] = person
        hub_user = given.hub_user
        if hub_user is not None and self._by_id.get(hub_user.user.id) is given:
            self._by_id[hub_user.user.id] = person
        self._own.add(id(person))
        return person

    def people(self) -> list[HubPerson]:
        """Everyone joined so far: hub users first in the order sent, then those only in
        projects. Nothing added later changes them."""
        self._own.clear()
        return list(self._people.values())


@dataclass
class HubPeople:
    """What was read of a hub's people, and what could not be."""

    hub: Hub
    people: list[HubPerson]
    projects: list[Project]
    not_read: list[tuple[Project | None, HubError]] = field(default_factory=list)
    """Projects whose users could not be read (None: the hub's project list itself)."""
    hub_users_missing: str | None = None
    """Why the hub's users are not known (None: they were read)."""
    hub_users: list[HubUser] | None = None
    """The hub's users as read (None: not read)."""
    lists: dict[int, list[ProjectUser]] = field(default_factory=dict)
    """Each project whose users were read whole, by id: its users in the order sent."""

    @property
    def complete(self) -> bool:
        return not self.not_read and self.hub_users_missing is None

    def incomplete_words(self) -> str:
        """What this answer lacks, in words (empty: nothing)."""
        parts = []
        if self.hub_users_missing is not None:
            parts.append(f"the hub's users were not read ({self.hub_users_missing})")
        if self.not_read:
            count = len(self.not_read)
            parts.append(f"{count} {'list' if count == 1 else 'lists'} could not be read")
        return "; ".join(parts)


#: The share of projects answered past which the people so far are no longer told, when a
#: telling cost :data:`SO_FAR_COSTLY` seconds or more: the whole answer follows shortly, and
#: telling them costs the whole list once more.
SO_FAR_UNTIL = 0.8
SO_FAR_COSTLY = 0.1


def nearly_read(progress: Progress | None) -> bool:
    return progress is not None and progress.projects_done >= SO_FAR_UNTIL * max(
        progress.projects_total, 1
    )


async def read_hub_people(
    client: HubClient,
    hub: Hub,
    *,
    concurrency: int = 8,
    deadline: float | None = None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    on_first: Callable[[list[HubPerson]], object] | None = None,
    on_so_far: Callable[[list[HubPerson], Progress | None], object] | None = None,
    so_far_wanted: Callable[[], bool] = lambda: True,
) -> HubPeople:
    """Read the hub's users and every project's users (the search's fan-out, as a snapshot
    reads them) and join them. A server without the hub-user list (404, 405) still gives the
    projects' people, and the answer says what it lacks.

    While the projects are read: ``on_first``, a large hub's first users, as people with no
    project read yet, as soon as they arrive; ``on_so_far``, once the hub's list is read, every
    hub user joined with the projects read so far (and the progress that says how many), then
    again as more projects answer, at 1, 2, 4… seconds apart and at least four times as long
    as the last telling took to be taken in, each time ``so_far_wanted`` says the people told
    before have been taken in (a screen still indexing them is not given more: the reading goes
    on meanwhile).
    """
    reading = _HubReading(client, hub, on_first, on_so_far, so_far_wanted)
    with one_summary_a_person():  # for both lists, and every task and thread they start
        listing, progress = await asyncio.gather(
            reading.hub_users(),
            reading.project_users(concurrency, deadline, on_progress),
        )
    return reading.answer(*listing, progress)


class _HubReading:
    """One reading of a hub's people (:func:`read_hub_people`): the hub's users and every
    project's users read at once, the people told so far as they come, then joined."""

    def __init__(
        self,
        client: HubClient,
        hub: Hub,
        on_first: Callable[[list[HubPerson]], object] | None,
        on_so_far: Callable[[list[HubPerson], Progress | None], object] | None,
        so_far_wanted: Callable[[], bool],
    ) -> None:
        self.client, self.hub = client, hub
        self.on_first, self.on_so_far, self.so_far_wanted = on_first, on_so_far, so_far_wanted
        self.memberships: list[tuple[Project, ProjectUser]] = []
        self.not_read: list[tuple[Project | None, HubError]] = []
        self.seen: SeenKept = {}  # each hub user's last sign-in worked out once, for every join
        self.last_progress: Progress | None = None
        self.all_read = asyncio.Event()
        #: The people told so far, joined as the memberships came (each telling joins only
        #: those read since the last, and the answer those read since the last telling).
        self.join: PeopleJoin | None = None
        self.joined = 0

    def found(self, finding: Finding) -> None:
        if finding.error is not None:
            self.not_read.append((finding.project, finding.error))
        elif finding.user is not None and finding.project is not None:
            self.memberships.append((finding.project, finding.user))

    async def hub_users(self) -> tuple[Sequence[HubUser] | None, str | None]:
        """The hub's users (None, and why: not offered, or not read), then the people so far
        told until every project is read."""
        on_first = self.on_first
        try:
            first = None if on_first is None else lambda head: on_first(hub_people(head, ()))
            users = await self.client.list_hub_users(self.hub.id, first=first)
        except HubError as error:
            if not_offered(error):
                return None, "this server does not list a hub's users"
            return None, str(error)
        if self.on_so_far is not None:
            await self._tell_so_far(users, self.on_so_far)
        return users, None

    async def _tell_so_far(
        self,
        users: Sequence[HubUser],
        on_so_far: Callable[[list[HubPerson], Progress | None], object],
    ) -> None:
        """Every hub user joined with the projects read so far, told at 1, 2, 4… seconds
        apart and at least :data:`SO_FAR_SPACING` times as long as the last telling took to
        be taken in, while what was told before has been taken in."""
        gap, told, told_at, cost, pending = 0.5, -1, 0.0, 0.0, False
        while not self.all_read.is_set():
            moment = time.perf_counter()
            ready = self.so_far_wanted()
            if pending and ready:  # taken in: what the telling cost, to the screen's index
                pending, cost = False, moment - told_at
            due = told_at + max(gap, cost * SO_FAR_SPACING)
            if (
                ready
                and not pending
                and moment >= due
                and len(self.memberships) != told  # nothing new: those shown stand
                and not (cost >= SO_FAR_COSTLY and nearly_read(self.last_progress))
            ):
                told, told_at, gap = len(self.memberships), moment, gap * 2
                on_so_far(self.joined_until(users, told), self.last_progress)
                pending = not self.so_far_wanted()
                if not pending:  # taken in at once (a short list)
                    cost = time.perf_counter() - told_at
            # While a telling is being taken in, and past the time one is due, asked again a
            # tenth of a second later; until then, not before it is due.
            wait = max(due - time.perf_counter(), SO_FAR_POLL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.all_read.wait(), SO_FAR_POLL if pending else wait)

    def joined_until(self, users: Sequence[HubUser] | None, count: int) -> list[HubPerson]:
        """Everyone joined with the first ``count`` memberships read (the hub's users are those
        of the first call: the one list read)."""
        if self.join is None:
            self.join = PeopleJoin(users, self.seen)
        self.join.add(self.memberships[self.joined : count])
        self.joined = count
        return self.join.people()

    async def project_users(
        self,
        concurrency: int,
        deadline: float | None,
        on_progress: Callable[[Progress], None],
    ) -> Progress:
        def progressed(progress: Progress) -> None:
            self.last_progress = progress
            on_progress(progress)

        try:
            return await search_people(
                self.client,
                EVERY_USER,
                [self.hub],
                on_finding=self.found,
                on_progress=progressed,
                concurrency=concurrency,
                deadline=deadline,
            )
        finally:
            self.all_read.set()  # the people so far are no longer told, however it ended

    def answer(
        self, users: Sequence[HubUser] | None, missing: str | None, progress: Progress
    ) -> HubPeople:
        hub = self.hub
        projects = list(progress.listed.get(hub.id, {}).values())
        lists: dict[int, list[ProjectUser]] = {
            p.id: [] for p in projects if (hub.id, p.id) in progress.answered
        }
        for project, user in self.memberships:
            if project.id in lists:
                lists[project.id].append(user)
        people = self.joined_until(users, len(self.memberships))
        kept = None if users is None else list(users)
        return HubPeople(hub, people, projects, self.not_read, missing, kept, lists)


class MatrixRow(Sequence[str]):
    """A person's cells, one a project: held as the cells that are not empty, so that a hub of
    50,000 people × 500 projects costs its memberships, not 25 million cells."""

    __slots__ = ("_filled", "_width")

    def __init__(self, width: int, filled: dict[int, str]) -> None:
        self._width = width
        self._filled = filled

    def __len__(self) -> int:
        return self._width

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._width))]
        if not -self._width <= index < self._width:
            raise IndexError(index)
        return self._filled.get(index % self._width, "")

    def __iter__(self) -> Iterator[str]:
        """Every cell, the empty ones too, built as one list (not a lookup a cell)."""
        return iter(every_cell(self._width, self._filled))

    def csv_row(self, head: Sequence[str]) -> SparseCsvRow:
        """The row as CSV after ``head`` (cells already CSV text), each filled cell through
        :func:`~hubtui.core.presenting.export.csv_text`: only the filled ones are looked at."""
        return SparseCsvRow(head, self._width, {i: csv_text(c) for i, c in self._filled.items()})

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Matrix:
    """People × projects: each cell a role, ``LIMITED`` or empty."""

    projects: list[Project]
    rows: list[tuple[HubPerson, MatrixRow]]


def access_matrix(answer: HubPeople) -> Matrix:
    """The access matrix of a hub's people, projects in the order listed, people by email."""
    projects = answer.projects
    where = {project.id: n for n, project in enumerate(projects)}
    rows = []
    for person in sorted(answer.people, key=lambda p: (p.email.casefold(), p.name)):
        filled: dict[int, str] = {}
        for project, user in person.memberships:
            at = where.get(project.id)
            if at is not None:
                filled[at] = access_cell(user)
        rows.append((person, MatrixRow(len(projects), filled)))
    return Matrix(projects, rows)


def pending_invitations(people: Iterable[HubPerson]) -> list[HubPerson]:
    """Those whose invitation the server says was not accepted (``IsActivated`` false)."""
    return [p for p in people if p.hub_user is not None and p.hub_user.is_activated is False]


def resend_change(hub: Hub, person: HubPerson) -> Change:
    """The change that sends ``person``'s invitation again: sent the one way
    (:func:`~hubtui.core.changes.sending.send_change`), which first reads the hub's users again and
    sends nothing to a person who has accepted it since."""
    assert person.hub_user is not None, "an invitation is sent again to a hub user"
    return Change(
        time=now(),
        action=Action.RESEND,
        hub_id=hub.id,
        hub_name=hub.name,
        project_id="",
        project_name=None,
        user_id=str(person.person.id),
        email=person.email or None,
        # The published HubUserPut requires Role: their hub role as read, sent unchanged (and
        # checked again just before: a role changed since is never set back by a resend).
        before={"IsActivated": False, "Role": person.hub_user.role},
        after={"ResendHubInvite": True, "Role": person.hub_user.role},
        outcome="",
    )
