"""A review campaign's use cases, for ``hubtui campaign`` (and the app, which runs the same
ones): start (the hub read whole and its population frozen), decide (a decisions file, or rows
marked), close (the decisions as one batch, previewed against a fresh read, sent through the one
engine and read back), and what is said of one (status, reminders, the report).

The store is the server's and profile's: a campaign of another server is never read, decided
or closed from here.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple

from hubtui.api import HubError
from hubtui.api.models import HubUser
from hubtui.core.access import LIMITED_CELL, person_key, sent_field
from hubtui.core.batches.file import BatchFileError, read_table
from hubtui.core.clock import now
from hubtui.core.people.campaign import Campaign, population_sha256
from hubtui.core.people.review import Decision, decision_named
from hubtui.core.people.search import EVERY_USER, Finding, search_people
from hubtui.core.signins import last_seen
from hubtui.core.store.campaigns import (
    CampaignEvent,
    CampaignHead,
    CampaignRow,
    Closed,
    add_events,
    campaign_events,
    campaign_head,
    campaign_rows,
    campaigns_of,
    roster,
    save_campaign,
)
from hubtui.core.workflows.team import Decider, decider_in
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.api.models import Project
    from hubtui.core.people.search import Progress
    from hubtui.core.store.repository import Store
    from hubtui.core.store.server_store import ServerStore

__all__ = [
    "DECISIONS_FILE_BYTES",
    "DECISIONS_FILE_ROWS",
    "FILE_COLUMNS",
    "Closed",
    "HubMember",
    "Incomplete",
    "Member",
    "Population",
    "Refused",
    "Reminder",
    "StartAsked",
    "Started",
    "campaigns_kept",
    "changed_since",
    "addresses_differ",
    "addresses_now",
    "check_file",
    "decide",
    "decider",
    "decisions_text",
    "delegate",
    "events_of",
    "freeze",
    "is_owner",
    "may_not_decide",
    "open_campaign",
    "previous_of",
    "read_file",
    "read_population",
    "reminders",
    "reviewers_now",
    "start",
]


class Incomplete(Exception):
    """The hub could not be read whole: no campaign is made of part of it."""


class Refused(Exception):
    """A campaign or a decisions file refused whole, in words."""


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


@dataclass
class Started:
    campaign: Campaign
    not_read: str = ""


class Member(NamedTuple):
    """One membership as read: the few strings a campaign keeps of a project's user (a
    tuple: a firm's 100,000 made at a tuple's cost)."""

    user_id: str
    email: str
    name: str
    role: str
    access: str


class HubMember(NamedTuple):
    """One user of the hub as read: their role and, when asked (``--stale``), when seen."""

    email: str
    role: str
    seen: datetime | None = None


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


def _text(value: object) -> str:
    """A value as sent, as text (None: empty); never an error, whatever its type."""
    if type(value) is str:
        return value
    return "" if value is None else str(value)


def member_of(sent: object) -> Member | None:
    """A project's user as sent, as a :class:`Member` (None: not a record at all)."""
    if not isinstance(sent, dict):
        return None
    try:  # each field under its API name, as nearly every record sends it
        user = sent["User"]
        found = (user["Id"], user["Email"], user["FirstName"], user["LastName"])
        role, limited = sent["Role"], sent["IsLimited"]
    except (KeyError, TypeError):  # a field absent, or sent under the name records accept too
        user = sent_field(sent, "User")
        user = user if isinstance(user, dict) else {}
        found = tuple(sent_field(user, n) for n in ("Id", "Email", "FirstName", "LastName"))
        role, limited = sent_field(sent, "Role"), sent_field(sent, "IsLimited")
    user_id, email, first, last = map(_text, found)
    role = _text(role)
    name = f"{first} {last}" if first and last else first or last
    return Member(user_id, email, name, role, LIMITED_CELL if limited is True else role)


def hub_member_of(sent: object, *, seen: bool) -> tuple[str, HubMember] | None:
    """A hub user as sent: their Id and :class:`HubMember` (None: not a record at all)."""
    if not isinstance(sent, dict):
        return None
    try:  # as in member_of
        user = sent["User"]
        user_id, email, role = user["Id"], user["Email"], sent["Role"]
    except (KeyError, TypeError):
        user = sent_field(sent, "User")
        user = user if isinstance(user, dict) else {}
        user_id, email = sent_field(user, "Id"), sent_field(user, "Email")
        role = sent_field(sent, "Role")
    moment = None
    if seen:
        try:
            moment = last_seen(HubUser.model_validate(sent)).moment
        except ValueError:
            moment = None  # unreadable: never seen, as far as anyone can tell
    return _text(user_id), HubMember(_text(email), _text(role), moment)


async def read_population(
    client: HubClient,
    hub: Hub,
    *,
    concurrency: int,
    seen: bool = False,
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
            sent = await client.list_hub_users_as_sent(hub.id)
        except HubError as error:
            read.hub_users_missing = str(error)
            return
        read.hub_users = dict(
            found for u in sent if (found := hub_member_of(u.root, seen=seen)) is not None
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


def freeze(
    read: Population,
    asked: StartAsked,
    owner: str,
    earlier: Campaign | None = None,
    *,
    owner_account: str = "",
) -> tuple[dict[str, str], list[CampaignRow]]:
    """The population as a campaign's head and rows: one row a membership (within ``--stale``,
    when asked), each with its reviewer of record (by address, and by account Id where the
    hub's lists name one), never the person themselves. ``owner_account``: the account the
    owner's role acts for (the reviewer of record of a row no one else may decide)."""
    stale_before = None
    if asked.stale_days is not None:
        stale_before = datetime.now(UTC) - timedelta(days=asked.stale_days)
    hub_users = read.hub_users or {}
    by_email = {person_key(u.email): uid for uid, u in hub_users.items() if u.email}
    hub_admins = sorted(
        (u.email, uid) for uid, u in hub_users.items() if u.role == "Admin" and u.email
    )
    named = [(r, by_email.get(person_key(r), "")) for r in asked.reviewers]
    kept_before = _kept_before(earlier)
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
        for m in members:
            hub_user = hub_users.get(m.user_id)
            if stale_before is not None and hub_user is not None:
                if hub_user.seen is not None and hub_user.seen >= stale_before:
                    continue
            reviewer, reviewer_id = reviewer_of(m.email, m.user_id)
            rows.append(
                CampaignRow(
                    len(rows),
                    project_id,
                    project_name,
                    m.user_id,
                    m.email,
                    m.name,
                    m.role,
                    "" if hub_user is None else hub_user.role,
                    m.access,
                    reviewer,
                    kept_before.get((project_id, m.user_id, m.access), "") if kept_before else "",
                    reviewer_id,
                )
            )
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
    return head, rows


def _reviewer_of(
    reviewers: Sequence[tuple[str, str]], owner: tuple[str, str]
) -> Callable[[str, str], tuple[str, str]]:
    """A member's reviewer of record in a packet (address, account Id): its first reviewer who
    is not them (by account where both are known, else by address), else the owner."""

    def same(reviewer: tuple[str, str], email: str, user_id: str) -> bool:
        if reviewer[1] and user_id:
            return reviewer[1] == user_id
        return person_key(reviewer[0]) == person_key(email)

    def reviewer_of(email: str, user_id: str) -> tuple[str, str]:
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
) -> Started:
    """A campaign started: the hub read whole and frozen in the store. Read in part, it is
    refused (:class:`Incomplete`) unless ``allow_incomplete``, which the campaign records."""
    read = await read_population(
        client,
        hub,
        concurrency=concurrency,
        seen=asked.stale_days is not None,
        on_progress=on_progress,
    )
    if not read.complete and not asked.allow_incomplete:
        raise Incomplete(
            f"the hub was not read whole, so no campaign was made: {read.incomplete_words()}"
        )

    def write() -> Campaign:
        with server_store.open() as store:
            decider = decider_in(store, server_store.origin, owner)
            if decider.team and not decider.accounts:
                raise Refused(f"{decider.refusal()}; no campaign was made.")
            earlier = None
            if asked.since_last:
                earlier = _last_closed(store, server_store, hub.id)
            head, rows = freeze(
                read, asked, owner, earlier, owner_account=min(decider.accounts, default="")
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


def _last_closed(store: Store, server_store: ServerStore, hub: str) -> Campaign | None:
    for head in reversed(campaigns_of(store, server_store.origin, server_store.profile or "")):
        if head.hub != hub:
            continue
        campaign = _read(store, head.id)
        if campaign.closed is not None:
            return campaign
    return None


def _read(store: Store, number: int) -> Campaign:
    head = campaign_head(store, number)
    if head is None:
        raise Refused(f"there is no campaign {number} in the store {store.where}.")
    return Campaign(head, campaign_rows(store, number), campaign_events(store, number))


def _events_again(store: Store, campaign: Campaign) -> Campaign:
    """The campaign with its events read again (others' too); its population is frozen, so
    its rows are not."""
    return Campaign(campaign.head, campaign.rows, campaign_events(store, campaign.number))


async def open_campaign(server_store: ServerStore, number: int) -> Campaign:
    """The campaign as the store holds it now; one of another server or profile is refused."""

    def read() -> Campaign:
        with server_store.open() as store:
            campaign = _read(store, number)
        head = campaign.head
        if head.origin != server_store.origin or head.profile != (server_store.profile or ""):
            raise Refused(
                f"campaign {number} is of {inert(head.origin)} (profile "
                f"{inert(head.profile or 'default')}), not of {inert(server_store.origin)}: "
                "it is decided and closed from there."
            )
        return campaign

    return await asyncio.to_thread(read)


async def campaigns_kept(server_store: ServerStore) -> list[Campaign]:
    """The campaigns of this server and profile, oldest first, each read whole."""

    def read() -> list[Campaign]:
        if not server_store.has_store():
            return []
        with server_store.open() as store:
            heads = campaigns_of(store, server_store.origin, server_store.profile or "")
            return [_read(store, head.id) for head in heads]

    return await asyncio.to_thread(read)


def events_of(
    campaign: Campaign,
    positions: Sequence[int],
    decision: Decision,
    reason: str,
    who: Decider | str,
) -> list[CampaignEvent]:
    """One decision for each of ``positions`` (the app's ``k``, ``r``, ``x``), by ``who`` (a
    file's operator, or the team store's :class:`Decider`); a row ``who`` may not decide (its
    own access, another's on the team store) is left out. The owner's word on a row in
    conflict is its resolution, as ``decide --resolve`` records it."""
    decider = who if isinstance(who, Decider) else Decider("", who)
    moment = now()
    owner = is_owner(campaign, decider)
    return [
        CampaignEvent(
            0,
            p,
            "resolve" if owner and campaign.states[p].conflict else "decide",
            decision.value,
            reason,
            decider.operator,
            moment,
            0,
            "",
        )
        for p in positions
        if not may_not_decide(campaign, decider, campaign.rows[p])
        or (
            owner
            and campaign.states[p].conflict
            and not decider.acts_for(campaign.rows[p].user_id, campaign.rows[p].email)
        )
    ]


def is_owner(campaign: Campaign, decider: Decider) -> bool:
    """Whether ``decider`` is the campaign's owner: the role that started it on a team store
    (the database's word), the operator setting on a file."""
    if decider.team:
        return decider.role == campaign.head.db_role
    return person_key(decider.operator) == person_key(campaign.head.owner)


def delegated(campaign: Campaign, role: str) -> set[str]:
    """The packets (project Ids) the owner gave ``role`` to decide."""
    return {e.reason for e in campaign.events if e.kind == "delegate" and e.decision == role}


def may_not_decide(campaign: Campaign, decider: Decider, row: CampaignRow) -> str:
    """Why ``decider`` may not decide ``row`` (empty: it may): never their own account; on a
    team store only as its reviewer of record, or given its packet by the owner."""
    if decider.acts_for(row.user_id, row.email):
        return (
            f"{inert(row.email)} decides on their own access: their row is {inert(row.reviewer)}'s"
        )
    if not decider.team or row.reviewer_id in decider.accounts:
        return ""
    if row.project in delegated(campaign, decider.role):
        return ""
    delegate = command_line(
        "campaign", "delegate", str(campaign.number), "--packet", row.project, "--to", decider.role
    )
    return (
        f"{inert(row.email)} in {inert(row.project_name)} is {inert(row.reviewer)}'s to decide "
        f"(the reviewer of record), not the role {inert(decider.role)}'s: the owner may give "
        f"the packet to it ({delegate})"
    )


async def decider(server_store: ServerStore, operator: str) -> Decider:
    """Who is at this server's store now (:func:`~hubtui.core.workflows.team.decider_in`)."""

    def read() -> Decider:
        with server_store.open() as store:
            return decider_in(store, server_store.origin, operator)

    return await asyncio.to_thread(read)


def changed_since(campaign: Campaign, before: Campaign | None) -> dict[str, int]:
    """What changed in the population since the hub's campaign before: memberships new, gone,
    and with another access (each by project and account Id)."""
    if before is None:
        return {}
    was = {(r.project, r.user_id): r.access for r in before.rows}
    now_is = {(r.project, r.user_id): r.access for r in campaign.rows}
    return {
        "campaign": before.number,
        "new": sum(1 for k in now_is if k not in was),
        "gone": sum(1 for k in was if k not in now_is),
        "other access": sum(1 for k, a in now_is.items() if k in was and was[k] != a),
    }


async def previous_of(server_store: ServerStore, campaign: Campaign) -> Campaign | None:
    """The hub's campaign before this one, of this server and profile (None: none)."""

    def read() -> Campaign | None:
        with server_store.open() as store:
            heads = campaigns_of(store, server_store.origin, server_store.profile or "")
            earlier = [h for h in heads if h.hub == campaign.head.hub and h.id < campaign.number]
            return _read(store, earlier[-1].id) if earlier else None

    return await asyncio.to_thread(read)


@dataclass(frozen=True)
class Reminder:
    """A message for one reviewer still behind: where it goes (their account's address now),
    what that address was when the campaign froze, and each packet's rows left."""

    to: str
    note: str
    """Why the address is not the frozen one, or why none is known (empty: as frozen)."""
    packets: tuple[tuple[str, int], ...]

    @property
    def left(self) -> int:
        return sum(count for _, count in self.packets)


async def addresses_now(client: HubClient, campaign: Campaign) -> dict[str, str] | None:
    """Each user of the campaign's hub's address now, by account Id (None: the hub's users
    could not be read)."""
    try:
        sent = await client.list_hub_users_as_sent(campaign.head.hub)
    except HubError:
        return None
    found = (hub_member_of(u.root, seen=False) for u in sent)
    return {user_id: member.email for user_id, member in filter(None, found)}


def reviewers_now(campaign: Campaign, now_at: dict[str, str] | None) -> dict[str, str]:
    """Each reviewer of record as frozen → the address their account has now, where it changed
    (``now_at``: the hub's users by account Id; None, not read: none changed as far as known)."""
    if now_at is None:
        return {}
    shown = {}
    for row in campaign.rows:
        now_is = now_at.get(row.reviewer_id) if row.reviewer_id else None
        if now_is is not None and person_key(now_is) != person_key(row.reviewer):
            shown[row.reviewer] = now_is
    return shown


def reminders(campaign: Campaign, now_at: dict[str, str] | None) -> list[Reminder]:
    """A reminder for each reviewer of record still behind (never one who has finished, never
    for a packet with no rows), addressed by account: at the account's address now where the
    hub's users were read (``now_at``), saying the change from the address frozen."""
    behind: dict[tuple[str, str], dict[str, int]] = {}
    for packet in campaign.packets:
        for s in campaign.left_of(packet.positions):
            who = (s.row.reviewer_id, s.row.reviewer if not s.row.reviewer_id else "")
            counts = behind.setdefault(who, {})
            counts[packet.name] = counts.get(packet.name, 0) + 1
    frozen = {
        (s.row.reviewer_id, s.row.reviewer if not s.row.reviewer_id else ""): s.row.reviewer
        for s in campaign.states.values()
    }
    said = []
    for key, counts in behind.items():
        account, _ = key
        was = frozen[key]
        to, note = was, ""
        if account and now_at is not None:
            now_is = now_at.get(account)
            if now_is is None:
                note = f"account {account} is no longer a user of the hub; its address was {was}"
            elif person_key(now_is) != person_key(was):
                to, note = now_is, f"the account's address since the freeze; it was {was}"
        elif "@" not in was:
            note = "no address is known: the campaign's owner, as the operator setting names them"
        said.append(Reminder(to, note, tuple(counts.items())))
    return sorted(said, key=lambda r: r.to.casefold())


# Deciding ---------------------------------------------------------------------------------------

#: The most a campaign's decisions file may hold: its bytes, and its rows (a firm's hub,
#: 100,000 memberships, several times over).
DECISIONS_FILE_BYTES = 64 * 1024 * 1024
DECISIONS_FILE_ROWS = 500_000
#: The columns of a campaign's decisions file, in order.
FILE_COLUMNS = (
    "campaign",
    "server",
    "hub",
    "packet",
    "project",
    "user_id",
    "email",
    "name",
    "access",
    "reviewer",
    "earlier",
    "decision",
    "reason",
)


@dataclass
class FileCheck:
    """A decisions file read against its campaign: the decisions it holds, the lines refused."""

    events: list[CampaignEvent] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    unchanged: int = 0
    """Lines that said what their row holds already (not recorded again)."""


def addresses_differ(campaign: Campaign, table: Sequence[tuple[int, dict[str, str]]]) -> bool:
    """Whether a line of a decisions file names its account by an address other than the one
    frozen: only then are the hub's users read, for the accounts' addresses now."""
    by_key = {(r.project, r.user_id): r.email for r in campaign.rows}
    for _, cells in table:
        frozen = by_key.get((cells.get("project", ""), cells.get("user_id", "")))
        if frozen is not None and person_key(cells.get("email", "")) != person_key(frozen):
            return True
    return False


def decisions_text(body: bytes) -> str:
    """A decisions file's bytes as text: UTF-8 (a byte order mark or none); a file a
    spreadsheet saved in another encoding is refused saying what it is and what to save it as."""
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise Refused(
            'it is UTF-16 text (a spreadsheet\'s "Unicode text"): save it as "CSV UTF-8" and '
            "decide again; nothing was recorded."
        )
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused(
            f'it is not UTF-8 text (byte {error.start + 1:,} is not): save it as "CSV UTF-8" '
            "and decide again; nothing was recorded."
        ) from None


def read_file(text: str) -> list[tuple[int, dict[str, str]]]:
    """A campaign's decisions file as each row with the line it starts on, read the one way
    every file hubtui takes back is read (:func:`~hubtui.core.batches.file.read_table`);
    :class:`Refused` says why it cannot be."""
    try:
        header, _, rows = read_table(
            text,
            most_rows=DECISIONS_FILE_ROWS,
            what="a campaign's decisions file",
            more_rows="the most a campaign's decisions file may hold",
        )
    except BatchFileError as error:
        raise Refused(f"{error}; nothing was recorded.") from None
    if header is not None and len(header) == 1 and header[0].count(";") >= 2:
        raise Refused(
            "its columns are separated by ';', not ',' (as a spreadsheet saves CSV where a "
            'comma is the decimal mark): save it as "CSV UTF-8 (comma delimited)"; nothing was '
            "recorded."
        )
    missing = [c for c in _FILE_NEEDS if c not in (header or [])]
    if missing:
        raise Refused(
            f"it lacks the column(s) {', '.join(missing)} of a campaign's decisions file "
            f"(hubtui campaign export writes them); nothing was recorded."
        )
    return rows


#: What a line of a decisions file must name: the membership (its project, its account's Id
#: and the address the campaign froze for it) and the decision.
_FILE_NEEDS = ("project", "user_id", "email", "decision")


@dataclass(frozen=True)
class _Said:
    """One line's decision on a row, as read."""

    line: int
    decision: Decision
    reason: str


def check_file(
    campaign: Campaign,
    server: str,
    table: Sequence[tuple[int, dict[str, str]]],
    who: Decider | str,
    *,
    resolve: bool = False,
    now_at: dict[str, str] | None = None,
) -> FileCheck:
    """Each line of a decisions file (:func:`read_file`) as an event, or refused with its
    line: a file of another campaign, hub or server is refused whole (:class:`Refused`),
    naming both. A line whose address is neither the one the campaign froze for its account
    nor the account's address now (``now_at``, by account Id, where the hub's users were read)
    — one column sorted apart from the other — is refused naming both; two lines of one row
    that disagree are refused naming both lines; a line that says what the row holds already
    is not recorded again (an export given back records only what changed)."""
    if shut := campaign.takes_no_decision():
        raise Closed(shut)
    decider = who if isinstance(who, Decider) else Decider("", who)
    if decider.team and not decider.accounts:
        raise Refused(f"{decider.refusal()}; nothing was recorded.")
    if resolve and not is_owner(campaign, decider):
        raise Refused(
            f"only the campaign's owner ({inert(campaign.head.db_role or campaign.head.owner)}) "
            "resolves a conflict; nothing was recorded."
        )
    check = FileCheck()
    head = campaign.head
    by_key = {(r.project, r.user_id): r for r in campaign.rows}
    refused: list[tuple[int, str]] = []
    said: dict[int, _Said] = {}
    disagreed: set[int] = set()
    for line, cells in table:
        for column, ours in (("campaign", str(head.id)), ("hub", head.hub), ("server", server)):
            theirs = cells.get(column, "")
            if theirs and theirs != ours:
                raise Refused(
                    f"line {line} is of {column} {inert(theirs)}, this campaign's is "
                    f"{inert(ours)}: the file is refused whole, nothing was recorded."
                )
        word = cells.get("decision", "").strip()
        if not word:
            continue  # not decided in this file
        row = by_key.get((cells.get("project", ""), cells.get("user_id", "")))
        if row is None:
            refused.append(
                (
                    line,
                    f"line {line}: account {inert(cells.get('user_id', ''))} in project "
                    f"{inert(cells.get('project', ''))} is not in the campaign's population",
                )
            )
            continue
        email = cells.get("email", "")
        now_is = (now_at or {}).get(row.user_id, row.email)
        if person_key(email) not in (person_key(row.email), person_key(now_is)):
            refused.append(
                (
                    line,
                    f"line {line}: account {inert(row.user_id)} is {inert(row.email)} in the "
                    f"campaign, but the line says {inert(email) or 'no address'}: a column sorted "
                    "apart from the others? nothing is recorded for it",
                )
            )
            continue
        decision = decision_named(word)
        if decision is None:
            refused.append(
                (line, f"line {line}: {inert(word)} is not a decision (keep, reader, remove)")
            )
            continue
        reason = cells.get("reason", "").strip()
        if decision is Decision.REMOVE and not reason:
            refused.append((line, f"line {line}: a removal needs a reason"))
            continue
        before = said.get(row.position)
        if before is None:
            said[row.position] = _Said(line, decision, reason)
        elif (before.decision, before.reason) != (decision, reason):
            disagreed.add(row.position)
            refused.append(
                (
                    line,
                    f"lines {before.line} and {line} decide {inert(row.email)} in "
                    f"{inert(row.project_name)} differently ({before.decision.value}, "
                    f"{decision.value}): neither is recorded",
                )
            )
    moment = now()
    for position, line_said in said.items():
        state = campaign.states[position]
        if position in disagreed:
            continue
        if (state.decision, state.reason) == (line_said.decision, line_said.reason):
            check.unchanged += 1
            continue  # what the row holds already: not recorded again, nor as this decider's
        why = may_not_decide(campaign, decider, state.row)
        if why and not (resolve and not decider.acts_for(state.row.user_id, state.row.email)):
            refused.append((line_said.line, f"line {line_said.line}: {why}"))
            continue
        check.events.append(
            CampaignEvent(
                0,
                position,
                "resolve" if resolve else "decide",
                line_said.decision.value,
                line_said.reason,
                decider.operator,
                moment,
                0,
                "",
            )
        )
    check.refused = [words for _, words in sorted(refused, key=lambda said: said[0])]
    return check


async def decide(
    server_store: ServerStore,
    campaign: Campaign,
    events: Sequence[CampaignEvent],
    *,
    bulk: str | None,
) -> Campaign:
    """The decisions recorded (nothing sent), as one act when many; the campaign read again.
    A resolution only from the owner (on a team store its role, which the database checks
    too)."""
    if shut := campaign.takes_no_decision():
        raise Closed(shut)

    def write() -> Campaign:
        with server_store.open() as store:
            if any(e.kind == "resolve" for e in events):
                for operator in {e.operator for e in events}:
                    if not is_owner(campaign, decider_in(store, server_store.origin, operator)):
                        owner = campaign.head.db_role or campaign.head.owner
                        raise Refused(
                            f"only the campaign's owner ({inert(owner)}) resolves a conflict."
                        )
            add_events(store, campaign.number, events, bulk=bulk if len(events) > 1 else None)
            return _events_again(store, campaign)

    return await asyncio.to_thread(write)


async def delegate(
    server_store: ServerStore, campaign: Campaign, packet: str, role: str, operator: str
) -> Campaign:
    """The owner gives a packet (its project's Id or name) to ``role``, a role of the team
    roster, to decide; kept as an event of the campaign (who, when). Only the owner's role may
    (the database refuses any other)."""
    if shut := campaign.takes_no_decision():
        raise Closed(shut)
    found = [p for p in campaign.packets if packet in (p.project, p.name)]
    if len(found) != 1:
        raise Refused(
            f"campaign {campaign.number} has {'no' if not found else 'more than one'} packet "
            f"{inert(packet)}: name it by its project's Id."
        )

    def write() -> Campaign:
        with server_store.open() as store:
            decider = decider_in(store, server_store.origin, operator)
            if not decider.team:
                raise Refused(
                    "a packet is given to a database role of the team store: alone, on this "
                    "machine's file, the operator decides every row but their own."
                )
            if not is_owner(campaign, decider):
                raise Refused(
                    f"only the campaign's owner ({inert(campaign.head.db_role)}) gives a packet "
                    "to another role."
                )
            if not any(e.role == role for e in roster(store, server_store.origin)):
                raise Refused(f"{inert(role)} is not in the team roster: it decides nothing.")
            event = CampaignEvent(
                0, -1, "delegate", role, found[0].project, operator, now(), 0, found[0].name
            )
            add_events(store, campaign.number, [event])
            return _events_again(store, campaign)

    return await asyncio.to_thread(write)
