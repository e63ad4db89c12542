"""``review``, ``apply`` of its decisions, ``reviews`` and ``offboard``: an access review from the
command line, kept as the evidence an auditor asks for.

One idea: the four commands of a review share its file's columns, how a person's access is
read for it, and how its outcome is said and kept.

``review HUB`` writes the decisions file: every project membership of each person who needs a
look (and a row for each such person in no project), with ``decision`` (``keep``) and ``reason``
to fill in. ``apply`` takes it back (:func:`apply_review`, when the file has a ``decision``
column): ``reader`` sets Reader in that project, ``remove`` removes the person from the hub (and
so from its projects), ``keep`` sends nothing (a role edited in the row is applied as any batch
row). The batch is previewed against a fresh read, asked, sent the one way; the review (who,
when, each person's decision, reason and outcome) is kept in the store. ``reviews`` lists the
reviews kept, or one review's rows. ``offboard EMAIL`` is a review of one person everywhere.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from hubtui.core.people import (
    Decision,
)
from hubtui.core.people.decisions import (
    DECISION_COLUMNS,
    EVIDENCE_COLUMNS,
    NEVER,
    invitation_cell,
)
from hubtui.core.presenting import Column, seen_words
from hubtui.core.workflows.decisions_file import apply_decisions
from hubtui.core.workflows.engine import (
    USERS_CSV_COLUMNS,
    users_csv_cells,
    who_words,
)
from hubtui.core.workflows.keeping import keep_review, review_kept, reviews_kept
from hubtui.core.workflows.kept import StoreError
from hubtui.core.workflows.offboard import offboard
from hubtui.core.workspace import StoreOff
from hubtui.headless.front import CommandFront, read_only_words
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    Stop,
    Table,
    print_answer,
    with_client,
)
from hubtui.headless.people import read_people, seen_cell
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path

    from hubtui.api import Hub, HubClient
    from hubtui.core.people import HubPerson
    from hubtui.core.workflows.engine import FileRow
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """review, reviews and offboard."""
    if args.command == "reviews":
        return asyncio.run(_reviews(args, workspace))

    async def run(client: HubClient) -> int:
        if args.command == "offboard":
            return await _offboard(args, client, workspace)
        return print_answer(args, *await _review(args, client, workspace))

    return asyncio.run(with_client(args, workspace, run))


# The decisions file ----------------------------------------------------------------------------


async def _review(
    args: argparse.Namespace, client: HubClient, workspace: Workspace
) -> tuple[Table, int]:
    """review: the decisions file, which ``apply`` takes back (the columns ``apply`` reads
    first, what the reviewer decides on after them, then the decision and its reason)."""
    hub = await resolve_hub(client, args.hub)
    answer = await read_people(client, hub, workspace)
    today = datetime.now(UTC)
    days = args.stale or workspace.settings.inactive_after

    def needs(person: HubPerson) -> bool:
        if args.stale:
            return person.is_inactive(today, days)
        return bool(person.marks(today, days))

    chosen = [p for p in answer.people if needs(p)]
    rows: list[_Item] = []
    for person in chosen:
        rows.extend((person, project, user) for project, user in person.memberships)
        if not person.memberships:
            rows.append((person, None, None))
    print(
        f"{len(chosen):,} people of hub {inert(hub.name)} need a decision "
        f"({'no sign-in for ' + str(days) + ' days or never' if args.stale else 'anything marked'}"
        f"), in {len(rows):,} rows. Write keep, reader or remove (from the hub, and so from its "
        "projects) in the decision column, a reason beside it, then: hubtui apply FILE "
        "(previewed against a fresh read first; the review is kept: hubtui reviews).",
        file=sys.stderr,
    )
    if not answer.complete:
        print(f"Incomplete: {inert(answer.incomplete_words())}.", file=sys.stderr)
    shown = _DecisionsFile(hub, today, days, (hub.id, workspace.identity.server))
    table = Table(
        DECISIONS_SHOWN,
        rows,
        shown.row,
        shown.dump,  # type: ignore[arg-type]
        empty=f"nobody in hub {inert(hub.name)} needs a decision",
        csv=(
            (*USERS_CSV_COLUMNS, *EVIDENCE_COLUMNS, "needs a look", *DECISION_COLUMNS),
            shown.cells,
        ),
    )
    if not answer.complete:
        return table, REFUSED
    return table, OK if rows else NOTHING


#: A row of the decisions file: the person, the project (None: the hub only), their user there.
_Item = tuple[Any, Any, Any]

#: What ``review`` shows on a terminal.
DECISIONS_SHOWN = (
    Column("email", "Email", min_width=18, keep=True),
    Column("project", "Project", min_width=12),
    Column("role", "Role", min_width=7),
    Column("seen", "Last sign-in", min_width=13, keep=True),
    Column("marks", "Needs a look", min_width=16, meaning=True),
)


class _DecisionsFile:
    """A review's rows as shown, as the file's cells and as JSON."""

    def __init__(self, hub: Hub, today: datetime, days: int, made_on: tuple[str, str]) -> None:
        self.hub, self.today, self.days, self.made_on = hub, today, days, made_on

    def row(self, item: _Item) -> tuple[str, ...]:
        person, project, user = item
        role = "" if user is None else "LIMITED" if user.is_limited else inert(user.role)
        return (
            inert(person.email),
            "(the hub only)" if project is None else inert(project.name),
            role,
            seen_words(person.seen, self.today),
            inert(", ".join(person.marks(self.today, self.days))),
        )

    def cells(self, item: _Item) -> tuple[Any, ...]:
        person, project, user = item
        hub, seen = self.hub, person.seen
        moment = NEVER if seen is not None and seen.never else seen_cell(seen)
        if project is None:
            given: tuple[Any, ...] = (hub.name, "", person.email, "", "", "", person.name, "")
            given += (str(person.person.id), "", *self.made_on)
        else:
            given = users_csv_cells(
                hub.name, str(project.id), project.name, user, made_on=self.made_on
            )
        return (
            *given,
            person.hub_role or "",
            invitation_cell(person),
            moment,
            "; ".join(person.marks(self.today, self.days)),
            Decision.KEEP.value,
            "",
        )

    def dump(self, items: list[_Item]) -> list[dict[str, Any]]:
        return [
            {
                "Hub": self.hub.name,
                "Project": None if project is None else project.as_sent(),
                "User": person.person.as_sent() if user is None else user.as_sent(),
                "NeedsALook": person.marks(self.today, self.days),
                "Decision": Decision.KEEP.value,
                "Reason": "",
            }
            for person, project, user in items
        ]


async def apply_review(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
    path: Path,
    header: Sequence[str],
    given: Sequence[FileRow],
) -> int:
    """apply of a decisions file: the one use case
    (:func:`~hubtui.core.workflows.decisions_file.apply_decisions`), this command its front end (the
    results file beside it, the review kept in the store)."""
    front = CommandFront(args, client, workspace, path=path, header=header)
    await apply_decisions(
        client,
        given,
        workspace.change_log,
        front,
        criteria=f"decisions file {path.name}",
        concurrency=workspace.concurrency,
        settle=not args.dry_run,
        keep=partial(keep_review, workspace),
    )
    return front.status


# The reviews kept ------------------------------------------------------------------------------


async def _reviews(args: argparse.Namespace, workspace: Workspace) -> int:
    try:
        if args.number is not None:
            info, kept = await review_kept(workspace, args.number)
        else:
            infos = await reviews_kept(workspace)
    except StoreOff as error:
        raise Stop(NOTHING, inert(str(error), limit=None)) from None
    except StoreError as error:  # unreadable is said, never "no review is kept"
        raise Stop(NOT_SENT, inert(str(error), limit=None)) from None
    if args.number is None:
        return print_answer(args, _reviews_table(infos, workspace), OK if infos else NOTHING)
    print(
        f"Review #{info.id} of {inert(info.hub_name)} by "
        f"{inert(who_words(info.reviewer, info.db_role))}, "
        f"{inert(info.started)} to {inert(info.ended)} ({inert(info.criteria)}); batch "
        f"{inert(info.batch) or 'none: nothing was sent'}.",
        file=sys.stderr,
    )
    columns = ("email", "name", "decision", "reason", "seen", "marks", "access", "outcome")
    table = Table(
        (
            Column("email", "Email", min_width=18, keep=True),
            Column("decision", "Decision", min_width=8, keep=True),
            Column("reason", "Reason", min_width=10),
            Column("seen", "Last seen", min_width=10),
            Column("outcome", "Outcome", min_width=10, meaning=True),
        ),
        kept,
        lambda r: tuple(inert(r[c]) for c in ("email", "decision", "reason", "seen", "outcome")),
        lambda items: [
            {"Review": info.id, "Reviewer": info.reviewer, "Batch": info.batch or None, **r}
            for r in items
        ],
        empty=f"review #{info.id} has no rows",
        csv=(columns, lambda r: tuple(r[c] for c in columns)),
    )
    return print_answer(args, table, OK if kept else NOTHING)


def _reviews_table(infos: Sequence[Any], workspace: Workspace) -> Table:
    def counts(info: Any) -> str:
        return ", ".join(f"{n} {d}" for d, n in info.counts.items()) or "no rows"

    columns = ("number", "hub", "reviewer", "started", "ended", "batch", "decisions", "criteria")
    return Table(
        (
            Column("number", "#", min_width=2, keep=True),
            Column("hub", "Hub", min_width=8),
            Column("reviewer", "Reviewer", min_width=8),
            Column("started", "Started", min_width=10, keep=True),
            Column("decisions", "Decisions", min_width=10, meaning=True),
            Column("batch", "Batch", min_width=11, keep=True),
        ),
        infos,
        lambda i: (
            f"#{i.id}",
            inert(i.hub_name),
            inert(who_words(i.reviewer, i.db_role)),
            inert(i.started),
            inert(counts(i)),
            inert(i.batch) or "-",
        ),
        lambda items: [
            {
                "Number": i.id,
                "Hub": i.hub_name,
                "Reviewer": i.reviewer,
                **({"Database role": i.db_role} if i.db_role else {}),
                "Started": i.started,
                "Outcome": i.ended,
                "Batch": i.batch or None,
                "Decisions": i.counts,
                "Criteria": i.criteria,
            }
            for i in items
        ],
        empty=f"no review of {inert(workspace.server_label)} is kept",
        csv=(
            columns,
            lambda i: (
                i.id,
                i.hub_name,
                i.reviewer,
                i.started,
                i.ended,
                i.batch,
                counts(i),
                i.criteria,
            ),
        ),
    )


# Offboarding -----------------------------------------------------------------------------------


async def _offboard(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    """offboard: the person's removal from every hub they are in, as one batch, kept as a
    review (:func:`~hubtui.core.workflows.offboard.offboard`, this command its front end)."""
    if workspace.read_only and not args.dry_run:
        raise Stop(NOT_SENT, read_only_words(args))
    hubs: list[Hub] = (
        [await resolve_hub(client, args.hub)] if args.hub else list(await client.list_hubs())
    )
    front = CommandFront(args, client, workspace, hubs=len(hubs))
    await offboard(
        client,
        args.email,
        hubs,
        workspace.change_log,
        front,
        reason=args.reason,
        concurrency=workspace.concurrency,
        deadline=workspace.search_deadline,
        settle=not args.dry_run,
        keep=partial(keep_review, workspace),
    )
    return front.status
