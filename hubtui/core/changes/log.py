"""Every change hubtui tried, with its outcome: shown in the app, appended as JSON lines.

One idea: the write-ahead log whole: its lines, their fsync, reading them back, and the
unknown adds.

A change is written twice: as ``pending`` before its request leaves, and again, under the same
``id``, once its outcome is known (``done``, ``failed`` or ``unknown``). Whatever happens in
between (a signal, an SSH hang-up, a crash), the log holds the attempt. An add whose outcome is
unknown gets a third line when the project's list is checked (``checked``: found or not found).
Each line names the server, so changes to a demo and to a real server never mix, and holds what
changed and where, never the token. The file is the person's alone (0600, in a 0700 folder).
"""

from __future__ import annotations

import asyncio
import errno
import os
import uuid
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.changes.actions import (
    DONE,
    FAILED,
    NOT_SENT_WORDS,
    PENDING,
    UNKNOWN,
    Action,
    Checked,
    Outcome,
)
from hubtui.core.changes.kinds import ADDED_WORDS, kind_of
from hubtui.core.changes.record import (
    Change,
    line_of,
    owns,
    parse_line,
    unfinished_as_unknown,
)
from hubtui.core.clock import now
from hubtui.core.files import open_private, open_reading

if TYPE_CHECKING:
    #: The team's change lines of this server: of a hub, a project and an action when given.
    TeamLines = Callable[[str | None, str | None, str | None], list[str]]


class ChangeLogError(Exception):
    """The change log could not be written; the message names the file and why."""


class ChangeLog:
    """The session's changes (the latest state of each, oldest first), also appended to a file.

    Write-ahead: :meth:`begin` raises :class:`ChangeLogError` when the ``pending`` line cannot be
    written and flushed to disk, and then nothing may be sent. A later line (the outcome) that
    cannot be written is kept in :attr:`write_error`, with the line to add by hand.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        server: str = "",
        profile: str | None = None,
        aliases: tuple[str, ...] = (),
        operator: str | None = None,
        on_write_error: Callable[[str], None] | None = None,
        team_lines: TeamLines | None = None,
        team_on: Callable[[], bool] | None = None,
        on_outcome: Callable[[Change], None] | None = None,
    ) -> None:
        self.path = path
        #: The server's identity (its whole normalised base URL, :func:`server_identity`).
        self.server = server
        #: Older names of this same server in the file (lines written before the identity).
        self.aliases = aliases
        self.profile = profile
        #: The ``operator`` setting (None: the OS user at the host, found when first needed).
        self.operator_setting = operator
        self._operator: str | None = None
        self.changes: list[Change] = []
        self.write_error: str | None = None
        #: Told, in words that end with the line to add by hand, when an outcome is not logged.
        self.on_write_error = on_write_error
        # Where each change is in ``changes``, by id; the pending ones; the unchecked unknown
        # adds by project: a batch of 500 asks each of these without walking every change.
        self._at: dict[str, int] = {}
        self._pending: dict[str, None] = {}
        self._unknown_adds: dict[tuple[str, str], dict[str, None]] = {}
        # The flush to disk of what was appended: lines appended so far, lines surely on disk,
        # and the flushes under way (each with the lines it covers).
        self._appended = 0
        self._synced = 0
        self._syncs: list[tuple[int, asyncio.Future[None]]] = []
        # What take_in_unknown_adds has read of the file: how far, which file, and the adds whose
        # last line says unknown and unchecked (or pending: the process ended), by project.
        self._read_upto = 0
        self._file_id: tuple[int, int] | None = None
        self._file_unknown_adds: dict[tuple[str, str], dict[str, Change]] = {}
        self._file_adds: set[str] = set()
        #: The team's lines of this server, from the team store's audit trail (None: no team
        #: store): called with a hub, a project and an action to narrow them, or none.
        self.team_lines = team_lines
        #: Whether there is a team store now (None: whenever :attr:`team_lines` is set).
        self.team_on = team_on
        #: Told when a change's outcome is written (the app copies the lines to the team store).
        self.on_outcome = on_outcome
        #: The team's add lines by project, as last read off the event loop.
        self._team_adds: dict[tuple[str, str], list[str]] = {}

    @property
    def operator(self) -> str:
        """Who makes the changes of this log, as each line names them: found when the first
        change is begun, not at every start (a command that changes nothing never asks)."""
        if self._operator is None:
            from hubtui.core.changes.operator import operator_name

            self._operator = operator_name(self.operator_setting)
        return self._operator

    def owns(self, change: Change) -> bool:
        """Whether ``change`` was made on this server under this profile: a change of another
        server (another base URL, a path included) or profile is never settled or reverted here."""
        return owns(change, self.server, self.profile, self.aliases)

    @property
    def in_flight(self) -> list[Change]:
        """Changes whose request has left and whose answer has not come."""
        return [self.changes[self._at[i]] for i in self._pending]

    def _pending_of(self, change: Change) -> Change:
        return replace(
            change,
            outcome=PENDING,
            server=self.server,
            profile=self.profile,
            id=uuid.uuid4().hex[:12],
            operator=self.operator,
        )

    def begin(self, change: Change) -> Change:
        """Record a change about to be sent, as pending; returns it with its id."""
        change = self._pending_of(change)
        self._write(change)  # raises, and nothing is kept, when the line cannot be written
        self._keep(change)
        return change

    async def begin_sending(self, change: Change) -> Change:
        """:meth:`begin`, the flush to disk awaited off the event loop, so that the other
        changes of a batch go on meanwhile (the changes waiting share one flush). Stopped while
        it is flushed (a cancel), nothing is sent, and its outcome says so."""
        change = self._pending_of(change)
        error = self._write_line(change, flush=False)
        if error is not None:
            raise error  # nothing kept, nothing sent
        self._keep(change)
        try:
            await self._flushed()
        except asyncio.CancelledError:
            self.finish(change, FAILED, NOT_SENT_WORDS)
            raise
        except ChangeLogError as error:
            self.finish(change, FAILED, f"Not sent: {error}")
            raise
        return change

    def finish(
        self,
        change: Change,
        outcome: Outcome,
        detail: str = "",
        *,
        user_id: str | None = None,
        request_id: str | None = None,
        sent_to: str | None = None,
        flush: bool = True,
    ) -> Change:
        """Record how a change ended (once: a change already ended stays as it was logged).
        Without ``flush``, its line is written but not flushed to disk (:meth:`drained`)."""
        at = self._at.get(change.id)
        if at is not None and self.changes[at].outcome != PENDING:
            return self.changes[at]
        done = replace(
            change,
            time=now(),
            outcome=outcome,
            detail=detail,
            user_id=user_id or change.user_id,
            request_id=request_id or change.request_id,
            sent_to=sent_to or change.sent_to,
        )
        self._keep(done)
        self._write_outcome(done, flush=flush)
        if self.on_outcome is not None:
            self.on_outcome(done)
        return done

    async def finish_sending(
        self,
        change: Change,
        outcome: Outcome,
        detail: str = "",
        *,
        user_id: str | None = None,
        request_id: str | None = None,
        sent_to: str | None = None,
        wait: bool = True,
    ) -> Change:
        """:meth:`finish`, the line's flush to disk awaited off the event loop. With ``wait``
        false it returns once the line is written, before its flush (:meth:`drained` waits for
        that): a batch's next change need not wait for the outcome line of the one before."""
        done = self.finish(
            change,
            outcome,
            detail,
            user_id=user_id,
            request_id=request_id,
            sent_to=sent_to,
            flush=False,
        )
        if wait:
            try:
                await self._flushed()
            except ChangeLogError as error:
                self._unlogged(done, error)
        return done

    async def drained(self) -> None:
        """Once every line appended so far is flushed to disk (or said not to be)."""
        try:
            await self._flushed()
        except ChangeLogError as error:
            self._tell(str(error))

    def abandon_in_flight(self, why: str) -> None:
        """Every change still pending is now unknown: hubtui stops before its answer comes."""
        for change in self.in_flight:
            self.finish(change, UNKNOWN, why)

    async def read_team_adds(self, projects: Iterable[tuple[str, str]]) -> None:
        """Read the team's add lines of these projects off the event loop (a team store far
        away, or gone, never holds the screen), for :meth:`take_in_unknown_adds`."""
        if self.team_lines is None or (self.team_on is not None and not self.team_on()):
            return  # no team store: no thread, nothing read
        wanted = list(dict.fromkeys(projects))
        team_lines = self.team_lines

        def read() -> dict[tuple[str, str], list[str]]:
            if len(wanted) <= 4:
                return {(h, p): team_lines(h, p, Action.ADD) for h, p in wanted}
            found: dict[tuple[str, str], list[str]] = {where: [] for where in wanted}
            for line in team_lines(None, None, Action.ADD):  # a batch's projects: one query
                change = parse_line(line)
                if change is not None and (change.hub_id, change.project_id) in found:
                    found[change.hub_id, change.project_id].append(line)
            return found

        self._team_adds.update(await asyncio.to_thread(read))

    def take_in_unknown_adds(self, hub_id: str, project_id: str) -> list[Change]:
        """The unknown, unchecked adds to this project on this server that earlier runs left in
        the file, taken into this log so that :meth:`settle_adds` settles them before anything
        is sent again (a command is a new process: what the app kept in memory is gone)."""
        if self.path is None:
            return []
        self._read_file_adds()
        left = dict(self._file_unknown_adds.get((hub_id, project_id), {}))
        if self.team_lines is not None:  # a colleague's add left unknown is checked too
            lines = self._team_adds.get((hub_id, project_id))
            if lines is None:
                lines = self.team_lines(hub_id, project_id, Action.ADD)
            team = _unknown_adds_in(lines)
            for i, change in team.get((hub_id, project_id), {}).items():
                if i not in self._file_adds:  # this machine's own lines say the latest
                    left.setdefault(i, change)
        taken = [c for i, c in left.items() if self.owns(c) and i not in self._at]
        for change in taken:
            self._keep(change)
        return taken

    def _read_file_adds(self) -> None:
        """Read the file on from where the last call stopped (a batch of 500 adds reads each
        line once, not the whole file 500 times), keeping the adds whose last line leaves them
        unknown and unchecked; read again from the start when the file was replaced or cut."""
        assert self.path is not None
        try:
            with open_reading(self.path) as handle:
                info = os.fstat(handle.fileno())
                if (info.st_ino, info.st_dev) != self._file_id or info.st_size < self._read_upto:
                    self._file_id, self._read_upto = (info.st_ino, info.st_dev), 0
                    self._file_unknown_adds = {}
                handle.seek(self._read_upto)
                tail = handle.read()
        except OSError:
            return
        complete = tail.rfind(b"\n") + 1  # a line still being written is read next time
        self._read_upto += complete
        lines = tail[:complete].decode("utf-8", errors="replace").splitlines()
        _unknown_adds_in(lines, self._file_unknown_adds, self._file_adds)

    def unknown_add(self, hub_id: str, project_id: str, email: str) -> Change | None:
        """The unchecked unknown add of this email to this project, if any."""
        unknown = self._unknown_adds_of(hub_id, project_id)
        return next((c for c in unknown if c.is_unknown_add(hub_id, project_id, email)), None)

    def _unknown_adds_of(self, hub_id: str, project_id: str) -> list[Change]:
        """The unchecked unknown adds to this project, oldest first."""
        ids = self._unknown_adds.get((hub_id, project_id), {})
        return sorted((self.changes[self._at[i]] for i in ids), key=lambda c: self._at[c.id])

    def settling(
        self, hub_id: str, project_id: str, present: Iterable[str]
    ) -> list[tuple[Change, Checked]]:
        """What :meth:`settle_adds` would find for each unknown add of the project, given its
        members' emails (read only when there is one to settle: a list of 50,000 is not walked
        for nothing). Nothing is written."""
        unknown = self._unknown_adds_of(hub_id, project_id)
        if not unknown:
            return []
        emails = {person_key(e) for e in present}
        return [
            (c, Checked.FOUND if person_key(c.email) in emails else Checked.NOT_FOUND)
            for c in unknown
        ]

    def settle_adds(self, hub_id: str, project_id: str, present: Iterable[str]) -> list[Change]:
        """Settle the unknown adds of a project from its list of members' emails, and log it:
        found, the add reached the server (done); not found, nothing was added (failed)."""
        return [self._settle(c, found) for c, found in self.settling(hub_id, project_id, present)]

    def settle(self, change: Change, took: bool, words: str) -> Change:
        """Settle a change whose outcome was unknown from the list read again (``took``: it
        took effect, done; else failed), saying what the list showed (its kind's ``words``),
        and log it."""
        return self._settle(change, Checked.FOUND if took else Checked.NOT_FOUND, words)

    def _settle(self, change: Change, checked: Checked, words: str | None = None) -> Change:
        if checked is Checked.FOUND:
            outcome = DONE
            words = words or ADDED_WORDS[0]
        else:
            outcome = FAILED
            words = words or ADDED_WORDS[1]
        by = self.operator
        settled = replace(
            change,
            time=now(),
            checked=checked,
            outcome=outcome,
            detail=f"Checked by {by}: {words}." if by != change.operator else f"Checked: {words}.",
            checked_by=by,
        )
        self._replace(settled)
        return settled

    def _replace(self, change: Change) -> None:
        self._keep(change)
        self._write_outcome(change)

    def _keep(self, change: Change) -> None:
        """Keep ``change`` as the latest state of its id (in place, or added last)."""
        at = self._at.get(change.id)
        if at is None:
            self._at[change.id] = len(self.changes)
            self.changes.append(change)
        else:
            self.changes[at] = change
        if change.outcome == PENDING:
            self._pending[change.id] = None
        else:
            self._pending.pop(change.id, None)
        where = (change.hub_id, change.project_id)
        if change.is_unknown_add(*where):
            self._unknown_adds.setdefault(where, {})[change.id] = None
        elif change.id in self._unknown_adds.get(where, {}):
            del self._unknown_adds[where][change.id]

    def _write_outcome(self, change: Change, *, flush: bool = True) -> None:
        """Append an outcome's line; one that cannot be written is said, with the line."""
        error = self._write_line(change, flush=flush)
        if error is not None:
            self._unlogged(change, error)

    def _unlogged(self, change: Change, error: ChangeLogError) -> None:
        self._tell(f"{error} The line it should hold: {line_of(change)}")

    def _tell(self, message: str) -> None:
        """Keep and tell why a line is not (or not surely) in the file."""
        self.write_error = message
        if self.on_write_error is not None:
            self.on_write_error(message)

    def _write(self, change: Change) -> None:
        """Append one line, flushed to disk, or raise :class:`ChangeLogError`."""
        error = self._write_line(change)
        if error is not None:
            raise error

    def _write_line(self, change: Change, *, flush: bool = True) -> ChangeLogError | None:
        """Append the change's line and, with ``flush``, flush the file to disk (``fsync``):
        None when done, or why not."""
        if self.path is None:
            return None
        line = (line_of(change) + "\n").encode()
        try:
            descriptor = open_private(self.path)
            try:
                _check_room(descriptor, len(line))
                written = os.write(descriptor, line)
                if written != len(line):  # a size limit or a full disk cut it short
                    raise OSError(errno.ENOSPC, "only part of the line could be written")
                self._appended += 1
                if flush:
                    os.fsync(descriptor)  # a pending line must survive what comes next
                    self._synced = self._appended
            finally:
                os.close(descriptor)
        except OSError as exc:
            return self._error(exc)
        return None

    def _error(self, exc: OSError) -> ChangeLogError:
        why = exc.strerror or str(exc)
        if exc.errno == errno.ELOOP:
            why = "it is a symbolic link, which hubtui does not follow"
        return ChangeLogError(f"Could not write the change log {self.path}: {why}.")

    async def _flushed(self) -> None:
        """Wait until every line appended so far is flushed to disk (or raise
        :class:`ChangeLogError`), off the event loop: a flush started after the last of them
        was appended is shared, and otherwise one is started at once (never queued behind an
        older one)."""
        if self.path is None or self._synced >= self._appended:
            return
        needed = self._appended
        job = next((job for upto, job in self._syncs if upto >= needed), None)
        if job is None:
            job = asyncio.get_running_loop().run_in_executor(None, self._sync_to_disk)
            entry = (needed, job)
            self._syncs.append(entry)

            def synced(job: asyncio.Future[None]) -> None:
                self._syncs.remove(entry)
                if not job.cancelled() and job.exception() is None:
                    self._synced = max(self._synced, needed)

            job.add_done_callback(synced)
        await asyncio.shield(job)

    def _sync_to_disk(self) -> None:
        """Flush the file to disk (in a thread), or raise :class:`ChangeLogError`."""
        assert self.path is not None
        try:
            descriptor = open_private(self.path)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        except OSError as exc:
            raise self._error(exc) from None


def _unknown_adds_in(
    lines: Iterable[str],
    found: dict[tuple[str, str], dict[str, Change]] | None = None,
    seen: set[str] | None = None,
) -> dict[tuple[str, str], dict[str, Change]]:
    """The adds whose last line among ``lines`` leaves them unknown and unchecked (or pending:
    the process ended), by project, added to ``found``; ``seen`` gathers every add's id."""
    found = {} if found is None else found
    for line in lines:
        change = parse_line(line)
        if change is None or not kind_of(change).held_until_checked:
            continue
        if seen is not None:
            seen.add(change.id)
        change = unfinished_as_unknown(change)
        where = (change.hub_id, change.project_id)
        if change.is_unknown_add(*where):
            found.setdefault(where, {})[change.id] = change
        elif change.id in found.get(where, {}):
            del found[where][change.id]
    return found


def _check_room(descriptor: int, size: int) -> None:
    """Refuse a line a file-size limit would cut, rather than leave half a line behind."""
    import resource

    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and os.fstat(descriptor).st_size + size > limit:
        raise OSError(errno.EFBIG, "the file has reached the size limit set for this process")
