"""``hubtui log``: the changes sent to this server, as the change log holds them: who made each
(the operator), when, what it changed, its outcome and its batch; filtered by date, operator or
person. Read from the file, and from the team store's audit trail where there is one (every
operator's changes): nothing is sent to the server."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.clock import minute
from hubtui.core.presenting import Column, amount
from hubtui.core.workflows.engine import Change, changes_logged, who_words
from hubtui.headless.output import NOT_SENT, NOTHING, OK, REFUSED, Table, print_answer
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.core.workspace import Workspace


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    log = workspace.change_log
    changes = changes_logged(log)
    if args.since:
        changes = [c for c in changes if c.time >= args.since]
    if args.operator:
        wanted = args.operator.casefold()
        changes = [c for c in changes if wanted in (c.operator or "").casefold()]
    if args.person:
        key = person_key(args.person)
        changes = [c for c in changes if person_key(c.email or "") == key]
    problem = workspace.team_problem  # set by the read above when the team store failed
    team = workspace.team if problem is None else None
    where = f"{log.path}" + (f" and the team store {inert(team)}" if team else "")
    print(
        f"{amount(len(changes), 'change')} sent to {inert(workspace.server_label)} in {where}.",
        file=sys.stderr,
    )
    status = print_answer(args, _table(changes), OK if changes else NOTHING)
    if (changed := workspace.trail_check()) is not None:  # never silently believed
        print(f"hubtui: {inert(changed, limit=None)}", file=sys.stderr)
        status = max(status, REFUSED)
    if problem is not None:  # an incomplete answer says so, with the store's one status
        print(
            f"hubtui: incomplete, this machine's changes only: {inert(problem, limit=None)}",
            file=sys.stderr,
        )
        return NOT_SENT
    return status


def _table(changes: list[Change]) -> Table:
    columns = (
        "time", "operator", "db role", "from", "action", "hub", "project", "email", "change",
        "outcome", "detail", "batch", "reverts", "checked by",
    )  # fmt: skip

    def cells(c: Change) -> tuple[str, ...]:
        where = "" if not c.project_id else (c.project_name or c.project_id)
        source = "the team's trail" if c.from_trail else "this machine's change log"
        return (
            c.time, c.operator, c.db_role or "", source, c.action, c.hub_name, where,
            c.email or "", c.summary, c.outcome, c.detail, c.batch or "", c.reverts or "",
            c.checked_by or "",
        )  # fmt: skip

    return Table(
        (
            Column("time", "When (UTC)", min_width=16, keep=True),
            Column("operator", "Operator", min_width=8),
            Column("email", "Person", min_width=16, keep=True),
            Column("where", "Where", min_width=10),
            Column("change", "Change", min_width=14, meaning=True),
            Column("outcome", "Outcome", width=7, keep=True),
        ),
        changes,
        lambda c: (
            inert(minute(c.time)),
            inert(who_words(c.operator or "?", c.db_role)),
            inert(c.email or c.user_id or "?"),
            inert(f"{c.hub_name} · {c.where}"),
            inert(f"{c.action}: {c.summary}"),
            inert(str(c.outcome)),
        ),
        lambda items: [
            {column: value for column, value in zip(columns, cells(c), strict=True)} for c in items
        ],
        empty="no change in the change log matches",
        csv=(columns, cells),
    )
