"""A previewed batch run: sent the one way, its unknown rows settled, what is left to retry.

:meth:`Batch.send` sends each change through :func:`~hubtui.core.changes.sending.send_change`
(its ``pending`` line written first, under the batch's id), continues past failures and reports
each row's outcome as it comes. Cancelled, the rows in flight are logged unknown and the rows not
started are not sent. :meth:`Batch.check` reads the lists of the unknown rows again and settles
each from what it shows: nothing is resent before that. :meth:`Batch.again` is what ``r`` sends
again.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.api.errors import ApiStatusError
from hubtui.core.access import person_key
from hubtui.core.batches.hubs import read_hub_users
from hubtui.core.batches.projects import new_batch_id, read_lists
from hubtui.core.batches.wanted import DecidedRow, Verdict, Wanted
from hubtui.core.changes.actions import NOT_SENT_WORDS, Outcome
from hubtui.core.changes.kinds import kind_of
from hubtui.core.changes.log import ChangeLog, ChangeLogError
from hubtui.core.changes.record import Change
from hubtui.core.changes.sending import ChangedSinceRead, EarlierAddUnknown, Sent, send_change
from hubtui.core.clock import now

if TYPE_CHECKING:
    from hubtui.api import HubClient


#: Why a row stopped before its turn was not sent.
STOPPED_BEFORE = "stopped before it was sent"


@dataclass(frozen=True)
class Result:
    """A row's outcome, with its last log line (None: nothing was logged, nothing sent)."""

    step: DecidedRow
    ended: Outcome
    message: str = ""
    change: Change | None = None
    reason: str = ""
    """Short, for a summary: ``409: Conflict`` (the message in full otherwise)."""

    @property
    def short(self) -> str:
        return self.reason or " ".join(self.message.split())


class Batch:
    """The steps to send under one batch id, and each one's outcome as it comes."""

    def __init__(self, steps: Sequence[DecidedRow], *, batch_id: str | None = None) -> None:
        self.id = batch_id or new_batch_id()
        self.reverts: str | None = None
        self.steps = [s for s in steps if s.verdict is Verdict.SEND and s.change is not None]
        self.results: dict[int, Result] = {}
        """By position in :attr:`steps`; a row without one has not ended (or not started)."""

    def outcome_counts(self) -> Counter[Outcome]:
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
        limiter = asyncio.Semaphore(max(1, concurrency))
        positions = list(range(len(self.steps))) if only is None else list(only)
        stopped: list[str] = []
        phases: dict[int, list[int]] = {}
        for position in positions:
            change = self.steps[position].change
            assert change is not None
            phases.setdefault(kind_of(change).phase, []).append(position)

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
            if refused is not None and not kind_of(change).of_hub:
                end(position, Result(step, Outcome.NOT_SENT, refused))
                return
            try:
                async with limiter:
                    if stopped:
                        end(position, Result(step, Outcome.NOT_SENT, stopped[0]))
                        return
                    begun = len(log.changes)
                    sent = await send_change(client, log, change, wait_for_outcome_line=False)
            except ChangeLogError as error:
                stopped.append(f"not sent: {error}")
                end(position, Result(step, Outcome.NOT_SENT, str(error)))
                return
            except (EarlierAddUnknown, ChangedSinceRead) as error:
                end(position, Result(step, Outcome.NOT_SENT, str(error)))
                return
            except asyncio.CancelledError:
                end(position, _stopped(step, _logged_since(log, begun, change)))
                raise
            end(position, _ended(step, sent))

        # A project's row for a person whose invitation to the hub did not end done is not
        # sent: on the service an add makes them a hub user again, around the refusal.
        not_invited: dict[tuple[str, str], str] = {}

        def invitations_ended(positions: Iterable[int]) -> None:
            not_invited.update(self._invitations_not_done(positions))

        try:
            for number in sorted(phases):  # a hub's invitations first, its removals last
                async with asyncio.TaskGroup() as group:
                    for position in phases[number]:
                        group.create_task(one(position))
                invitations_ended(phases[number])
        except asyncio.CancelledError:
            for position in positions:
                if position not in self.results:
                    end(
                        position,
                        Result(self.steps[position], Outcome.NOT_SENT, STOPPED_BEFORE),
                    )
            raise
        finally:
            await log.drained()  # every outcome line written before the batch says it ended

    def _invitations_not_done(self, positions: Iterable[int]) -> dict[tuple[str, str], str]:
        """Of these rows, each invitation to a hub that did not end done, by (hub, person),
        with why the person's project rows of the batch are not sent."""
        refused: dict[tuple[str, str], str] = {}
        for position in positions:
            result = self.results.get(position)
            change = self.steps[position].change
            if change is None or not kind_of(change).others_wait_on_it:
                continue
            if result is None or result.ended is not Outcome.DONE:
                how = "not sent" if result is None else result.ended.value
                why = f": {result.short}" if result is not None and result.short else ""
                refused[change.hub_id, person_key(change.email)] = (
                    f"not sent: it depends on their invitation to the hub, which ended {how}{why}"
                )
        return refused

    async def check(self, client: HubClient, log: ChangeLog, *, concurrency: int = 8) -> list[int]:
        """Read the lists of the rows whose outcome is unknown, settle each from what it shows
        (logged as checked) and return the positions settled. Nothing is sent."""
        unknown = {p: r for p, r in self.results.items() if r.ended is Outcome.UNKNOWN}
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
            listed = (
                hub_users[wanted.hub_id]
                if wanted.of_hub
                else lists[wanted.hub_id, wanted.project_id]
            )
            if isinstance(listed, HubError) or change is None:
                continue
            kind = kind_of(change)
            took = kind.took_effect(change, listed)
            if took is None:
                continue  # neither before nor after shows: it stays unknown, and says so
            checked = log.settle(change, took, kind.settled_words[not took])
            ended = Outcome.DONE if checked.outcome == Outcome.DONE else Outcome.FAILED
            self.results[position] = Result(result.step, ended, checked.detail, checked)
            settled.append(position)
        return settled

    def again(self) -> list[Wanted]:
        """The rows ``r`` sends again: failed, unknown (after :meth:`check`) or not sent."""
        return [
            r.step.wanted
            for r in self.results.values()
            if r.ended in (Outcome.FAILED, Outcome.UNKNOWN, Outcome.NOT_SENT)
        ]

    def summary(self) -> str:
        """``12 done, 1 failed (409: …), 0 unknown``: what a ticket holds."""
        counts = self.outcome_counts()
        failed = [r for r in self.results.values() if r.ended is Outcome.FAILED]
        why = ""
        if failed:
            first = failed[0].short
            first = first if len(first) <= 80 else first[:79] + "…"
            why = f" ({first}" + (f"; and {len(failed) - 1} more)" if len(failed) > 1 else ")")
        words = [
            f"{counts[Outcome.DONE]} done",
            f"{counts[Outcome.FAILED]} failed{why}",
            f"{counts[Outcome.UNKNOWN]} unknown",
        ]
        if counts[Outcome.ALREADY]:
            words.insert(1, f"{counts[Outcome.ALREADY]} already so")
        if counts[Outcome.NOT_SENT]:
            words.append(f"{counts[Outcome.NOT_SENT]} not sent")
        return ", ".join(words)


def _reason(error: HubError) -> str:
    """``409: Conflict``: the status and the server's own word for it, or hubtui's words."""
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


def _stopped(step: DecidedRow, logged: Change | None) -> Result:
    """A row whose wait was given up (escape, a signal), as its log says it ended: not sent
    (nothing left, or it never began), as answered before the stop, else unknown."""
    if logged is None or logged.detail == NOT_SENT_WORDS:
        return Result(step, Outcome.NOT_SENT, STOPPED_BEFORE)
    if logged.outcome in (Outcome.DONE, Outcome.FAILED):  # answered before the stop
        message = "" if logged.outcome == Outcome.DONE else logged.detail
        return Result(step, Outcome(str(logged.outcome)), message, logged)
    return Result(step, Outcome.UNKNOWN, logged.detail, logged)


def _ended(step: DecidedRow, sent: Sent) -> Result:
    """A row sent, as it ended: done, already so (not by it), failed or unknown, with the
    server's words and a short reason for a summary."""
    if sent.already:
        return Result(step, Outcome.ALREADY, sent.change.detail, sent.change)
    ended = sent.outcome if sent.outcome != Outcome.PENDING else Outcome.UNKNOWN
    message = "" if ended is Outcome.DONE else str(sent.error or sent.change.detail)
    reason = "" if sent.error is None else _reason(sent.error)
    return Result(step, ended, message, sent.change, reason)
