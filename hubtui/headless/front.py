"""The command as the front of every workflow (:class:`~hubtui.core.workflows.ports.Front`),
implemented once: the preview on stdout (``> plan.txt`` keeps it), progress and outcomes on
stderr, the question on the terminal (unless ``--yes``), a dry run's exact requests, the results
file beside a file applied, and the exit status.

The workflow sends; this only shows and asks. A hang-up or SIGTERM while a batch is sending
cancels it: every row in flight is already in the change log, and the command exits 128 + the
signal's number.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.files import refusal_words
from hubtui.core.presenting.names import match_hub
from hubtui.core.workflows.engine import (
    SETTLING,
    TYPE_THE_COUNT_ABOVE,
    Outcome,
    Verdict,
    write_results,
)
from hubtui.headless.output import NOT_SENT, NOTHING, OK, REFUSED, UNKNOWN_OUTCOME, StatusLine, Stop
from hubtui.headless.tables import resolve_hub
from hubtui.text import command_line, inert, lookalike

if TYPE_CHECKING:
    import argparse

    from hubtui.api import ChangeRequest, Hub, HubClient
    from hubtui.core.people.review import Offboarding
    from hubtui.core.people.search import Progress
    from hubtui.core.people.why import ProjectNamed
    from hubtui.core.workflows.engine import Applied, Batch, DecidedRow, Preview, Result, RowOfFile
    from hubtui.core.workflows.ports import Question
    from hubtui.core.workflows.reviewed import Kept
    from hubtui.core.workspace import Workspace

__all__ = [
    "CommandFront",
    "ask",
    "confirm",
    "print_preview",
    "read_only_words",
    "said_yes",
    "status_of",
]


class CommandFront:
    """A command as the front of a workflow. ``path`` and ``header``: the file applied (its
    results file is written beside it); ``hubs``: how many hubs an offboarding searched;
    ``display_names``: a hub may also be given by its exact DisplayName (``why``)."""

    def __init__(
        self,
        args: argparse.Namespace,
        client: HubClient,
        workspace: Workspace,
        *,
        path: Path | None = None,
        header: Sequence[str] = (),
        hubs: int = 0,
        display_names: bool = False,
    ) -> None:
        self.args, self.client, self.workspace = args, client, workspace
        self.path, self.header = path, header
        self._hubs, self._display_names = hubs, display_names
        #: The command's exit status, once the workflow ended.
        self.status = OK
        self._status = StatusLine()
        self._offboarding: Offboarding | None = None
        self._hung_up: list[int] = []

    @property
    def dry_run(self) -> bool:
        return bool(getattr(self.args, "dry_run", False))

    # Finding ---------------------------------------------------------------------------------

    async def find_hub(self, given: str) -> Hub:
        """:func:`~hubtui.headless.tables.resolve_hub`, a hub not taken said in words (and,
        for ``why``, the one hub displayed under exactly the DisplayName given)."""
        try:
            return await resolve_hub(self.client, given)
        except Stop as stop:
            if self._display_names:
                return await self._displayed(given, stop)
            raise LookupError(stop.message) from None

    async def _displayed(self, given: str, stop: Stop) -> Hub:
        """The hub displayed under exactly ``given`` (never a lookalike, never one of
        several); none: exit 2, naming it."""
        found = match_hub(await self.client.list_hubs(), given)
        hub = found.offer if found.by_display_name else None
        shown = None if hub is None else hub.display_name
        if hub is None or shown != given.strip() or lookalike(shown or "") is not None:
            raise Stop(NOT_SENT, stop.message) from None
        print(
            f"hubtui: “{inert(given)}” is the DisplayName of hub {inert(hub.name)}: answering "
            "for that hub.",
            file=sys.stderr,
        )
        return hub

    def several_projects(self, named: ProjectNamed) -> None:
        return None  # said as the ticket's refusal: give one by its Id (exit 2)

    def searching(self, progress: Progress) -> None:
        self._status.say(progress.line())

    def found(self, answer: Offboarding) -> None:
        """Where an offboarded person is, each account by Id, and what was not read."""
        self._status.clear()
        self._offboarding = answer
        for hub, person in answer.places:
            account = f"{inert(person.email)} (Id {inert(person.person.id)})"
            print(
                f"{inert(hub.name)}: {account}, {inert(person.hub_role or 'not a hub user')}, "
                f"projects {inert(person.projects_words(), limit=None)}",
                file=sys.stderr,
            )
        if answer.not_read:
            print("Incomplete: not read (they may have access there too):", file=sys.stderr)
            for words in answer.not_read:
                print(f"  {inert(words, limit=None)}", file=sys.stderr)
        if not answer.rows:
            raise Stop(
                NOTHING,
                f"{inert(answer.email)} has no access to remove in {self._hubs} hub(s).",
            )

    def reading(self, done: int, total: int) -> None:
        self._status.say(f"Reading each project's users again: {done} / {total}")
        if done == total:
            self._status.clear()

    # The preview and the question ------------------------------------------------------------

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile], question: Question) -> None:
        for note in question.notes:
            print(inert(note, limit=None), file=sys.stderr)
        print_preview(preview, refused)

    async def ask(self, preview: Preview, question: Question) -> Preview:
        count = sum(1 for step in preview.steps if step.verdict is Verdict.SEND)
        await confirm(
            self.args,
            count,
            act=question.act,
            without_terminal=question.without_terminal,
            not_sent=question.not_sent,
        )
        return preview

    def would_send(self, requests: Sequence[ChangeRequest]) -> None:
        for request in requests:
            body = (  # a removal has none: nothing is printed for it
                ""
                if request.body is None
                else "\n" + inert(json.dumps(request.body, ensure_ascii=False), limit=None)
            )
            # The dry run's answer: exactly the request, on stdout.
            print(f"Would send: {request.method} {inert(request.url, limit=None)}{body}")
        print("(dry run: nothing was sent)", file=sys.stderr)

    def nothing_to_send(self, preview: Preview) -> None:
        print("Nothing to send.", file=sys.stderr)

    # Sending ---------------------------------------------------------------------------------

    def sending(self, batch: Batch, stop: asyncio.Event) -> None:
        reverts = f" (reverts {inert(batch.reverts)})" if batch.reverts else ""
        print(f"Batch {batch.id}{reverts}", file=sys.stderr)
        task = asyncio.current_task()

        def hang_up(number: int) -> None:
            self._hung_up.append(number)
            if task is not None:
                task.cancel()

        loop = asyncio.get_running_loop()
        for number in (signal.SIGHUP, signal.SIGTERM):
            loop.add_signal_handler(number, hang_up, number)

    def came(self, batch: Batch, result: Result) -> None:
        ended = sum(batch.outcome_counts().values())
        self._status.say(
            f"Sending batch {batch.id}: {ended} / {len(batch.steps)} · {batch.summary()}"
        )

    def settling(self) -> None:
        self._status.say(SETTLING)

    def interrupted(self, batch: Batch, error: BaseException) -> None:
        self._signals_back()
        if not isinstance(error, asyncio.CancelledError):
            self._status.clear()
            return  # said by the command's end, whatever it was
        if self._hung_up:  # the terminal may be gone: every row's line is in the change log
            raise SystemExit(128 + self._hung_up[0]) from None
        self._status.clear()
        _print_outcomes(batch)
        print(
            "Stopped: the changes in flight are logged unknown; the rest were not sent. "
            f"Run the same command again to check them and send the rest: {batch.summary()}",
            file=sys.stderr,
        )

    def sent(self, applied: Applied, kept: Kept | None) -> None:
        self._signals_back()
        self._status.clear()
        batch = applied.batch
        _print_outcomes(batch)
        print(f"Batch {batch.id}: {inert(batch.summary(), limit=None)}", file=sys.stderr)
        if kept is not None:
            print(kept.words(), file=sys.stderr)

    def _signals_back(self) -> None:
        loop = asyncio.get_running_loop()
        for number in (signal.SIGHUP, signal.SIGTERM):
            loop.remove_signal_handler(number)

    # The end ---------------------------------------------------------------------------------

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        not_read = self._offboarding is not None and bool(self._offboarding.not_read)
        if self.dry_run:
            offboarding = self._offboarding is not None
            self.status = (
                (REFUSED if not_read else OK)
                if offboarding
                else status_of(rows, None, dry_run=True)
            )
            return
        if self.path is not None:
            say_results(self.path, self.header, rows, batch.id if batch else "(nothing sent)")
        if kept is not None:
            print(kept.words(), file=sys.stderr)
        self.status = status_of(rows, batch, dry_run=False)
        if self._offboarding is not None and batch is not None and _took_effect(batch):
            print(
                f"To put it back: {command_line('revert', batch.id)} (an invitation first: "
                "they get an email).",
                file=sys.stderr,
            )
        if not_read and self.status == OK:
            self.status = REFUSED


def _took_effect(batch: Batch) -> bool:
    return any(r.ended in (Outcome.DONE, Outcome.UNKNOWN) for r in batch.results.values())


def say_results(path: Path, header: Sequence[str], rows: Sequence[RowOfFile], batch: str) -> None:
    """The results file written beside the input, or why not (the outcomes are above and in
    the change log either way)."""
    try:
        results = write_results(path, header, rows, batch)
    except OSError as error:
        why = inert(refusal_words(path.parent, error))
        print(
            f"Results not written ({why}): the outcomes are above and in the change log.",
            file=sys.stderr,
        )
    else:
        print(f"Results: {inert(str(results))}", file=sys.stderr)


def print_preview(preview: Preview, refused: Sequence[RowOfFile]) -> None:
    """The preview is the command's answer: on stdout (``> plan.txt`` keeps it)."""
    for (_, _), steps in preview.groups().items():
        first = steps[0].wanted
        sending = sum(1 for s in steps if s.verdict is Verdict.SEND)
        print(f"{inert(first.hub_name)} · {inert(first.where)} ({sending} to send of {len(steps)})")
        for step in steps:
            print(f"  {_step_line(step)}")
    if refused:
        print("Rows not read as changes:")
        for row in refused:
            line = row.given.line if row.given else "?"
            who = inert(row.given.email) if row.given else ""
            print(f"  line {line} {who}: {inert(row.message, limit=None)}")
    total = preview.summary()
    if refused:
        total += f" · {len(refused)} not read as changes"
    print(f"Preview: {total}")


def _step_line(step: DecidedRow) -> str:
    action = step.change.action if step.change is not None else step.verdict.value
    line = f" (line {step.wanted.line})" if step.wanted.line is not None else ""
    # Whole: a confirmation shows all it confirms (what a removal ends can be long).
    return f"{action:<8} {inert(step.wanted.email)}{line}: {inert(step.words, limit=None)}"


async def confirm(
    args: argparse.Namespace,
    count: int,
    *,
    act: str = "Send",
    without_terminal: str = "add --yes to send the batch.",
    not_sent: str = "nothing was sent.",
) -> None:
    """Asked on a terminal, unless ``--yes``: ``y`` for a few changes, the count typed for more
    than :data:`TYPE_THE_COUNT_ABOVE`; anything else ends the command, nothing sent (``act``:
    what the question asks, ``Close campaign 3 and send``)."""
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise Stop(NOT_SENT, f"not asking without a terminal: {without_terminal}")
    if count > TYPE_THE_COUNT_ABOVE:
        typed = await ask(f"Type {count} to {act[:1].lower()}{act[1:]} these {count} changes: ")
        if typed != str(count):
            raise Stop(NOT_SENT, f"the count was not typed: {not_sent}")
        return
    plural = "s" if count != 1 else ""
    if (await ask(f"{act} {count} change{plural}? [y/N] ")).lower() not in ("y", "yes"):
        raise Stop(NOT_SENT, not_sent)


def _print_outcomes(batch: Batch) -> None:
    for position, step in enumerate(batch.steps):
        result = batch.results.get(position)
        ended = result.ended.value if result else Outcome.NOT_SENT.value
        why = f": {inert(result.message, limit=300)}" if result and result.message else ""
        where = inert(f"{step.wanted.where} ({step.wanted.hub_name})")
        print(f"  {ended:<8} {inert(step.wanted.email)} in {where}{why}", file=sys.stderr)


def status_of(rows: Sequence[RowOfFile], batch: Batch | None, *, dry_run: bool) -> int:
    """The exit status a batch's rows end with (the README's rules)."""
    verdicts = {row.verdict for row in rows}
    if Outcome.UNKNOWN in verdicts:
        return UNKNOWN_OUTCOME
    if Outcome.FAILED in verdicts or Verdict.NOT_READ in verdicts:
        return REFUSED
    refused = {Verdict.SKIP, Verdict.CHANGED, Outcome.NOT_SENT}
    if verdicts & refused:
        return NOT_SENT
    return OK


async def said_yes(question: str) -> bool:
    """Ask on the terminal; True for yes."""
    return (await ask(question)).lower() in ("y", "yes")


def read_only_words(args: argparse.Namespace) -> str:
    """Why no change is sent: offline, or read-only and where it was asked for."""
    if getattr(args, "offline", False):
        return "offline: the store answers every read, and nothing is sent to the server."
    return (
        "read-only is on (--read-only, HUBTUI_READ_ONLY or read_only in the config file): "
        "no change is sent."
    )


async def ask(question: str) -> str:
    """Ask on the terminal; the line typed, stripped. Ctrl+C ends the command at once: the
    answer is read on a thread of its own that nothing waits for at exit."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bytes] = loop.create_future()

    def read() -> None:
        try:
            line = os.read(sys.stdin.fileno(), 1024)
        except OSError:
            line = b""

        def give() -> None:
            if not answer.done():
                answer.set_result(line)

        loop.call_soon_threadsafe(give)

    print(question, end="", file=sys.stderr, flush=True)
    threading.Thread(target=read, daemon=True, name="hubtui-answer").start()
    reply = await answer
    return reply.decode(errors="replace").strip()
