"""A batch's project rows, previewed: each project read again and every row decided against it.

:func:`prepare` reads each project's users again (under one limiter) and turns each wanted row
into a :class:`~hubtui.core.batches.wanted.DecidedRow`: a change to send, shown as a difference,
or why it is not sent (already so, a limited reader cannot be PUT, a duplicate, changed since
staged, read-only). Unknown adds that earlier runs left are checked against that read first. A
hub's rows are decided by :mod:`hubtui.core.batches.hubs`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.core.access import ROLES, account_of, email_problem, find_person
from hubtui.core.batches.hubs import decide_hub, read_hub_users
from hubtui.core.batches.wanted import (
    DecidedRow,
    Intent,
    ListedAccess,
    Verdict,
    Wanted,
    project_change,
    unless_read_only,
)
from hubtui.core.changes.actions import Action
from hubtui.core.changes.kinds import KINDS, kind_of
from hubtui.core.changes.log import ChangeLog
from hubtui.core.changes.record import Change

if TYPE_CHECKING:
    from hubtui.api import HubClient, ProjectUser
    from hubtui.api.models import HubUser

#: From this many changes, a batch asks for the count to be typed before it is sent.
TYPE_THE_COUNT_ABOVE = 50


@dataclass
class Preview:
    """Every step of a batch, in the order staged, and the unknown adds its reads settled."""

    steps: list[DecidedRow]
    settled: list[Change] = field(default_factory=list)

    @property
    def to_send(self) -> list[DecidedRow]:
        return [s for s in self.steps if s.verdict is Verdict.SEND]

    def counts(self) -> Counter[Verdict]:
        return Counter(s.verdict for s in self.steps)

    def groups(self) -> dict[tuple[str, str], list[DecidedRow]]:
        """The steps by (hub id, project id), in the order first staged."""
        grouped: dict[tuple[str, str], list[DecidedRow]] = {}
        for step in self.steps:
            grouped.setdefault((step.wanted.hub_id, step.wanted.project_id), []).append(step)
        return grouped

    def summary(self) -> str:
        """``12 to send (3 adds, 9 updates) · 2 no change · 1 skipped``; a hub's rows are
        named apart (``1 removal from the hub``)."""
        counts = self.counts()
        sending = self.to_send
        actions = Counter(s.change.action for s in sending if s.change is not None)
        named = [
            f"{actions[kind.action]} {kind.counted[actions[kind.action] != 1]}"
            for kind in KINDS
            if actions[kind.action] or kind.always_counted
        ]
        parts = [f"{len(sending)} to send ({', '.join(named)})"]
        for verdict in (Verdict.SAME, Verdict.SKIP, Verdict.CHANGED, Verdict.NOT_READ):
            if counts[verdict]:
                parts.append(f"{counts[verdict]} {verdict}")
        return " · ".join(parts)


def new_batch_id() -> str:
    return "b" + uuid.uuid4().hex[:10]


def on_its_own(change: Change) -> Change:
    """A change sent by itself (the form's ``e``/``a``, ``add-user``, ``set-role``): a batch of
    one, so that ``R`` in the change log and ``hubtui revert`` put it back as any batch."""
    return replace(change, batch=new_batch_id())


async def read_lists(
    client: HubClient,
    projects: Iterable[tuple[str, str]],
    *,
    concurrency: int,
    on_read: Callable[[int, int], None] | None = None,
) -> dict[tuple[str, str], Sequence[ProjectUser] | HubError]:
    """Each project's users (or why they could not be read), read under one limiter."""
    wanted = list(dict.fromkeys(projects))
    limiter = asyncio.Semaphore(max(1, concurrency))
    lists: dict[tuple[str, str], Sequence[ProjectUser] | HubError] = {}

    async def one(hub_id: str, project_id: str) -> None:
        async with limiter:
            try:
                lists[hub_id, project_id] = await client.list_project_users(hub_id, project_id)
            except HubError as error:
                lists[hub_id, project_id] = error
        if on_read is not None:
            on_read(len(lists), len(wanted))

    async with asyncio.TaskGroup() as group:
        for hub_id, project_id in wanted:
            group.create_task(one(hub_id, project_id))
    return lists


async def prepare(
    client: HubClient,
    wanted: Sequence[Wanted],
    log: ChangeLog,
    *,
    read_only: bool = False,
    concurrency: int = 8,
    settle: bool = True,
    on_read: Callable[[int, int], None] | None = None,
) -> Preview:
    """Read every project of ``wanted`` again and decide each row against what it shows.

    ``settle``: unknown adds that this or an earlier run left for these projects are checked
    against the lists and logged so (a dry run leaves the log alone and says what it would
    find). Nothing is sent.
    """
    of_hub = [w for w in wanted if w.of_hub]
    lists = await read_lists(
        client,
        [
            *((w.hub_id, w.project_id) for w in wanted if not w.of_hub),
            *((w.hub_id, project_id) for w in of_hub for project_id, _ in w.projects),
        ],
        concurrency=concurrency,
        on_read=on_read,
    )
    # An add names the known account of its address (the hub's users, read now), so that it is
    # sent only while that account still has it: never a second account at an old address. A
    # row that names its account already (a ticket's fix) needs no read for it.
    adding = [
        w
        for w in wanted
        if not w.of_hub and w.intent in (Intent.ADD, Intent.MEMBER) and w.user_id is None
    ]
    read_hubs = [w.hub_id for w in (*of_hub, *adding)]
    hub_users = await read_hub_users(client, read_hubs) if read_hubs else {}
    known = {id(w): _known_account(w, hub_users) for w in adding}
    preview = Preview([])
    await log.read_team_adds(lists)
    for (hub_id, project_id), users in lists.items():
        if isinstance(users, HubError):
            continue
        members = [u.user.email or "" for u in users if u.is_direct_member]
        log.take_in_unknown_adds(hub_id, project_id)
        if settle:
            preview.settled.extend(log.settle_adds(hub_id, project_id, members))
    first_line: dict[tuple[str, str, str, str], Wanted] = {}
    for row in wanted:
        earlier = first_line.get(row.key)
        if earlier is not None:
            where = f"line {earlier.line}" if earlier.line is not None else "an earlier row"
            preview.steps.append(
                DecidedRow(
                    row, Verdict.SKIP, f"a duplicate of {where} (the same person and project)"
                )
            )
            continue
        first_line[row.key] = row
        if row.of_hub:
            preview.steps.append(decide_hub(row, hub_users[row.hub_id], lists, read_only))
            continue
        users = lists[row.hub_id, row.project_id]
        account = known.get(id(row))
        preview.steps.append(_decide(row, users, log, read_only, client.api_version, account))
    return preview


def _known_account(
    row: Wanted, hub_users: Mapping[str, Sequence[HubUser] | HubError]
) -> str | None:
    """The account an add's address names among the hub's users, by its Id (one account only;
    none, several, or a list not read: None, the address alone)."""
    users = hub_users.get(row.hub_id)
    if users is None or isinstance(users, HubError):
        return None
    found = account_of(users, row.email, None)
    return None if found is None else str(found.user.id)


def _decide(
    row: Wanted,
    users: Sequence[ProjectUser] | HubError,
    log: ChangeLog,
    read_only: bool,
    api_version: str,
    account: str | None = None,
) -> DecidedRow:
    problem = email_problem(row.email)
    if problem:
        return DecidedRow(row, Verdict.SKIP, problem)
    if row.role is not None and row.role not in ROLES:
        return DecidedRow(row, Verdict.SKIP, f"the role must be {', '.join(ROLES)}")
    if isinstance(users, HubError):
        return DecidedRow(row, Verdict.NOT_READ, f"the project's users could not be read: {users}")
    user = find_person(users, row.email)
    now_seen = ListedAccess.of(user)
    if row.seen is not None and row.seen != now_seen:
        return DecidedRow(
            row,
            Verdict.CHANGED,
            f"was {row.seen.words()} when staged, now {now_seen.words()}: stage it again",
            now=now_seen,
        )
    change, words, verdict = decide(row, user, api_version=api_version, account=account)
    step = unless_read_only(DecidedRow(row, verdict, words, change, now_seen), read_only)
    if step.verdict is Verdict.SEND and change is not None and kind_of(change).held_until_checked:
        earlier = log.unknown_add(row.hub_id, row.project_id, row.email)
        if earlier is not None:
            return DecidedRow(
                row,
                Verdict.SKIP,
                f"an earlier add ({earlier.time}) may have reached the server and is not "
                "checked yet",
                now=now_seen,
            )
    return step


def decide(
    row: Wanted, user: ProjectUser | None, *, api_version: str, account: str | None = None
) -> tuple[Change | None, str, Verdict]:
    """What a wished change becomes, given the person as the project's list shows them now:
    the change to send (to ``api_version``) and its difference, or why nothing is sent.

    The one place this is decided: the form, ``add-user``/``set-role`` and every batch row
    (a file's, a staged one's, a revert's) come here. What the wish leaves out is never sent
    as a default: a reviewer flag not given is kept on an update and not sent on an add.
    """
    limited = user is not None and bool(user.is_limited)
    if row.intent is Intent.LIMITED:
        if limited:
            return None, "a limited reader, as the row says", Verdict.SAME
        if user is None:
            return None, "not in the project: limited access comes from the hub", Verdict.SKIP
        return None, f"a direct member now ({user.role}), not a limited reader", Verdict.SKIP
    if user is None or limited:
        if row.intent is Intent.SET:
            why = (
                "a limited reader cannot be PUT: they have no role of their own; make them a "
                "direct member instead"
                if limited
                else "not in the project: there is nobody to change"
            )
            return None, why, Verdict.SKIP
        if row.role is None:
            return None, "a role is needed to add them", Verdict.SKIP
        after: dict[str, object] = {"Role": row.role}
        if row.reviewer is not None:
            after["IsReviewer"] = row.reviewer
        how = "a limited reader made a direct member" if limited else "added as a direct member"
        words = f"{how}: Role {row.role}" + (
            "" if row.reviewer is None else f", reviewer {'yes' if row.reviewer else 'no'}"
        )
        if row.note:
            words += f" ({row.note})"
        # A limited reader is their account, and so is a known user of the hub the row names:
        # the add is sent only while that account still has this address (read again by its Id
        # just before it leaves).
        if limited and user is not None:
            account = str(user.user.id)
        else:  # ``account``: the hub's account of this address, read in the preview
            account = row.user_id or account
        change = project_change(row, Action.ADD, None, after, account, api_version)
        return change, words, Verdict.SEND
    before: dict[str, object] = {"Role": user.role, "IsReviewer": user.is_reviewer}
    after = {
        "Role": row.role or user.role,
        "IsReviewer": user.is_reviewer if row.reviewer is None else row.reviewer,
    }
    if before == after:
        return None, f"already {ListedAccess.of(user).words()}", Verdict.SAME
    if row.intent is Intent.ADD:
        return None, f"already a direct member ({user.role}): set their role instead", Verdict.SKIP
    change = project_change(row, Action.UPDATE, before, after, str(user.user.id), api_version)
    return change, change.summary, Verdict.SEND
