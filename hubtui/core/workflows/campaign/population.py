"""A hub read whole for a campaign: its projects, each project's members and the hub's users,
kept as the few strings a campaign needs as soon as they are read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from hubtui.api import HubError
from hubtui.api.as_sent import (
    SentHubUser,
    SentProjectUser,
    SignedIn,
    hub_user_as_sent,
    hub_user_signed_in,
    new_record,
    project_user_as_sent,
    text_of,
)
from hubtui.api.models import HubUser, ProjectUser
from hubtui.core.access import LIMITED_CELL, person_key
from hubtui.core.changes.history import last_invitation
from hubtui.core.clock import now
from hubtui.core.people.advice import Advice, Facts, Kept, advice_of, outside_tenant
from hubtui.core.people.search import EVERY_USER, Finding, search_people
from hubtui.core.signins import LastSeen, last_seen

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.api.models import Project
    from hubtui.core.changes.record import Change
    from hubtui.core.people.search import Progress


__all__ = [
    "Advising",
    "HubMember",
    "PersonFacts",
    "Incomplete",
    "Member",
    "Population",
    "hub_member_of",
    "limited_advice",
    "member_of",
    "person_facts",
    "read_population",
]


class Incomplete(Exception):
    """The hub could not be read whole: no campaign is made of part of it."""


class Member(NamedTuple):
    """One membership as read: the few strings a campaign keeps of a project's user (a
    tuple: a firm's 100,000 made at a tuple's cost)."""

    user_id: str
    email: str
    name: str
    role: str
    access: str


class PersonFacts(NamedTuple):
    """What a reviewer decides a hub user on, as read at the start: when last seen, whether
    the invitation was accepted, whether the address is outside the hub's SSO tenant, and the
    recommendation why's table gives (:func:`~hubtui.core.people.advice.advice_of`)."""

    seen: str
    """``their last web sign-in, 2026-05-01``, ``never``, or ``unknown`` (unreadable)."""
    invitation: str
    """``accepted``, ``not accepted``, or empty (not sent)."""
    outside: str
    """The tenant the hub restricts sign-in to, when the address is outside it (else empty)."""
    advice: str
    """``keep``, ``reader``, ``remove``, or empty (none)."""
    reason: str


class HubMember(NamedTuple):
    """One user of the hub as read: their role and, when asked, when seen (``--stale``) and
    what a reviewer decides them on."""

    email: str
    role: str
    seen: datetime | None = None
    facts: PersonFacts | None = None


@dataclass(frozen=True)
class Advising:
    """What a row's recommendation is decided against: now, and the days without a sign-in
    after which a person counts as inactive."""

    now: datetime
    inactive_after: int
    clock: datetime = field(default_factory=lambda: datetime.now(UTC), compare=False)
    """This machine's clock as the read began: a sign-in dated past it (with the slack) is
    unknown (:func:`~hubtui.core.signins.last_seen`), read once for a firm's 100,000."""
    invitations: Mapping[str, Sequence[Change]] = field(default_factory=dict, compare=False)
    """The invitations to the hub hubtui sent, by the address's key (the change log's: the
    server does not say when one went out), oldest first."""
    memo: dict[tuple[object, ...], PersonFacts] = field(default_factory=dict, compare=False)
    """The facts of each kind of person worked out once: people alike in every fact the
    recommendation stands on (a firm's 100,000 fall into a few thousand kinds)."""


@dataclass
class Population:
    """A hub read whole for a campaign: its projects in the order listed, each project's
    members, the hub's users, and what could not be read."""

    hub: Hub
    projects: list[tuple[str, str]] = field(default_factory=list)
    lists: dict[str, list[Member]] = field(default_factory=dict)
    hub_users: dict[str, HubMember] | None = None
    not_read: list[str] = field(default_factory=list)
    hub_users_missing: str | None = None
    read_at: str = ""
    """When the last of it was read."""

    @property
    def complete(self) -> bool:
        return not self.not_read and self.hub_users_missing is None

    def members(self) -> dict[tuple[str, str], Member]:
        """Each membership read, by project and account Id."""
        return {(p, m.user_id): m for p, members in self.lists.items() for m in members}

    def incomplete_words(self) -> str:
        parts = []
        if self.hub_users_missing is not None:
            parts.append(f"the hub's users were not read ({self.hub_users_missing})")
        parts.extend(self.not_read)
        return "; ".join(parts)


def member_of(sent: object) -> Member | None:
    """A project's user as sent, as a :class:`Member` (None: not a record at all)."""
    if type(sent) is dict:
        try:  # as nearly every record is sent: each field under its API name, each a text
            user = sent["User"]
            user_id, email, first, last = (
                user["Id"],
                user["Email"],
                user["FirstName"],
                user["LastName"],
            )
            role, limited = sent["Role"], sent["IsLimited"]
        except (KeyError, TypeError):
            pass
        else:
            texts = type(email) is str and type(first) is str and type(last) is str
            if texts and type(role) is str:  # read once, no record between (a firm's 100,000)
                name = f"{first} {last}" if first and last else first or last
                access = LIMITED_CELL if limited is True else role
                return new_record(Member, (text_of(user_id), email, name, role, access))
    return _member_read(project_user_as_sent(sent))


def _member_read(found: SentProjectUser | None) -> Member | None:
    """:func:`member_of` of a record read field by field (any name, any kind of value)."""
    if found is None:
        return None
    first, last, role = found.first, found.last, found.role
    name = f"{first} {last}" if first and last else first or last
    access = LIMITED_CELL if found.is_limited is True else role
    return Member(found.user_id, found.email, name, role, access)


def hub_member_of(
    sent: object, *, seen: bool, hub: Hub | None = None, advising: Advising | None = None
) -> tuple[str, HubMember] | None:
    """A hub user as sent: their Id and :class:`HubMember` (None: not a record at all); with
    ``advising`` (and ``hub``), what a reviewer decides them on."""
    found = hub_user_as_sent(sent)
    if found is None:
        return None
    if not seen and advising is None:
        return found.user_id, HubMember(found.email, found.role)
    signed_in = hub_user_signed_in(sent)
    clock = None if advising is None else advising.clock
    when = None if signed_in is None else last_seen(signed_in, clock)
    facts = None
    if advising is not None and hub is not None and signed_in is not None and when is not None:
        facts = person_facts(hub, found, signed_in, when, advising)
    moment = None if when is None else when.moment
    return found.user_id, HubMember(found.email, found.role, moment, facts)


def person_facts(
    hub: Hub, found: SentHubUser, signed_in: SignedIn, seen: LastSeen, advising: Advising
) -> PersonFacts:
    """A hub user's facts, and the recommendation why's table gives them (no project: the
    hub's own rules, the sign-ins and the invitation), worked out once for each kind of
    person: alike in the invitation, the day and field last seen, the days since, and whether
    outside the SSO tenant."""
    outside = hub.restricted_tenant_domain or "" if outside_tenant(hub, found.email) else ""
    moment = seen.moment
    days = seen.days_before(advising.now)
    invited = _invitations_of(found, signed_in, advising)
    key = (
        signed_in.activation_sent,
        repr(signed_in.is_activated),
        invited[-1].time if invited else None,
        seen.latest,
        None if moment is None else moment.date(),
        days,
        seen.unreadable,
        outside,
    )
    known = advising.memo.get(key)
    if known is not None:
        return known
    user = signed_in.record(found.user_id)
    if user is None:
        facts = PersonFacts("unknown", "", "", "", "the hub's record of them could not be read")
    else:
        facts = _facts_of(hub, found.email, user, seen, outside, advising, invited)
    advising.memo[key] = facts
    return facts


def _invitations_of(
    found: SentHubUser, signed_in: SignedIn, advising: Advising
) -> Sequence[Change]:
    """The invitations hubtui sent that took effect, of a person whose invitation is not
    accepted (their address's, of their account or of none named yet), oldest first."""
    if signed_in.is_activated is not False or not advising.invitations:
        return ()
    theirs = advising.invitations.get(person_key(found.email), ())
    sent = [c for c in theirs if c.user_id in (None, "", found.user_id)]
    last = last_invitation(sent)
    return () if last is None else (last,)


def _facts_of(
    hub: Hub,
    email: str,
    user: HubUser,
    seen: LastSeen,
    outside: str,
    advising: Advising,
    invited: Sequence[Change] = (),
) -> PersonFacts:
    when = "unknown" if seen.unknown else seen.counted_from()
    activated = user.is_activated
    invitation = "accepted" if activated is True else "not accepted" if activated is False else ""
    if invited and activated is False:
        invitation += f" (sent by hubtui {invited[-1].time[:10]})"
    facts = Facts(
        email,
        hub,
        advising.now,
        person=user,
        history=invited,
        kept=Kept(inactive_after=advising.inactive_after),
        seen=seen,
    )
    advice = advice_of(facts)
    if advice is None:
        return PersonFacts(when, invitation, outside, "", "")
    return PersonFacts(when, invitation, outside, advice.decision, advice.reason)


def limited_advice(hub: Hub, email: str, advising: Advising) -> Advice | None:
    """What why's table recommends of a limited reader of a project (their domain gives the
    access, not the person)."""
    sent = {"User": {"Id": 0, "Email": email}, "Role": "Reader", "IsLimited": True}
    member = ProjectUser.model_validate(sent)
    facts = Facts(email, hub, advising.now, project_id="-", member=member)
    return advice_of(facts)


async def read_population(
    client: HubClient,
    hub: Hub,
    *,
    concurrency: int,
    seen: bool = False,
    advising: Advising | None = None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
) -> Population:
    """The hub's users and every project's users, every page, each kept as the few strings a
    campaign needs as soon as it is read (no model of each, no join of people): the reads of
    ``hubtui who`` and ``hub-users``, side by side. ``seen``: when each hub user was last
    seen, for ``--stale``."""
    read = Population(hub)
    failed: dict[str, str] = {}

    def collect(finding: Finding) -> None:
        if finding.error is not None:
            where = (
                "the project list"
                if finding.project is None
                else (f"project {finding.project.name} ({finding.project.id})")
            )
            failed[where] = str(finding.error)

    def keep(_: Hub, project: Project, sent: list[dict[str, object]]) -> None:
        read.lists[str(project.id)] = [m for m in map(member_of, sent) if m is not None]

    async def hub_users() -> None:
        try:
            sent = await client.list_hub_users_as_sent(hub.id, held=False)
        except HubError as error:
            read.hub_users_missing = str(error)
            return

        read.hub_users = dict(
            found
            for u in sent
            if (found := hub_member_of(u.root, seen=seen, hub=hub, advising=advising)) is not None
        )

    _, progress = await asyncio.gather(
        hub_users(),
        search_people(
            client,
            EVERY_USER,
            [hub],
            on_finding=collect,
            on_progress=on_progress,
            concurrency=concurrency,
            deadline=None,
            on_sent=keep,
            sent_held=False,  # each record read once, as the few strings kept
        ),
    )
    read.read_at = now()
    listed = progress.listed.get(hub.id)
    if listed is None:
        read.not_read.append(f"the project list: {failed.get('the project list', 'not read')}")
        return read
    read.projects = [(str(p.id), p.name or "") for p in listed.values()]
    for project_id, name in read.projects:
        if project_id not in read.lists:
            where = f"project {name} ({project_id})"
            read.not_read.append(f"{where}: {failed.get(where, 'no answer')}")
    return read
