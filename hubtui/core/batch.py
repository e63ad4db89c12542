"""Changes in batches: staged, previewed against a fresh read, sent the one way, checked, reverted.

Over 400 lines: the batch engine whole: decide, prepare against a fresh read, send, check the
unknown rows, revert.

Textual-free: the app's staged changes and ``hubtui apply`` share it.

1. A :class:`~hubtui.core.wanted.Wanted` says what one person should have in one project (a
   role, a reviewer flag, direct membership) and, when staged from a list on screen, what they
   had then (``seen``).
2. :func:`prepare` reads each project's users again (under the search's limiter) and turns each
   wanted row into a :class:`Step`: a change to send, shown as a difference, or why it is not
   sent (already so, a limited reader cannot be PUT, a duplicate, changed since staged,
   read-only). Unknown adds that earlier runs left are checked against that read first.
3. :meth:`Batch.send` sends each change through :func:`~hubtui.core.sending.send_change` (its
   ``pending`` line written first, under the batch's id), continues past failures and reports
   each row's outcome as it comes. Cancelled, the rows in flight are logged unknown and the rows
   not started are not sent.
4. :meth:`Batch.check` reads the lists of the unknown rows again and settles each from what it
   shows: nothing is resent before that. :meth:`Batch.again` is what ``r`` sends again.
5. :func:`revert_of` builds the inverse of a logged batch from its before-values.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from hubtui.core.access import ROLES, find_person, person_key
from hubtui.core.changelog import (
    HUB_CHANGES,
    NOT_SENT_WORDS,
    Action,
    Change,
    ChangeLog,
    ChangeLogError,
    Outcome,
    changes_logged,
    now,
)
from hubtui.core.emails import email_problem
from hubtui.core.sending import ChangedSinceRead, EarlierAddUnknown, send_change
from hubtui.core.wanted import (
    Evidence,
    Intent,
    Seen,
    Step,
    Verdict,
    Wanted,
    project_change,
)

if TYPE_CHECKING:
    from hubtui.api import HubClient, HubError, ProjectUser

__all__ = [
    "ROLES",
    "Batch",
    "ChangeSet",
    "Evidence",
    "Intent",
    "Preview",
    "Result",
    "RevertPlan",
    "Seen",
    "Step",
    "Verdict",
    "Wanted",
    "batches_in",
    "batches_of",
    "decide",
    "new_batch_id",
    "plan_revert",
    "prepare",
    "put_back_already",
    "revert_of",
]

#: From this many changes, a batch asks for the count to be typed before it is sent.
TYPE_THE_COUNT_ABOVE = 50


@dataclass
class Preview:
    """Every step of a batch, in the order staged, and the unknown adds its reads settled."""

    steps: list[Step]
    settled: list[Change] = field(default_factory=list)

    @property
    def to_send(self) -> list[Step]:
        return [s for s in self.steps if s.verdict is Verdict.SEND]

    def counts(self) -> Counter[Verdict]:
        return Counter(s.verdict for s in self.steps)

    def groups(self) -> dict[tuple[str, str], list[Step]]:
        """The steps by (hub id, project id), in the order first staged."""
        grouped: dict[tuple[str, str], list[Step]] = {}
        for step in self.steps:
            grouped.setdefault((step.wanted.hub_id, step.wanted.project_id), []).append(step)
        return grouped

    def summary(self) -> str:
        """``12 to send (3 adds, 9 updates) · 2 no change · 1 skipped``; a hub's rows are
        named apart (``1 removal from the hub``)."""
        counts = self.counts()
        sending = self.to_send
        actions = Counter(s.change.action for s in sending if s.change is not None)
        adds = actions[Action.ADD]
        hub = [
            (Action.HUB_REMOVE, "removal from the hub", "removals from the hub"),
            (Action.HUB_INVITE, "invitation", "invitations"),
            (Action.HUB_ROLE, "hub role", "hub roles"),
        ]
        updates = actions[Action.UPDATE]
        named = [f"{adds} adds", f"{updates} updates"]
        named += [
            f"{actions[a]} {one if actions[a] == 1 else many}" for a, one, many in hub if actions[a]
        ]
        parts = [f"{len(sending)} to send ({', '.join(named)})"]
        for verdict in (Verdict.SAME, Verdict.SKIP, Verdict.CHANGED, Verdict.NOT_READ):
            if counts[verdict]:
                parts.append(f"{counts[verdict]} {verdict}")
        return " · ".join(parts)


class ChangeSet:
    """The changes staged in a session, across projects and screens, until applied or dropped.

    One row per person and project: staging the same person in the same project again replaces
    the earlier row (the latest wish wins), so a preview never holds two rows for one person.
    """

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str, str, str], Wanted] = {}

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> list[Wanted]:
        return list(self._rows.values())

    def stage(self, rows: Iterable[Wanted]) -> int:
        """Stage ``rows``; how many were staged."""
        count = 0
        for row in rows:
            self._rows[row.key] = row
            count += 1
        return count

    def drop(self, rows: Iterable[Wanted] | None = None) -> None:
        """Drop these rows (None: every row)."""
        if rows is None:
            self._rows.clear()
            return
        for row in rows:
            self._rows.pop(row.key, None)

    def projects(self) -> int:
        return len({(row.hub_id, row.project_id) for row in self._rows.values()})


def new_batch_id() -> str:
    return "b" + uuid.uuid4().hex[:10]


async def read_lists(
    client: HubClient,
    projects: Iterable[tuple[str, str]],
    *,
    concurrency: int,
    on_read: Callable[[int, int], None] | None = None,
) -> dict[tuple[str, str], Sequence[ProjectUser] | HubError]:
    """Each project's users (or why they could not be read), read under one limiter."""
    from hubtui.api import HubError

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
    from hubtui.api import HubError
    from hubtui.core.hub_changes import decide_hub, read_hub_users

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
    hub_users = await read_hub_users(client, (w.hub_id for w in of_hub)) if of_hub else {}
    preview = Preview([])
    await log.read_team_adds(lists)
    for (hub_id, project_id), users in lists.items():
        if isinstance(users, HubError):
            continue
        members = [u.user.email or "" for u in users if u.is_direct_member]
        log.adopt_unknown_adds(hub_id, project_id)
        if settle:
            preview.settled.extend(log.resolve_adds(hub_id, project_id, members))
    first_line: dict[tuple[str, str, str, str], Wanted] = {}
    for row in wanted:
        earlier = first_line.get(row.key)
        if earlier is not None:
            where = f"line {earlier.line}" if earlier.line is not None else "an earlier row"
            preview.steps.append(
                Step(row, Verdict.SKIP, f"a duplicate of {where} (the same person and project)")
            )
            continue
        first_line[row.key] = row
        if row.of_hub:
            preview.steps.append(decide_hub(row, hub_users[row.hub_id], lists, read_only))
            continue
        users = lists[row.hub_id, row.project_id]
        preview.steps.append(_decide(row, users, log, read_only, client.api_version))
    return preview


def _decide(
    row: Wanted,
    users: Sequence[ProjectUser] | HubError,
    log: ChangeLog,
    read_only: bool,
    api_version: str,
) -> Step:
    from hubtui.api import HubError

    problem = email_problem(row.email)
    if problem:
        return Step(row, Verdict.SKIP, problem)
    if row.role is not None and row.role not in ROLES:
        return Step(row, Verdict.SKIP, f"the role must be {', '.join(ROLES)}")
    if isinstance(users, HubError):
        return Step(row, Verdict.NOT_READ, f"the project's users could not be read: {users}")
    user = find_person(users, row.email)
    now_seen = Seen.of(user)
    if row.seen is not None and row.seen != now_seen:
        return Step(
            row,
            Verdict.CHANGED,
            f"was {row.seen.words()} when staged, now {now_seen.words()}: stage it again",
            now=now_seen,
        )
    change, words, verdict = decide(row, user, api_version=api_version)
    if verdict is Verdict.SEND and read_only:
        return Step(row, Verdict.SKIP, f"read-only mode: nothing is sent ({words})", now=now_seen)
    if verdict is Verdict.SEND and change is not None and change.action == Action.ADD:
        earlier = log.unknown_add(row.hub_id, row.project_id, row.email)
        if earlier is not None:
            return Step(
                row,
                Verdict.SKIP,
                f"an earlier add ({earlier.time}) may have reached the server and is not "
                "checked yet",
                now=now_seen,
            )
    return Step(row, verdict, words, change, now_seen)


def decide(
    row: Wanted, user: ProjectUser | None, *, api_version: str
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
        change = project_change(row, Action.ADD, None, after, None, api_version)
        return change, words, Verdict.SEND
    before: dict[str, object] = {"Role": user.role, "IsReviewer": user.is_reviewer}
    after = {
        "Role": row.role or user.role,
        "IsReviewer": user.is_reviewer if row.reviewer is None else row.reviewer,
    }
    if before == after:
        return None, f"already {Seen.of(user).words()}", Verdict.SAME
    if row.intent is Intent.ADD:
        return None, f"already a direct member ({user.role}): set their role instead", Verdict.SKIP
    change = project_change(row, Action.UPDATE, before, after, str(user.user.id), api_version)
    return change, change.summary, Verdict.SEND


class Ended(StrEnum):
    """How a row of a batch ended."""

    DONE = "done"
    FAILED = "failed"
    UNKNOWN = "unknown"
    NOT_SENT = "not sent"
    """Never left: stopped before its turn, or refused before sending."""


@dataclass(frozen=True)
class Result:
    """A row's outcome, with its last log line (None: nothing was logged, nothing sent)."""

    step: Step
    ended: Ended
    message: str = ""
    change: Change | None = None
    reason: str = ""
    """Short, for a summary: ``409: Conflict`` (the message in full otherwise)."""

    @property
    def short(self) -> str:
        return self.reason or " ".join(self.message.split())


class Batch:
    """The steps to send under one batch id, and each one's outcome as it comes."""

    def __init__(self, steps: Sequence[Step], *, batch_id: str | None = None) -> None:
        self.id = batch_id or new_batch_id()
        self.reverts: str | None = None
        self.steps = [s for s in steps if s.verdict is Verdict.SEND and s.change is not None]
        self.results: dict[int, Result] = {}
        """By position in :attr:`steps`; a row without one has not ended (or not started)."""

    def outcome_counts(self) -> Counter[Ended]:
        return Counter(r.ended for r in self.results.values())

    async def send(
        self,
        client: HubClient,
        log: ChangeLog,
        *,
        concurrency: int = 8,
        on_result: Callable[[int, Result], None] | None = None,
        only: Iterable[int] | None = None,
    ) -> None:
        """Send each step (``only``: these positions) under the limiter, past any failure.

        A change log that cannot be written stops the batch: that row and every row after it
        are not sent. Cancelled (escape, a signal), the rows in flight end unknown (their log
        says so) and the rows not started end "not sent"; the cancel then goes on up.
        """
        from hubtui.core.hub_changes import wave

        limiter = asyncio.Semaphore(max(1, concurrency))
        positions = list(range(len(self.steps))) if only is None else list(only)
        stopped: list[str] = []
        waves: dict[int, list[int]] = {}
        for position in positions:
            change = self.steps[position].change
            assert change is not None
            waves.setdefault(wave(change), []).append(position)

        def end(position: int, result: Result) -> None:
            self.results[position] = result
            if on_result is not None:
                on_result(position, result)

        async def one(position: int) -> None:
            step = self.steps[position]
            assert step.change is not None
            change = replace(step.change, batch=self.id, reverts=self.reverts, time=now())
            begun = len(log.changes)
            refused = not_invited.get((change.hub_id, person_key(change.email)))
            if refused is not None and change.action not in HUB_CHANGES:
                end(position, Result(step, Ended.NOT_SENT, refused))
                return
            try:
                async with limiter:
                    if stopped:
                        end(position, Result(step, Ended.NOT_SENT, stopped[0]))
                        return
                    begun = len(log.changes)
                    sent = await send_change(client, log, change, wait_for_outcome_line=False)
            except ChangeLogError as error:
                stopped.append(f"not sent: {error}")
                end(position, Result(step, Ended.NOT_SENT, str(error)))
                return
            except (EarlierAddUnknown, ChangedSinceRead) as error:
                end(position, Result(step, Ended.NOT_SENT, str(error)))
                return
            except asyncio.CancelledError:
                logged = _logged_since(log, begun, change)
                if logged is None or logged.detail == NOT_SENT_WORDS:
                    end(position, Result(step, Ended.NOT_SENT, "stopped before it was sent"))
                elif logged.outcome in (Outcome.DONE, Outcome.FAILED):  # answered before the stop
                    message = "" if logged.outcome == Outcome.DONE else logged.detail
                    end(position, Result(step, Ended(str(logged.outcome)), message, logged))
                else:
                    end(position, Result(step, Ended.UNKNOWN, logged.detail, logged))
                raise
            ended = Ended(sent.outcome.value) if sent.outcome != Outcome.PENDING else Ended.UNKNOWN
            message = "" if ended is Ended.DONE else str(sent.error or sent.change.detail)
            reason = "" if sent.error is None else _reason(sent.error)
            end(position, Result(step, ended, message, sent.change, reason))

        # A project's row for a person whose invitation to the hub did not end done is not
        # sent: on the service an add makes them a hub user again, around the refusal.
        not_invited: dict[tuple[str, str], str] = {}

        def invitations_ended(positions: Iterable[int]) -> None:
            for position in positions:
                result = self.results.get(position)
                change = self.steps[position].change
                if change is None or change.action != Action.HUB_INVITE:
                    continue
                if result is None or result.ended is not Ended.DONE:
                    how = "not sent" if result is None else result.ended.value
                    why = f": {result.short}" if result is not None and result.short else ""
                    not_invited[change.hub_id, person_key(change.email)] = (
                        f"not sent: it depends on their invitation to the hub, which ended "
                        f"{how}{why}"
                    )

        try:
            for number in sorted(waves):  # a hub's invitations first, its removals last
                async with asyncio.TaskGroup() as group:
                    for position in waves[number]:
                        group.create_task(one(position))
                invitations_ended(waves[number])
        except asyncio.CancelledError:
            for position in positions:
                if position not in self.results:
                    end(
                        position,
                        Result(self.steps[position], Ended.NOT_SENT, "stopped before it was sent"),
                    )
            raise
        finally:
            await log.drained()  # every outcome line written before the batch says it ended

    async def check(self, client: HubClient, log: ChangeLog, *, concurrency: int = 8) -> list[int]:
        """Read the lists of the rows whose outcome is unknown, settle each from what it shows
        (logged as checked) and return the positions settled. Nothing is sent."""
        from hubtui.api import HubError
        from hubtui.core.hub_changes import read_hub_users, settle_hub

        unknown = {p: r for p, r in self.results.items() if r.ended is Ended.UNKNOWN}
        if not unknown:
            return []
        lists = await read_lists(
            client,
            (
                (r.step.wanted.hub_id, r.step.wanted.project_id)
                for r in unknown.values()
                if not r.step.wanted.of_hub
            ),
            concurrency=concurrency,
        )
        hubs = {r.step.wanted.hub_id for r in unknown.values() if r.step.wanted.of_hub}
        hub_users = await read_hub_users(client, hubs) if hubs else {}
        settled = []
        for position, result in unknown.items():
            wanted = result.step.wanted
            change = result.change
            if wanted.of_hub:
                answer = hub_users[wanted.hub_id]
                if isinstance(answer, HubError) or change is None:
                    continue
                hub_checked = settle_hub(log, change, answer)
                if hub_checked is None:
                    continue
                ended = Ended.DONE if hub_checked.outcome == Outcome.DONE else Ended.FAILED
                self.results[position] = Result(result.step, ended, hub_checked.detail, hub_checked)
                settled.append(position)
                continue
            users = lists[wanted.hub_id, wanted.project_id]
            if isinstance(users, HubError) or change is None:
                continue
            user = find_person(users, wanted.email)
            if change.action == Action.ADD:
                found = user is not None and user.is_direct_member is True
                checked = log.settle_add(change, found)
            else:
                shown = (
                    None if user is None else {"Role": user.role, "IsReviewer": user.is_reviewer}
                )
                if shown == change.after:
                    checked = log.settle_update(change, True)
                elif shown == change.before:
                    checked = log.settle_update(change, False)
                else:
                    continue  # neither: it stays unknown, and says so
            ended = Ended.DONE if checked.outcome == Outcome.DONE else Ended.FAILED
            self.results[position] = Result(result.step, ended, checked.detail, checked)
            settled.append(position)
        return settled

    def again(self) -> list[Wanted]:
        """The rows ``r`` sends again: failed, unknown (after :meth:`check`) or not sent."""
        return [
            r.step.wanted
            for r in self.results.values()
            if r.ended in (Ended.FAILED, Ended.UNKNOWN, Ended.NOT_SENT)
        ]

    def summary(self) -> str:
        """``12 done, 1 failed (409: …), 0 unknown``: what a ticket holds."""
        counts = self.outcome_counts()
        failed = [r for r in self.results.values() if r.ended is Ended.FAILED]
        why = ""
        if failed:
            first = failed[0].short
            first = first if len(first) <= 80 else first[:79] + "…"
            why = f" ({first}" + (f"; and {len(failed) - 1} more)" if len(failed) > 1 else ")")
        words = [
            f"{counts[Ended.DONE]} done",
            f"{counts[Ended.FAILED]} failed{why}",
            f"{counts[Ended.UNKNOWN]} unknown",
        ]
        if counts[Ended.NOT_SENT]:
            words.append(f"{counts[Ended.NOT_SENT]} not sent")
        return ", ".join(words)


def _reason(error: HubError) -> str:
    """``409: Conflict``: the status and the server's own word for it, or hubtui's words."""
    from hubtui.api.errors import ApiStatusError

    if isinstance(error, ApiStatusError):
        said = error.code or error.title or ""
        return f"{error.status_code}: {said}" if said else f"HTTP {error.status_code}"
    return " ".join(str(error).split())


def _logged_since(log: ChangeLog, begun: int, change: Change) -> Change | None:
    """The log's line for ``change`` if its pending line was written after position ``begun``."""
    for logged in log.changes[begun:]:
        if (
            logged.batch == change.batch
            and (logged.hub_id, logged.project_id) == (change.hub_id, change.project_id)
            and person_key(logged.email) == person_key(change.email)
        ):
            return logged
    return None


def batches_in(log: ChangeLog) -> dict[str, list[Change]]:
    """The batches the change log's file (and the team store, where there is one) holds for its
    server and profile (the whole base URL: a batch of ``/a`` is never one of ``/b``): each
    change's last line, by batch id, oldest batch first."""
    if (log.path is None or not log.path.exists()) and log.team_lines is None:
        return {}
    return batches_of(changes_logged(log))


def batches_of(changes: Iterable[Change]) -> dict[str, list[Change]]:
    """Changes by batch id, in the order their batches first appear."""
    batches: dict[str, list[Change]] = {}
    for change in changes:
        if change.batch:
            batches.setdefault(change.batch, []).append(change)
    return batches


def revert_of(changes: Iterable[Change]) -> tuple[list[Wanted], list[Change]]:
    """The inverse of a batch's changes: each update that took effect (or may have) put back to
    its before-values, and the adds, which this API cannot undo (nobody can be removed from a
    project), listed apart. A removal from the hub is put back by an invitation (an email to
    the person), then each project's role and reviewer flag it ended. A change that failed
    took no effect and has nothing to put back."""
    from hubtui.core.hub_changes import reverts_of_hub

    wanted: list[Wanted] = []
    cannot: list[Change] = []
    for change in changes:
        if change.outcome == Outcome.FAILED:
            continue
        if change.action in HUB_CHANGES:
            rows = reverts_of_hub(change)
            wanted.extend(rows)
            if not rows:
                cannot.append(change)
            continue
        if change.action == Action.RESEND:
            continue  # an email sent again: nothing to put back
        if change.action == Action.ADD:
            cannot.append(change)
            continue
        if change.before is None or not change.email:
            cannot.append(change)
            continue
        role = str(change.before.get("Role", "")) or None
        reviewer = change.before.get("IsReviewer")
        after = change.after
        wanted.append(
            Wanted(
                hub_id=change.hub_id,
                hub_name=change.hub_name,
                project_id=change.project_id,
                project_name=change.project_name,
                email=change.email,
                intent=Intent.SET,
                role=role,
                reviewer=None if reviewer is None else bool(reviewer),
                seen=Seen(
                    True,
                    False,
                    str(after.get("Role")),
                    bool(after.get("IsReviewer")),
                )
                if change.outcome == Outcome.DONE
                else None,
            )
        )
    return wanted, cannot


@dataclass
class RevertPlan:
    """What putting a batch back sends, the one rule for the app's ``R`` and ``hubtui revert``:
    each row carries what the batch left (a row whose subject changed since is not sent, said),
    and a row another revert already put back is not sent again."""

    wanted: list[Wanted]
    cannot: list[Change]
    """Its changes that cannot be put back (an add: nobody leaves a project through the API)."""
    already: list[tuple[Wanted, Change]]
    """Rows another batch already put back, with the change that did."""


def plan_revert(batches: dict[str, list[Change]], batch_id: str) -> RevertPlan | None:
    """How ``batch_id`` is put back, from the batches the change log holds (None: no such
    batch)."""
    changes = batches.get(batch_id)
    if changes is None:
        return None
    wanted, cannot = revert_of(changes)
    rest, already = put_back_already(batches, batch_id, wanted)
    return RevertPlan(rest, cannot, already)


def put_back_already(
    batches: dict[str, list[Change]], batch_id: str, wanted: Iterable[Wanted]
) -> tuple[list[Wanted], list[tuple[Wanted, Change]]]:
    """Of a revert's rows, those still to send, and those a batch reverting ``batch_id`` has
    already put back (each with the change that did): a revert run again sends nothing twice."""
    done: dict[tuple[str, str, str], Change] = {}
    for changes in batches.values():
        for change in changes:
            if change.reverts == batch_id and change.outcome == Outcome.DONE and change.email:
                done[change.hub_id, change.project_id, person_key(change.email)] = change
    rest: list[Wanted] = []
    already: list[tuple[Wanted, Change]] = []
    for row in wanted:
        found = done.get((row.hub_id, row.project_id, person_key(row.email)))
        if found is None:
            rest.append(row)
        else:
            already.append((row, found))
    return rest, already
