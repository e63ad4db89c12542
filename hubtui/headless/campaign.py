"""``hubtui campaign``: a review campaign a team runs together, as the command's front end of
the use cases in :mod:`hubtui.core.workflows.campaign` (start, status, export, decide, remind,
close, report). Every value from the server or the store is printed inert; a CSV goes through
the export's one writer."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.clock import now
from hubtui.core.files import read_bounded, refusal_words
from hubtui.core.people.review import Decision
from hubtui.core.presenting.export import write_csv
from hubtui.core.presenting.words import amount
from hubtui.core.workflows import campaign as use
from hubtui.core.workflows import team
from hubtui.core.workflows.campaign import closing
from hubtui.core.workflows.campaign import reporting as report
from hubtui.core.workflows.engine import changes_logged
from hubtui.core.workflows.kept import StoreError, StoreOff
from hubtui.core.workflows.ports import NotSent
from hubtui.headless.front import CommandFront
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    UNKNOWN_OUTCOME,
    StatusLine,
    Stop,
    with_client,
)
from hubtui.headless.tables import resolve_hub
from hubtui.text import command_line, inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.people.campaign_record import Campaign
    from hubtui.core.workflows.team import Decider
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """campaign start | status | export | decide | delegate | remind | mine | close | report."""
    if workspace.offline is not None:
        raise Stop(
            NOT_SENT,
            "--offline: a campaign is read from the server and decided in the store of this "
            "server, never from the lists kept for reading offline; nothing was done.",
        )
    try:
        server_store = workspace.review_store()
    except StoreOff as off:
        raise Stop(NOT_SENT, f"{off} A campaign lives in the store: nothing was done.") from None
    action = args.campaign_command
    try:
        if action in ("start", "close", "remind", "reassign"):

            async def run(client: HubClient) -> int:
                if action == "start":
                    return await _start(args, client, workspace)
                if action == "reassign":
                    return await _reassign(args, client, workspace)
                if action == "remind":
                    return await _remind(client, workspace, args.number)
                return await _close(args, client, workspace)

            return asyncio.run(with_client(args, workspace, run))
        if action == "mine":
            return _mine(args, workspace)
        campaign = asyncio.run(use.open_campaign(server_store, args.number))
        if changed := campaign.record_changed():
            # Said first, on every read: the record no longer holds what was written.
            print(f"CHANGED: {inert(changed, limit=None)}", file=sys.stderr)
        if action == "status":
            said = _status(args, campaign, workspace)
            return REFUSED if said == OK and campaign.record_changed() else said
        if action == "export":
            return _export(args, campaign, workspace)
        if action == "decide":
            return _decide(args, campaign, workspace)
        if action == "delegate":
            asyncio.run(
                use.delegate(
                    server_store, campaign, args.packet, args.to, workspace.change_log.operator
                )
            )
            print(
                f"Packet {inert(args.packet)} of campaign {campaign.number} is given to "
                f"{inert(args.to)} to decide (kept with who and when).",
                file=sys.stderr,
            )
            return OK
        before = asyncio.run(use.previous_of(server_store, campaign))
        said = _report(args, campaign, use.changed_since(campaign, before), workspace)
        return REFUSED if said == OK and campaign.record_changed() else said
    except use.RecordChanged as changed:
        raise Stop(REFUSED, inert(str(changed), limit=None)) from None
    except use.Refused as refused:
        raise Stop(NOT_SENT, str(refused)) from None
    except use.Closed as closed:
        raise Stop(NOT_SENT, str(closed)) from None
    except StoreError as error:
        raise Stop(
            NOT_SENT, f"{inert(str(error), limit=None)} Nothing was recorded, nothing sent."
        ) from None


async def _reassign(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """reassign: the new reviewer found by address among the hub's users (kept by Id), then
    the owner's event recorded."""
    server_store = workspace.review_store()
    campaign = await use.open_campaign(server_store, args.number)
    account = use.account_named(await client.list_hub_users(campaign.head.hub), args.to)
    if account is None:
        raise Stop(
            NOT_SENT,
            f"{inert(args.to)} is not one account of hub {inert(campaign.head.hub_name)}'s "
            "users: a reviewer of record is a user of the hub; nothing was recorded.",
        )
    email, user_id = account
    await use.reassign(
        server_store, campaign, args.packet, (email, user_id), args.note,
        workspace.change_log.operator,
    )  # fmt: skip
    print(
        f"Packet {inert(args.packet)} of campaign {campaign.number} is now "
        f"{inert(email)}'s (account {inert(user_id)}) to decide; the decisions made stay "
        "their deciders' (kept with who, when and the note).",
        file=sys.stderr,
    )
    return OK


# Start ------------------------------------------------------------------------------------------


async def _start(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    hub = await resolve_hub(client, args.hub)
    status = StatusLine()
    asked = use.StartAsked(
        stale_days=None if args.all else args.stale,
        due=args.due or "",
        if_no_answer=args.if_no_answer,
        reviewers=tuple(r.strip() for r in (args.reviewers or "").split(",") if r.strip())
        if args.reviewers not in (None, "project-admins")
        else (),
        name=args.name or "",
        since_last=args.since_last,
        allow_incomplete=args.allow_incomplete,
        allow_empty=args.allow_empty,
        inactive_after=args.inactive_after or workspace.settings.inactive_after,
    )
    try:
        started = await use.start(
            client,
            hub,
            workspace.review_store(),
            workspace.change_log.operator,
            asked,
            concurrency=workspace.concurrency,
            logged=partial(changes_logged, workspace.change_log),
            on_progress=lambda progress: status.say(
                f"Reading hub {inert(hub.name)} whole: {progress.projects_done:,} / "
                f"{progress.projects_total:,} projects"
                + (f" · {progress.failures:,} could not be read" if progress.failures else "")
            ),
        )
    except use.Incomplete as incomplete:
        status.clear()
        raise Stop(REFUSED, inert(str(incomplete), limit=None)) from None
    status.clear()
    campaign = started.campaign
    counts = campaign.counts
    head = campaign.head
    named = inert(head.name)
    if head.name != f"Review of {head.hub_name}":  # a name of its own: its hub beside it
        named += f" of hub {inert(head.hub_name)}"
    print(
        f"Campaign {campaign.number}: {named}, population read {head.read_at}: "
        f"{amount(counts.get('memberships', 0), 'membership')} of "
        f"{amount(counts.get('people', 0), 'person', 'people')} in "
        f"{amount(counts.get('projects', 0), 'project')} (sha256 {campaign.head.sha256})"
    )
    if started.not_read:
        print(f"INCOMPLETE (--allow-incomplete): not read: {inert(started.not_read, limit=None)}")
    for packet in campaign.packets:
        who = ", ".join(inert(r) for r in packet.reviewers)
        print(
            f"  packet {inert(packet.name)} ({inert(packet.project)}): "
            f"{amount(len(packet.positions), 'row')}, reviewers {who}"
        )
    print(f"Recommended, by why's table: {campaign.recommended()}.")
    if campaign.default() is Decision.KEEP:
        print(f"If nobody answers: {len(campaign.rows):,} memberships keep their access.")
    else:
        changes = sum(
            1
            for s in campaign.states.values()
            if campaign.at_close(s)[0] is not Decision.KEEP and s.row.role != "Reader"
        )
        print(
            f"If nobody answers: {amount(changes, 'membership')} "
            f"{'becomes' if changes == 1 else 'become'} Reader; "
            f"{len(campaign.rows) - changes:,} keep their access or are Readers already "
            "(Admins keep theirs)."
        )
    if campaign.head.due:
        print(f"Due {inert(campaign.head.due)}.")
    print(f"Next: {command_line('campaign', 'export', str(campaign.number), '--format', 'csv')}")
    return OK


# Status, reminders ------------------------------------------------------------------------------


def _status(args: argparse.Namespace, campaign: Campaign, workspace: Workspace) -> int:
    head = campaign.head
    state = campaign.state(now()[:10])
    now_at: dict[str, str] | None = None

    async def read(client: HubClient) -> int:
        nonlocal now_at
        now_at = await use.addresses_now(client, campaign)
        return OK

    asyncio.run(with_client(args, workspace, read))
    shown = use.reviewers_now(campaign, now_at)
    if now_at is None:
        print(
            "The hub's users could not be read: each reviewer as the campaign froze them.",
            file=sys.stderr,
        )
    if args.format == "json":
        print(json.dumps(_status_record(campaign, state, shown), ensure_ascii=True, indent=2))
        return OK
    print(
        f"Campaign {campaign.number} ({inert(head.name)}, hub {inert(head.hub_name)}): {state}"
        + (f", due {inert(head.due)}" if head.due else "")
    )
    print("Packets (assigned · decided · left):")
    for packet in campaign.packets:
        left = len(campaign.left_of(packet.positions))
        done = len(packet.positions) - left
        print(f"  {inert(packet.name)}: {len(packet.positions):,} · {done:,} · {left:,}")
    print("Reviewers (assigned · decided · left):")
    for who, (assigned, decided) in campaign.by_reviewer().items():
        now_is = shown.get(who, who)
        named = inert(who) if now_is == who else f"{inert(now_is)} (was {inert(who)})"
        print(f"  {named}: {assigned:,} · {decided:,} · {assigned - decided:,}")
    conflicts = campaign.conflicts()
    if conflicts:
        print(f"Conflicts for the owner ({inert(head.owner)}) to resolve: {len(conflicts):,}")
        for s in conflicts:
            print(f"  {inert(s.row.email)} in {inert(s.row.project_name)}: {inert(s.conflict)}")
    return OK


def _status_record(campaign: Campaign, state: str, shown: dict[str, str]) -> dict[str, object]:
    """What ``status`` says, as JSON: the same counts, each text as the store holds it."""
    head = campaign.head
    packets = []
    for packet in campaign.packets:
        left = len(campaign.left_of(packet.positions))
        packets.append(
            {
                "project": packet.project,
                "name": packet.name,
                "reviewers": list(packet.reviewers),
                "assigned": len(packet.positions),
                "decided": len(packet.positions) - left,
                "left": left,
            }
        )
    return {
        "campaign": campaign.number,
        "name": head.name,
        "hub": head.hub,
        "hub_name": head.hub_name,
        "owner": head.owner,
        "owner_db_role": head.db_role,
        "state": state,
        "due": head.due or None,
        "record_check": campaign.record_changed() or "as written",
        "packets": packets,
        "reviewers": [
            {
                "reviewer": who,
                "address_now": shown.get(who, who),
                "assigned": a,
                "decided": d,
                "left": a - d,
            }
            for who, (a, d) in campaign.by_reviewer().items()
        ],
        "conflicts": [
            {
                "project": s.row.project,
                "user_id": s.row.user_id,
                "email": s.row.email,
                "conflict": s.conflict,
            }
            for s in campaign.conflicts()
        ],
    }


async def _remind(client: HubClient, workspace: Workspace, number: int) -> int:
    """A message ready to send to each reviewer still behind, at their account's address now
    (:func:`~hubtui.core.workflows.campaign.reminders`)."""
    campaign = await use.open_campaign(workspace.review_store(), number)
    now_at = await use.addresses_now(client, campaign)
    if now_at is None:
        print(
            "The hub's users could not be read: each reminder goes to the address frozen.",
            file=sys.stderr,
        )
    said = use.reminders(campaign, now_at)
    if not said:
        print("Every reviewer has finished: no reminder to send.", file=sys.stderr)
        return OK
    due = f" by {campaign.head.due}" if campaign.head.due else ""
    export = command_line("campaign", "export", str(campaign.number), "--format", "csv")
    for reminder in said:
        print(f"To: {inert(reminder.to)}" + (f" ({inert(reminder.note)})" if reminder.note else ""))
        print(
            f"Subject: access review {inert(campaign.head.name)}: "
            f"{amount(reminder.left, 'decision')} left{due}"
        )
        for name, count in reminder.packets:
            print(f"  {inert(name)}: {count:,} left")
        print(f"  Export: {export}")
        print()
    return OK


def _mine(args: argparse.Namespace, workspace: Workspace) -> int:
    """What waits on the person at the store: each open campaign's packets with rows left for
    them to decide, with the due date; exit 0 whether or not anything waits."""
    server_store = workspace.review_store()
    decider = asyncio.run(use.decider(server_store, workspace.change_log.operator))
    if decider.team and not decider.accounts:
        raise Stop(NOT_SENT, decider.refusal())
    waiting = use.waiting_on(asyncio.run(use.campaigns_kept(server_store)), decider)
    if args.format == "json":
        print(
            json.dumps(
                [
                    {
                        "campaign": w.campaign.number,
                        "name": w.campaign.head.name,
                        "hub": w.campaign.head.hub_name,
                        "due": w.campaign.head.due or None,
                        "packet": w.project,
                        "packet_name": w.name,
                        "left": w.left,
                    }
                    for w in waiting
                ],
                ensure_ascii=True,
                indent=2,
            )
        )
        return OK
    if not waiting:
        print(f"Nothing waits on {inert(_named(decider))}.", file=sys.stderr)
        return OK
    today = now()[:10]
    for w in waiting:
        head = w.campaign.head
        due = (
            f", due {inert(head.due)}" + (" (OVERDUE)" if today > head.due else "")
            if head.due
            else ""
        )
        export = command_line("campaign", "export", str(w.campaign.number), "--packet", w.project)
        print(
            f"Campaign {w.campaign.number} ({inert(head.name)}){due}: packet {inert(w.name)} "
            f"({inert(w.project)}): {amount(w.left, 'row')} left · {export}"
        )
    return OK


# Export, decide ---------------------------------------------------------------------------------


def _rows_of(campaign: Campaign, server: str, packet: str | None) -> list[list[str]]:
    rows = []
    for s in campaign.states.values():
        r = s.row
        if packet is not None and packet not in (r.project, r.project_name):
            continue
        rows.append(
            [
                str(campaign.number),
                server,
                campaign.head.hub,
                r.project_name,
                r.project,
                r.user_id,
                r.email,
                r.name,
                r.access,
                r.reviewer,
                r.earlier,
                *use.row_facts(r),
                "" if s.decision is None else s.decision.value,
                s.reason,
            ]
        )
    return rows


def _export(args: argparse.Namespace, campaign: Campaign, workspace: Workspace) -> int:
    rows = _rows_of(campaign, workspace.identity.server, args.packet)
    named = args.packet is not None and any(
        args.packet in (p.project, p.name) for p in campaign.packets
    )
    if args.packet is not None and not rows and not named:
        raise Stop(NOTHING, f"no packet {inert(args.packet)} in campaign {campaign.number}.")
    if args.packet is not None and not rows:  # a packet with nobody to decide: its header
        print(f"Packet {inert(args.packet)} has no row to decide.", file=sys.stderr)
    write_csv(sys.stdout, {}, use.FILE_COLUMNS, rows)
    return OK


def _decide(args: argparse.Namespace, campaign: Campaign, workspace: Workspace) -> int:
    named = "standard input" if args.file == "-" else args.file
    try:
        if args.file == "-":  # as bounded as a file: one byte past the bound is refused
            body = sys.stdin.buffer.read(use.DECISIONS_FILE_BYTES + 1)
            if len(body) > use.DECISIONS_FILE_BYTES:
                raise use.Refused(
                    f"it is larger than the {use.DECISIONS_FILE_BYTES / 1e6:,.0f} MB hubtui "
                    "reads from a decisions file; nothing was recorded."
                )
        else:
            path = Path(args.file)
            body = read_bounded(path, limit=use.DECISIONS_FILE_BYTES, what="decisions file")
        table = use.read_file(use.decisions_text(body))
    except OSError as error:
        raise Stop(NOT_SENT, inert(refusal_words(Path(args.file), error))) from None
    except use.Refused as refused:
        raise Stop(NOT_SENT, f"{inert(named)}: {inert(str(refused))}") from None
    operator = workspace.change_log.operator
    decider = asyncio.run(use.decider(workspace.review_store(), operator))
    now_at = None
    if use.addresses_differ(campaign, table):  # renamed since the freeze, or a sorted column

        async def read(client: HubClient) -> int:
            nonlocal now_at
            now_at = await use.addresses_now(client, campaign)
            return OK

        asyncio.run(with_client(args, workspace, read))
    check = use.check_file(
        campaign, workspace.identity.server, table, decider, resolve=args.resolve, now_at=now_at
    )
    for words in check.refused:
        print(f"Refused: {words}", file=sys.stderr)
    unchanged = (
        f" Already so, not recorded again: {amount(check.unchanged, 'line')}."
        if check.unchanged
        else ""
    )
    if not check.events:
        print(f"No decision recorded: none in the file changed a row.{unchanged}", file=sys.stderr)
        return NOT_SENT if check.refused else NOTHING
    source = (
        "decisions from standard input"
        if args.file == "-"
        else f"decisions file {Path(args.file).name}"
    )
    after = asyncio.run(use.decide(workspace.review_store(), campaign, check.events, bulk=source))
    act = " as one bulk act" if len(check.events) > 1 else ""
    print(
        f"Recorded {amount(len(check.events), 'decision')}{act} by {inert(_named(decider))} in "
        f"campaign {campaign.number}; nothing was sent.{unchanged} Left: "
        f"{len(after.left_of(after.states)):,}; conflicts: {len(after.conflicts()):,}.",
        file=sys.stderr,
    )
    return REFUSED if check.refused else OK


def _named(decider: Decider) -> str:
    """Who a record names: the operator, and on the team store the role that decides."""
    if decider.team and decider.role != decider.operator:
        return f"{decider.operator} (database role {decider.role})"
    return decider.operator


# Close ------------------------------------------------------------------------------------------


async def _close(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """The close as a journal (:func:`~hubtui.core.workflows.campaign.closing.close_campaign`),
    with the command as its front."""
    asked = closing.CloseAsked(args.number, args.allow_no_admin, args.dry_run)
    try:
        ended = await closing.close_campaign(
            workspace, client, CommandFront(args, client, workspace), asked
        )
    except NotSent:
        return NOT_SENT
    if args.dry_run:
        return OK
    if ended.problem:
        raise Stop(UNKNOWN_OUTCOME, inert(ended.problem, limit=None))
    closed = ended.campaign
    assert closed is not None  # closed, or the problem said
    print(
        f"Campaign {closed.number} closed: {amount(ended.verified, 'change')} verified by "
        f"reading back; batch {closed.claimed.reason if closed.claimed else '?'}",
        file=sys.stderr,
    )
    for event in ended.bad:
        row = closed.rows[event.position]
        print(
            f"{event.detail.split(':')[0].upper()}: {inert(row.email)} in "
            f"{inert(row.project_name)}: {inert(event.detail)}",
            file=sys.stderr,
        )
    return REFUSED if ended.bad else OK


# Report -----------------------------------------------------------------------------------------


def _report(
    args: argparse.Namespace, campaign: Campaign, since: dict[str, int], workspace: Workspace
) -> int:
    roster = asyncio.run(team.roster_of(workspace.review_store()))
    record = report.report_of(campaign, roster, since)
    if args.format == "json":
        print(json.dumps(record, ensure_ascii=True, indent=2))
        return OK
    rows = [[row[column] for column in report.REPORT_COLUMNS] for row in record["rows"]]
    write_csv(sys.stdout, report.report_context(record), report.REPORT_COLUMNS, rows)
    return OK
