"""``hub-users`` and ``access``: a hub's people, with when each was last seen, and the access
matrix (people × projects). The reading and the rules are ``core.people.hub``'s."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from hubtui.api import HubError
from hubtui.api.errors import not_offered
from hubtui.core.access import person_key
from hubtui.core.clock import minute, stamp
from hubtui.core.people import (
    HubPeople,
    HubPerson,
    access_matrix,
    hub_people,
    pending_invitations,
    read_hub_people,
)
from hubtui.core.people.hub import MatrixRow
from hubtui.core.presenting import DATE_UNKNOWN, Column, seen_stamp, seen_words, when_both
from hubtui.core.presenting.export import SparseCsvRow, csv_cells
from hubtui.core.signins import LastSeen, last_seen, utc_moment
from hubtui.core.workflows.engine import (
    Outcome,
    changes_logged,
    kind_of,
    last_invitation,
)
from hubtui.core.workflows.kept import StoreError
from hubtui.core.workflows.resend import ReadOnly, Resent, prepare_resend
from hubtui.core.workspace import StoreOff
from hubtui.core.workspace.connection import DEMO_BASE_URL, configured_client
from hubtui.core.workspace.offline import OFFLINE_TOKEN, StoredAnswers
from hubtui.headless.front import read_only_words, said_yes
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    UNKNOWN_OUTCOME,
    StatusLine,
    Stop,
    Table,
    dump_models,
    print_answer,
    with_client,
)
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import Hub, HubClient
    from hubtui.api.models import HubUser
    from hubtui.core.workflows.engine import Change
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """hub-users, access and resend-invite."""
    if args.command == "access" and args.at is not None:
        return asyncio.run(_access_at(args, workspace))

    async def read(client: HubClient) -> int:
        if args.command == "resend-invite":
            return await _resend(args, client, workspace)
        if args.command == "hub-users":
            return print_answer(args, *await _hub_users_table(args, client, workspace))
        return print_answer(args, *await _access(args, client, workspace))

    return asyncio.run(with_client(args, workspace, read))


async def read_people(client: HubClient, hub: Hub, workspace: Workspace) -> HubPeople:
    """A hub's people, read with the progress on stderr (a terminal's live line)."""
    status = StatusLine()
    answer = await read_hub_people(
        client,
        hub,
        concurrency=workspace.concurrency,
        deadline=workspace.search_deadline,
        on_progress=lambda progress: status.say(progress.line()),
    )
    status.clear()
    return answer


def seen_cell(seen: LastSeen | None) -> str:
    """When last seen, for a CSV cell: as read (UTC), ``unknown`` where a date could not be
    read, empty for never or not read (the other columns say which)."""
    return "" if seen is None else seen_stamp(seen)


def moment_cell(value: object) -> str:
    """A date of a hub user for a CSV cell: as read (UTC), the text sent, or empty (never)."""
    if isinstance(value, datetime):
        moment = utc_moment(value)
        return DATE_UNKNOWN if moment is None else stamp(moment)
    return "" if value is None else str(value)


async def _hub_users_table(
    args: argparse.Namespace, client: HubClient, workspace: Workspace
) -> tuple[Table, int]:
    hub = await resolve_hub(client, args.hub)
    try:
        users = list(await client.list_hub_users(hub.id))
    except HubError as error:
        if not_offered(error):
            raise Stop(
                REFUSED,
                f"this server does not list a hub's users ({inert(str(error), limit=300)}); "
                "hubtui access HUB shows who is in each project instead.",
            ) from None
        raise
    now = datetime.now(UTC)
    days = args.inactive_after or workspace.settings.inactive_after
    people = {id(u): HubPerson("", u.user, u) for u in users}

    def row(user: HubUser) -> tuple[str, ...]:
        person = people[id(user)]
        return (
            inert(user.user.email or ""),
            inert(user.user.full_name),
            inert(user.role or ""),
            {True: "yes", False: "no", None: ""}[user.is_activated],
            seen_words(last_seen(user), now),
            ", ".join(person.marks(now, days)),
        )

    def cells(user: HubUser) -> tuple[Any, ...]:
        person = people[id(user)]
        return (
            user.user.email or "",
            user.user.full_name,
            user.role or "",
            user.is_activated,
            moment_cell(user.last_web_login),
            moment_cell(user.last_addin_login),
            moment_cell(user.last_hub_project_activity),
            "; ".join(person.marks(now, days)),
        )

    print(
        f"{len(users):,} users of hub {inert(hub.name)}; inactive after {days} days without a "
        f"sign-in, counted to {now:%Y-%m-%d %H:%M} UTC.",
        file=sys.stderr,
    )
    table = Table(
        (
            Column("email", "Email", min_width=18, keep=True),
            Column("name", "Name", min_width=10, priority=2),
            Column("role", "Hub role", min_width=5),
            Column("activated", "Accepted", min_width=8, priority=1),
            Column("seen", "Last sign-in", min_width=13, keep=True),
            Column("marks", "Needs a look", min_width=12, meaning=True),
        ),
        users,
        row,
        dump_models,
        empty=f"no users in hub {inert(hub.name)}",
        csv=(
            (
                "email",
                "name",
                "hub role",
                "invitation accepted",
                "last web sign-in (UTC)",
                "last add-in sign-in (UTC)",
                "last project activity (UTC)",
                "needs a look",
            ),
            cells,
        ),
    )
    return table, OK if users else NOTHING


async def _access(
    args: argparse.Namespace, client: HubClient, workspace: Workspace
) -> tuple[Table, int]:
    hub = await resolve_hub(client, args.hub)
    answer = await read_people(client, hub, workspace)
    matrix = access_matrix(answer)
    now = datetime.now(UTC)
    names = [p.name for p in matrix.projects]
    print(
        f"{len(matrix.rows):,} people × {len(names):,} projects of hub {inert(hub.name)}.",
        file=sys.stderr,
    )
    if not answer.complete:
        print(f"Incomplete: {inert(answer.incomplete_words())}.", file=sys.stderr)
        for project, error in answer.not_read:
            where = "its projects" if project is None else f"project {inert(project.name)}"
            print(f"  {where}: {inert(str(error), limit=300)}", file=sys.stderr)

    Row = tuple[HubPerson, list[str]]

    def row(item: Row) -> tuple[str, ...]:
        person, cells = item
        return (
            inert(person.email),
            inert(person.hub_role or ""),
            seen_words(person.seen, now),
            *cells,
        )

    def dump(items: list[Row]) -> list[dict[str, Any]]:
        records = []
        for person, cells in items:
            seen = person.seen
            records.append(
                {
                    "Email": person.email,
                    "Name": person.name,
                    "HubRole": person.hub_role,
                    "LastSeen": None
                    if seen is None or seen.moment is None
                    else when_both(seen.moment),
                    "Projects": {
                        str(project.id): cell
                        for project, cell in zip(matrix.projects, cells, strict=True)
                        if cell
                    },
                }
            )
        return records

    def cells_of(item: tuple[HubPerson, MatrixRow]) -> SparseCsvRow:
        person, cells = item
        moment = seen_cell(person.seen)
        head = (person.email, person.name, person.hub_role or "", moment)
        return cells.csv_row(csv_cells(head))

    table = Table(
        (
            Column("email", "Email", min_width=18, keep=True),
            Column("role", "Hub role", min_width=5),
            Column("seen", "Last sign-in", min_width=13, keep=True),
            *(Column(f"p{p.id}", inert(p.name), min_width=7, priority=1) for p in matrix.projects),
        ),
        matrix.rows,
        row,
        dump,  # type: ignore[arg-type]
        empty=f"nobody has access to hub {inert(hub.name)}",
        csv=(("email", "name", "hub role", "last seen (UTC)", *names), cells_of),
    )
    if not answer.complete:
        return table, REFUSED
    return table, OK if matrix.rows else NOTHING


async def _access_at(args: argparse.Namespace, workspace: Workspace) -> int:
    """access --at N: the matrix as snapshot N read it, from the store (nothing is sent)."""
    from hubtui.headless.history import pick_snapshot

    try:
        server_store = workspace.snapshot_store()
        store = server_store.open(read_only=True)
    except (StoreOff, StoreError) as error:
        raise Stop(NOT_SENT, inert(str(error), limit=None)) from None
    with store:
        number = pick_snapshot(store, server_store.origin, server_store.profile, args.at)
        taken = store.snapshot(number).taken
        answers = StoredAnswers(store, server_store.origin, server_store.profile, at=number)
        base_url = DEMO_BASE_URL if workspace.identity.demo else workspace.settings.base_url
        assert base_url is not None
        print(f"As snapshot #{number} read it ({inert(taken)}).", file=sys.stderr)
        async with configured_client(
            workspace.settings, base_url, OFFLINE_TOKEN, answers
        ) as client:
            try:
                return print_answer(args, *await _access(args, client, workspace))
            except HubError as error:
                raise Stop(REFUSED, inert(str(error), limit=1000)) from None


async def _resend(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """resend-invite: each pending invitation named (or every one) sent again, by the one use
    case (:mod:`hubtui.core.workflows.resend`); this asks and says what came back."""

    hub = await resolve_hub(client, args.hub)
    try:
        users = list(await client.list_hub_users(hub.id))
    except HubError as error:
        if not_offered(error):
            raise Stop(REFUSED, "this server does not list a hub's users.") from None
        raise
    pending = pending_invitations(hub_people(users, []))
    if args.emails:
        wanted = {person_key(e) for e in args.emails}
        chosen = [p for p in pending if person_key(p.email) in wanted]
        for email in args.emails:
            if person_key(email) not in {person_key(p.email) for p in chosen}:
                print(
                    f"{inert(email)}: no invitation of hub {inert(hub.name)} waits for them "
                    "(not a hub user, or it was accepted).",
                    file=sys.stderr,
                )
    else:
        chosen = pending
    try:
        resending = prepare_resend(hub, chosen, read_only=workspace.read_only, dry_run=args.dry_run)
    except ReadOnly:
        raise Stop(NOT_SENT, read_only_words(args)) from None
    if not resending.changes:
        print(f"hubtui: no invitation to send again in hub {inert(hub.name)}.", file=sys.stderr)
        return NOTHING
    sent_before = await asyncio.to_thread(changes_logged, workspace.change_log)
    for change in resending.changes:
        print(f"resend the invitation of {inert(change.email or change.user_id)}")
        print(f"  {last_sent_words(sent_before, change)}")
    if args.dry_run:
        for request in await resending.plans(client):
            body = "" if request.body is None else json.dumps(request.body)
            print(f"Would send: {request.method} {inert(request.url, limit=None)}\n{body}")
        print("(dry run: nothing was sent)", file=sys.stderr)
        return OK
    if not args.yes:
        if not sys.stdin.isatty():
            raise Stop(NOT_SENT, "not asking without a terminal: add --yes to send them.")
        count = len(resending.changes)
        question = f"Send {count} invitation{'s' if count != 1 else ''} again? [y/N] "
        if not await said_yes(question):
            print("Nothing was sent.", file=sys.stderr)
            return NOT_SENT
    worst = OK

    def say(result: Resent) -> None:
        nonlocal worst
        who = inert(result.person.email or result.person.person.id)
        if result.outcome is None:
            print(f"{who}: {inert(result.why, limit=None)}", file=sys.stderr)
            worst = max(worst, NOT_SENT)
        elif result.done:
            print(f"{who}: invitation sent again.", file=sys.stderr)
        elif result.outcome == Outcome.FAILED:
            print(f"{who}: refused: {inert(result.why, limit=300)}", file=sys.stderr)
            worst = max(worst, REFUSED)
        else:
            print(f"{who}: outcome unknown: {inert(result.why, limit=300)}", file=sys.stderr)
            worst = max(worst, UNKNOWN_OUTCOME)

    await resending.send(client, workspace.change_log, on_each=say)
    return worst


def last_sent_words(logged: list[Change], change: Change) -> str:
    """When hubtui last sent this account's invitation to this hub (an invitation, or one
    sent again), as the change log and the team's trail say; the server does not say."""
    last = last_invitation(
        c
        for c in logged
        if c.hub_id == change.hub_id
        and (c.user_id == change.user_id or person_key(c.email) == person_key(change.email))
    )
    if last is None:
        return "hubtui has not sent it before (the server does not say when it went out)"
    went = {"sent": "went out", "sent again": "went out again"}[kind_of(last).invitation]
    by = inert(last.operator or "someone")
    return f"the last one {went} on {minute(last.time)} UTC, sent by {by}"
