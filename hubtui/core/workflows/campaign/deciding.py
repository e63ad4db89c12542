"""Deciding a campaign's rows: who may decide which (a file's operator, or the team store's
role and its accounts), a decisions file read as people edit it, the decisions recorded, and a
packet given to another role by the owner."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hubtui.core.access import account_of, person_key
from hubtui.core.batches.file import BatchFileError, read_table
from hubtui.core.clock import now
from hubtui.core.people.campaign_record import Campaign, Packet
from hubtui.core.people.review import Decision, decision_named
from hubtui.core.store.campaigns import (
    CampaignEvent,
    CampaignRow,
    Closed,
    Kind,
    add_events,
    roster,
)
from hubtui.core.workflows.campaign.records import Refused, events_again
from hubtui.core.workflows.team import Decider, decider_in
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    from hubtui.api.models import HubUser
    from hubtui.core.store.server_store import ServerStore


__all__ = [
    "ROW_FACTS",
    "row_facts",
    "DECISIONS_FILE_BYTES",
    "DECISIONS_FILE_ROWS",
    "FILE_COLUMNS",
    "FileCheck",
    "addresses_differ",
    "check_file",
    "decide",
    "decider",
    "decisions_text",
    "delegate",
    "delegated",
    "events_of",
    "is_owner",
    "may_not_decide",
    "read_file",
]


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
            position=p,
            kind=Kind.RESOLVE if owner and campaign.states[p].conflict else Kind.DECIDE,
            decision=decision.value,
            reason=reason,
            operator=decider.operator,
            moment=moment,
        )
        for p in positions
        if not may_not_decide(
            campaign,
            decider,
            campaign.rows[p],
            resolving=owner and bool(campaign.states[p].conflict),
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
    return {e.reason for e in campaign.events if e.kind == Kind.DELEGATE and e.decision == role}


def may_not_decide(
    campaign: Campaign, decider: Decider, row: CampaignRow, *, resolving: bool = False
) -> str:
    """Why ``decider`` may not decide ``row`` (empty: it may): never their own account; on a
    team store only as its reviewer of record, or given its packet by the owner; the owner
    ``resolving`` a conflict decides any row but their own."""
    if decider.acts_for(row.user_id, row.email):
        return (
            f"{inert(row.email)} decides on their own access: their row is {inert(row.reviewer)}'s"
        )
    if resolving or not decider.team or row.reviewer_id in decider.accounts:
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


# Deciding ---------------------------------------------------------------------------------------

#: The most a campaign's decisions file may hold: its bytes, and its rows (a firm's hub,
#: 100,000 memberships, several times over).
DECISIONS_FILE_BYTES = 64 * 1024 * 1024
DECISIONS_FILE_ROWS = 500_000
#: What a reviewer decides a row on, as read at the start, and why's recommendation: the
#: columns the export and the report carry for each row (:func:`row_facts`).
ROW_FACTS = (
    "hub_role",
    "last_sign_in",
    "invitation",
    "limited_through",
    "projects",
    "outside_tenant",
    "recommendation",
    "recommendation_reason",
)


def row_facts(row: CampaignRow) -> list[str]:
    """A row's :data:`ROW_FACTS`, in order."""
    return [
        row.hub_role,
        row.seen,
        row.invitation,
        row.through,
        row.projects,
        row.outside,
        row.advice,
        row.advice_reason,
    ]


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
    *ROW_FACTS,
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
    read = _Lines(campaign, server, now_at or {})
    for line, cells in table:
        read.take(line, cells)
    check = FileCheck()
    moment = now()
    for position, said in read.said.items():
        state = campaign.states[position]
        if position in read.disagreed:
            continue
        if (state.decision, state.reason) == (said.decision, said.reason):
            check.unchanged += 1
            continue  # what the row holds already: not recorded again, nor as this decider's
        why = may_not_decide(campaign, decider, state.row, resolving=resolve)
        if why:
            read.refused.append((said.line, f"line {said.line}: {why}"))
            continue
        check.events.append(
            CampaignEvent(
                position=position,
                kind=Kind.RESOLVE if resolve else Kind.DECIDE,
                decision=said.decision.value,
                reason=said.reason,
                operator=decider.operator,
                moment=moment,
            )
        )
    check.refused = [words for _, words in sorted(read.refused, key=lambda said: said[0])]
    return check


class _Lines:
    """A decisions file's lines read against the campaign, one at a time: each row's word
    (:attr:`said`), the rows two lines disagree on, and each line refused with its words."""

    def __init__(self, campaign: Campaign, server: str, now_at: dict[str, str]) -> None:
        head = campaign.head
        self.ours = (("campaign", str(head.id)), ("hub", head.hub), ("server", server))
        self.by_key = {(r.project, r.user_id): r for r in campaign.rows}
        self.now_at = now_at
        self.said: dict[int, _Said] = {}
        self.disagreed: set[int] = set()
        self.refused: list[tuple[int, str]] = []

    def take(self, line: int, cells: dict[str, str]) -> None:
        for column, ours in self.ours:
            theirs = cells.get(column, "")
            if theirs and theirs != ours:
                raise Refused(
                    f"line {line} is of {column} {inert(theirs)}, this campaign's is "
                    f"{inert(ours)}: the file is refused whole, nothing was recorded."
                )
        word = cells.get("decision", "").strip()
        if not word:
            return  # not decided in this file
        row = self.by_key.get((cells.get("project", ""), cells.get("user_id", "")))
        decision = decision_named(word)
        if row is None:
            why = (
                f"account {inert(cells.get('user_id', ''))} in project "
                f"{inert(cells.get('project', ''))} is not in the campaign's population"
            )
        elif decision is None:
            why = f"{inert(word)} is not a decision (keep, reader, remove)"
        else:
            reason = cells.get("reason", "").strip()
            why = self._refusal(row, cells.get("email", ""), decision, reason)
            if not why:
                self._said(line, row, decision, reason)
                return
        self.refused.append((line, f"line {line}: {why}"))

    def _refusal(self, row: CampaignRow, email: str, decision: Decision, reason: str) -> str:
        """Why a line of a row of the population is not taken (empty: it is)."""
        now_is = self.now_at.get(row.user_id, row.email)
        if person_key(email) not in (person_key(row.email), person_key(now_is)):
            return (
                f"account {inert(row.user_id)} is {inert(row.email)} in the campaign, but the "
                f"line says {inert(email) or 'no address'}: a column sorted apart from the "
                "others? nothing is recorded for it"
            )
        if decision is Decision.REMOVE and not reason:
            return "a removal needs a reason"
        return ""

    def _said(self, line: int, row: CampaignRow, decision: Decision, reason: str) -> None:
        """The row's word, once: the same word again is the same line; another is refused."""
        before = self.said.get(row.position)
        if before is None:
            self.said[row.position] = _Said(line, decision, reason)
        elif (before.decision, before.reason) != (decision, reason):
            self.disagreed.add(row.position)
            self.refused.append(
                (
                    line,
                    f"lines {before.line} and {line} decide {inert(row.email)} in "
                    f"{inert(row.project_name)} differently ({before.decision.value}, "
                    f"{decision.value}): neither is recorded",
                )
            )


async def decide(
    server_store: ServerStore,
    campaign: Campaign,
    events: Sequence[CampaignEvent],
    *,
    bulk: str | None,
    one_act: bool = False,
) -> Campaign:
    """The decisions recorded (nothing sent), as one act when many (``one_act``: even one, an
    act that says what it was: recommendations accepted); the campaign read again. A
    resolution only from the owner (on a team store its role, which the database checks
    too)."""
    if shut := campaign.takes_no_decision():
        raise Closed(shut)

    def write() -> Campaign:
        with server_store.open() as store:
            if any(e.kind == Kind.RESOLVE for e in events):
                for operator in {e.operator for e in events}:
                    if not is_owner(campaign, decider_in(store, server_store.origin, operator)):
                        owner = campaign.head.db_role or campaign.head.owner
                        raise Refused(
                            f"only the campaign's owner ({inert(owner)}) resolves a conflict."
                        )
            as_act = len(events) > 1 or one_act
            add_events(store, campaign.number, events, bulk=bulk if as_act else None)
            return events_again(store, campaign)

    return await asyncio.to_thread(write)


def _open_packet(campaign: Campaign, packet: str) -> Packet:
    """The one packet ``packet`` names (its project's Id or name) of a campaign that still
    takes decisions; :class:`Closed` or :class:`Refused` says why not."""
    if shut := campaign.takes_no_decision():
        raise Closed(shut)
    found = [p for p in campaign.packets if packet in (p.project, p.name)]
    if len(found) != 1:
        raise Refused(
            f"campaign {campaign.number} has {'no' if not found else 'more than one'} packet "
            f"{inert(packet)}: name it by its project's Id."
        )
    return found[0]


def account_named(users: Sequence[HubUser], email: str) -> tuple[str, str] | None:
    """The one account of the hub's users with address ``email``: its address as listed and
    its Id (None: none, or several)."""
    found = account_of(users, email, None)
    if found is None:
        return None
    return found.user.email or email, str(found.user.id)


async def reassign(
    server_store: ServerStore,
    campaign: Campaign,
    packet: str,
    to: tuple[str, str],
    note: str,
    operator: str,
) -> Campaign:
    """The owner makes ``to`` (address, account Id) the reviewer of record of a packet (its
    project's Id or name), with a note; kept as an event (who, when, the note). The decisions
    already made stay their deciders'; from now the packet's rows are the new reviewer's (on
    the team store the database holds the same rule)."""
    found = _open_packet(campaign, packet)
    if not note.strip():
        raise Refused("a reassignment is kept with why: give --note TEXT.")
    email, account = to

    def write() -> Campaign:
        with server_store.open() as store:
            if not is_owner(campaign, decider_in(store, server_store.origin, operator)):
                owner = campaign.head.db_role or campaign.head.owner
                raise Refused(f"only the campaign's owner ({inert(owner)}) reassigns a packet.")
            event = CampaignEvent(
                kind=Kind.REASSIGN,
                decision=account,
                reason=found.project,
                operator=operator,
                moment=now(),
                detail=f"{email} · {note.strip()}",
            )
            add_events(store, campaign.number, [event])
            return events_again(store, campaign)

    return await asyncio.to_thread(write)


async def delegate(
    server_store: ServerStore, campaign: Campaign, packet: str, role: str, operator: str
) -> Campaign:
    """The owner gives a packet (its project's Id or name) to ``role``, a role of the team
    roster, to decide; kept as an event of the campaign (who, when). Only the owner's role may
    (the database refuses any other)."""
    found = _open_packet(campaign, packet)

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
                kind=Kind.DELEGATE,
                decision=role,
                reason=found.project,
                operator=operator,
                moment=now(),
                detail=found.name,
            )
            add_events(store, campaign.number, [event])
            return events_again(store, campaign)

    return await asyncio.to_thread(write)
