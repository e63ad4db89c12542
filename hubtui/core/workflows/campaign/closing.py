"""A review campaign's close as a journal that can always be finished: the claim (the batch's id,
recorded before anything is sent), the sends (each change's ``pending`` line in the change log
before its request leaves, as every batch's), the read back, each row's outcome, and only then
the close. Interrupted anywhere (the store unreachable, the process killed, the terminal
closed), the campaign says "closing: interrupted"; the same close run again finishes it: what
the batch made is found in the change log and by reading the hub again, each unknown outcome is
settled by that read, and only what was never sent is sent.

Nothing the close sends leaves a project or the hub without an Admin (unless asked, said and
recorded), and why each decided change was not sent is kept with the outcomes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.batches import Evidence, Wanted, batches_in, prepare
from hubtui.core.batches.projects import new_batch_id
from hubtui.core.changes.actions import Outcome
from hubtui.core.changes.kinds import kind_of
from hubtui.core.clock import now
from hubtui.core.people.campaign_record import Campaign, RowState
from hubtui.core.people.review import Decision, wanted_of_decision
from hubtui.core.store import StoreError
from hubtui.core.store.campaigns import (
    CampaignEvent,
    Closed,
    Kind,
    append_after_close,
    campaign_events,
    claim_close,
    finish_close,
)
from hubtui.core.workflows.campaign.population import read_population
from hubtui.core.workflows.campaign.records import RecordChanged, Refused, open_campaign
from hubtui.core.workflows.ports import Question
from hubtui.core.workflows.run import Sending, run_preview
from hubtui.text import command_line

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.batches.running import Batch
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.changes.record import Change
    from hubtui.core.store.campaigns import CampaignRow
    from hubtui.core.store.server_store import ServerStore
    from hubtui.core.workflows.campaign.population import Population
    from hubtui.core.workflows.ports import Front
    from hubtui.core.workspace import Workspace

__all__ = [
    "CloseAsked",
    "CloseEnded",
    "CloseRun",
    "Closing",
    "close_campaign",
    "Finishing",
    "changes_of",
    "claim",
    "close_rows",
    "finish",
    "finishing",
    "made",
    "new_batch_id",
    "not_sent",
    "read_back",
    "settle",
    "verified",
]


@dataclass
class Closing:
    """What the close sends and why each row is as it is."""

    wanted: list[Wanted] = field(default_factory=list)
    sent_rows: list[RowState] = field(default_factory=list)
    not_sent: list[tuple[RowState, str]] = field(default_factory=list)
    defaults: int = 0
    no_admin: list[str] = field(default_factory=list)
    """``--allow-no-admin``: what is sent although it leaves a project or the hub without an
    Admin, in words (said in the preview, recorded with the close)."""


@dataclass(eq=False)
class _Send:
    """One change the close would send: the rows it carries out and its request."""

    states: list[RowState]
    wanted: Wanted
    removal: bool


def close_rows(
    campaign: Campaign,
    fresh: Population,
    *,
    allow_no_admin: bool = False,
    only: Set[int] | None = None,
) -> Closing:
    """The batch of the close: each row's removal or Reader, checked against ``fresh`` (a row
    whose person changed since the freeze — renamed, removed, another role — is not sent, and
    says why). A person removed once, whatever packets decided it. No change that would leave
    a project or the hub without an Admin is sent (:func:`_last_admins`) unless
    ``allow_no_admin``. ``only``: these rows alone (what an interrupted close never sent)."""
    closing = Closing()
    sends = _checked_sends(campaign, fresh, closing, only)
    for send, why in _last_admins(sends, fresh).items():
        if allow_no_admin:
            closing.no_admin.append(f"{send.wanted.email}: {why}")
            continue
        closing.not_sent.extend((s, why) for s in send.states)
        sends.remove(send)
    for send in sends:
        closing.sent_rows.extend(send.states)
        closing.wanted.append(send.wanted)
    return closing


def _checked_sends(
    campaign: Campaign, fresh: Population, closing: Closing, only: Set[int] | None
) -> list[_Send]:
    """Each change the decisions ask for that ``fresh`` shows is still the one decided; the
    rows that are not, in ``closing.not_sent`` with why."""
    hub = campaign.head
    now_in = fresh.members()
    sends: list[_Send] = []
    removing: dict[str, list[RowState]] = {}
    for state in campaign.states.values():
        if only is not None and state.row.position not in only:
            continue
        decision, _ = campaign.at_close(state)
        if state.decision is None and not state.conflict:
            closing.defaults += 1
        if decision is Decision.KEEP:
            continue
        row = state.row
        if row.project not in fresh.lists:  # not read now: nothing is known, nothing sent
            closing.not_sent.append((state, "its project's users could not be read now"))
            continue
        held = now_in.get((row.project, row.user_id))
        if held is None:
            closing.not_sent.append((state, "no longer in the project"))
            continue
        access = held.access
        if person_key(held.email) != person_key(row.email):
            closing.not_sent.append((state, f"the account's address is now {held.email}"))
            continue
        if access != row.access:
            closing.not_sent.append((state, f"was {row.access} when frozen, now {access}"))
            continue
        if decision is Decision.READER:
            if access == "Reader":
                closing.not_sent.append((state, "Reader already"))
                continue
            [wanted] = wanted_of_decision(
                Decision.READER,
                hub.hub,
                hub.hub_name,
                row.email,
                reader_in=[(row.project, row.project_name)],
                user_id=row.user_id,
            )
            sends.append(_Send([state], wanted, removal=False))
        else:
            removing.setdefault(row.user_id, []).append(state)
    sends += _removals(campaign, fresh, closing, removing)
    return sends


def _removals(
    campaign: Campaign, fresh: Population, closing: Closing, removing: dict[str, list[RowState]]
) -> list[_Send]:
    """Each account's removal from the hub, one for every packet that decided it, while the
    hub's users read now show it as it was frozen; the others in ``closing.not_sent``."""
    hub = campaign.head
    hub_users = fresh.hub_users or {}
    sends: list[_Send] = []
    for user_id, states in removing.items():
        hub_user = hub_users.get(user_id)
        first = states[0].row
        if fresh.hub_users is None:
            closing.not_sent.extend((s, "the hub's users could not be read now") for s in states)
            continue
        if hub_user is None:
            closing.not_sent.extend((s, "no longer a user of the hub") for s in states)
            continue
        if hub_user.role != first.hub_role:
            closing.not_sent.extend(
                (s, f"hub role was {first.hub_role or 'none'} when frozen, now {hub_user.role}")
                for s in states
            )
            continue
        [wanted] = wanted_of_decision(
            Decision.REMOVE,
            hub.hub,
            hub.hub_name,
            first.email,
            memberships=[(s.row.project, s.row.project_name) for s in states],
            user_id=user_id,
            evidence=Evidence(hub_role=first.hub_role),
        )
        sends.append(_Send(states, wanted, removal=True))
    return sends


def _last_admins(sends: Sequence[_Send], fresh: Population) -> dict[_Send, str]:
    """The changes that, sent together, would leave a project or the hub without an Admin (as
    ``fresh`` holds them now), each with the words that say so. A removal takes its person out
    of every project of the hub; a Reader change out of its project's Admins."""
    held: dict[_Send, str] = {}
    removed = {s.wanted.user_id: s for s in sends if s.removal}
    hub_admins = {u for u, user in (fresh.hub_users or {}).items() if user.role == "Admin"}
    if hub_admins and hub_admins <= removed.keys():
        for user_id in sorted(hub_admins):
            held[removed[user_id]] = _no_admin_words(
                "the hub", [removed[u].wanted.email for u in sorted(hub_admins)]
            )
    names = dict(fresh.projects)
    for project, members in fresh.lists.items():
        admins = {m.user_id: m.email for m in members if m.access == "Admin"}
        taking: dict[str, _Send] = {u: removed[u] for u in admins if u in removed}
        for send in sends:
            if not send.removal and send.wanted.project_id == project:
                if send.wanted.user_id in admins:
                    taking[str(send.wanted.user_id)] = send
        if admins and admins.keys() <= taking.keys():
            words = _no_admin_words(names.get(project) or project, list(admins.values()))
            for send in taking.values():
                held.setdefault(send, words)
    return held


def _no_admin_words(where: str, admins: list[str]) -> str:
    if len(admins) == 1:
        return f"{admins[0]} is the only Admin of {where}: it would be left with none"
    return f"it would leave {where} with no Admin (its Admins: {', '.join(admins)})"


async def claim(
    server_store: ServerStore, campaign: Campaign, operator: str, batch: str, detail: str
) -> None:
    """The close claimed before anything is sent, naming its batch: claimed twice (this
    process or another), nothing is sent twice (:class:`Closed`)."""

    def write() -> None:
        with server_store.open() as store:
            claim_close(store, campaign.number, operator, now(), batch, detail)

    await asyncio.to_thread(write)


def read_back(decision: Decision, state: RowState, after: Population) -> tuple[bool, str]:
    """Whether the decided change holds in ``after`` (a list read back whole: a list not read
    proves nothing), and the words that say so."""
    row = state.row
    if decision is Decision.REMOVE:
        if after.hub_users is None:
            return False, "NOT VERIFIED: not read back"
        gone = row.user_id not in after.hub_users
        gone = gone and (row.project, row.user_id) not in after.members()
        return gone, "verified: not in the hub" if gone else "NOT VERIFIED: still in the hub"
    if row.project not in after.lists:
        return False, "NOT VERIFIED: not read back"
    member = after.members().get((row.project, row.user_id))
    held = None if member is None else member.access
    ok = held == "Reader"
    return ok, "verified: Reader" if ok else f"NOT VERIFIED: {held or 'not in the project'}"


def _outcome(campaign: Campaign, state: RowState, moment: str, said: str) -> CampaignEvent:
    return CampaignEvent(
        position=state.row.position,
        kind=Kind.OUTCOME,
        decision=campaign.at_close(state)[0].value,
        operator=campaign.head.owner,
        moment=moment,
        detail=said,
    )


def verified(
    campaign: Campaign,
    closing: Closing,
    after: Population,
    changes: Sequence[Change] = (),
) -> list[CampaignEvent]:
    """Each changed membership read back: verified, or not (loudly) — an event a row. With the
    batch's ``changes`` (the change log's lines of the close's batch), a change the server
    refused is its failure in the server's words, and one whose outcome is unknown and that the
    read does not show is unknown."""
    moment = now()
    by_row = {key: c for c in changes if (key := _key(c)) is not None}
    said = []
    for state in closing.sent_rows:
        decision = campaign.at_close(state)[0]
        row = state.row
        key = _row_key(decision, row)
        change = by_row.get(key)
        holds, words = read_back(decision, state, after)
        if change is not None and change.outcome == Outcome.FAILED:
            words = f"failed: {change.detail or 'refused'}"
        elif change is not None and change.outcome in (Outcome.PENDING, Outcome.UNKNOWN):
            words = words if holds else f"unknown ({words})"
        said.append(_outcome(campaign, state, moment, words))
    return said


def not_sent(campaign: Campaign, closing: Closing) -> list[CampaignEvent]:
    """Each decided change the close did not send, with why (renamed since, Reader already,
    the last Admin…): kept with the close, so the report says it, not only the terminal."""
    moment = now()
    return [
        _outcome(campaign, state, moment, f"not sent: {why}") for state, why in closing.not_sent
    ]


# Finishing an interrupted close -----------------------------------------------------------------


@dataclass
class Finishing:
    """An interrupted close as found again: its batch, the rows it carried out or tried (each
    outcome settled by the hub read now), the unknown changes those reads settle, and the rows
    it never sent."""

    batch: str
    outcomes: list[CampaignEvent] = field(default_factory=list)
    settled: list[tuple[Change, bool, str]] = field(default_factory=list)
    """Each change of the batch whose outcome was unknown: whether the read shows it took."""
    never_sent: set[int] = field(default_factory=set)
    made: int = 0
    """Changes of the batch that took effect before the interruption."""


def _row_key(decision: Decision, row: CampaignRow) -> tuple[str, str]:
    """The key of the change that carries out ``row``'s decision (as :func:`_key` names a
    change): a removal by its account, a Reader change by its project and account."""
    return ("", row.user_id) if decision is Decision.REMOVE else (row.project, row.user_id)


def _key(change: Change) -> tuple[str, str] | None:
    """The row a change of a close's batch carried out: a removal by its account, a Reader
    change by its project and account."""
    carries = kind_of(change).carries
    if carries == "remove":
        return ("", str(change.user_id or ""))
    if carries == "role":
        return (change.project_id, str(change.user_id or ""))
    return None


def finishing(
    campaign: Campaign, batch: str, changes: Sequence[Change], fresh: Population
) -> Finishing:
    """What the interrupted close of ``batch`` did, row by row, from its changes in the change
    log and the hub read now: a change that took (or whose unknown outcome the read settles as
    taken) is the row's outcome, read back; one the server refused is its failure; one that did
    not take, or never left, is sent now. Nothing is sent twice."""
    found = Finishing(batch)
    by_row = {key: c for c in changes if (key := _key(c)) is not None}
    moment = now()
    for state in campaign.states.values():
        decision, _ = campaign.at_close(state)
        if decision is Decision.KEEP:
            continue
        row = state.row
        key = _row_key(decision, row)
        change = by_row.get(key)
        if change is None:
            found.never_sent.add(row.position)
            continue
        holds, said = read_back(decision, state, fresh)
        outcome = change.outcome
        if outcome in (Outcome.PENDING, Outcome.UNKNOWN):
            if "not read back" in said:
                found.outcomes.append(_outcome(campaign, state, moment, f"unknown ({said})"))
                continue
            words = "the hub read again shows it" if holds else "the hub read again does not"
            found.settled.append((change, holds, words))
            if not holds:
                found.never_sent.add(row.position)
                continue
        elif outcome == Outcome.FAILED:
            found.outcomes.append(
                _outcome(campaign, state, moment, f"failed: {change.detail or 'refused'}")
            )
            continue
        found.made += 1
        found.outcomes.append(_outcome(campaign, state, moment, f"{said} (batch {batch})"))
    return found


def changes_of(log: ChangeLog, batch: str) -> list[Change]:
    """The changes of ``batch`` in this server's change log (and the team's trail), each as
    its last line says (blocking: it reads the file)."""
    return batches_in(log).get(batch, [])


def made(batch: Batch | None) -> int:
    """How many changes of a batch sent took effect."""
    return 0 if batch is None else batch.outcome_counts()[Outcome.DONE]


def _never_sent(batch: Batch) -> int:
    """How many of a batch's changes were never sent (it was stopped before their turn)."""
    ended = batch.outcome_counts()
    return len(batch.steps) - sum(ended.values()) + ended[Outcome.NOT_SENT]


def settle(log: ChangeLog, finding: Finishing) -> None:
    """The unknown changes of the batch settled in the change log by the read (each logged)."""
    for change, took, words in finding.settled:
        log.settle(change, took, words)


async def finish(
    server_store: ServerStore,
    campaign: Campaign,
    events: Sequence[CampaignEvent],
    operator: str,
    detail: str,
) -> Campaign:
    """Every outcome recorded, then the close itself, in one transaction: the campaign is
    closed only once each row says what happened to it."""

    def write() -> Campaign:
        with server_store.open() as store:
            append_after_close(store, campaign.number, events)
            finish_close(store, campaign.number, operator, now(), detail)
            return Campaign(campaign.head, campaign.rows, campaign_events(store, campaign.number))

    return await asyncio.to_thread(write)


# The run -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CloseAsked:
    """What a close was asked: the campaign, whether to send what leaves no Admin, whether
    only to print the requests."""

    number: int
    allow_no_admin: bool = False
    dry_run: bool = False


@dataclass
class CloseRun:
    """A close as planned, for its front to show before it asks: the campaign, its batch (new,
    or the one an interrupted close claimed), what that close did (None: none was
    interrupted), and what is sent now and why each other row is not."""

    campaign: Campaign
    batch: str
    found: Finishing | None
    plan: Closing

    @property
    def question(self) -> str:
        """What the front asks, ``Close campaign 3 and send`` (or finish closing it)."""
        act = "Finish closing" if self.found is not None else "Close"
        return f"{act} campaign {self.campaign.number} and send"

    def asking(self) -> Question:
        """The question the front asks, and what it says before it."""
        return Question(
            act=self.question,
            title=self.question.removesuffix(" and send"),
            without_terminal="add --yes to close.",
            not_sent=self.not_sent_words,
            notes=tuple(self.notes()),
        )

    def notes(self) -> list[str]:
        """What is said before the preview: an interrupted close found, the rows that take the
        default, each decided row not sent and why, what is sent although it leaves no Admin."""
        campaign, found, plan = self.campaign, self.found, self.plan
        notes = []
        if found is not None:
            notes.append(
                f"Campaign {campaign.number} was closing (batch {self.batch}) and was "
                f"interrupted: {_changes(found.made)} of it took effect, "
                f"{len(found.settled):,} unknown outcome{'s' if len(found.settled) != 1 else ''} "
                "settled by reading the hub again; only what was never sent is sent now."
            )
        elif plan.defaults:
            notes.append(
                f"{plan.defaults:,} rows had no answer: they take the default "
                f"({campaign.head.if_no_answer}), said as such in the report."
            )
        notes.extend(
            f"Not sent: {state.row.email} in {state.row.project_name}: {why}"
            for state, why in plan.not_sent
        )
        notes.extend(f"Sent all the same (--allow-no-admin): {words}" for words in plan.no_admin)
        return notes

    @property
    def not_sent_words(self) -> str:
        """What is said when the question is answered no."""
        if self.found is not None:
            return (
                "the campaign stays closing: run the close again to finish it; nothing more "
                "was sent."
            )
        return "the campaign stays open; nothing was sent."


@dataclass
class CloseEnded:
    """How a close ended: the campaign closed (None: a dry run, or the store failed after the
    changes left), every row's outcome, the batch sent, and what failed after it."""

    campaign: Campaign | None
    outcomes: list[CampaignEvent] = field(default_factory=list)
    batch: Batch | None = None
    problem: str = ""
    """The store failed after changes left: why, how many were made, the command that finishes
    the close (empty: it did not)."""

    @property
    def bad(self) -> list[CampaignEvent]:
        """The outcomes to be said loudly: not verified, failed, unknown."""
        return [
            e for e in self.outcomes if e.detail.startswith(("NOT VERIFIED", "failed", "unknown"))
        ]

    @property
    def verified(self) -> int:
        return sum(1 for e in self.outcomes if e.detail.startswith("verified"))


async def close_campaign(
    workspace: Workspace, client: HubClient, front: Front, asked: CloseAsked
) -> CloseEnded:
    """A campaign's close, the whole run, for every front end: the record checked, the hub read
    again, what an interrupted close did found, the plan previewed, asked, claimed (the
    journal's first step, before anything is sent), sent, read back, every row's outcome kept,
    then closed. Refused (:class:`Refused`, :class:`Closed`) before anything is read or sent
    when it cannot be closed."""
    server_store = workspace.review_store()
    log = workspace.change_log
    campaign = await _closable(workspace, asked)
    hub = await front.find_hub(campaign.head.hub)
    run = await _planned(workspace, client, campaign, hub, asked)
    preview = await prepare(
        client,
        run.plan.wanted,
        log,
        concurrency=workspace.concurrency,
        settle=not asked.dry_run,
        on_read=front.reading,
    )
    detail = f"{len(preview.steps)} changes"
    if run.plan.no_admin:
        detail += f"; --allow-no-admin: {'; '.join(run.plan.no_admin)}"

    async def claimed() -> None:
        if run.found is None:
            await claim(server_store, campaign, log.operator, run.batch, detail)
        else:
            settle(log, run.found)

    sending = Sending(
        log, workspace.concurrency, dry_run=asked.dry_run, batch_id=run.batch, claim=claimed
    )
    sent = (await run_preview(front, client, preview, sending, question=run.asking())).batch
    if asked.dry_run:
        return CloseEnded(None)
    again = command_line("campaign", "close", str(campaign.number))
    if sent is not None and (left := _never_sent(sent)):
        return CloseEnded(
            None,
            [],
            sent,
            f"stopped: {_changes(left)} of batch {run.batch} {_were(left)} not sent; the campaign "
            f"stays closing: run {again} again to finish it.",
        )
    after = await read_population(client, hub, concurrency=workspace.concurrency)
    logged = await asyncio.to_thread(changes_of, log, run.batch)
    outcomes = [
        *([] if run.found is None else run.found.outcomes),
        *verified(campaign, run.plan, after, logged),
        *not_sent(campaign, run.plan),
    ]
    try:
        closed = await finish(server_store, campaign, outcomes, log.operator, detail)
    except StoreError as error:
        count = (0 if run.found is None else run.found.made) + made(sent)
        return CloseEnded(
            None,
            outcomes,
            sent,
            f"{error} {_changes(count)} of batch {run.batch} {_were(count)} made; their outcomes "
            f"wait in the change log: run {again} again to finish the close.",
        )
    return CloseEnded(closed, outcomes, sent)


async def _closable(workspace: Workspace, asked: CloseAsked) -> Campaign:
    """The campaign as the store holds it, if it may be closed now: not closed already, its
    record as written, and the server not read-only (unless this is a dry run)."""
    campaign = await open_campaign(workspace.review_store(), asked.number)
    if campaign.closed is not None:
        raise Closed(f"campaign {campaign.number} is closed already: nothing is sent twice.")
    if changed := campaign.record_changed():
        raise RecordChanged(
            f"{changed}: it is not closed, and nothing was sent (the report says what the "
            "store holds)."
        )
    if workspace.read_only and not asked.dry_run:
        raise Refused("read-only: nothing is sent, and the campaign stays open.")
    return campaign


async def _planned(
    workspace: Workspace, client: HubClient, campaign: Campaign, hub: Hub, asked: CloseAsked
) -> CloseRun:
    """The hub read again, what an interrupted close did found in the change log and that
    read, and what is sent now: a new batch, or what the interrupted one never sent."""
    fresh = await read_population(client, hub, concurrency=workspace.concurrency)
    found = None
    batch = campaign.interrupted
    if batch:
        logged = await asyncio.to_thread(changes_of, workspace.change_log, batch)
        found = finishing(campaign, batch, logged, fresh)
    else:
        batch = new_batch_id()
    plan = close_rows(
        campaign,
        fresh,
        allow_no_admin=asked.allow_no_admin,
        only=None if found is None else found.never_sent,
    )
    return CloseRun(campaign, batch, found, plan)


def _changes(count: int) -> str:
    return f"{count:,} change{'s' if count != 1 else ''}"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"
