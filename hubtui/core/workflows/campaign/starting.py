"""A campaign started: the hub read whole, its population frozen in the store (one row a
membership, each with its reviewer of record, never the person themselves)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING

from hubtui.api.as_sent import new_record
from hubtui.api.identity import email_domain
from hubtui.core.access import LIMITED_CELL, person_key
from hubtui.core.changes.kinds import kind_of
from hubtui.core.clock import now, utc_now
from hubtui.core.collection import collector_paused
from hubtui.core.people.campaign_record import Campaign, population_sha256
from hubtui.core.people.hub import INACTIVE_AFTER_DAYS
from hubtui.core.people.review import Decision
from hubtui.core.store.campaigns import (
    CampaignHead,
    CampaignRow,
    campaigns_of,
    save_campaign,
)
from hubtui.core.workflows.campaign.population import (
    Advising,
    HubMember,
    Incomplete,
    Member,
    Population,
    limited_advice,
    read_population,
)
from hubtui.core.workflows.campaign.records import Refused, read_campaign
from hubtui.core.workflows.team import Decider, decider_in

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.changes.record import Change
    from hubtui.core.people.search import Progress
    from hubtui.core.store.repository import Store
    from hubtui.core.store.server_store import ServerStore


__all__ = [
    "StartAsked",
    "Started",
    "freeze",
    "start",
]


@dataclass(frozen=True)
class StartAsked:
    """What ``campaign start`` was asked."""

    stale_days: int | None = None
    due: str = ""
    if_no_answer: str = "keep"
    reviewers: tuple[str, ...] = ()
    """Those named (empty: the project's Admins, else the hub's)."""
    name: str = ""
    since_last: bool = False
    allow_incomplete: bool = False
    allow_empty: bool = False
    inactive_after: int = INACTIVE_AFTER_DAYS
    """The days without a sign-in after which a row is recommended for removal."""


@dataclass
class Started:
    campaign: Campaign
    not_read: str = ""


def freeze(
    read: Population,
    asked: StartAsked,
    owner: str,
    earlier: Campaign | None = None,
    *,
    owner_account: str = "",
    advising: Advising | None = None,
) -> tuple[dict[str, str], list[CampaignRow]]:
    """The population as a campaign's head and rows: one row a membership (within ``--stale``,
    when asked), each with its reviewer of record (by address, and by account Id where the
    hub's lists name one), never the person themselves. ``owner_account``: the account the
    owner's role acts for (the reviewer of record of a row no one else may decide)."""
    stale_before = None
    if asked.stale_days is not None:
        stale_before = datetime.now(UTC) - timedelta(days=asked.stale_days)
    hub_users = read.hub_users or {}
    hub_admins = sorted(
        (u.email, uid) for uid, u in hub_users.items() if u.role == "Admin" and u.email
    )
    named = _named(asked.reviewers, hub_users)
    kept_before = _kept_before(earlier)
    facts = _RowFacts(read, advising)
    rows: list[CampaignRow] = []
    packets: dict[str, dict[str, object]] = {}
    for project_id, project_name in read.projects:
        members = read.lists.get(project_id)
        if members is None:
            continue
        reviewers = (
            named
            or sorted((m.email, m.user_id) for m in members if m.access == "Admin" and m.email)
            or hub_admins
            or [(owner, owner_account)]
        )
        packets[project_id] = {"name": project_name, "reviewers": [r for r, _ in reviewers]}
        reviewer_of = _reviewer_of(reviewers, (owner, owner_account))
        first = reviewers[0]
        first_id = first[1]
        for m in members:
            user_id, email, name, role, access = m
            hub_user = hub_users.get(user_id)
            if stale_before is not None and hub_user is not None:
                if hub_user.seen is not None and hub_user.seen >= stale_before:
                    continue
            if first_id and user_id and user_id != first_id:  # reviewer_of says so: nearly all
                reviewer, reviewer_id = first
            else:
                reviewer, reviewer_id = reviewer_of(email, user_id)
            kept = kept_before.get((project_id, user_id, access), "") if kept_before else ""
            # the row's facts: the person's own, or a limited reader's by their domain
            person = None if hub_user is None else hub_user.facts
            seen, invitation, outside, advice, reason = person or _NO_FACTS
            through = ""
            if access == LIMITED_CELL:
                through = email_domain(email) or ""
                advice, reason = facts.limited(email, through)
            # one tuple a row, made once
            rows.append(
                new_record(
                    CampaignRow,
                    (
                        len(rows),
                        project_id,
                        project_name,
                        user_id,
                        email,
                        name,
                        role,
                        "" if hub_user is None else hub_user.role,
                        access,
                        reviewer,
                        kept,
                        reviewer_id,
                        seen,
                        invitation,
                        through,
                        facts.projects[user_id],
                        outside,
                        advice,
                        reason,
                    ),
                )
            )
    return _head(read, asked, owner, rows, packets), rows


_NO_FACTS = ("", "", "", "", "")
#: A membership's account Id (:attr:`Member.user_id`).
_USER_ID = itemgetter(Member._fields.index("user_id"))


class _RowFacts:
    """What a row's facts are made of beside the person's own (their sign-ins and invitation,
    judged by why's table for the hub as their hub record is read): how many projects each
    person is in, and a limited reader's recommendation (the domain gives the access: why's
    table for the project), once per domain."""

    def __init__(self, read: Population, advising: Advising | None) -> None:
        self.hub, self.advising = read.hub, advising
        # each membership's account Id, counted in C (a firm's 100,000: 50 ms in a generator)
        counted = Counter(map(_USER_ID, chain.from_iterable(read.lists.values())))
        # each count's text made once (a firm's 100,000 rows share a few dozen)
        texts: dict[int, str] = {}
        self.projects = {u: texts.setdefault(n, str(n)) for u, n in counted.items()}
        self.limited_by: dict[str, tuple[str, str]] = {}

    def limited(self, email: str, through: str) -> tuple[str, str]:
        """A limited reader's recommendation and its reason (the domain gives the access: why's
        table for the project), once per domain."""
        if self.advising is None:
            return "", ""
        if through not in self.limited_by:
            found = limited_advice(self.hub, email, self.advising)
            self.limited_by[through] = ("", "") if found is None else (found.decision, found.reason)
        return self.limited_by[through]


def _head(
    read: Population,
    asked: StartAsked,
    owner: str,
    rows: list[CampaignRow],
    packets: dict[str, dict[str, object]],
) -> dict[str, str]:
    """The campaign's head: what was asked, when and by whom, its counts and the sha256 its
    rows are checked against on every read."""
    counts = {
        "memberships": len(rows),
        "people": len({r.user_id for r in rows}),
        "projects": len(packets),
        "packets": packets,
    }
    head = {
        "hub": read.hub.id,
        "hub_name": read.hub.name,
        "name": asked.name or f"Review of {read.hub.name}",
        "owner": owner,
        "started": now(),
        "read_at": read.read_at,
        "due": asked.due,
        "if_no_answer": asked.if_no_answer,
        "scope": "all" if asked.stale_days is None else f"stale {asked.stale_days}d",
        "counts": json.dumps(counts, ensure_ascii=False, sort_keys=True),
        "sha256": population_sha256(rows),
        "not_read": read.incomplete_words(),
    }
    return head


def _named(reviewers: Sequence[str], hub_users: dict[str, HubMember]) -> list[tuple[str, str]]:
    """The reviewers named, each with their account Id where the hub's users name one."""
    if not reviewers:
        return []
    by_email = {person_key(u.email): uid for uid, u in hub_users.items() if u.email}
    return [(r, by_email.get(person_key(r), "")) for r in reviewers]


def _reviewer_of(
    reviewers: Sequence[tuple[str, str]], owner: tuple[str, str]
) -> Callable[[str, str], tuple[str, str]]:
    """A member's reviewer of record in a packet (address, account Id): its first reviewer who
    is not them (by account where both are known, else by address), else the owner."""

    def same(reviewer: tuple[str, str], email: str, user_id: str) -> bool:
        if reviewer[1] and user_id:
            return reviewer[1] == user_id
        return person_key(reviewer[0]) == person_key(email)

    first = reviewers[0] if reviewers else owner

    def reviewer_of(email: str, user_id: str) -> tuple[str, str]:
        if reviewers and not same(first, email, user_id):  # nearly every member
            return first
        return next((r for r in reviewers if not same(r, email, user_id)), owner)

    return reviewer_of


def _kept_before(earlier: Campaign | None) -> dict[tuple[str, str, str], str]:
    """``--since-last``: each membership kept in the hub's last closed campaign, unchanged."""
    if earlier is None:
        return {}
    return {
        (s.row.project, s.row.user_id, s.row.access): (
            f"kept in campaign {earlier.number} by {s.by or 'the default'}"
        )
        for s in earlier.states.values()
        if earlier.at_close(s)[0] is Decision.KEEP
    }


async def start(
    client: HubClient,
    hub: Hub,
    server_store: ServerStore,
    owner: str,
    asked: StartAsked,
    *,
    concurrency: int,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    logged: Callable[[], Sequence[Change]] = tuple,
) -> Started:
    """A campaign started: the hub read whole and frozen in the store. Read in part, it is
    refused (:class:`Incomplete`) unless ``allow_incomplete``, which the campaign records.
    ``logged``: the changes hubtui made on this server (blocking; when it sent an invitation,
    which the server does not say)."""
    if server_store.team is not None:  # a role the roster does not name: told before the read
        await asyncio.to_thread(_may_start, server_store, owner)
    invitations = _invitations(await asyncio.to_thread(logged), hub.id)
    advising = Advising(utc_now(), asked.inactive_after, invitations=invitations)
    read = await read_population(
        client,
        hub,
        concurrency=concurrency,
        seen=asked.stale_days is not None,
        advising=advising,
        on_progress=on_progress,
    )
    if not read.complete and not asked.allow_incomplete:
        raise Incomplete(
            f"the hub was not read whole, so no campaign was made: {read.incomplete_words()}"
        )

    def write() -> Campaign:
        with server_store.open() as store, collector_paused():
            decider = _decider(store, server_store, owner)  # again: the roster may have moved
            earlier = None
            if asked.since_last:
                earlier = _last_closed(store, server_store, hub.id)
            head, rows = freeze(
                read,
                asked,
                owner,
                earlier,
                owner_account=min(decider.accounts, default=""),
                advising=advising,
            )
            if not rows and not asked.allow_empty:
                scope = (
                    "the hub has no membership"
                    if asked.stale_days is None
                    else f"nobody matches --stale {asked.stale_days}d"
                )
                raise Refused(
                    f"{scope}: no campaign started (a campaign is kept for good; "
                    "--allow-empty makes it all the same)."
                )
            kept = {"origin": server_store.origin, "profile": server_store.profile or "", **head}
            number = save_campaign(store, kept, rows)
            # What was just written, as written: no event yet, nothing to read back.
            return Campaign(CampaignHead(number, **kept), rows, [])

    campaign = await asyncio.to_thread(write)
    return Started(campaign, read.incomplete_words())


def _may_start(server_store: ServerStore, owner: str) -> None:
    """:class:`Refused` when the database role is not in the team roster of this server."""
    with server_store.open() as store:
        _decider(store, server_store, owner)


def _decider(store: Store, server_store: ServerStore, owner: str) -> Decider:
    """Who starts the campaign (:class:`Refused`: a role the team roster does not name)."""
    decider = decider_in(store, server_store.origin, owner)
    if decider.team and not decider.accounts:
        raise Refused(f"{decider.refusal()}; no campaign was made.")
    return decider


def _invitations(changes: Sequence[Change], hub: str) -> dict[str, list[Change]]:
    """The invitations to ``hub`` among ``changes``, by the address's key, oldest first."""
    found: dict[str, list[Change]] = defaultdict(list)
    for change in changes:
        if change.hub_id == hub and change.email and kind_of(change).invitation:
            found[person_key(change.email)].append(change)
    return found


def _last_closed(store: Store, server_store: ServerStore, hub: str) -> Campaign | None:
    for head in reversed(campaigns_of(store, server_store.origin, server_store.profile or "")):
        if head.hub != hub:
            continue
        campaign = read_campaign(store, head.id)
        if campaign.closed is not None:
            return campaign
    return None
